//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
)

// The environment that makes the test binary run the CLI instead of the
// tests: the file size limit to set, and the arguments joined by newlines.
const (
	childFsize = "NETKIT_TEST_CLI_FSIZE"
	childArgs  = "NETKIT_TEST_CLI_ARGS"
)

func TestMain(m *testing.M) {
	if v := os.Getenv(childFsize); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			panic(err)
		}
		var r syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &r); err != nil {
			panic(err)
		}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: r.Max}); err != nil {
			panic(err)
		}
		os.Exit(run(strings.Split(os.Getenv(childArgs), "\n"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// A small ONNX model whose .nk is a few KiB.
var smallONNX = filepath.Join(fashion, "layout_mix.onnx")

// copyTo copies src into dir as name and returns the path and the bytes.
func copyTo(t *testing.T, src, dir, name string) (string, []byte) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p, b
}

// dirEntries lists dir, to catch temporary files left behind.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func assertFileBytes(t *testing.T, want []byte, path string) {
	t.Helper()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "%s changed", path)
}

// convert refuses to write over its input, however the output names it.
func TestConvertRefusesToOverwriteInput(t *testing.T) {
	dir := t.TempDir()
	src, orig := copyTo(t, smallONNX, dir, "x.onnx")
	require.NoError(t, os.Symlink("x.onnx", filepath.Join(dir, "sym.onnx")))
	require.NoError(t, os.Link(src, filepath.Join(dir, "hard.onnx")))
	for _, dst := range []string{src, dir + "/./x.onnx", filepath.Join(dir, "sym.onnx"), filepath.Join(dir, "hard.onnx")} {
		code, _, stderr := cli(t, "convert", src, "-o", dst)
		assert.Equal(t, 2, code, dst)
		assert.Contains(t, stderr, `netkit convert: output "`+dst+`" is the input file; choose another -o`)
		assertFileBytes(t, orig, src)
	}
	assert.ElementsMatch(t, []string{"x.onnx", "sym.onnx", "hard.onnx"}, dirEntries(t, dir))
}

func TestRunRefusesToOverwriteModelOrInput(t *testing.T) {
	dir := t.TempDir()
	mdl, mdlBytes := copyTo(t, model("mlp.nk"), dir, "mlp.nk")
	in, inBytes := copyTo(t, model("mlp.input.npy"), dir, "in.npy")

	code, _, stderr := cli(t, "run", mdl, "--output", mdl)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `netkit run: --output "`+mdl+`" is the model file; choose another --output`)
	assertFileBytes(t, mdlBytes, mdl)

	code, _, stderr = cli(t, "run", mdl, "--input", in, "--output", dir+"/./in.npy")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `netkit run: --output "`+dir+`/./in.npy" is the --input file "`+in+`"`)
	assertFileBytes(t, inBytes, in)
}

// A model named like the C file aot would write is not overwritten.
func TestAotRefusesToOverwriteInput(t *testing.T) {
	dir := t.TempDir()
	src, orig := copyTo(t, model("tiny_relu.nk"), dir, "tiny.c")
	code, _, stderr := cli(t, "aot", src, "-o", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `output "`+src+`" is the input file`)
	assertFileBytes(t, orig, src)
	assert.Equal(t, []string{"tiny.c"}, dirEntries(t, dir))
}

// A write that fails part way (here the file size limit, EFBIG, which
// root cannot bypass as it can a read-only folder) leaves the old output
// as it was and no temporary file behind.
func TestConvertFailedWriteKeepsOldOutput(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.nk")
	old := bytes.Repeat([]byte("old output "), 50)
	require.NoError(t, os.WriteFile(dst, old, 0o644))

	// The limit is process-wide, so the CLI runs in a child (this test
	// binary, see TestMain): in the test process it would also fail go
	// test's own log writes. Go ignores SIGXFSZ, so writes fail with EFBIG
	// past the limit.
	const limit = 2048
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", childFsize, limit),
		childArgs+"="+strings.Join([]string{"convert", smallONNX, "-o", dst}, "\n"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, stderr.String(), "file too large")
	assertFileBytes(t, old, dst)
	assert.Equal(t, []string{"out.nk"}, dirEntries(t, dir))

	// The same conversion without the limit makes a file past it.
	code, _, errText := cli(t, "convert", smallONNX, "-o", dst)
	require.Equal(t, 0, code, errText)
	fi, err := os.Stat(dst)
	require.NoError(t, err)
	assert.Greater(t, fi.Size(), int64(limit))
}

// A service that has the old output mmap'd keeps reading the old bytes
// when convert rewrites the path (rewriting the inode in place would
// change them under it, or SIGBUS it when the file shrinks).
func TestConvertKeepsMappedOldOutput(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.nk")
	old := bytes.Repeat([]byte{0xA5}, 1024) // smaller than the new file, so the old code would not SIGBUS
	require.NoError(t, os.WriteFile(dst, old, 0o644))
	f, err := os.Open(dst)
	require.NoError(t, err)
	defer f.Close()
	mapped, err := syscall.Mmap(int(f.Fd()), 0, len(old), syscall.PROT_READ, syscall.MAP_SHARED)
	require.NoError(t, err)
	defer syscall.Munmap(mapped)

	code, _, stderr := cli(t, "convert", smallONNX, "-o", dst)
	require.Equal(t, 0, code, stderr)

	assert.True(t, bytes.Equal(old, mapped), "the mapped old output changed")
	img, err := os.ReadFile(dst)
	require.NoError(t, err)
	_, err = nkfile.Decode(img)
	require.NoError(t, err, "the path holds the new model")
	assert.Equal(t, []string{"out.nk"}, dirEntries(t, dir))
}

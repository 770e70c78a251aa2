//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
)

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

	// The limit is process-wide; nothing else in this package writes files
	// concurrently (no t.Parallel). Go ignores SIGXFSZ, so writes fail with
	// EFBIG past the limit.
	var saved syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &saved))
	const limit = 2048
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: saved.Max}))
	code, _, stderr := cli(t, "convert", smallONNX, "-o", dst)
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &saved))

	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "file too large")
	assertFileBytes(t, old, dst)
	assert.Equal(t, []string{"out.nk"}, dirEntries(t, dir))

	// The same conversion without the limit makes a file past it.
	code, _, stderr = cli(t, "convert", smallONNX, "-o", dst)
	require.Equal(t, 0, code, stderr)
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

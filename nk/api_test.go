package nk_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine/conformance"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
	"github.com/netkit/netkit/nkc"
)

// nk compiles the core in: WithLibrary is refused, not ignored.
func TestWithLibraryRefused(t *testing.T) {
	path := conformance.ModelPath(t, "mlp.nk")
	_, err := nk.Load(path, nk.WithLibrary("/usr/lib/libnetkit.so"))
	require.Error(t, err)
	assert.ErrorIs(t, err, nk.ErrArg)
	assert.Contains(t, err.Error(), "only package nkc loads a shared library")
	_, err = nk.Inspect(path, nk.WithLibrary("x.so"))
	assert.ErrorIs(t, err, nk.ErrArg)
	m, err := nk.Load(path)
	require.NoError(t, err)
	require.NoError(t, m.Close())
}

// The host heap's failure is ErrOutOfMemory, never ErrArenaOverflow.
func TestOutOfHostMemory(t *testing.T) {
	_, err := nk.Load(conformance.ModelPath(t, "mlp.nk"), nk.WithArenaSize(1<<50))
	require.Error(t, err)
	assert.ErrorIs(t, err, nk.ErrOutOfMemory)
	assert.NotErrorIs(t, err, nk.ErrArenaOverflow)
	_, err = nk.Load(conformance.ModelPath(t, "mlp.nk"), nk.WithArenaSize(100))
	assert.ErrorIs(t, err, nk.ErrArenaOverflow)
	assert.NotErrorIs(t, err, nk.ErrOutOfMemory)
}

// The public Report carries every field of the engine's, with its value.
func TestReportFields(t *testing.T) {
	for _, name := range []string{"mlp.nk", "branch.nk"} {
		path := conformance.ModelPath(t, name)
		pub, err := nk.Inspect(path)
		require.NoError(t, err)
		rt, err := nk.EngineInspect(path)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%+v", *rt), fmt.Sprintf("%+v", *pub), name)
		m, err := nk.Load(path)
		require.NoError(t, err)
		in := m.Inputs()
		assert.Equal(t, fmt.Sprintf("%+v", rt.Inputs), fmt.Sprintf("%+v", in))
		require.NoError(t, m.Close())
	}
}

// Without cgo, building nk fails with one error that names package nkc.
func TestBuildWithoutCgo(t *testing.T) {
	cmd := exec.Command("go", "build", "github.com/netkit/netkit/nk")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "nk built without cgo")
	assert.Contains(t, string(out), "nk_needs_cgo__for_CGO_ENABLED_0_use_package_github_com_netkit_netkit_nkc")
	assert.Equal(t, 1, strings.Count(string(out), "undefined:"), "%s", out)
	cmd = exec.Command("go", "build", "github.com/netkit/netkit/nkc")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "nkc must build without cgo: %s", out)
}

// A user's program outside the module, built against this checkout with a
// replace directive: go doc shows the methods of the public types of nk
// and nkc, and the program runs the MLP through nk and reads its input with
// nk/npy, matching PyTorch's output.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with cgo")
	}
	host, err := exec.Command("go", "env", "GOHOSTARCH").Output()
	require.NoError(t, err)
	if strings.TrimSpace(string(host)) != runtime.GOARCH {
		t.Skip("a cross test (under qemu-user): the program built for the target cannot run here")
	}
	root := conformance.ModuleRoot(t)
	dir := t.TempDir()
	gomod := "module example.com/user\n\ngo 1.26\n\nrequire github.com/netkit/netkit v0.0.0\n\nreplace github.com/netkit/netkit => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	const prog = `package main

import (
	"fmt"
	"os"

	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nk/npy"
)

func main() {
	m, err := nk.Load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer m.Close()
	a, err := npy.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	x, _ := a.F32()
	out, err := m.Predict(x[:m.Inputs()[0].Elems()])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, v := range out {
		fmt.Println(v)
	}
}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644))
	goCmd := func(args ...string) string {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %v: %s", args, out)
		return string(out)
	}
	for _, pkg := range []string{"github.com/netkit/netkit/nk", "github.com/netkit/netkit/nkc"} {
		doc := goCmd("doc", pkg, "Model")
		for _, method := range []string{"Close() error", "Run(in, out []float32) error", "Predict(in []float32) ([]float32, error)",
			"RunMulti(ins, outs [][]float32) error", "RunRaw(ins, outs [][]byte) error", "NewSession() (*Session, error)",
			"Report() (*Report, error)", "Inputs() []TensorInfo", "Labels() []string"} {
			assert.Contains(t, doc, "func (m *Model) "+method, pkg)
		}
		assert.Contains(t, goCmd("doc", pkg, "Session"), "func (s *Session) Run(in, out []float32) error", pkg)
		info := goCmd("doc", pkg, "TensorInfo")
		assert.Contains(t, info, "ZeroPoint int32", pkg)
		assert.Contains(t, info, "func (t TensorInfo) Elems() int", pkg)
		assert.Regexp(t, `\n\tOps +\[\]OpInfo\n`, goCmd("doc", pkg, "Report"), pkg)
		// The error and element types are the package's own, methods and all.
		for typ, methods := range map[string][]string{
			"Status": {"func (s Status) Error() string", "func (s Status) Is(target error) bool"},
			"Error": {"func (e *Error) Error() string", "func (e *Error) Is(target error) bool",
				"func (e *Error) Unwrap() error", "Requested int64"},
			"DType":  {"func (d DType) Size() int", "func (d DType) String() string", "const F32 DType = DType("},
			"Layout": {"func (l Layout) String() string", "const LayoutNative Layout = Layout("},
		} {
			doc := goCmd("doc", pkg, typ)
			assert.NotContains(t, doc, "= engine.", "%s.%s is an alias", pkg, typ)
			for _, m := range methods {
				assert.Contains(t, doc, m, "%s.%s", pkg, typ)
			}
		}
	}
	goCmd("build", "-o", "user", ".")
	out, err := exec.Command(filepath.Join(dir, "user"), conformance.ModelPath(t, "mlp.nk"),
		conformance.ModelPath(t, "mlp.input.npy")).CombinedOutput()
	require.NoError(t, err, string(out))
	want, err := npy.ReadFile(conformance.ModelPath(t, "mlp.expected.npy"))
	require.NoError(t, err)
	wantF, err := want.F32()
	require.NoError(t, err)
	lines := strings.Fields(string(out))
	require.Len(t, lines, 10)
	for i, l := range lines {
		var v float32
		_, err := fmt.Sscan(l, &v)
		require.NoError(t, err)
		assert.InDelta(t, wantF[i], v, 1e-5, "output %d", i)
	}
}

// One package's options are not the other's: nkc.WithLibrary given to
// nk.Load does not compile (the types differ), so it cannot be ignored.
func TestOptionTypesDiffer(t *testing.T) {
	assert.NotEqual(t, reflect.TypeOf(nk.WithCopy()), reflect.TypeOf(nkc.WithCopy()))
	assert.False(t, reflect.TypeOf(nkc.WithCopy()).AssignableTo(reflect.TypeOf(nk.WithCopy())))
	v, err := nk.Version()
	require.NoError(t, err)
	lib := conformance.SharedLibrary(t)
	t.Setenv("NETKIT_LIB", lib)
	w, err := nkc.Version()
	require.NoError(t, err)
	assert.Equal(t, v, w, "nk and nkc over the same sources")
	a, err := nk.ABIVersion()
	require.NoError(t, err)
	b, err := nkc.ABIVersion()
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

//go:build darwin || freebsd || linux || netbsd

package nkc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine"
	"github.com/netkit/netkit/internal/engine/conformance"
)

func TestSearchOrder(t *testing.T) {
	lib := conformance.SharedLibrary(t)

	t.Run("NETKIT_LIB", func(t *testing.T) {
		t.Setenv("NETKIT_LIB", lib)
		b, err := search()
		require.NoError(t, err)
		assert.Equal(t, "purego", b.Name)

		t.Setenv("NETKIT_LIB", filepath.Join(t.TempDir(), "nope.so"))
		_, err = search()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "$NETKIT_LIB")
	})

	t.Run("ExecutableFolder", func(t *testing.T) {
		t.Setenv("NETKIT_LIB", "")
		exe, err := os.Executable()
		require.NoError(t, err)
		next := filepath.Join(filepath.Dir(exe), libNames[0])
		img, err := os.ReadFile(lib)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(next, img, 0o755))
		defer os.Remove(next)
		b, err := search()
		require.NoError(t, err)
		assert.NotEmpty(t, b.Version())
	})

	// A runtime-only install has only libnetkit.so.<ABI> (no -dev symlink).
	t.Run("ExecutableFolderVersioned", func(t *testing.T) {
		t.Setenv("NETKIT_LIB", "")
		exe, err := os.Executable()
		require.NoError(t, err)
		next := filepath.Join(filepath.Dir(exe), libNames[1])
		require.Contains(t, next, fmt.Sprint(engine.ABIVersion))
		img, err := os.ReadFile(lib)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(next, img, 0o755))
		defer os.Remove(next)
		_, err = os.Stat(filepath.Join(filepath.Dir(exe), libNames[0]))
		require.True(t, os.IsNotExist(err))
		b, err := search()
		require.NoError(t, err)
		assert.NotEmpty(t, b.Version())
	})

	t.Run("NotFound", func(t *testing.T) {
		t.Setenv("NETKIT_LIB", "")
		_, err := search()
		if err == nil {
			t.Skip("a libnetkit is installed for the system loader")
		}
		for _, name := range libNames {
			assert.Contains(t, err.Error(), name)
		}
		assert.Contains(t, err.Error(), "NETKIT_LIB")
	})
}

// fakeLibrary builds a shared library from C source with cc.
func fakeLibrary(t *testing.T, src string) string {
	dir := t.TempDir()
	c := filepath.Join(dir, "fake.c")
	require.NoError(t, os.WriteFile(c, []byte(src), 0o644))
	so := filepath.Join(dir, "libfake.so")
	out, err := exec.Command("cc", "-shared", "-fPIC", "-o", so, c).CombinedOutput()
	require.NoError(t, err, string(out))
	return so
}

func TestMissingSymbols(t *testing.T) {
	so := fakeLibrary(t, "unsigned nk_abi_version(void) { return 1; }\n")
	_, err := openLibrary(so)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nk_model_load_buffer")
	assert.NotContains(t, err.Error(), "nk_abi_version,")
}

func TestABIVersionMismatch(t *testing.T) {
	var src strings.Builder
	var l lib
	for _, s := range l.symbols() {
		if s.name != "nk_abi_version" {
			src.WriteString("void " + s.name + "(void) {}\n")
		}
	}
	src.WriteString("unsigned nk_abi_version(void) { return 99; }\n")
	_, err := openLibrary(fakeLibrary(t, src.String()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ABI version 99")
}

package srchash

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// SumTree sees every file under its paths (not only C sources), ignores dot
// files and folders, and does not see files elsewhere.
func TestSumTree(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("toolchains/m4.cmake", "a")
	write("csrc/x.c", "int x;")
	write("CMakeLists.txt", "project(x)")
	write("docs/README.md", "docs")
	paths := []string{"CMakeLists.txt", "csrc", "toolchains", "absent"}
	sum := func() string {
		s, err := SumTree(root, paths)
		require.NoError(t, err)
		return s
	}
	base := sum()
	write("docs/README.md", "other docs")
	write("toolchains/.swp", "editor")
	write("csrc/.git/HEAD", "ref")
	require.Equal(t, base, sum(), "files outside the paths and dot files do not count")
	write("toolchains/m4.cmake", "b")
	changed := sum()
	require.NotEqual(t, base, changed, "a toolchain file is a build input")
	write("CMakeLists.txt", "project(y)")
	require.NotEqual(t, changed, sum(), "a single file given as a path counts")
}

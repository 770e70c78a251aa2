package cliutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dirNames lists the entries of dir, to catch leftover temporary files.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestReplaceFileErrorKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.nk")
	require.NoError(t, os.WriteFile(p, []byte("old contents"), 0o644))
	boom := errors.New("disk on fire")
	err := ReplaceFile(p, func(w io.Writer) error {
		_, werr := w.Write([]byte("half of the new"))
		require.NoError(t, werr)
		return boom
	})
	require.ErrorIs(t, err, boom)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "old contents", string(got))
	assert.Equal(t, []string{"out.nk"}, dirNames(t, dir))
}

func TestWriteFileModes(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.nk")
	require.NoError(t, WriteFile(fresh, []byte("new")))
	assertSameModeAsWriteFile(t, fresh)

	kept := filepath.Join(dir, "kept.nk")
	require.NoError(t, os.WriteFile(kept, []byte("old"), 0o600))
	require.NoError(t, os.Chmod(kept, 0o640)) // past the umask
	require.NoError(t, WriteFile(kept, []byte("new")))
	fi, err := os.Stat(kept)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
	got, err := os.ReadFile(kept)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	assert.ElementsMatch(t, []string{"fresh.nk", "kept.nk"}, dirNames(t, dir))
}

// A symlink at the destination is followed: the target gets the new bytes
// and the link stays a link.
func TestWriteFileFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.nk"), filepath.Join(dir, "link.nk")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	require.NoError(t, os.Symlink("target.nk", link))
	require.NoError(t, WriteFile(link, []byte("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink)
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
}

// assertSameModeAsWriteFile: the new file p has the mode os.WriteFile gives
// a new file under the current umask.
func assertSameModeAsWriteFile(t *testing.T, p string) {
	t.Helper()
	ref := filepath.Join(t.TempDir(), "ref")
	require.NoError(t, os.WriteFile(ref, nil, 0o666))
	want, err := os.Stat(ref)
	require.NoError(t, err)
	got, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, want.Mode().Perm(), got.Mode().Perm())
}

// A dangling symlink is followed too: its target is created.
func TestWriteFileFollowsDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.nk"), filepath.Join(dir, "link.nk")
	require.NoError(t, os.Symlink("target.nk", link))
	require.NoError(t, WriteFile(link, []byte("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink)
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
}

func TestWriteFileRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	err := WriteFile(filepath.Join(dir, "d"), []byte("x"))
	require.ErrorContains(t, err, "is a directory")
	assert.Equal(t, []string{"d"}, dirNames(t, dir))
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	require.NoError(t, os.WriteFile(a, []byte("x"), 0o644))
	require.NoError(t, os.Symlink("a", filepath.Join(dir, "sym")))
	require.NoError(t, os.Link(a, filepath.Join(dir, "hard")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b"), []byte("x"), 0o644))
	assert.True(t, SameFile(a, filepath.Join(dir, ".", "a")))
	assert.True(t, SameFile(a, filepath.Join(dir, "sym")))
	assert.True(t, SameFile(a, filepath.Join(dir, "hard")))
	assert.False(t, SameFile(a, filepath.Join(dir, "b")))
	assert.False(t, SameFile(a, filepath.Join(dir, "missing")))
}

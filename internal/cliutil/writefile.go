package cliutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFile replaces path with data as ReplaceFile does.
func WriteFile(path string, data []byte) error {
	return ReplaceFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ReplaceFile gives path new contents, written by write, so that no reader
// ever sees a half-written file: the bytes go to a temporary file in path's
// folder, which is synced and then renamed over path. A reader that holds
// the old file open or mmap'd (a service running the model) keeps the old
// bytes, since the rename gives path a new inode; rewriting the old inode
// in place would change or truncate the pages under it (SIGBUS).
//
// On any error path is left as it was and the temporary file is removed.
// A new file gets mode 0666 less the umask (as os.WriteFile gives), an
// existing one keeps its mode, and a symlink at path is followed, dangling
// or not: its target is written and the link stays. An existing path that
// is not a regular file (a FIFO, /dev/stdout) is written in place, as there
// is nothing there to replace.
func ReplaceFile(path string, write func(w io.Writer) error) (err error) {
	if path, err = followLinks(path); err != nil {
		return err
	}
	keep := fs.FileMode(0)
	if fi, err := os.Stat(path); err == nil {
		switch {
		case fi.IsDir():
			return fmt.Errorf("%s is a directory", path)
		case !fi.Mode().IsRegular():
			return writeInPlace(path, write)
		}
		keep = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	f, err := createTemp(dir, "."+filepath.Base(path)+".tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the error that matters is err
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if keep != 0 {
		if err = f.Chmod(keep); err != nil {
			return err
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	// Make the rename itself durable; some file systems cannot sync a
	// directory, and the new file is complete either way.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// followLinks resolves symlinks at path, also a dangling one (whose target
// is then created), up to a depth where the kernel would give up too.
func followLinks(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// createTemp makes a new file named prefix plus a random number in dir, with
// mode 0666 less the umask (os.CreateTemp would give 0600).
func createTemp(dir, prefix string) (*os.File, error) {
	for range 1000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s: no free temporary name", filepath.Join(dir, prefix))
}

func writeInPlace(path string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SameFile reports whether a and b both exist and are one file, however
// they are spelled: "./x" and "x", a symlink and its target, hard links.
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

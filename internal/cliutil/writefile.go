package cliutil

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
// A new file gets mode 0644, an existing one keeps its mode, and a symlink
// at path is followed: its target is replaced and the link stays. An
// existing path that is not a regular file (a FIFO, /dev/stdout) is written
// in place, as there is nothing there to replace.
func ReplaceFile(path string, write func(w io.Writer) error) (err error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		switch {
		case fi.IsDir():
			return fmt.Errorf("%s is a directory", path)
		case !fi.Mode().IsRegular():
			return writeInPlace(path, write)
		}
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
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
	if err = f.Chmod(mode); err != nil {
		return err
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

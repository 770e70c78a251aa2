// Package srchash hashes the C sources (include/, csrc/, vendor_kernels/)
// so that cgo's build cache, which only sees package nk's own files, can be
// told when they changed: nk/csrc_hash.go holds the hash as a constant.
package srchash

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Dirs are the module-relative folders whose C sources feed package nk.
var Dirs = []string{"include", "csrc", "vendor_kernels"}

// Sum returns the hex SHA-256 of every C source file (.c, .h, .inc, .S)
// under Dirs in moduleRoot, by slash path, in sorted order.
func Sum(moduleRoot string) (string, error) {
	return sum(moduleRoot, Dirs, isSource)
}

// SumTree returns the hex SHA-256 of every regular file (dot files left
// out) at or under each of paths (module-relative, files or folders), by
// slash path, in sorted order: build inputs that are not all C, such as
// CMake files, linker scripts and toolchain files.
func SumTree(moduleRoot string, paths []string) (string, error) {
	return sum(moduleRoot, paths, func(name string) bool { return !strings.HasPrefix(name, ".") })
}

func sum(moduleRoot string, dirs []string, keep func(name string) bool) (string, error) {
	var files []string
	for _, d := range dirs {
		root := filepath.Join(moduleRoot, d)
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == root {
					return filepath.SkipDir
				}
				return err
			}
			if e.IsDir() && p != root && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			if e.Type().IsRegular() && keep(e.Name()) {
				rel, err := filepath.Rel(moduleRoot, p)
				if err != nil {
					return err
				}
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(f)))
		if err != nil {
			return "", err
		}
		h.Write([]byte(f + "\x00" + strconv.Itoa(len(b)) + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func isSource(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch filepath.Ext(name) {
	case ".c", ".h", ".inc", ".S":
		return true
	}
	return false
}

// ModuleRoot walks up from dir to the folder holding go.mod.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

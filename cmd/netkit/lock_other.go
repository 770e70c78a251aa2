//go:build !unix

package main

// lockFile: no advisory lock here. Two builds at once still leave a whole
// runner in the cache (each renames a finished folder into place); they
// only share the CMake build folder.
func lockFile(string) (func(), error) { return func() {}, nil }

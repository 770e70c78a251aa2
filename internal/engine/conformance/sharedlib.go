package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/netkit/netkit/internal/tools/srchash"
)

// SharedLibrary returns the path of a libnetkit shared library built from
// this tree's C sources: $NETKIT_LIB when set, else one built with $CC (or
// cc) into a temp folder keyed by the sources' hash, the compiler and the
// target architecture, so a later run reuses it, an edit of csrc/ rebuilds it
// and a cross test never picks up the host's library.
func SharedLibrary(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("NETKIT_LIB"); p != "" {
		return p
	}
	root := ModuleRoot(tb)
	sum, err := srchash.Sum(root)
	if err != nil {
		tb.Fatalf("hashing the C sources: %v", err)
	}
	name := "libnetkit.so"
	if runtime.GOOS == "darwin" {
		name = "libnetkit.dylib"
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	key := fmt.Sprintf("%s-%s-%s-%s", sum[:16], runtime.GOOS, runtime.GOARCH, filepath.Base(cc))
	dir := filepath.Join(os.TempDir(), "netkit-test-lib", key)
	lib := filepath.Join(dir, name)
	if _, err := os.Stat(lib); err == nil {
		return lib
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	// Build to a private name, then rename: concurrent test binaries
	// (go test ./...) may race to build the same library.
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d", name, os.Getpid()))
	cmd := exec.Command(cc, "-shared", "-fPIC", "-O2", "-DNETKIT_BUILD_SHARED",
		"-I", filepath.Join(root, "include"), "-I", filepath.Join(root, "csrc"),
		filepath.Join(root, "csrc", "netkit_unity.c"), "-lm", "-o", tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building %s: %v\n%s", name, err, out)
	}
	if err := os.Rename(tmp, lib); err != nil {
		tb.Fatal(err)
	}
	return lib
}

// ModuleRoot returns the folder holding go.mod.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	root, err := srchash.ModuleRoot(".")
	if err != nil {
		tb.Fatalf("no go.mod above the test's folder: %v", err)
	}
	return root
}

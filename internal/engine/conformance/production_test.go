package conformance_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine/conformance"
)

const module = "github.com/netkit/netkit/"

// testOnly are the module's packages that exist for tests: they import
// "testing" and testify, so only _test.go files may import them.
var testOnly = []string{module + "internal/engine/conformance"}

// TestProductionDoesNotLinkTests: no package of the module but the
// test-only ones (so not the CLI, nk, nkc, nor anything they import)
// depends on "testing", testify or a test-only package; a production binary
// linking them would carry the test framework and its flags.
func TestProductionDoesNotLinkTests(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./...")
	cmd.Dir = conformance.ModuleRoot(t)
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr(err))

	deps := map[string][]string{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	for _, p := range []string{"cmd/netkit", "nk", "nkc", "internal/engine"} {
		require.Contains(t, deps, module+p, "go list saw the production packages")
	}
	for _, p := range testOnly {
		// The check can see a violation: the test-only package itself has one.
		require.Contains(t, deps[p], "testing", "%s imports testing", p)
	}
	var bad []string
	for pkg, d := range deps {
		if slices.Contains(testOnly, pkg) {
			continue
		}
		for _, dep := range d {
			if dep == "testing" || strings.HasPrefix(dep, "github.com/stretchr/testify/") || slices.Contains(testOnly, dep) {
				bad = append(bad, pkg+" -> "+dep)
			}
		}
	}
	slices.Sort(bad)
	assert.Empty(t, bad, "production packages that depend on test code")
}

func stderr(err error) string {
	if e, ok := err.(*exec.ExitError); ok {
		return string(e.Stderr)
	}
	return ""
}

package nk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine"
	"github.com/netkit/netkit/internal/engine/conformance"
	"github.com/netkit/netkit/internal/tools/srchash"
)

// TestLayouts checks every Go mirror of a C struct against the C
// compiler's sizeof and offsetof.
func TestLayouts(t *testing.T) {
	c := cLayouts()
	for _, g := range engine.Layouts() {
		want, ok := c[g.Name]
		require.True(t, ok, g.Name)
		require.Len(t, want, 1+len(g.Offsets), "%s: field count", g.Name)
		assert.Equal(t, want[0], g.Size, "sizeof(%s)", g.Name)
		for i, off := range g.Offsets {
			assert.Equal(t, want[1+i], off, "offsetof(%s, %s)", g.Name, g.Fields[i])
		}
	}
	assert.Equal(t, uint32(engine.ABIVersion), backend.ABIVersion())
}

// TestStatusNames keeps Status.Error's names equal to nk_status_str.
func TestStatusNames(t *testing.T) {
	for i, name := range cStatusNames() {
		assert.Equal(t, "netkit: "+name, engine.Status(i).Error())
	}
}

// TestCSourceHashFresh fails when csrc/ or include/ changed since
// csrc_hash.go was generated: cgo's cache would otherwise run stale C.
func TestCSourceHashFresh(t *testing.T) {
	sum, err := srchash.Sum(conformance.ModuleRoot(t))
	require.NoError(t, err)
	if sum != csrcHash {
		t.Fatal("the C sources changed since nk/csrc_hash.go was generated: run go generate ./nk")
	}
}

package testmodels

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
)

// The committed files are what the generator writes today: run
// `go generate ./internal/testmodels` after changing a model.
func TestCommittedModelsAreCurrent(t *testing.T) {
	for _, name := range Names() {
		want, err := Encode(name)
		require.NoError(t, err, name)
		got, err := os.ReadFile(filepath.Join("..", "..", "testdata", "models", name+".nk"))
		require.NoError(t, err, name)
		assert.Equal(t, want, got, "%s.nk is stale: run go generate ./internal/testmodels", name)
	}
}

func TestModelsDecode(t *testing.T) {
	for _, name := range Names() {
		img, err := Encode(name)
		require.NoError(t, err)
		m, err := nkfile.Decode(img)
		require.NoError(t, err, name)
		require.NoError(t, m.CheckShapes(), name)
	}
}

func TestRNGIsSplitMix64(t *testing.T) {
	// First outputs of splitmix64 seeded with 0 (Vigna's reference values).
	r := rng{}
	assert.Equal(t, uint64(0xE220A8397B1DCDAF), r.next())
	assert.Equal(t, uint64(0x6E789E6AA1B965F4), r.next())
	assert.Equal(t, uint64(0x06C45D188009454F), r.next())
}

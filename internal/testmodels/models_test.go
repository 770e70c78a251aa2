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

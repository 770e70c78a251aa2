package testmodels

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
)

// testdata/models_i8/int8_ops.nk is what Int8Ops encodes to today: run
// testdata/gen/models_i8.sh (or go generate ./internal/testmodels) after
// changing it.
func TestCommittedInt8OpsIsCurrent(t *testing.T) {
	want, err := EncodeInt8Ops()
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("..", "..", "testdata", "models_i8", Int8OpsName+".nk"))
	require.NoError(t, err)
	assert.Equal(t, want, got, "%s.nk is stale: run testdata/gen/models_i8.sh", Int8OpsName)

	m, err := nkfile.Decode(got)
	require.NoError(t, err)
	require.NoError(t, m.CheckShapes())
}

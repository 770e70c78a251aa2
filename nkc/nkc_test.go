package nkc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine"
	"github.com/netkit/netkit/internal/engine/conformance"
	"github.com/netkit/netkit/nkc"
)

// binding runs nkc over a libnetkit built from this tree's sources.
func binding(tb testing.TB) conformance.Binding {
	path := conformance.SharedLibrary(tb)
	b := nkc.Binding("nkc", nkc.WithLibrary(path))
	b.Open = func(string) (*engine.Backend, error) { return nkc.Open(path) }
	return b
}

func TestConformance(t *testing.T) { conformance.Run(t, binding(t)) }

func TestSessionRunZeroAllocs(t *testing.T) {
	assert.Zero(t, conformance.SessionRunAllocs(t, binding(t)))
}

func TestMissingLibrary(t *testing.T) {
	_, err := nkc.Load(conformance.ModelPath(t, conformance.OneOpModel), nkc.WithLibrary("/nonexistent/libnetkit.so"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/nonexistent/libnetkit.so")
}

func BenchmarkRunOneOp(b *testing.B) { conformance.BenchRunOneOp(b, binding(b)) }

// TestLoadWithCopy: through purego too, WithCopy reads the file into the
// arena (NK_LOAD_COPY): the model runs on after the file is truncated, and
// its report (nk_model_report) shows the image in the arena, exactly sized.
func TestLoadWithCopy(t *testing.T) {
	lib := nkc.WithLibrary(conformance.SharedLibrary(t))
	img, err := os.ReadFile(conformance.ModelPath(t, "mlp.nk"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "mlp.nk")
	require.NoError(t, os.WriteFile(path, img, 0o644))
	mapped, err := nkc.Load(path, lib)
	require.NoError(t, err)
	defer mapped.Close()
	m, err := nkc.Load(path, lib, nkc.WithCopy())
	require.NoError(t, err)
	defer m.Close()
	r, err := m.Report()
	require.NoError(t, err)
	assert.Equal(t, m.ArenaBytes(), r.ArenaAfterLoad)
	assert.Equal(t, mapped.ArenaBytes()+(int64(len(img))+15)&^15, m.ArenaBytes(), "mapped arena + the image")
	// the image, on top of what the mapped load copies too (weights packed
	// for the host SIMD kernels, 0 with the portable kernels)
	rm, err := mapped.Report()
	require.NoError(t, err)
	assert.Equal(t, int64(len(img))+rm.BytesCopiedWeights, r.BytesCopiedWeights)
	assert.Zero(t, r.FlashPayload)

	in := make([]float32, 64)
	for i := range in {
		in[i] = float32(i%7) - 3
	}
	want, err := mapped.Predict(in)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, 0))
	got, err := m.Predict(in)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

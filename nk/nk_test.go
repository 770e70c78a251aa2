package nk_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nkrt "github.com/netkit/netkit/internal/runtime"
	"github.com/netkit/netkit/internal/runtime/conformance"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nkc"
)

var binding = conformance.Binding{
	Name:         "nk",
	Load:         nk.Load,
	LoadBytes:    nk.LoadBytes,
	Inspect:      nk.Inspect,
	InspectBytes: nk.InspectBytes,
	Open:         nk.Open,
}

func TestConformance(t *testing.T) { conformance.Run(t, binding) }

func TestSessionRunZeroAllocs(t *testing.T) {
	assert.Zero(t, conformance.SessionRunAllocs(t, binding))
}

// TestSameOutputsAsNkc runs every test model through nk and through nkc
// (over a libnetkit built from the same sources): the bits must match.
func TestSameOutputsAsNkc(t *testing.T) {
	lib := conformance.SharedLibrary(t)
	viaC := conformance.Outputs(t, binding)
	viaPurego := conformance.Outputs(t, conformance.Binding{
		Name: "nkc",
		Load: func(path string, opts ...nkrt.Option) (*nkrt.Model, error) {
			return nkc.Load(path, append(opts, nkc.WithLibrary(lib))...)
		},
	})
	require.NotEmpty(t, viaC)
	if nk.KernelBackend == "" {
		assert.Equal(t, viaC, viaPurego)
		return
	}
	// a vendor backend's float kernels sum in another order: within 1e-5
	// of each output's magnitude (at least 1) of netkit's own kernels (nkc's library)
	require.Equal(t, len(viaPurego), len(viaC))
	for name, outs := range viaPurego {
		require.Len(t, viaC[name], len(outs), name)
		for i, want := range outs {
			got := viaC[name][i]
			require.Len(t, got, len(want), name)
			scale := float32(1)
			for _, v := range want {
				scale = max(scale, float32(math.Abs(float64(v))))
			}
			for j := range want {
				assert.InDelta(t, want[j], got[j], 1e-5*float64(scale), "%s output %d [%d] (%s)", name, i, j, nk.KernelBackend)
			}
		}
	}
}

func BenchmarkRunOneOp(b *testing.B) { conformance.BenchRunOneOp(b, binding) }

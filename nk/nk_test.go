package nk_test

import (
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
	assert.Equal(t, viaC, viaPurego)
}

func BenchmarkRunOneOp(b *testing.B) { conformance.BenchRunOneOp(b, binding) }

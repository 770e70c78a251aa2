package nk_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/engine/conformance"
	"github.com/netkit/netkit/nk"
	"github.com/netkit/netkit/nkc"
)

var binding = nk.Binding("nk")

func TestConformance(t *testing.T) { conformance.Run(t, binding) }

func TestSessionRunZeroAllocs(t *testing.T) {
	assert.Zero(t, conformance.SessionRunAllocs(t, binding))
}

// TestSameOutputsAsNkc runs every test model through nk and through nkc
// (over a libnetkit built from the same sources): the bits must match.
func TestSameOutputsAsNkc(t *testing.T) {
	lib := conformance.SharedLibrary(t)
	viaC := conformance.Outputs(t, binding)
	viaPurego := map[string][][]float32{}
	for _, c := range conformance.Cases(t) {
		m, err := nkc.Load(c.Path, nkc.WithLibrary(lib))
		require.NoError(t, err, c.Name)
		elems := func(ts []nkc.TensorInfo) []int {
			n := make([]int, len(ts))
			for i, ti := range ts {
				n[i] = ti.Elems()
			}
			return n
		}
		viaPurego[c.Name] = runBatches(t, m.RunMulti, elems(m.Inputs()), elems(m.Outputs()), c.Inputs)
		require.NoError(t, m.Close())
	}
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

// runBatches runs whole inputs one at a time through run; inElems and
// outElems are the element counts of the graph's inputs and outputs.
func runBatches(t *testing.T, run func(ins, outs [][]float32) error, inElems, outElems []int, batches [][]float32) [][]float32 {
	n := len(batches[0]) / inElems[0]
	got := make([][]float32, len(outElems))
	for o := range got {
		got[o] = make([]float32, n*outElems[o])
	}
	ins, outs := make([][]float32, len(inElems)), make([][]float32, len(outElems))
	for k := range n {
		for i, e := range inElems {
			ins[i] = batches[i][k*e : (k+1)*e]
		}
		for o, e := range outElems {
			outs[o] = got[o][k*e : (k+1)*e]
		}
		require.NoError(t, run(ins, outs))
	}
	return got
}

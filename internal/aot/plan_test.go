package aot

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
)

func planModel(op nkfile.OpType) *nkfile.Model {
	return &nkfile.Model{
		Tensors: []nkfile.Tensor{
			{Name: "x", DType: nkfile.F32, Shape: []int{4}},
			{Name: "w", DType: nkfile.F32, Shape: []int{4}, Data: make([]byte, 16)},
			{Name: "y", DType: nkfile.F32, Shape: []int{4}},
		},
		Ops: []nkfile.Op{{Type: op, Inputs: []int{0, 1}, Outputs: []int{2}}},
	}
}

func TestFixedPlan(t *testing.T) {
	image := make([]byte, 64)
	image[8], image[12] = 0xab, 64
	p := Plan{TensorOffsets: []int64{0, -1, 16}, Activations: 32, InPlace: []bool{false}}
	src, err := FixedPlan("m", "m.nk", image, planModel(nkfile.OpAdd), p)
	require.NoError(t, err)
	assert.Contains(t, string(src), "static const uint32_t m_plan_offsets[2] = {\n    0, 16,\n};")
	assert.Contains(t, string(src), "0x000000abu, 64u, /* image checksum and size */")
	assert.Contains(t, string(src), "32u, /* activation block bytes */")
	assert.Contains(t, string(src), "nk_status nk_plan_model(")

	// batch-norms are folded at load, so the planner runs there
	src, err = FixedPlan("m", "m.nk", image, planModel(nkfile.OpBatchNorm), p)
	require.NoError(t, err)
	assert.NotContains(t, string(src), "nk_plan_model")

	bad := p
	bad.TensorOffsets = []int64{0, -1, 24} // y's 16 B end past the 32 B block
	_, err = FixedPlan("m", "m.nk", image, planModel(nkfile.OpAdd), bad)
	assert.ErrorContains(t, err, "past the 32 B activation block")
	bad.TensorOffsets = []int64{0, 0, 16} // the constant given a slot
	_, err = FixedPlan("m", "m.nk", image, planModel(nkfile.OpAdd), bad)
	assert.ErrorContains(t, err, "disagree on whether it is constant")
}

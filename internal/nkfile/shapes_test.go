package nkfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConvOutDim(t *testing.T) {
	// floor((in + pads - dilation*(k-1) - 1) / stride) + 1, worked by hand.
	cases := []struct{ in, k, s, d, pb, pa, want int }{
		{16, 3, 1, 1, 1, 1, 16},
		{16, 2, 2, 1, 0, 0, 8},
		{7, 3, 2, 1, 1, 1, 4},
		{10, 3, 1, 2, 0, 0, 6},
		{5, 5, 1, 1, 0, 0, 1},
		{4, 5, 1, 1, 0, 0, 0}, // does not fit
		{28, 5, 1, 1, 2, 2, 28},
		{9, 2, 2, 1, 0, 0, 4},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ConvOutDim(c.in, c.k, c.s, c.d, c.pb, c.pa), "%+v", c)
	}
}

func TestInferShape(t *testing.T) {
	conv := ConvParams{Window: Window{StrideH: 2, StrideW: 2, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}}
	cases := []struct {
		name   string
		op     Op
		in     [][]int
		want   []int
		errMsg string
	}{
		{"dense", Op{Type: OpDense, Params: ClampWords(NoClamp)}, [][]int{{2, 5}, {3, 5}, {3}}, []int{2, 3}, ""},
		{"dense no bias", Op{Type: OpDense, Params: ClampWords(NoClamp)}, [][]int{{4, 2, 5}, {3, 5}, nil}, []int{4, 2, 3}, ""},
		{"dense K mismatch", Op{Type: OpDense, Params: ClampWords(NoClamp)}, [][]int{{2, 5}, {3, 4}}, nil, "want x [..., K]"},
		{"dense bias", Op{Type: OpDense, Params: ClampWords(NoClamp)}, [][]int{{2, 5}, {3, 5}, {4}}, nil, "bias"},
		{"conv s2", Op{Type: OpConv2D, Params: conv.Words()}, [][]int{{1, 7, 9, 3}, {8, 3, 3, 3}}, []int{1, 4, 5, 8}, ""},
		{"conv groups", Op{Type: OpConv2D, Params: ConvParams{Groups: 2}.Words()}, [][]int{{1, 5, 5, 4}, {6, 1, 1, 2}}, []int{1, 5, 5, 6}, ""},
		{"conv bad groups", Op{Type: OpConv2D, Params: ConvParams{Groups: 3}.Words()}, [][]int{{1, 5, 5, 4}, {6, 1, 1, 2}}, nil, "groups"},
		{"conv too big", Op{Type: OpConv2D, Params: ConvParams{}.Words()}, [][]int{{1, 2, 2, 1}, {1, 3, 3, 1}}, nil, "does not fit"},
		{"depthwise m2", Op{Type: OpDepthwiseConv2D, Params: ConvParams{Multiplier: 2, Window: Window{PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}}.DepthwiseWords()}, [][]int{{1, 6, 6, 3}, {1, 3, 3, 6}}, []int{1, 6, 6, 6}, ""},
		{"maxpool", Op{Type: OpMaxPool2D, Params: PoolParams{KernelH: 2, KernelW: 2, Window: Window{StrideH: 2, StrideW: 2}}.Words(OpMaxPool2D)}, [][]int{{1, 9, 8, 4}}, []int{1, 4, 4, 4}, ""},
		{"avgpool", Op{Type: OpAvgPool2D, Params: PoolParams{KernelH: 3, KernelW: 3, Window: Window{PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}}.Words(OpAvgPool2D)}, [][]int{{1, 5, 5, 2}}, []int{1, 5, 5, 2}, ""},
		{"gap", Op{Type: OpGlobalAvgPool}, [][]int{{2, 3, 4, 5}}, []int{2, 1, 1, 5}, ""},
		{"bn", Op{Type: OpBatchNorm, Params: F32Words(1e-5)}, [][]int{{1, 2, 2, 3}, {3}, {3}, {3}, {3}}, []int{1, 2, 2, 3}, ""},
		{"bn bad", Op{Type: OpBatchNorm, Params: F32Words(1e-5)}, [][]int{{1, 2, 2, 3}, {3}, {2}, {3}, {3}}, nil, "want [3]"},
		{"add bcast", Op{Type: OpAdd, Params: ClampWords(NoClamp)}, [][]int{{2, 1, 4}, {3, 1}}, []int{2, 3, 4}, ""},
		{"add bad", Op{Type: OpAdd, Params: ClampWords(NoClamp)}, [][]int{{2, 4}, {3}}, nil, "broadcast"},
		{"concat", Op{Type: OpConcat, Params: I32Words(3)}, [][]int{{1, 4, 4, 2}, {1, 4, 4, 5}, {1, 4, 4, 1}}, []int{1, 4, 4, 8}, ""},
		{"concat off axis", Op{Type: OpConcat, Params: I32Words(3)}, [][]int{{1, 4, 4, 2}, {1, 3, 4, 5}}, nil, "off axis"},
		{"pad", Op{Type: OpPad, Params: PadWords(PadConstant, 0, []int{0, 1, 2, 0}, []int{0, 3, 0, 0})}, [][]int{{1, 4, 4, 2}}, []int{1, 8, 6, 2}, ""},
		{"pad reflect too big", Op{Type: OpPad, Params: PadWords(PadReflect, 0, []int{0, 4}, []int{0, 0})}, [][]int{{1, 4}}, nil, "out of range"},
		{"pad reflect edge ok", Op{Type: OpPad, Params: PadWords(PadReflect, 0, []int{0, 3}, []int{0, 3})}, [][]int{{1, 4}}, []int{1, 10}, ""},
		{"pad crops", Op{Type: OpPad, Params: PadWords(PadConstant, 0, []int{0, -1}, []int{0, -2})}, [][]int{{1, 4}}, []int{1, 1}, ""},
		{"pad crops all", Op{Type: OpPad, Params: PadWords(PadConstant, 0, []int{0, -2}, []int{0, -2})}, [][]int{{1, 4}}, nil, "out of range"},
		{"dense NaN clamp", Op{Type: OpDense, Params: []uint32{0x7FC00000, 0x7F800000}}, [][]int{{2, 5}, {3, 5}}, nil, "empty or NaN"},
		{"clip empty", Op{Type: OpClip, Params: F32Words(1, 0)}, [][]int{{2}}, nil, "empty or NaN"},
		{"conv stride 0", Op{Type: OpConv2D, Params: append(I32Words(0, 1, 1, 1, 0, 0, 0, 0, 1), ClampWords(NoClamp)...)}, [][]int{{1, 5, 5, 1}, {1, 1, 1, 1}}, nil, "must be 1.."},
		{"bn eps", Op{Type: OpBatchNorm, Params: F32Words(-1)}, [][]int{{1, 3}, {3}, {3}, {3}, {3}}, nil, "epsilon"},
		{"transpose", Op{Type: OpTranspose, Params: I32Words(0, 3, 1, 2)}, [][]int{{1, 5, 6, 7}}, []int{1, 7, 5, 6}, ""},
		{"transpose bad", Op{Type: OpTranspose, Params: I32Words(0, 0, 1, 2)}, [][]int{{1, 5, 6, 7}}, nil, "permutation"},
		{"softmax", Op{Type: OpSoftmax, Params: F32Words(1)}, [][]int{{1, 10}}, []int{1, 10}, ""},
		{"softmax params", Op{Type: OpSoftmax}, [][]int{{1, 10}}, nil, "0 params, want 1"},
		{"relu arity", Op{Type: OpRelu}, [][]int{{1}, {1}}, nil, "2 inputs"},
		{"reshape", Op{Type: OpReshape}, [][]int{{1, 4}}, nil, "output tensor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := InferShape(&c.op, c.in)
			if c.errMsg != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.errMsg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestCheckShapesCatchesWrongOutput(t *testing.T) {
	m := richModel(t)
	require.NoError(t, m.CheckShapes())
	m.Tensors[m.Ops[0].Outputs[0]].Shape = []int{1, 6, 6, 5}
	err := m.CheckShapes()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the op produces [1 6 6 4]")

	m = richModel(t)
	m.Tensors[m.Ops[3].Outputs[0]].Shape = []int{1, 5} // reshape with the wrong count
	assert.ErrorContains(t, m.CheckShapes(), "element count")
}

func TestBuilderErrorsStick(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", F32, 1, 4)
	w := b.ConstF32("w", []int{3, 5}, make([]float32, 15))
	y := b.Dense("fc", x, w, -1, ActRelu)
	assert.Equal(t, -1, y)
	assert.Equal(t, -1, b.Op(OpRelu, "r", []int{y}, nil, ActNone))
	_, err := b.Model()
	assert.ErrorContains(t, err, "dense \"fc\"")
}

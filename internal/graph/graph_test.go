package graph

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// Small hand-built ONNX graphs.

func floatInit(name string, dims []int64, v ...float32) *onnx.Tensor {
	return &onnx.Tensor{Name: name, DataType: onnx.Float, Dims: dims, FloatData: v}
}

func input(name string, dims ...int64) *onnx.ValueInfo {
	return &onnx.ValueInfo{Name: name, ElemType: onnx.Float, Dims: dims, HasShape: true, IsTensor: true}
}

func node(op, name string, in, out []string, attrs ...*onnx.Attribute) *onnx.Node {
	return &onnx.Node{OpType: op, Name: name, Inputs: in, Outputs: out, Attrs: attrs}
}

func intsAttr(name string, v ...int64) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
}

func model(nodes []*onnx.Node, inits []*onnx.Tensor, ins []*onnx.ValueInfo, outs ...string) *onnx.Model {
	g := &onnx.Graph{Nodes: nodes, Initializers: inits, Inputs: ins}
	for _, o := range outs {
		g.Outputs = append(g.Outputs, &onnx.ValueInfo{Name: o})
	}
	return &onnx.Model{Opsets: map[string]int64{"": 13}, Graph: g}
}

func lower(t *testing.T, m *onnx.Model) (*Graph, *nkfile.Model) {
	t.Helper()
	g, err := Convert(m, Options{})
	require.NoError(t, err)
	nm, err := g.ToNK()
	require.NoError(t, err)
	_, err = nkfile.Encode(nm)
	require.NoError(t, err)
	return g, nm
}

func f32s(t *nkfile.Tensor) []float32 { return nkfile.BytesF32(t.Data) }

// Every refused node is named in one error, with its op and the reason.
func TestUnsupportedListsEveryNode(t *testing.T) {
	m := model([]*onnx.Node{
		node("Cos", "cosine", []string{"x"}, []string{"a"}),
		node("MaxPool", "pool", []string{"x"}, []string{"b"}, intsAttr("kernel_shape", 2, 2), &onnx.Attribute{Name: "storage_order", Type: onnx.AttrInt, I: 1}),
		node("Relu", "fine", []string{"x"}, []string{"c"}),
		node("Conv", "conv", []string{"x", "w"}, []string{"d"}, &onnx.Attribute{Name: "weird", Type: onnx.AttrInt, I: 1}),
		node("Add", "after_cos", []string{"a", "c"}, []string{"e"}),
	}, []*onnx.Tensor{floatInit("w", []int64{1, 1, 1, 1}, 1)}, []*onnx.ValueInfo{input("x", 1, 1, 4, 4)}, "e", "b", "d")
	_, err := Convert(m, Options{})
	var ue *UnsupportedError
	require.ErrorAs(t, err, &ue)
	require.Len(t, ue.Issues, 3, err.Error())
	msg := err.Error()
	assert.Contains(t, msg, `node "cosine" (Cos): op type is not supported`)
	assert.Contains(t, msg, `node "pool" (MaxPool): attribute storage_order=1 is not supported`)
	assert.Contains(t, msg, `node "conv" (Conv): attribute weird is not supported`)
	assert.NotContains(t, msg, "after_cos", "a node downstream of a refused one is not reported again")
}

func TestOpsetRange(t *testing.T) {
	m := model([]*onnx.Node{node("Relu", "r", []string{"x"}, []string{"y"})}, nil, []*onnx.ValueInfo{input("x", 1, 4)}, "y")
	m.Opsets[""] = 19
	_, err := Convert(m, Options{})
	assert.ErrorContains(t, err, "opset 19 is not supported")
	m.Opsets[""] = 18
	_, err = Convert(m, Options{})
	assert.NoError(t, err)
}

// BatchNorm after Conv folds into the weights and bias. Hand calculation:
// scale = gamma / sqrt(var + eps) = 2 / sqrt(15 + 1) = 0.5 for channel 0 and
// 3 / sqrt(8 + 1) = 1 for channel 1; bias' = (b - mean) * scale + beta.
func TestBatchNormFolding(t *testing.T) {
	m := model([]*onnx.Node{
		node("Conv", "conv", []string{"x", "w", "b"}, []string{"c"}),
		node("BatchNormalization", "bn", []string{"c", "g", "beta", "mean", "var"}, []string{"y"},
			&onnx.Attribute{Name: "epsilon", Type: onnx.AttrFloat, F: 1}),
	}, []*onnx.Tensor{
		floatInit("w", []int64{2, 1, 1, 2}, 4, 6, -2, 8), // O=2, C=1, KH=1, KW=2
		floatInit("b", []int64{2}, 1, -1),
		floatInit("g", []int64{2}, 2, 3),
		floatInit("beta", []int64{2}, 10, 20),
		floatInit("mean", []int64{2}, 3, 5),
		floatInit("var", []int64{2}, 15, 8),
	}, []*onnx.ValueInfo{input("x", 1, 1, 3, 3)}, "y")
	g, nm := lower(t, m)
	assert.Equal(t, 1, g.Stats.FoldedBatchNorms)
	var conv *nkfile.Op
	for i := range nm.Ops {
		assert.NotEqual(t, nkfile.OpBatchNorm, nm.Ops[i].Type)
		if nm.Ops[i].Type == nkfile.OpConv2D {
			conv = &nm.Ops[i]
		}
	}
	require.NotNil(t, conv)
	w := nm.Tensors[conv.Inputs[1]]
	assert.Equal(t, []int{2, 1, 2, 1}, w.Shape, "OHWI")
	assert.Equal(t, []float32{2, 3, -2, 8}, f32s(&w))
	bias := nm.Tensors[conv.Inputs[2]]
	assert.Equal(t, []float32{(1-3)*0.5 + 10, (-1-5)*1 + 20}, f32s(&bias))
	// The graph input stays NCHW; C=1 makes the move to NHWC a free reshape.
	assert.Equal(t, nkfile.LayoutNCHW, nm.Inputs[0].Layout)
	assert.Equal(t, []int{1, 2, 3, 2}, nm.Tensors[nm.Outputs[0].Tensor].Shape, "output back in NCHW")
	assert.Equal(t, nkfile.OpTranspose, nm.Ops[len(nm.Ops)-1].Type)
}

// PyTorch's erf GELU in each association becomes one GELU op.
func TestGeluFusion(t *testing.T) {
	c := func(name string, v float32) *onnx.Tensor { return floatInit(name, nil, v) }
	consts := []*onnx.Tensor{c("sqrt2", float32(math.Sqrt2)), c("one", 1), c("half", 0.5)}
	forms := map[string][]*onnx.Node{
		"x*(1+erf)*0.5": {
			node("Div", "d", []string{"x", "sqrt2"}, []string{"t1"}), node("Erf", "e", []string{"t1"}, []string{"t2"}),
			node("Add", "a", []string{"t2", "one"}, []string{"t3"}), node("Mul", "m1", []string{"x", "t3"}, []string{"t4"}),
			node("Mul", "m2", []string{"t4", "half"}, []string{"y"}),
		},
		"(x*0.5)*(1+erf)": {
			node("Div", "d", []string{"x", "sqrt2"}, []string{"t1"}), node("Erf", "e", []string{"t1"}, []string{"t2"}),
			node("Add", "a", []string{"one", "t2"}, []string{"t3"}), node("Mul", "h", []string{"x", "half"}, []string{"t4"}),
			node("Mul", "m", []string{"t4", "t3"}, []string{"y"}),
		},
		"x*((1+erf)*0.5)": {
			node("Div", "d", []string{"x", "sqrt2"}, []string{"t1"}), node("Erf", "e", []string{"t1"}, []string{"t2"}),
			node("Add", "a", []string{"t2", "one"}, []string{"t3"}), node("Mul", "h", []string{"t3", "half"}, []string{"t4"}),
			node("Mul", "m", []string{"x", "t4"}, []string{"y"}),
		},
	}
	for name, nodes := range forms {
		t.Run(name, func(t *testing.T) {
			g, nm := lower(t, model(nodes, consts, []*onnx.ValueInfo{input("x", 1, 8)}, "y"))
			assert.Equal(t, 1, g.Stats.FusedGelus)
			require.Len(t, nm.Ops, 1)
			assert.Equal(t, nkfile.OpGelu, nm.Ops[0].Type)
			assert.Equal(t, "y", nm.Tensors[nm.Outputs[0].Tensor].Name)
		})
	}
	// With a different constant it is not GELU and must not be fused.
	nodes := forms["x*(1+erf)*0.5"]
	_, err := Convert(model(nodes, []*onnx.Tensor{c("sqrt2", 2), c("one", 1), c("half", 0.5)}, []*onnx.ValueInfo{input("x", 1, 8)}, "y"), Options{})
	assert.ErrorContains(t, err, `node "e" (Erf)`)
}

// Relu and Clip fuse into the op before; Dropout and Identity vanish; a Gemm
// with transB=0 gets W transposed to [N, K] and alpha/beta folded.
func TestDenseActivationFusion(t *testing.T) {
	m := model([]*onnx.Node{
		node("Identity", "id", []string{"x"}, []string{"x1"}),
		node("Gemm", "fc", []string{"x1", "w", "b"}, []string{"h"},
			&onnx.Attribute{Name: "alpha", Type: onnx.AttrFloat, F: 2}, &onnx.Attribute{Name: "beta", Type: onnx.AttrFloat, F: 3}),
		node("Dropout", "drop", []string{"h"}, []string{"h1"}),
		node("Clip", "relu6", []string{"h1", "lo", "hi"}, []string{"y"}),
	}, []*onnx.Tensor{
		floatInit("w", []int64{3, 2}, 1, 2, 3, 4, 5, 6), // [K=3, N=2]
		floatInit("b", []int64{2}, 1, -1),
		floatInit("lo", nil, 0), floatInit("hi", nil, 6),
	}, []*onnx.ValueInfo{input("x", 1, 3)}, "y")
	g, nm := lower(t, m)
	assert.Equal(t, 2, g.Stats.RemovedNodes)
	assert.Equal(t, 1, g.Stats.FusedActivations)
	require.Len(t, nm.Ops, 1)
	op := nm.Ops[0]
	assert.Equal(t, nkfile.OpDense, op.Type)
	assert.Equal(t, nkfile.ActRelu6, op.Act)
	assert.Equal(t, nkfile.F32Words(0, 6), op.Params)
	w, b := nm.Tensors[op.Inputs[1]], nm.Tensors[op.Inputs[2]]
	assert.Equal(t, []int{2, 3}, w.Shape)
	assert.Equal(t, []float32{2, 6, 10, 4, 8, 12}, f32s(&w))
	assert.Equal(t, []float32{3, -3}, f32s(&b))
}

// Flatten of channels-last activations into a Dense permutes the Dense
// weights instead of transposing the activations back to NCHW.
func TestFlattenPermutesDenseWeights(t *testing.T) {
	m := model([]*onnx.Node{
		node("Conv", "conv", []string{"x", "w"}, []string{"c"}),
		node("Flatten", "flat", []string{"c"}, []string{"f"}),
		node("Gemm", "fc", []string{"f", "fw"}, []string{"y"}, &onnx.Attribute{Name: "transB", Type: onnx.AttrInt, I: 1}),
	}, []*onnx.Tensor{
		floatInit("w", []int64{2, 1, 1, 1}, 1, 1),
		// K = C*H*W = 2*1*2 in NCHW order: (c0,w0) (c0,w1) (c1,w0) (c1,w1)
		floatInit("fw", []int64{1, 4}, 10, 20, 30, 40),
	}, []*onnx.ValueInfo{input("x", 1, 1, 1, 2)}, "y")
	g, nm := lower(t, m)
	assert.Zero(t, g.Stats.Transposes)
	dense := nm.Ops[len(nm.Ops)-1]
	require.Equal(t, nkfile.OpDense, dense.Type)
	fw := nm.Tensors[dense.Inputs[1]]
	// NHWC order: (w0,c0) (w0,c1) (w1,c0) (w1,c1)
	assert.Equal(t, []float32{10, 30, 20, 40}, f32s(&fw))
}

func TestTransposeData(t *testing.T) {
	// [2,3] -> [3,2]
	assert.Equal(t, []int{1, 4, 2, 5, 3, 6}, transposeData([]int{1, 2, 3, 4, 5, 6}, []int{2, 3}, []int{1, 0}))
	// NCHW [1,2,1,2] -> NHWC
	assert.Equal(t, []int{1, 3, 2, 4}, transposeData([]int{1, 2, 3, 4}, []int{1, 2, 1, 2}, nhwc))
}

// Slice and ConstantOfShape fold on constants (PyTorch's F.pad exports a
// subgraph of them that computes the pads).
func TestFoldSliceAndConstantOfShape(t *testing.T) {
	g := &Graph{}
	data := &Tensor{Shape: []int{6}, Const: true, Int: true, I: []int64{0, 1, 2, 3, 4, 5}}
	ic := func(v ...int64) *Tensor { return &Tensor{Shape: []int{len(v)}, Const: true, Int: true, I: v} }
	src := &srcNode{n: &onnx.Node{OpType: "Slice"}, opset: 13}
	cases := []struct {
		starts, ends, steps int64
		want                []int64
	}{
		{-1, math.MinInt64, -2, []int64{5, 3, 1}},
		{1, 100, 2, []int64{1, 3, 5}},
		{-3, -1, 1, []int64{3, 4}},
		{4, 0, -1, []int64{4, 3, 2, 1}},
	}
	for _, c := range cases {
		out, err := g.fold(&Node{Op: "Slice", In: []*Tensor{data, ic(c.starts), ic(c.ends), ic(0), ic(c.steps)}, src: src})
		require.NoError(t, err)
		assert.Equal(t, c.want, out[0].I, "slice %d:%d:%d", c.starts, c.ends, c.steps)
	}
	cs := &srcNode{n: &onnx.Node{OpType: "ConstantOfShape", Attrs: []*onnx.Attribute{
		{Name: "value", Type: onnx.AttrTensor, T: &onnx.Tensor{DataType: onnx.Int64, Dims: []int64{1}, Int64Data: []int64{7}}}}}, opset: 13}
	out, err := g.fold(&Node{Op: "ConstantOfShape", In: []*Tensor{ic(2, 2)}, src: cs})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 2}, out[0].Shape)
	assert.Equal(t, []int64{7, 7, 7, 7}, out[0].I)
}

package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/onnx"
)

func intInit(name string, dt onnx.DataType, dims []int64, v ...int32) *onnx.Tensor {
	return &onnx.Tensor{Name: name, DataType: dt, Dims: dims, Int32Data: v}
}

// x -> Q -> DQ -> Gemm(DQ(int8 W, per-row scales)) -> Q -> DQ -> y, uint8
// activations: the pairs disappear, x and y keep their quantization (zero
// points shifted by 128) and W becomes its dequantized values with its
// scales.
func qdqGemm(ySZ string) *onnx.Model {
	return model([]*onnx.Node{
		node("QuantizeLinear", "qx", []string{"x", "sx", "zx"}, []string{"xq"}),
		node("DequantizeLinear", "dqx", []string{"xq", "sx", "zx"}, []string{"xd"}),
		node("DequantizeLinear", "dqw", []string{"w", "sw"}, []string{"wd"}, &onnx.Attribute{Name: "axis", Type: onnx.AttrInt, I: 0}),
		node("Gemm", "fc", []string{"xd", "wd"}, []string{"g"}, &onnx.Attribute{Name: "transB", Type: onnx.AttrInt, I: 1}),
		node("QuantizeLinear", "qg", []string{"g", "sy", "zy"}, []string{"gq"}),
		node("DequantizeLinear", "dqg", []string{"gq", ySZ, "zy"}, []string{"y"}),
	}, []*onnx.Tensor{
		floatInit("sx", nil, 0.5), intInit("zx", onnx.Uint8, nil, 130),
		floatInit("sy", nil, 0.25), floatInit("sy2", nil, 0.125), intInit("zy", onnx.Uint8, nil, 0),
		intInit("w", onnx.Int8, []int64{2, 3}, 1, -2, 3, 127, -128, 0), floatInit("sw", []int64{2}, 0.1, 0.5),
	}, []*onnx.ValueInfo{input("x", 1, 3)}, "y")
}

func TestQDQPairsFold(t *testing.T) {
	g, err := Convert(qdqGemm("sy"), Options{})
	require.NoError(t, err)
	require.True(t, g.HasQDQ())
	m, q, err := g.ToNKQDQ()
	require.NoError(t, err)
	require.Len(t, m.Ops, 1, "the pairs leave only the dense op")
	op := m.Ops[0]
	x, w, y := op.Inputs[0], op.Inputs[1], op.Outputs[0]
	assert.Equal(t, "y", m.Tensors[y].Name, "the graph output keeps its name")
	assert.Equal(t, &QDQ{Scale: []float32{0.5}, ZeroPoint: []int32{2}, Axis: -1}, q[x])
	assert.Equal(t, &QDQ{Scale: []float32{0.25}, ZeroPoint: []int32{-128}, Axis: -1}, q[y])
	assert.Equal(t, &QDQ{Scale: []float32{0.1, 0.5}, ZeroPoint: []int32{0, 0}, Axis: 0}, q[w])
	assert.InDeltaSlice(t, []float32{0.1, -0.2, 0.3, 63.5, -64, 0}, f32s(&m.Tensors[w]), 1e-6)
}

func TestQDQRefusals(t *testing.T) {
	_, err := Convert(qdqGemm("sy2"), Options{})
	assert.ErrorContains(t, err, `node "dqg" (DequantizeLinear): scale or zero point differs from its QuantizeLinear's`)

	m := qdqGemm("sy")
	m.Graph.Nodes[3].Inputs[0] = "xq" // Gemm reads the uint8 tensor itself
	_, err = Convert(m, Options{})
	assert.ErrorContains(t, err, `node "fc" (Gemm): reads "xq", the integer output of a QuantizeLinear`)

	m = qdqGemm("sy")
	m.Graph.Initializers[0] = floatInit("sx", []int64{2}, 0.5, 0.25)
	m.Graph.Initializers[1] = intInit("zx", onnx.Uint8, []int64{2}, 1, 2)
	_, err = Convert(m, Options{})
	assert.ErrorContains(t, err, `node "qx" (QuantizeLinear): per-axis activation quantization`)
}

// An op with no int8 kernel between QDQ pairs runs float after a
// DEQUANTIZE (a float graph output is not rounded to its QDQ grid), and
// the stats say so.
func TestQDQFloatOpBetweenPairs(t *testing.T) {
	m := qdqGemm("sy")
	m.Graph.Nodes = append(m.Graph.Nodes,
		node("LeakyRelu", "leaky", []string{"y"}, []string{"l"}),
		node("QuantizeLinear", "ql", []string{"l", "sy", "zy"}, []string{"lq"}),
		node("DequantizeLinear", "dql", []string{"lq", "sy", "zy"}, []string{"out"}))
	m.Graph.Outputs[0].Name = "out"
	g, err := Convert(m, Options{})
	require.NoError(t, err)
	nm, err := g.ToInt8NK()
	require.NoError(t, err)
	var kinds []string
	for _, op := range nm.Ops {
		kinds = append(kinds, op.Type.String())
	}
	assert.Equal(t, []string{"quantize", "dense_i8", "dequantize", "leaky_relu"}, kinds)
	require.Len(t, g.Stats.FloatOps, 1)
	assert.Contains(t, g.Stats.FloatOps[0], "no int8 kernel")
}

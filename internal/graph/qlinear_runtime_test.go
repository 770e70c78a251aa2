package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/graph"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
	"github.com/netkit/netkit/nk"
)

// A QLinearMatMul (per-column int8 weights) feeding a QLinearAdd, uint8
// activations, runs as DENSE_I8 and ADD_I8 with the hand-worked result:
// x = [1.5 2 -3] at 0.5 -> [3 4 -6]; times W = [[1 2] [3 -4] [-5 6]] at
// 0.5*[0.25 0.3] -> [45*0.125 -46*0.15] = [5.625 -6.9] -> [6 -7] at step 1;
// doubled by the add at step 2 -> [6 -7] -> [12 -14].
func TestQLinearMatMulAddRuns(t *testing.T) {
	f := func(name string, dims []int64, v ...float32) *onnx.Tensor {
		return &onnx.Tensor{Name: name, DataType: onnx.Float, Dims: dims, FloatData: v}
	}
	i := func(name string, dt onnx.DataType, dims []int64, v ...int32) *onnx.Tensor {
		return &onnx.Tensor{Name: name, DataType: dt, Dims: dims, Int32Data: v}
	}
	n := func(op, domain string, in ...string) *onnx.Node {
		return &onnx.Node{OpType: op, Domain: domain, Name: op, Inputs: in[:len(in)-1], Outputs: in[len(in)-1:]}
	}
	m := &onnx.Model{Opsets: map[string]int64{"": 13, "com.microsoft": 1}, Graph: &onnx.Graph{
		Nodes: []*onnx.Node{
			n("QuantizeLinear", "", "x", "sx", "z", "xq"),
			n("QLinearMatMul", "", "xq", "sx", "z", "w", "sw", "zw", "sy", "z", "yq"),
			n("QLinearAdd", "com.microsoft", "yq", "sy", "z", "yq", "sy", "z", "so", "z", "oq"),
			n("DequantizeLinear", "", "oq", "so", "z", "out"),
		},
		Initializers: []*onnx.Tensor{
			f("sx", nil, 0.5), f("sy", nil, 1), f("so", nil, 2), i("z", onnx.Uint8, nil, 128),
			i("w", onnx.Int8, []int64{3, 2}, 1, 2, 3, -4, -5, 6), f("sw", []int64{2}, 0.25, 0.3), i("zw", onnx.Int8, []int64{2}, 0, 0),
		},
		Inputs:  []*onnx.ValueInfo{{Name: "x", ElemType: onnx.Float, Dims: []int64{1, 3}, HasShape: true, IsTensor: true}},
		Outputs: []*onnx.ValueInfo{{Name: "out"}},
	}}
	g, err := graph.Convert(m, graph.Options{})
	require.NoError(t, err)
	nm, err := g.ToInt8NK()
	require.NoError(t, err)
	var kinds []nkfile.OpType
	for _, op := range nm.Ops {
		kinds = append(kinds, op.Type)
	}
	assert.Equal(t, []nkfile.OpType{nkfile.OpQuantize, nkfile.OpDenseI8, nkfile.OpAddI8, nkfile.OpDequantize}, kinds)
	b, err := nkfile.Encode(nm)
	require.NoError(t, err)
	model, err := nk.LoadBytes(b)
	require.NoError(t, err)
	defer model.Close()
	out := make([]float32, 2)
	require.NoError(t, model.Run([]float32{1.5, 2, -3}, out))
	assert.Equal(t, []float32{12, -14}, out)
}

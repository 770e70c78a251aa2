package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/graph"
	"github.com/netkit/netkit/internal/onnx"
)

// The reductions and SLICE after a Conv run on channels-last data: the
// converter maps their logical NCHW axes, begins and steps to the physical
// dims. ONNX's node tests never feed them a permuted tensor, so this model
// does: Conv 1x1 -> ReduceMean over H,W (keepdims 0), ReduceMax over C
// (keepdims 1), and Slice of every other row, backwards, of channels 1..2;
// the expected values are computed here in NCHW by definition.
func TestReduceAndSliceOnChannelsLast(t *testing.T) {
	const c, h, w = 3, 4, 5
	wts := []float32{1, 0, 2, -1, 1, 0, 0.5, 0.5, 0.5} // [O=3, C=3, 1, 1]
	i64 := func(name string, v ...int64) *onnx.Tensor {
		return &onnx.Tensor{Name: name, DataType: onnx.Int64, Dims: []int64{int64(len(v))}, Int64Data: v}
	}
	ints := func(name string, v ...int64) *onnx.Attribute {
		return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
	}
	m := &onnx.Model{Opsets: map[string]int64{"": 13}, Graph: &onnx.Graph{
		Inputs: []*onnx.ValueInfo{{Name: "x", ElemType: onnx.Float, Dims: []int64{1, c, h, w}, HasShape: true, IsTensor: true}},
		Initializers: []*onnx.Tensor{
			{Name: "W", DataType: onnx.Float, Dims: []int64{3, c, 1, 1}, FloatData: wts},
			i64("starts", 2, -1), i64("ends", 0, -100), i64("axes", 1, 2), i64("steps", -1, -2),
		},
		Nodes: []*onnx.Node{
			{OpType: "Conv", Name: "conv", Inputs: []string{"x", "W"}, Outputs: []string{"y"}},
			{OpType: "ReduceMean", Name: "mean", Inputs: []string{"y"}, Outputs: []string{"mean"},
				Attrs: []*onnx.Attribute{ints("axes", 2, 3), {Name: "keepdims", Type: onnx.AttrInt, I: 0}}},
			{OpType: "ReduceMax", Name: "max", Inputs: []string{"y"}, Outputs: []string{"max"},
				Attrs: []*onnx.Attribute{ints("axes", 1)}},
			{OpType: "Slice", Name: "slice", Inputs: []string{"y", "starts", "ends", "axes", "steps"}, Outputs: []string{"sl"}},
		},
		Outputs: []*onnx.ValueInfo{{Name: "mean"}, {Name: "max"}, {Name: "sl"}},
	}}
	x := make([]float32, c*h*w)
	for i := range x {
		x[i] = float32((i*7)%11) - 4.5
	}
	y := make([]float32, 3*h*w) // the 1x1 conv, NCHW
	for o := range 3 {
		for p := range h * w {
			for k := range c {
				y[o*h*w+p] += wts[o*c+k] * x[k*h*w+p]
			}
		}
	}
	var mean []float32
	for o := range 3 {
		s := float32(0)
		for p := range h * w {
			s += y[o*h*w+p]
		}
		mean = append(mean, s/float32(h*w))
	}
	var mx []float32
	for p := range h * w {
		v := y[p]
		for o := 1; o < 3; o++ {
			v = max(v, y[o*h*w+p])
		}
		mx = append(mx, v)
	}
	var sl []float32 // channels 2, 1; rows 3, 1; every column
	for _, o := range []int{2, 1} {
		for _, r := range []int{3, 1} {
			sl = append(sl, y[o*h*w+r*w:o*h*w+r*w+w]...)
		}
	}

	b, g, err := convert(t, m, graph.Options{})
	require.NoError(t, err)
	assert.Positive(t, g.Stats.Transposes, "the conv's output is channels-last")
	for _, l := range loaders(t) {
		t.Run(l.name, func(t *testing.T) {
			model, err := l.load(b)
			require.NoError(t, err)
			defer model.Close()
			outs := model.Outputs()
			require.Len(t, outs, 3)
			assert.Equal(t, []int{1, 3}, outs[0].Shape)
			assert.Equal(t, []int{1, 1, h, w}, outs[1].Shape)
			assert.Equal(t, []int{1, 2, 2, w}, outs[2].Shape)
			got := [][]float32{make([]float32, len(mean)), make([]float32, len(mx)), make([]float32, len(sl))}
			require.NoError(t, model.RunMulti([][]float32{x}, got))
			for o, want := range [][]float32{mean, mx, sl} {
				assert.InDeltaSlice(t, want, got[o], 1e-5, "output %d", o)
			}
		})
	}
}

// MATMUL broadcasts batch dims as numpy does: [2,1,3,4] @ [3,4,2] ->
// [2,3,3,2], both operands computed; expected values by definition.
func TestMatMulBroadcastsBatchDims(t *testing.T) {
	vi := func(name string, dims ...int64) *onnx.ValueInfo {
		return &onnx.ValueInfo{Name: name, ElemType: onnx.Float, Dims: dims, HasShape: true, IsTensor: true}
	}
	m := &onnx.Model{Opsets: map[string]int64{"": 13}, Graph: &onnx.Graph{
		Inputs:  []*onnx.ValueInfo{vi("a", 2, 1, 3, 4), vi("b", 3, 4, 2)},
		Nodes:   []*onnx.Node{{OpType: "MatMul", Name: "mm", Inputs: []string{"a", "b"}, Outputs: []string{"y"}}},
		Outputs: []*onnx.ValueInfo{{Name: "y"}},
	}}
	a, b := make([]float32, 2*3*4), make([]float32, 3*4*2)
	for i := range a {
		a[i] = float32(i%5) - 2
	}
	for i := range b {
		b[i] = float32(i%7)*0.5 - 1
	}
	var want []float32
	for i := range 2 {
		for j := range 3 {
			for r := range 3 {
				for c := range 2 {
					s := float32(0)
					for k := range 4 {
						s += a[i*12+r*4+k] * b[j*8+k*2+c]
					}
					want = append(want, s)
				}
			}
		}
	}
	bytes, _, err := convert(t, m, graph.Options{})
	require.NoError(t, err)
	for _, l := range loaders(t) {
		t.Run(l.name, func(t *testing.T) {
			model, err := l.load(bytes)
			require.NoError(t, err)
			defer model.Close()
			require.Equal(t, []int{2, 3, 3, 2}, model.Outputs()[0].Shape)
			got := [][]float32{make([]float32, len(want))}
			require.NoError(t, model.RunMulti([][]float32{a, b}, got))
			assert.InDeltaSlice(t, want, got[0], 1e-5)
		})
	}
}

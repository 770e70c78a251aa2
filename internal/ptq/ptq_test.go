package ptq

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/nk"
)

func TestParamsOf(t *testing.T) {
	for _, c := range []struct {
		lo, hi float32
		want   QParams
	}{
		{0, 25.5, QParams{0.1, -128}},                   // ReLU output: zero at the bottom
		{-25.5, 0, QParams{0.1, 127}},                   // zero at the top
		{-1, 1.55, QParams{0.01, -28}},                  // -128 - round(-1/0.01)
		{2, 3, QParams{float32(3.0 / 255), -128}},       // widened to hold 0
		{0, 0, QParams{float32(1.0 / 255), quant.QMin}}, // a tensor that was always 0
	} {
		got := ParamsOf(Range{Lo: c.lo, Hi: c.hi})
		assert.InDelta(t, c.want.Scale, got.Scale, 1e-7, "%g..%g", c.lo, c.hi)
		assert.Equal(t, c.want.ZeroPoint, got.ZeroPoint, "%g..%g", c.lo, c.hi)
		// both ends of the range (with 0) are within half a step of the grid's
		lo := got.Scale * float32(quant.QMin-got.ZeroPoint)
		hi := got.Scale * float32(quant.QMax-got.ZeroPoint)
		assert.LessOrEqual(t, float64(lo), math.Min(float64(c.lo), 0)+float64(got.Scale)/2)
		assert.GreaterOrEqual(t, float64(hi), math.Max(float64(c.hi), 0)-float64(got.Scale)/2)
	}
}

func TestQuantizeWeightsPerChannel(t *testing.T) {
	// two output channels (axis 0) of three weights; the second all zero
	q, s, err := quantizeWeights([]float32{0.5, -1.27, 0.004, 0, 0, 0}, []int{2, 3}, 0)
	require.NoError(t, err)
	assert.Equal(t, []float32{0.01, 1}, s)
	assert.Equal(t, []int8{50, -127, 0, 0, 0, 0}, q)
	// depthwise: channels on the last axis
	q, s, err = quantizeWeights([]float32{1, -4, -2, 2}, []int{1, 2, 2}, 2)
	require.NoError(t, err)
	assert.Equal(t, []float32{float32(2.0 / 127), float32(4.0 / 127)}, s)
	assert.Equal(t, []int8{64, -127, -127, 64}, q) // 63.5 rounds away from zero
	_, _, err = quantizeWeights([]float32{1, float32(math.NaN())}, []int{2, 1}, 0)
	assert.ErrorContains(t, err, "element 1 is NaN")
}

func TestQuantizeBias(t *testing.T) {
	b, s, err := quantizeBias([]float32{1, -0.5}, 0.5, []float32{0.01, 0.001})
	require.NoError(t, err)
	assert.Equal(t, []int32{200, -1000}, b)
	assert.InDeltaSlice(t, []float32{0.005, 0.0005}, s, 1e-9)
	b, _, err = quantizeBias([]float32{1e9}, 1e-6, []float32{1e-6})
	require.NoError(t, err)
	assert.Equal(t, []int32{math.MaxInt32}, b, "saturated")
}

func TestObserverMinMaxAndPercentile(t *testing.T) {
	// 10,000 values 0..9999 plus two outliers
	vals := make([]float32, 10000)
	for i := range vals {
		vals[i] = float32(i)
	}
	vals = append(vals, -1e6, 1e6)
	mm, err := NewObserver(MinMax, 0)
	require.NoError(t, err)
	require.Equal(t, 1, mm.Passes())
	require.NoError(t, mm.Observe(3, vals[:5000]))
	require.NoError(t, mm.Observe(3, vals[5000:]))
	mm.NextPass()
	r := mm.Ranges()[3]
	assert.Equal(t, Range{Lo: -1e6, Hi: 1e6, SeenLo: -1e6, SeenHi: 1e6, Count: 10002}, r)

	pc, err := NewObserver(Percentile, 99.9)
	require.NoError(t, err)
	require.Equal(t, 2, pc.Passes())
	for range 2 {
		require.NoError(t, pc.Observe(3, vals))
		pc.NextPass()
	}
	r = pc.Ranges()[3]
	// 10 values below the 0.1th percentile and 10 above the 99.9th: the
	// outliers and the 9 smallest / largest; the bins are 2e6/4096 = 488 wide
	step := 2e6 / histBins
	assert.InDelta(t, 0, r.Lo, step, "lo %g", r.Lo) // widened to 0 anyway
	assert.InDelta(t, 9990, r.Hi, step, "hi %g", r.Hi)
	assert.Equal(t, float32(1e6), r.SeenHi)

	_, err = NewObserver(Percentile, 40)
	assert.Error(t, err)
	err = mm.Observe(4, []float32{1, float32(math.Inf(1))})
	assert.ErrorContains(t, err, "first seen in pass 2")
	o, _ := NewObserver(MinMax, 0)
	err = o.Observe(4, []float32{1, float32(math.NaN())})
	var nf *NonFiniteError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, 1, nf.Index)
}

// Probes expose every float activation an op writes, at most MaxGraphIO
// per probe model, and leave the model itself alone.
func TestProbes(t *testing.T) {
	m := &nkfile.Model{Tensors: []nkfile.Tensor{{Name: "x", DType: nkfile.F32, Shape: []int{1, 4}}}}
	prev := 0
	for i := range 20 {
		m.Tensors = append(m.Tensors, nkfile.Tensor{Name: "r", DType: nkfile.F32, Shape: []int{1, 4}})
		m.Ops = append(m.Ops, nkfile.Op{Type: nkfile.OpRelu, Inputs: []int{prev}, Outputs: []int{i + 1}})
		prev = i + 1
	}
	m.Inputs = []nkfile.IO{{Tensor: 0}}
	m.Outputs = []nkfile.IO{{Tensor: 20}}
	p := Probes(m)
	require.Len(t, p, 2)
	assert.Len(t, p[0].Tensors, nkfile.MaxGraphIO)
	assert.Equal(t, []int{17, 18, 19, 20}, p[1].Tensors)
	assert.Equal(t, 17, p[1].Model.Outputs[0].Tensor)
	assert.Equal(t, []nkfile.IO{{Tensor: 20}}, m.Outputs)
}

// A one-dense float model: the int8 model quantizes its input, runs
// DENSE_I8 with the weights, bias, multipliers and clamp worked out by
// hand, and dequantizes the output; the float I/O keeps its names.
func TestQuantizeDenseByHand(t *testing.T) {
	m := &nkfile.Model{
		Tensors: []nkfile.Tensor{
			{Name: "x", DType: nkfile.F32, Shape: []int{1, 3}},
			{Name: "w", DType: nkfile.F32, Shape: []int{2, 3}, Data: nkfile.F32Bytes([]float32{0.5, -1.27, 0.004, 0, 0.127, 0})},
			{Name: "b", DType: nkfile.F32, Shape: []int{2}, Data: nkfile.F32Bytes([]float32{0.1, -0.2})},
			{Name: "y", DType: nkfile.F32, Shape: []int{1, 2}},
		},
		Ops: []nkfile.Op{{Type: nkfile.OpDense, Name: "fc", Inputs: []int{0, 1, 2}, Outputs: []int{3},
			Params: nkfile.ClampWords(nkfile.ClampOf(nkfile.ActRelu)), Act: nkfile.ActRelu}},
		Inputs:  []nkfile.IO{{Tensor: 0}},
		Outputs: []nkfile.IO{{Tensor: 3}},
	}
	ranges := map[int]Range{0: {Lo: -1, Hi: 1.55}, 3: {Lo: 0, Hi: 25.5}}
	q, sum, err := Quantize(m, ranges, Options{})
	require.NoError(t, err)
	require.Len(t, q.Ops, 3)
	assert.Equal(t, []nkfile.OpType{nkfile.OpQuantize, nkfile.OpDenseI8, nkfile.OpDequantize},
		[]nkfile.OpType{q.Ops[0].Type, q.Ops[1].Type, q.Ops[2].Type})
	assert.Equal(t, "x", q.Tensors[q.Inputs[0].Tensor].Name)
	assert.Equal(t, "y", q.Tensors[q.Outputs[0].Tensor].Name)
	assert.Equal(t, nkfile.F32, q.Tensors[q.Inputs[0].Tensor].DType)

	d := q.Ops[1]
	// input: scale 0.01, zp -28; output: scale 0.1, zp -128; ReLU clamps at
	// the zero point
	assert.Equal(t, nkfile.DenseI8Words(-28, nkfile.QOut{ZeroPoint: -128, ActMin: -128, ActMax: 127}), d.Params)
	w := q.Tensors[d.Inputs[1]]
	assert.Equal(t, nkfile.I8Bytes([]int8{50, -127, 0, 0, 127, 0}), w.Data)
	assert.Equal(t, []float32{0.01, 0.001}, w.Quant.Scale)
	// bias / (0.01 * s_w): 0.1 / 1e-4 = 1000, -0.2 / 1e-5 = -20000
	assert.Equal(t, []int32{1000, -20000}, nkfile.BytesI32(q.Tensors[d.Inputs[2]].Data))
	// multipliers 0.01*0.01/0.1 = 1e-3 and 1e-4, as Q0.31 and shift
	ms := nkfile.BytesI32(q.Tensors[d.Inputs[3]].Data)
	sh := nkfile.BytesI32(q.Tensors[d.Inputs[4]].Data)
	for c, want := range []float64{1e-3, 1e-4} {
		got := math.Ldexp(float64(ms[c]), int(sh[c])-31)
		assert.InDelta(t, want, got, want*1e-6, "channel %d", c)
		assert.GreaterOrEqual(t, ms[c], int32(1<<30))
	}
	assert.Empty(t, sum.FloatOps)
	assert.Equal(t, 1, sum.Quantize)
	assert.Equal(t, 1, sum.Dequant)

	// an int8-I/O model has no conversions; a missing range is an error
	q, _, err = Quantize(m, ranges, Options{Int8IO: true})
	require.NoError(t, err)
	require.Len(t, q.Ops, 1)
	assert.Equal(t, nkfile.I8, q.Tensors[q.Inputs[0].Tensor].DType)
	_, _, err = Quantize(m, map[int]Range{0: ranges[0]}, Options{})
	assert.ErrorContains(t, err, `no calibration range for tensor "y"`)
}

// Given weight scales (a QDQ model's) quantize exactly, per channel or one
// for all, and a value off its channel's grid is refused.
func TestGivenWeights(t *testing.T) {
	w := []float32{0.5, -1, 0.25, -32}
	q, s, err := givenWeights(w, []int{2, 2}, 0, []float32{0.5, 0.25})
	require.NoError(t, err)
	assert.Equal(t, []int8{1, -2, 1, -128}, q)
	assert.Equal(t, []float32{0.5, 0.25}, s)

	q, s, err = givenWeights(w[:2], []int{2, 1}, 0, []float32{0.5})
	require.NoError(t, err)
	assert.Equal(t, []int8{1, -2}, q)
	assert.Equal(t, []float32{0.5, 0.5}, s)

	_, _, err = givenWeights(w, []int{2, 2}, 0, []float32{0.25, 0.5})
	assert.ErrorContains(t, err, "element 2 (0.25) is not an int8 multiple of its output channel's scale 0.5")
	_, _, err = givenWeights(w, []int{2, 2}, 0, nil)
	assert.ErrorContains(t, err, "no quantization given")
}

// A dilated max pool becomes MAX_POOL2D_I8 with its two dilation words, as
// an undilated one becomes it with none.
func TestDilatedMaxPoolToInt8(t *testing.T) {
	for _, dil := range []int{1, 2} {
		p := nkfile.PoolParams{KernelH: 2, KernelW: 2, Window: nkfile.Window{DilationH: dil, DilationW: dil}, Clamp: nkfile.NoClamp}
		m := &nkfile.Model{
			Tensors: []nkfile.Tensor{
				{Name: "x", DType: nkfile.F32, Shape: []int{1, 4, 4, 1}},
				{Name: "y", DType: nkfile.F32, Shape: []int{1, 4 - dil, 4 - dil, 1}},
			},
			Ops:     []nkfile.Op{{Type: nkfile.OpMaxPool2D, Name: "pool", Inputs: []int{0}, Outputs: []int{1}, Params: p.Words(nkfile.OpMaxPool2D)}},
			Inputs:  []nkfile.IO{{Tensor: 0}},
			Outputs: []nkfile.IO{{Tensor: 1}},
		}
		require.NoError(t, m.CheckShapes())
		q, sum, err := Quantize(m, map[int]Range{0: {Lo: -1, Hi: 1}, 1: {Lo: -1, Hi: 1}}, Options{Int8IO: true})
		require.NoError(t, err)
		require.Len(t, q.Ops, 1)
		assert.Equal(t, nkfile.OpMaxPool2DI8, q.Ops[0].Type)
		assert.Empty(t, sum.FloatOps)
		pp, err := nkfile.ParsePoolI8Params(nkfile.OpMaxPool2DI8, q.Ops[0].Params)
		require.NoError(t, err)
		assert.Equal(t, []int{dil, dil}, []int{pp.DilationH, pp.DilationW})
		assert.Len(t, q.Ops[0].Params, map[bool]int{false: 10, true: 12}[dil > 1])
	}
}

// An add of two run-time tensors that broadcast (a per-channel [1,1,1,C]
// against [1,H,W,C]) becomes one ADD_I8, which the C core runs with the
// float sums within a quantization step of the output.
func TestBroadcastAddToInt8(t *testing.T) {
	m := &nkfile.Model{
		Tensors: []nkfile.Tensor{
			{Name: "x", DType: nkfile.F32, Shape: []int{1, 2, 2, 3}},
			{Name: "g", DType: nkfile.F32, Shape: []int{1, 1, 1, 3}},
			{Name: "y", DType: nkfile.F32, Shape: []int{1, 2, 2, 3}},
		},
		Ops:     []nkfile.Op{{Type: nkfile.OpAdd, Name: "add", Inputs: []int{0, 1}, Outputs: []int{2}, Params: nkfile.ClampWords(nkfile.NoClamp)}},
		Inputs:  []nkfile.IO{{Tensor: 0}, {Tensor: 1}},
		Outputs: []nkfile.IO{{Tensor: 2}},
	}
	require.NoError(t, m.CheckShapes())
	q, sum, err := Quantize(m, map[int]Range{0: {Lo: -1, Hi: 1}, 1: {Lo: -2, Hi: 2}, 2: {Lo: -3, Hi: 3}}, Options{})
	require.NoError(t, err)
	assert.Empty(t, sum.FloatOps)
	var types []nkfile.OpType
	for _, op := range q.Ops {
		types = append(types, op.Type)
	}
	assert.Equal(t, []nkfile.OpType{nkfile.OpQuantize, nkfile.OpQuantize, nkfile.OpAddI8, nkfile.OpDequantize}, types)
	img, err := nkfile.Encode(q)
	require.NoError(t, err)
	model, err := nk.LoadBytes(img)
	require.NoError(t, err)
	defer model.Close()
	x := []float32{-1, -0.5, 0, 0.25, 0.5, 1, 0.9, -0.9, 0.1, -0.1, 0.7, -0.3}
	g := []float32{-2, 0.5, 1.5}
	y := make([]float32, 12)
	require.NoError(t, model.RunMulti([][]float32{x, g}, [][]float32{y}))
	step := float64(q.Tensors[q.Ops[2].Outputs[0]].Quant.Scale[0])
	for i := range y {
		assert.InDelta(t, float64(x[i]+g[i%3]), float64(y[i]), 1.5*step, "element %d", i)
	}
}

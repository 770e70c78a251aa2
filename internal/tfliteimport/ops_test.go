package tfliteimport

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/int8ref"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
	"github.com/netkit/netkit/nk"
)

// tfliteBuilder assembles a tflite.Model in memory (the importer's input
// type), for ops no shared model uses.
type tfliteBuilder struct {
	m     tflite.Model
	codes map[tflite.BuiltinOp]uint32
}

func newTFLite() *tfliteBuilder {
	b := &tfliteBuilder{codes: map[tflite.BuiltinOp]uint32{}}
	b.m.Version = 3
	b.m.Buffers = []tflite.Buffer{{}}
	b.m.Subgraphs = []tflite.Subgraph{{}}
	return b
}

func (b *tfliteBuilder) sg() *tflite.Subgraph { return &b.m.Subgraphs[0] }

func (b *tfliteBuilder) tensor(name string, ty tflite.TensorType, shape []int32, data []byte, q *tflite.Quantization) int32 {
	buf := uint32(0)
	if data != nil {
		b.m.Buffers = append(b.m.Buffers, tflite.Buffer{Data: data})
		buf = uint32(len(b.m.Buffers) - 1)
	}
	b.sg().Tensors = append(b.sg().Tensors, tflite.Tensor{Name: name, Type: ty, Shape: shape, Buffer: buf, Quant: q})
	return int32(len(b.sg().Tensors) - 1)
}

func (b *tfliteBuilder) op(code tflite.BuiltinOp, opts tflite.Options, in []int32, out int32) {
	idx, ok := b.codes[code]
	if !ok {
		b.m.OperatorCodes = append(b.m.OperatorCodes, tflite.OperatorCode{Builtin: code, Version: 1})
		idx = uint32(len(b.m.OperatorCodes) - 1)
		b.codes[code] = idx
	}
	b.sg().Operators = append(b.sg().Operators, tflite.Operator{OpcodeIndex: idx, Inputs: in, Outputs: []int32{out}, Options: opts})
}

func perTensor(scale float32, zp int64) *tflite.Quantization {
	return &tflite.Quantization{Scale: []float32{scale}, ZeroPoint: []int64{zp}}
}

// padsNHWC is PAD's paddings: one row of (before, after) per axis.
var padsNHWC = nkfile.I32Bytes([]int32{0, 0, 1, 0, 0, 1, 0, 0})

// Float PAD, MAX_POOL_2D, CONCATENATION, MUL with fused RELU6, LOGISTIC
// and TANH through the importer and the C core, against values worked by
// hand (and math.Tanh / the logistic formula for the last two).
func TestSmallOpsFloat(t *testing.T) {
	b := newTFLite()
	x := b.tensor("x", tflite.Float32, []int32{1, 2, 2, 1}, nil, nil)
	pads := b.tensor("pads", tflite.Int32, []int32{4, 2}, padsNHWC, nil)
	padded := b.tensor("padded", tflite.Float32, []int32{1, 3, 3, 1}, nil, nil)
	b.op(tflite.OpPad, tflite.PadOptions{}, []int32{x, pads}, padded)
	pooled := b.tensor("pooled", tflite.Float32, []int32{1, 2, 2, 1}, nil, nil)
	b.op(tflite.OpMaxPool2D, tflite.Pool2DOptions{Padding: tflite.PaddingValid, StrideW: 1, StrideH: 1, FilterWidth: 2, FilterHeight: 2}, []int32{padded}, pooled)
	cat := b.tensor("cat", tflite.Float32, []int32{1, 2, 2, 2}, nil, nil)
	b.op(tflite.OpConcatenation, tflite.ConcatenationOptions{Axis: -1}, []int32{pooled, x}, cat)
	sq := b.tensor("sq", tflite.Float32, []int32{1, 2, 2, 2}, nil, nil)
	b.op(tflite.OpMul, tflite.MulOptions{Activation: tflite.ActRelu6}, []int32{cat, cat}, sq)
	sig := b.tensor("sig", tflite.Float32, []int32{1, 2, 2, 1}, nil, nil)
	b.op(tflite.OpLogistic, nil, []int32{x}, sig)
	th := b.tensor("th", tflite.Float32, []int32{1, 2, 2, 1}, nil, nil)
	b.op(tflite.OpTanh, nil, []int32{sig}, th)
	b.sg().Inputs = []int32{x}
	b.sg().Outputs = []int32{sq, th}

	nm, err := Convert(&b.m, Options{})
	require.NoError(t, err)
	img, err := nkfile.Encode(nm)
	require.NoError(t, err)
	m, err := nk.LoadBytes(img)
	require.NoError(t, err)
	defer m.Close()
	in := []float32{1, -2, 3, -4}
	outs := [][]float32{make([]float32, 8), make([]float32, 4)}
	require.NoError(t, m.RunMulti([][]float32{in}, outs))
	// padded rows: [0 0 0] [1 -2 0] [3 -4 0]; 2x2 max: [1 0; 3 0];
	// concat with x on channels, squared, clamped to 6
	assert.Equal(t, []float32{1, 1, 0, 4, 6, 6, 0, 6}, outs[0])
	for i, v := range in {
		want := math.Tanh(1 / (1 + math.Exp(-float64(v))))
		assert.InDelta(t, want, outs[1][i], 1e-6)
	}
}

// int8 PAD (with the zero point), MAX_POOL_2D and CONCATENATION, worked by
// hand on the raw integers (the ops move bytes; scale 0.5, zero point -1).
func TestSmallOpsInt8(t *testing.T) {
	b := newTFLite()
	q := perTensor(0.5, -1)
	x := b.tensor("x", tflite.Int8, []int32{1, 2, 2, 1}, nil, q)
	pads := b.tensor("pads", tflite.Int32, []int32{4, 2}, padsNHWC, nil)
	padded := b.tensor("padded", tflite.Int8, []int32{1, 3, 3, 1}, nil, q)
	b.op(tflite.OpPad, tflite.PadOptions{}, []int32{x, pads}, padded)
	pooled := b.tensor("pooled", tflite.Int8, []int32{1, 2, 2, 1}, nil, q)
	b.op(tflite.OpMaxPool2D, tflite.Pool2DOptions{Padding: tflite.PaddingValid, StrideW: 1, StrideH: 1, FilterWidth: 2, FilterHeight: 2}, []int32{padded}, pooled)
	cat := b.tensor("cat", tflite.Int8, []int32{1, 2, 2, 2}, nil, q)
	b.op(tflite.OpConcatenation, tflite.ConcatenationOptions{Axis: 3}, []int32{pooled, x}, cat)
	b.sg().Inputs = []int32{x}
	b.sg().Outputs = []int32{cat}

	nm, err := Convert(&b.m, Options{})
	require.NoError(t, err)
	for _, op := range nm.Ops {
		if op.Type == nkfile.OpPad {
			assert.Equal(t, -1, nkfile.WordI32(op.Params[1]), "pad value is the zero point")
		}
	}
	img, err := nkfile.Encode(nm)
	require.NoError(t, err)
	m, err := nk.LoadBytes(img)
	require.NoError(t, err)
	defer m.Close()
	out := make([]byte, 8)
	require.NoError(t, m.RunRaw([][]byte{{3, 0xfb, 7, 0xf7}}, [][]byte{out})) // 3 -5 7 -9
	// padded rows: [-1 -1 -1] [3 -5 -1] [7 -9 -1]; 2x2 max: [3 -1; 7 -1]
	want := []int8{3, 3, -1, -5, 7, 7, -1, -9}
	got := make([]int8, 8)
	for i, v := range out {
		got[i] = int8(v)
	}
	assert.Equal(t, want, got)

	// inputs quantized unlike the output are requantized to it first (an
	// int8 QUANTIZE, as TFLite's converter inserts), checked against
	// internal/int8ref's requantization (the host runtime's double rounding)
	b.sg().Tensors[x].Quant = perTensor(0.3, 2)
	b.sg().Tensors[padded].Quant = perTensor(0.3, 2)
	b.sg().Tensors[pooled].Quant = perTensor(0.3, 2)
	{
		r := quant.DoubleRounding
		nm, err := Convert(&b.m, Options{Rounding: r})
		require.NoError(t, err)
		requants := 0
		for _, op := range nm.Ops {
			if op.Type == nkfile.OpQuantize {
				requants++
			}
		}
		assert.Equal(t, 2, requants, "one requantize per concatenated input")
		m, err := quant.Requantize(0.3, 0.5, r)
		require.NoError(t, err)
		// padded rows: [2 2 2] [3 -5 2] [7 -9 2]; 2x2 max: [3 2; 7 2]
		pooledVals, xVals := []int8{3, 2, 7, 2}, []int8{3, -5, 7, -9}
		for i := range 4 {
			for k, v := range []int8{pooledVals[i], xVals[i]} {
				q := int64(int8ref.Requantize(int32(v)-2, m, r)) - 1
				want[2*i+k] = int8(min(max(q, -128), 127))
			}
		}
		img, err := nkfile.Encode(nm)
		require.NoError(t, err)
		model, err := nk.LoadBytes(img)
		require.NoError(t, err)
		require.NoError(t, model.RunRaw([][]byte{{3, 0xfb, 7, 0xf7}}, [][]byte{out}))
		model.Close()
		for i, v := range out {
			got[i] = int8(v)
		}
		assert.Equal(t, want, got)
	}
}

// allInt8 is every int8 value once, as a [1, 256] input.
func allInt8() []int8 {
	v := make([]int8, 256)
	for i := range v {
		v[i] = int8(i - 128)
	}
	return v
}

// runOneOp converts a one-op model and runs it in the C core on raw bytes.
func runOneOp(t *testing.T, b *tfliteBuilder, in []byte, outBytes int) []byte {
	t.Helper()
	nm, err := Convert(&b.m, Options{})
	require.NoError(t, err)
	img, err := nkfile.Encode(nm)
	require.NoError(t, err)
	m, err := nk.LoadBytes(img)
	require.NoError(t, err)
	defer m.Close()
	out := make([]byte, outBytes)
	require.NoError(t, m.RunRaw([][]byte{in}, [][]byte{out}))
	return out
}

// The int8 element-wise ops no shared model uses (LOGISTIC, TANH, MUL and
// ADD with a constant operand, QUANTIZE i8->i8 and f32->i8, DEQUANTIZE)
// over all 256 input values, converted and run in the C core, against
// internal/int8ref with the parameters internal/quant derives from the
// scales (as TFLite Micro's prepare does).
func TestInt8ElementwiseOps(t *testing.T) {
	x := allInt8()
	xb := nkfile.I8Bytes(x)
	const sIn, zpIn = float32(0.0731), int32(3)
	shape := []int32{1, 256}
	i8s := func(b []byte) []int8 {
		v := make([]int8, len(b))
		for i, c := range b {
			v[i] = int8(c)
		}
		return v
	}
	r := quant.DoubleRounding

	for _, code := range []tflite.BuiltinOp{tflite.OpLogistic, tflite.OpTanh} {
		b := newTFLite()
		in := b.tensor("x", tflite.Int8, shape, nil, perTensor(sIn, int64(zpIn)))
		sOut, zpOut := float32(1.0/256), int64(-128)
		if code == tflite.OpTanh {
			sOut, zpOut = 1.0/128, 0
		}
		out := b.tensor("y", tflite.Int8, shape, nil, perTensor(sOut, zpOut))
		b.op(code, nil, []int32{in}, out)
		b.sg().Inputs, b.sg().Outputs = []int32{in}, []int32{out}
		p, err := quant.LogisticTanh(sIn, zpIn)
		require.NoError(t, err)
		want := int8ref.Logistic(x, p, r)
		if code == tflite.OpTanh {
			want = int8ref.Tanh(x, p, r)
		}
		assert.Equal(t, want, i8s(runOneOp(t, b, xb, 256)), "%v", code)
	}

	// constant second operand: the reversed values with their own quantization
	rev := make([]int8, 256)
	for i := range rev {
		rev[i] = x[255-i]
	}
	const s2, zp2, sOut, zpOut = float32(0.0413), int32(-7), float32(0.0977), int32(-11)
	for _, code := range []tflite.BuiltinOp{tflite.OpAdd, tflite.OpMul} {
		b := newTFLite()
		in := b.tensor("x", tflite.Int8, shape, nil, perTensor(sIn, int64(zpIn)))
		c := b.tensor("c", tflite.Int8, shape, nkfile.I8Bytes(rev), perTensor(s2, int64(zp2)))
		out := b.tensor("y", tflite.Int8, shape, nil, perTensor(sOut, int64(zpOut)))
		var opts tflite.Options = tflite.AddOptions{Activation: tflite.ActRelu}
		if code == tflite.OpMul {
			opts = tflite.MulOptions{Activation: tflite.ActRelu}
		}
		b.op(code, opts, []int32{in, c}, out)
		b.sg().Inputs, b.sg().Outputs = []int32{in}, []int32{out}
		lo, hi, err := quant.ActivationRange(quant.ActRelu, sOut, zpOut)
		require.NoError(t, err)
		o := int8ref.Out{ZeroPoint: zpOut, ActMin: lo, ActMax: hi}
		want := binaryI8Ref(t, code, x, rev, sIn, zpIn, s2, zp2, sOut, o)
		assert.Equal(t, want, i8s(runOneOp(t, b, xb, 256)), "%v", code)
	}

	// GELU (both forms): LUT_I8 with TFLite's table, against int8ref.Gelu
	for _, approximate := range []bool{false, true} {
		b := newTFLite()
		in := b.tensor("x", tflite.Int8, shape, nil, perTensor(sIn, int64(zpIn)))
		out := b.tensor("y", tflite.Int8, shape, nil, perTensor(sOut, int64(zpOut)))
		b.op(tflite.OpGelu, tflite.GeluOptions{Approximate: approximate}, []int32{in}, out)
		b.sg().Inputs, b.sg().Outputs = []int32{in}, []int32{out}
		want := int8ref.Gelu(x, sIn, zpIn, sOut, zpOut, approximate)
		assert.Equal(t, want, i8s(runOneOp(t, b, xb, 256)), "GELU approximate=%v", approximate)
	}

	// QUANTIZE int8 -> int8: clamp(requantize(x - zp_in, M, shift) + zp_out)
	{
		b := newTFLite()
		in := b.tensor("x", tflite.Int8, shape, nil, perTensor(sIn, int64(zpIn)))
		out := b.tensor("y", tflite.Int8, shape, nil, perTensor(sOut, int64(zpOut)))
		b.op(tflite.OpQuantize, nil, []int32{in}, out)
		b.sg().Inputs, b.sg().Outputs = []int32{in}, []int32{out}
		m, err := quant.Requantize(sIn, sOut, r)
		require.NoError(t, err)
		want := make([]int8, 256)
		for i, v := range x {
			q := int64(int8ref.Requantize(int32(v)-zpIn, m, r)) + int64(zpOut)
			want[i] = int8(min(max(q, -128), 127))
		}
		assert.Equal(t, want, i8s(runOneOp(t, b, xb, 256)), "requantize")
	}

	// QUANTIZE f32 -> int8 then DEQUANTIZE back to f32
	{
		b := newTFLite()
		in := b.tensor("f", tflite.Float32, shape, nil, nil)
		q := b.tensor("q", tflite.Int8, shape, nil, perTensor(sOut, int64(zpOut)))
		out := b.tensor("g", tflite.Float32, shape, nil, nil)
		b.op(tflite.OpQuantize, nil, []int32{in}, q)
		b.op(tflite.OpDequantize, nil, []int32{q}, out)
		b.sg().Inputs, b.sg().Outputs = []int32{in}, []int32{out}
		f := make([]float32, 256)
		for i := range f {
			f[i] = float32(i-128) * 0.1037 // spans past the int8 range at this scale
		}
		got := nkfile.BytesF32(runOneOp(t, b, nkfile.F32Bytes(f), 4*256))
		assert.Equal(t, int8ref.Dequantize(int8ref.Quantize(f, sOut, zpOut), sOut, zpOut), got)
	}
}

// Float RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR (half-pixel centers and
// align_corners) and TRANSPOSE_CONV (VALID and SAME, overlapping taps),
// against values worked by hand from TFLite's reference semantics.
func TestUpsampleOpsFloat(t *testing.T) {
	size := func(b *tfliteBuilder, h, w int32) int32 {
		return b.tensor("size", tflite.Int32, []int32{2}, nkfile.I32Bytes([]int32{h, w}), nil)
	}
	run := func(t *testing.T, b *tfliteBuilder, in []float32, n int) []float32 {
		nm, err := Convert(&b.m, Options{})
		require.NoError(t, err)
		img, err := nkfile.Encode(nm)
		require.NoError(t, err)
		m, err := nk.LoadBytes(img)
		require.NoError(t, err)
		defer m.Close()
		out := make([]float32, n)
		require.NoError(t, m.RunMulti([][]float32{in}, [][]float32{out}))
		return out
	}
	t.Run("resize", func(t *testing.T) {
		b := newTFLite()
		x := b.tensor("x", tflite.Float32, []int32{1, 1, 2, 1}, nil, nil)
		near := b.tensor("near", tflite.Float32, []int32{1, 2, 4, 1}, nil, nil)
		b.op(tflite.OpResizeNearestNeighbor, tflite.ResizeOptions{}, []int32{x, size(b, 2, 4)}, near)
		hp := b.tensor("hp", tflite.Float32, []int32{1, 1, 4, 1}, nil, nil)
		b.op(tflite.OpResizeBilinear, tflite.ResizeOptions{HalfPixelCenters: true}, []int32{x, size(b, 1, 4)}, hp)
		ac := b.tensor("ac", tflite.Float32, []int32{1, 1, 3, 1}, nil, nil)
		b.op(tflite.OpResizeBilinear, tflite.ResizeOptions{AlignCorners: true}, []int32{x, size(b, 1, 3)}, ac)
		acn := b.tensor("acn", tflite.Float32, []int32{1, 1, 3, 1}, nil, nil)
		b.op(tflite.OpResizeNearestNeighbor, tflite.ResizeOptions{AlignCorners: true}, []int32{x, size(b, 1, 3)}, acn)
		cat := b.tensor("cat", tflite.Float32, []int32{1, 1, 18, 1}, nil, nil)
		flat := func(id int32, w int32) int32 {
			r := b.tensor(b.sg().Tensors[id].Name+"_r", tflite.Float32, []int32{1, 1, w, 1}, nil, nil)
			b.op(tflite.OpReshape, tflite.ReshapeOptions{NewShape: []int32{1, 1, w, 1}}, []int32{id}, r)
			return r
		}
		b.op(tflite.OpConcatenation, tflite.ConcatenationOptions{Axis: 2}, []int32{flat(near, 8), hp, ac, acn}, cat)
		b.sg().Inputs, b.sg().Outputs = []int32{x}, []int32{cat}
		// nearest: floor(o*2/4) repeats each pixel; half-pixel bilinear samples
		// -0.25 (edge), 0.25, 0.75, 1.25 (edge); align_corners samples 0, 0.5, 1
		// and its nearest form rounds 0.5 up
		assert.Equal(t, []float32{0, 0, 4, 4, 0, 0, 4, 4, 0, 1, 3, 4, 0, 2, 4, 0, 4, 4}, run(t, b, []float32{0, 4}, 18))
	})
	for _, tc := range []struct {
		name string
		pad  tflite.Padding
		k    int32
		want []float32
	}{
		// stride 2, 2x2 ones: every input pixel fills its own 2x2 block
		{"valid", tflite.PaddingValid, 2, []float32{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}},
		// stride 2, 3x3 ones, SAME: pad 0 (the odd one at the end), so rows 0..3
		// take input rows {0}, {0}, {0,1}, {1} (likewise columns), summed
		{"same", tflite.PaddingSame, 3, []float32{1, 1, 3, 2, 1, 1, 3, 2, 4, 4, 10, 6, 3, 3, 7, 4}},
	} {
		t.Run("transpose_conv_"+tc.name, func(t *testing.T) {
			b := newTFLite()
			x := b.tensor("x", tflite.Float32, []int32{1, 2, 2, 1}, nil, nil)
			shape := b.tensor("shape", tflite.Int32, []int32{4}, nkfile.I32Bytes([]int32{1, 4, 4, 1}), nil)
			ones := make([]float32, tc.k*tc.k)
			for i := range ones {
				ones[i] = 1
			}
			w := b.tensor("w", tflite.Float32, []int32{1, tc.k, tc.k, 1}, nkfile.F32Bytes(ones), nil)
			y := b.tensor("y", tflite.Float32, []int32{1, 4, 4, 1}, nil, nil)
			b.op(tflite.OpTransposeConv, tflite.TransposeConvOptions{Padding: tc.pad, StrideW: 2, StrideH: 2}, []int32{shape, w, x}, y)
			b.sg().Inputs, b.sg().Outputs = []int32{x}, []int32{y}
			assert.Equal(t, tc.want, run(t, b, []float32{1, 2, 3, 4}, 16))
		})
	}
}

// int8 RESIZE_NEAREST_NEIGHBOR copies bytes (shared quantization), worked
// by hand; int8 RESIZE_BILINEAR is refused.
func TestResizeInt8(t *testing.T) {
	q := perTensor(0.5, -1)
	for _, code := range []tflite.BuiltinOp{tflite.OpResizeNearestNeighbor, tflite.OpResizeBilinear} {
		b := newTFLite()
		x := b.tensor("x", tflite.Int8, []int32{1, 1, 2, 1}, nil, q)
		size := b.tensor("size", tflite.Int32, []int32{2}, nkfile.I32Bytes([]int32{2, 4}), nil)
		y := b.tensor("y", tflite.Int8, []int32{1, 2, 4, 1}, nil, q)
		b.op(code, tflite.ResizeOptions{}, []int32{x, size}, y)
		b.sg().Inputs, b.sg().Outputs = []int32{x}, []int32{y}
		if code == tflite.OpResizeBilinear {
			_, err := Convert(&b.m, Options{})
			require.ErrorIs(t, err, ErrUnsupported)
			assert.Contains(t, err.Error(), "int8 RESIZE_BILINEAR")
			continue
		}
		got := runOneOp(t, b, []byte{0xfb, 7}, 8) // -5 7
		assert.Equal(t, []byte{0xfb, 0xfb, 7, 7, 0xfb, 0xfb, 7, 7}, got)
	}
}

// Float MEAN over H and W without keep_dims (TFLite's global average
// pool: a RESHAPE drops the reduced dims) and over the last axis, given as
// -1, with keep_dims, against means worked by hand.
func TestMeanFloat(t *testing.T) {
	b := newTFLite()
	x := b.tensor("x", tflite.Float32, []int32{1, 2, 3, 2}, nil, nil)
	hw := b.tensor("hw", tflite.Int32, []int32{2}, nkfile.I32Bytes([]int32{1, 2}), nil)
	last := b.tensor("last", tflite.Int32, []int32{1}, nkfile.I32Bytes([]int32{-1}), nil)
	pooled := b.tensor("pooled", tflite.Float32, []int32{1, 2}, nil, nil)
	b.op(tflite.OpMean, tflite.ReducerOptions{}, []int32{x, hw}, pooled)
	pairs := b.tensor("pairs", tflite.Float32, []int32{1, 2, 3, 1}, nil, nil)
	b.op(tflite.OpMean, tflite.ReducerOptions{KeepDims: true}, []int32{x, last}, pairs)
	b.sg().Inputs = []int32{x}
	b.sg().Outputs = []int32{pooled, pairs}

	m := loadConverted(t, &b.m)
	in := []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11} // NHWC: channel 0 even, channel 1 odd
	outs := [][]float32{make([]float32, 2), make([]float32, 6)}
	require.NoError(t, m.RunMulti([][]float32{in}, outs))
	assert.Equal(t, []float32{5, 6}, outs[0])
	assert.Equal(t, []float32{0.5, 2.5, 4.5, 6.5, 8.5, 10.5}, outs[1])

}

// int8 MEAN converts to REDUCE_MEAN_I8 with TFLite Micro's arithmetic: the
// same inputs as TestMeanFloat at one scale give the same means (worked in
// the comment), and with zero points, another output scale and keep_dims
// every byte is int8ref's.
func TestMeanInt8(t *testing.T) {
	q := newTFLite()
	x := q.tensor("x", tflite.Int8, []int32{1, 2, 3, 2}, nil, perTensor(0.5, 0))
	hw := q.tensor("hw", tflite.Int32, []int32{2}, nkfile.I32Bytes([]int32{1, 2}), nil)
	y := q.tensor("y", tflite.Int8, []int32{1, 2}, nil, perTensor(0.5, 0))
	q.op(tflite.OpMean, tflite.ReducerOptions{}, []int32{x, hw}, y)
	q.sg().Inputs, q.sg().Outputs = []int32{x}, []int32{y}
	m := loadConverted(t, &q.m)
	in := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	out := [][]byte{make([]byte, 2)}
	require.NoError(t, m.RunRaw([][]byte{in}, out))
	// M = 2^30, shift 1 (1.0); over 6: s = 2, M' = 2^32/6 = 715827882, shift -1;
	// channel 0 sums 30: SRDHM(30, M') = 10, halved: 5; channel 1 sums 36: 12 -> 6
	assert.Equal(t, []byte{5, 6}, out[0])

	r := newTFLite()
	const sIn, zpIn, sOut, zpOut = 0.07, -3, 0.02, 7
	x = r.tensor("x", tflite.Int8, []int32{2, 3, 4, 5}, nil, perTensor(sIn, zpIn))
	axes := r.tensor("axes", tflite.Int32, []int32{2}, nkfile.I32Bytes([]int32{-1, 1}), nil)
	y = r.tensor("y", tflite.Int8, []int32{2, 1, 4, 1}, nil, perTensor(sOut, zpOut))
	r.op(tflite.OpMean, tflite.ReducerOptions{KeepDims: true}, []int32{x, axes}, y)
	r.sg().Inputs, r.sg().Outputs = []int32{x}, []int32{y}
	m = loadConverted(t, &r.m)
	xs := make([]int8, 2*3*4*5)
	for i := range xs {
		xs[i] = int8(i*37%256 - 128)
	}
	got := [][]byte{make([]byte, 8)}
	require.NoError(t, m.RunRaw([][]byte{nkfile.I8Bytes(xs)}, got))
	mult, err := quant.Mean(sIn, sOut, 15, quant.DoubleRounding)
	require.NoError(t, err)
	want, err := int8ref.Mean(xs, []int{2, 3, 4, 5}, 0b1010, zpIn, zpOut, mult, quant.DoubleRounding)
	require.NoError(t, err)
	assert.Equal(t, nkfile.I8Bytes(want), got[0])
}

// binaryI8Ref is int8ref's ADD or MUL of two equal-sized operands with the
// parameters internal/quant derives from the scales (double rounding).
func binaryI8Ref(t *testing.T, code tflite.BuiltinOp, a, b []int8, s1 float32, z1 int32, s2 float32, z2 int32, sOut float32, o int8ref.Out) []int8 {
	t.Helper()
	r := quant.DoubleRounding
	if code == tflite.OpAdd {
		p, err := quant.Add(s1, s2, sOut, r)
		require.NoError(t, err)
		y, err := int8ref.Add(a, b, int8ref.AddParams{In1ZeroPoint: z1, In2ZeroPoint: z2, Out: o, Scales: p, Rounding: r})
		require.NoError(t, err)
		return y
	}
	m, err := quant.Mul(s1, s2, sOut, r)
	require.NoError(t, err)
	y, err := int8ref.Mul(a, b, int8ref.MulParams{In1ZeroPoint: z1, In2ZeroPoint: z2, Out: o, Mult: m, Rounding: r})
	require.NoError(t, err)
	return y
}

// tile4 is v (shape s, rank <= 4, numpy-aligned to the right) broadcast to
// the 4-D shape to.
func tile4(v []int8, s []int32, to [4]int32) []int8 {
	var d [4]int32
	for k := range d {
		d[k] = 1
	}
	copy(d[4-len(s):], s)
	out := make([]int8, 0, to[0]*to[1]*to[2]*to[3])
	for n := range to[0] {
		for h := range to[1] {
			for w := range to[2] {
				for c := range to[3] {
					i := ((n%d[0]*d[1]+h%d[1])*d[2]+w%d[2])*d[3] + c%d[3]
					out = append(out, v[i])
				}
			}
		}
	}
	return out
}

// int8 ADD and MUL with broadcasting (a per-channel constant, a per-row
// constant, the broadcast operand first, and two graph inputs), converted
// and run in the C core: each output is the equal-shape op's (int8ref) on
// the operands tiled to the output shape, as TFLite's broadcast kernels
// compute it.
func TestInt8BroadcastAddMul(t *testing.T) {
	x := allInt8()
	full := [4]int32{1, 4, 4, 16}
	const sIn, zpIn, s2, zp2, sOut, zpOut = float32(0.0731), int32(3), float32(0.0413), int32(-7), float32(0.0977), int32(-11)
	lo, hi, err := quant.ActivationRange(quant.ActNone, sOut, zpOut)
	require.NoError(t, err)
	o := int8ref.Out{ZeroPoint: zpOut, ActMin: lo, ActMax: hi}
	for _, tc := range []struct {
		name   string
		shape  []int32
		first  bool // the broadcast operand is input 0
		second bool // it is a graph input, not a constant
	}{
		{"per channel", []int32{16}, false, false},
		{"per row", []int32{1, 4, 1, 1}, false, false},
		{"broadcast first", []int32{1, 1, 4, 16}, true, false},
		{"two inputs", []int32{1, 1, 1, 16}, false, true},
	} {
		n := int32(1)
		for _, d := range tc.shape {
			n *= d
		}
		c := make([]int8, n)
		for i := range c {
			c[i] = int8(37*i - 100)
		}
		for _, code := range []tflite.BuiltinOp{tflite.OpAdd, tflite.OpMul} {
			b := newTFLite()
			in := b.tensor("x", tflite.Int8, full[:], nil, perTensor(sIn, int64(zpIn)))
			var data []byte
			if !tc.second {
				data = nkfile.I8Bytes(c)
			}
			cb := b.tensor("c", tflite.Int8, tc.shape, data, perTensor(s2, int64(zp2)))
			out := b.tensor("y", tflite.Int8, full[:], nil, perTensor(sOut, int64(zpOut)))
			var opts tflite.Options = tflite.AddOptions{}
			if code == tflite.OpMul {
				opts = tflite.MulOptions{}
			}
			ins, a, bv := []int32{in, cb}, x, tile4(c, tc.shape, full)
			s1, z1, s2b, z2 := sIn, zpIn, s2, zp2
			if tc.first {
				ins, a, bv = []int32{cb, in}, bv, a
				s1, z1, s2b, z2 = s2, zp2, sIn, zpIn
			}
			b.op(code, opts, ins, out)
			b.sg().Inputs, b.sg().Outputs = []int32{in}, []int32{out}
			if tc.second {
				b.sg().Inputs = []int32{in, cb}
			}
			want := binaryI8Ref(t, code, a, bv, s1, z1, s2b, z2, sOut, o)
			m := loadConverted(t, &b.m)
			raw := [][]byte{nkfile.I8Bytes(x)}
			if tc.second {
				raw = append(raw, nkfile.I8Bytes(c))
			}
			got := make([]byte, len(want))
			require.NoError(t, m.RunRaw(raw, [][]byte{got}))
			assert.Equal(t, nkfile.I8Bytes(want), got, "%s %v", tc.name, code)
		}
	}
}

// Float SUB (with a fused RELU), DIV, MAXIMUM and MINIMUM (numpy
// broadcasting of a [3] constant against [1,2,3]), EXP, SQRT and
// HARD_SWISH, against values worked by hand; their int8 forms are refused.
func TestFloatElementwiseOps(t *testing.T) {
	b := newTFLite()
	x := b.tensor("x", tflite.Float32, []int32{1, 2, 3}, nil, nil)
	c := b.tensor("c", tflite.Float32, []int32{3}, nkfile.F32Bytes([]float32{1, 2, 4}), nil)
	outs := []int32{}
	for _, o := range []struct {
		code tflite.BuiltinOp
		opts tflite.Options
	}{
		{tflite.OpSub, tflite.SubOptions{Activation: tflite.ActRelu}}, {tflite.OpDiv, tflite.DivOptions{}},
		{tflite.OpMaximum, nil}, {tflite.OpMinimum, nil},
	} {
		y := b.tensor(o.code.String(), tflite.Float32, []int32{1, 2, 3}, nil, nil)
		b.op(o.code, o.opts, []int32{x, c}, y)
		outs = append(outs, y)
	}
	for _, code := range []tflite.BuiltinOp{tflite.OpExp, tflite.OpSqrt, tflite.OpHardSwish} {
		y := b.tensor(code.String(), tflite.Float32, []int32{1, 2, 3}, nil, nil)
		b.op(code, nil, []int32{x}, y)
		outs = append(outs, y)
	}
	b.sg().Inputs, b.sg().Outputs = []int32{x}, outs
	m := loadConverted(t, &b.m)
	in := []float32{0, 1, 4, 9, 3, -3}
	got := make([][]float32, len(outs))
	for i := range got {
		got[i] = make([]float32, 6)
	}
	require.NoError(t, m.RunMulti([][]float32{in}, got))
	assert.Equal(t, []float32{0, 0, 0, 8, 1, 0}, got[0], "relu(x - c)")
	assert.Equal(t, []float32{0, 0.5, 1, 9, 1.5, -0.75}, got[1], "x / c")
	assert.Equal(t, []float32{1, 2, 4, 9, 3, 4}, got[2], "max(x, c)")
	assert.Equal(t, []float32{0, 1, 4, 1, 2, -3}, got[3], "min(x, c)")
	for i, v := range in {
		assert.InDelta(t, math.Exp(float64(v)), float64(got[4][i]), 1e-6*math.Exp(float64(v)), "exp(%g)", v)
	}
	assert.InDeltaSlice(t, []float32{0, 1, 2, 3, 1.7320508}, got[5][:5], 1e-7, "sqrt")
	assert.True(t, math.IsNaN(float64(got[5][5])), "sqrt(-3)")
	// hard_swish(x) = x * relu6(x + 3) / 6: 0, 4/6, 4, 9, 3, 0
	assert.InDeltaSlice(t, []float32{0, 4.0 / 6, 4, 9, 3, 0}, got[6], 1e-6)

	q := newTFLite()
	qx := q.tensor("x", tflite.Int8, []int32{4}, nil, perTensor(0.5, 0))
	qy := q.tensor("y", tflite.Int8, []int32{4}, nil, perTensor(0.5, 0))
	q.op(tflite.OpSub, tflite.SubOptions{}, []int32{qx, qx}, qy)
	q.sg().Inputs, q.sg().Outputs = []int32{qx}, []int32{qy}
	_, err := Convert(&q.m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorContains(t, err, "int8 SUB")
}

// STRIDED_SLICE and SQUEEZE on x [2,3,4] holding x[i][j][k] = 12i + 4j + k:
// a plain strided window, a reversed axis with begin and end masks and a
// shrunk axis, against the elements picked out by hand.
func TestStridedSliceSqueeze(t *testing.T) {
	vec := func(v ...int32) []byte { return nkfile.I32Bytes(v) }
	cases := []struct {
		name               string
		begin, end, stride []byte
		opts               tflite.StridedSliceOptions
		shape              []int32
		want               []float32
	}{
		// i in {0,1}, j in {1,2}, k in {0,2}
		{"window", vec(0, 1, 0), vec(2, 3, 4), vec(1, 1, 2), tflite.StridedSliceOptions{}, []int32{2, 2, 2},
			[]float32{4, 6, 8, 10, 16, 18, 20, 22}},
		// i = 1 (shrunk), j from the last down to 0 (begin and end masks), k from -3 = 1 to 3
		{"reverse shrink", vec(1, 0, -3), vec(0, 0, 3), vec(1, -1, 1),
			tflite.StridedSliceOptions{BeginMask: 2, EndMask: 2, ShrinkAxisMask: 1}, []int32{3, 2},
			[]float32{21, 22, 17, 18, 13, 14}},
		// ends past the axis clamp to it; negative begins count from the end
		{"clamped", vec(-1, -2, -100), vec(100, 100, 100), vec(1, 1, 3), tflite.StridedSliceOptions{}, []int32{1, 2, 2},
			[]float32{16, 19, 20, 23}},
	}
	x := make([]float32, 24)
	for i := range x {
		x[i] = float32(i)
	}
	for _, c := range cases {
		b := newTFLite()
		xi := b.tensor("x", tflite.Float32, []int32{2, 3, 4}, nil, nil)
		bi := b.tensor("begin", tflite.Int32, []int32{3}, c.begin, nil)
		ei := b.tensor("end", tflite.Int32, []int32{3}, c.end, nil)
		si := b.tensor("strides", tflite.Int32, []int32{3}, c.stride, nil)
		y := b.tensor("y", tflite.Float32, c.shape, nil, nil)
		b.op(tflite.OpStridedSlice, c.opts, []int32{xi, bi, ei, si}, y)
		b.sg().Inputs, b.sg().Outputs = []int32{xi}, []int32{y}
		m := loadConverted(t, &b.m)
		got := make([]float32, len(c.want))
		require.NoError(t, m.Run(x, got), c.name)
		assert.Equal(t, c.want, got, c.name)
	}

	// SQUEEZE [1,3,1,2] -> [3,2] is a RESHAPE; an empty slice is refused
	b := newTFLite()
	xi := b.tensor("x", tflite.Float32, []int32{1, 3, 1, 2}, nil, nil)
	y := b.tensor("y", tflite.Float32, []int32{3, 2}, nil, nil)
	b.op(tflite.OpSqueeze, tflite.SqueezeOptions{Dims: []int32{0, 2}}, []int32{xi}, y)
	b.sg().Inputs, b.sg().Outputs = []int32{xi}, []int32{y}
	m := loadConverted(t, &b.m)
	got := make([]float32, 6)
	require.NoError(t, m.Run([]float32{1, 2, 3, 4, 5, 6}, got))
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, got)

	e := newTFLite()
	xi = e.tensor("x", tflite.Float32, []int32{4}, nil, nil)
	bi := e.tensor("begin", tflite.Int32, []int32{1}, vec(3), nil)
	ei := e.tensor("end", tflite.Int32, []int32{1}, vec(1), nil)
	si := e.tensor("strides", tflite.Int32, []int32{1}, vec(1), nil)
	y = e.tensor("y", tflite.Float32, []int32{1}, nil, nil)
	e.op(tflite.OpStridedSlice, tflite.StridedSliceOptions{}, []int32{xi, bi, ei, si}, y)
	e.sg().Inputs, e.sg().Outputs = []int32{xi}, []int32{y}
	_, err := Convert(&e.m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorContains(t, err, "empty axis 0")
}

// int8 STRIDED_SLICE moves the bytes of the float case "reverse shrink"
// (the same picks), and is refused when input and output quantization differ.
func TestStridedSliceInt8(t *testing.T) {
	build := func(outZp int64) *tflite.Model {
		b := newTFLite()
		x := b.tensor("x", tflite.Int8, []int32{2, 3, 4}, nil, perTensor(0.5, 3))
		bi := b.tensor("begin", tflite.Int32, []int32{3}, nkfile.I32Bytes([]int32{1, 0, -3}), nil)
		ei := b.tensor("end", tflite.Int32, []int32{3}, nkfile.I32Bytes([]int32{0, 0, 3}), nil)
		si := b.tensor("strides", tflite.Int32, []int32{3}, nkfile.I32Bytes([]int32{1, -1, 1}), nil)
		y := b.tensor("y", tflite.Int8, []int32{3, 2}, nil, perTensor(0.5, outZp))
		b.op(tflite.OpStridedSlice, tflite.StridedSliceOptions{BeginMask: 2, EndMask: 2, ShrinkAxisMask: 1}, []int32{x, bi, ei, si}, y)
		b.sg().Inputs, b.sg().Outputs = []int32{x}, []int32{y}
		return &b.m
	}
	m := loadConverted(t, build(3))
	x := make([]byte, 24)
	for i := range x {
		x[i] = byte(i)
	}
	got := [][]byte{make([]byte, 6)}
	require.NoError(t, m.RunRaw([][]byte{x}, got))
	assert.Equal(t, []byte{21, 22, 17, 18, 13, 14}, got[0])
	_, err := Convert(build(4), Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorContains(t, err, "quantization differ")
}

// int8 HARD_SWISH becomes LUT_I8 with TFLite Micro's integer outputs: run
// in the C core, every one of the 256 inputs gives quant.HardSwishLUT's
// byte (hand-checked entries there); int8 EXP is refused.
func TestHardSwishInt8(t *testing.T) {
	const sIn, zpIn, sOut, zpOut = 0.05, -7, 0.04, -100
	b := newTFLite()
	x := b.tensor("x", tflite.Int8, []int32{256}, nil, perTensor(sIn, zpIn))
	y := b.tensor("y", tflite.Int8, []int32{256}, nil, perTensor(sOut, zpOut))
	b.op(tflite.OpHardSwish, nil, []int32{x}, y)
	b.sg().Inputs, b.sg().Outputs = []int32{x}, []int32{y}
	m := loadConverted(t, &b.m)
	in := make([]byte, 256)
	for i := range in {
		in[i] = byte(i - 128)
	}
	got := [][]byte{make([]byte, 256)}
	require.NoError(t, m.RunRaw([][]byte{in}, got))
	lut, err := quant.HardSwishLUT(sIn, zpIn, sOut, zpOut, quant.DoubleRounding)
	require.NoError(t, err)
	assert.Equal(t, nkfile.I8Bytes(lut[:]), got[0])

	e := newTFLite()
	x = e.tensor("x", tflite.Int8, []int32{4}, nil, perTensor(0.1, 0))
	y = e.tensor("y", tflite.Int8, []int32{4}, nil, perTensor(0.1, 0))
	e.op(tflite.OpExp, nil, []int32{x}, y)
	e.sg().Inputs, e.sg().Outputs = []int32{x}, []int32{y}
	_, err = Convert(&e.m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorContains(t, err, "int8 EXP")
}

// int8 MAXIMUM and MINIMUM compare the raw values, as TFLite Micro's int8
// kernels do, here with a [3] operand broadcast against [2,3]; inputs
// quantized unlike the output are refused.
func TestMaxMinInt8(t *testing.T) {
	build := func(code tflite.BuiltinOp, bZp int64) *tflite.Model {
		b := newTFLite()
		x := b.tensor("x", tflite.Int8, []int32{2, 3}, nil, perTensor(0.25, -5))
		c := b.tensor("c", tflite.Int8, []int32{3}, nil, perTensor(0.25, bZp))
		y := b.tensor("y", tflite.Int8, []int32{2, 3}, nil, perTensor(0.25, -5))
		b.op(code, nil, []int32{x, c}, y)
		b.sg().Inputs, b.sg().Outputs = []int32{x, c}, []int32{y}
		return &b.m
	}
	x := nkfile.I8Bytes([]int8{-128, 0, 127, 5, -6, 7})
	c := nkfile.I8Bytes([]int8{-1, 1, -1})
	for code, want := range map[tflite.BuiltinOp][]int8{
		tflite.OpMaximum: {-1, 1, 127, 5, 1, 7},
		tflite.OpMinimum: {-128, 0, -1, -1, -6, -1},
	} {
		m := loadConverted(t, build(code, -5))
		got := [][]byte{make([]byte, 6)}
		require.NoError(t, m.RunRaw([][]byte{x, c}, got))
		assert.Equal(t, nkfile.I8Bytes(want), got[0], "%v", code)
		_, err := Convert(build(code, 0), Options{})
		require.ErrorIs(t, err, ErrUnsupported)
		require.ErrorContains(t, err, "quantization differ")
	}
}

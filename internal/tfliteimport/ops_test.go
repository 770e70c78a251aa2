package tfliteimport

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
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

	// a concatenation of differently quantized int8 tensors is refused
	b.sg().Tensors[x].Quant = perTensor(0.25, -1)
	b.sg().Tensors[padded].Quant = perTensor(0.25, -1)
	b.sg().Tensors[pooled].Quant = perTensor(0.25, -1)
	_, err = Convert(&b.m, Options{})
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "CONCATENATION")
}

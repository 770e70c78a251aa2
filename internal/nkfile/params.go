package nkfile

import (
	"encoding/binary"
	"fmt"
	"math"
)

// F32 words and i32 words are how op params are stored.

// F32Word is the param word of a float32.
func F32Word(v float32) uint32 { return math.Float32bits(v) }

// I32Word is the param word of an int32 value.
func I32Word(v int) uint32 { return uint32(int32(v)) }

// WordF32 reads a param word as float32.
func WordF32(w uint32) float32 { return math.Float32frombits(w) }

// WordI32 reads a param word as a signed integer.
func WordI32(w uint32) int { return int(int32(w)) }

// Inf32 is +Inf as a float32, the unbounded end of a clamp.
var Inf32 = float32(math.Inf(1))

// Clamp is a fused activation range. The zero value is NOT "no clamp":
// use ClampOf(ActNone) or NoClamp.
type Clamp struct{ Min, Max float32 }

// NoClamp leaves values unbounded.
var NoClamp = Clamp{-Inf32, Inf32}

// ClampOf returns the range a named activation stands for.
func ClampOf(a Activation) Clamp {
	lo, hi := a.Range()
	return Clamp{lo, hi}
}

// Act names the clamp for the op record's activation byte.
func (c Clamp) Act() Activation {
	switch {
	case math.IsInf(float64(c.Min), -1) && math.IsInf(float64(c.Max), 1):
		return ActNone
	case c.Min == 0 && math.IsInf(float64(c.Max), 1):
		return ActRelu
	case c.Min == 0 && c.Max == 6:
		return ActRelu6
	}
	return ActClamp
}

func (c Clamp) words() []uint32 { return []uint32{F32Word(c.Min), F32Word(c.Max)} }

// Window describes the spatial part shared by convolutions and pools.
// Zero strides and dilations mean 1.
type Window struct {
	StrideH, StrideW     int
	DilationH, DilationW int
	PadTop, PadLeft      int
	PadBottom, PadRight  int
}

func one(v int) int {
	if v == 0 {
		return 1
	}
	return v
}

// normalized replaces zero strides and dilations with 1.
func (w Window) normalized() Window {
	w.StrideH, w.StrideW = one(w.StrideH), one(w.StrideW)
	w.DilationH, w.DilationW = one(w.DilationH), one(w.DilationW)
	return w
}

// SamePads sets the pads the way TensorFlow's SAME padding does for an
// input of h x w and a kernel of kh x kw (extra padding goes bottom/right).
func (w Window) SamePads(h, wd, kh, kw int) Window {
	w = w.normalized()
	w.PadTop, w.PadBottom = samePad(h, kh, w.StrideH, w.DilationH)
	w.PadLeft, w.PadRight = samePad(wd, kw, w.StrideW, w.DilationW)
	return w
}

func samePad(in, k, stride, dil int) (before, after int) {
	out := (in + stride - 1) / stride
	eff := (k-1)*dil + 1
	total := max((out-1)*stride+eff-in, 0)
	return total / 2, total - total/2
}

// ConvParams are the params of CONV2D (Groups) and DEPTHWISE_CONV2D
// (Multiplier). A zero Groups or Multiplier means 1.
type ConvParams struct {
	Window
	Groups     int // CONV2D only
	Multiplier int // DEPTHWISE_CONV2D only
	Clamp      Clamp
}

// Words encodes the params of a CONV2D.
func (p ConvParams) Words() []uint32 { return p.words(one(p.Groups)) }

// DepthwiseWords encodes the params of a DEPTHWISE_CONV2D.
func (p ConvParams) DepthwiseWords() []uint32 { return p.words(one(p.Multiplier)) }

func (p ConvParams) words(last int) []uint32 {
	w := p.Window.normalized()
	out := []uint32{
		I32Word(w.StrideH), I32Word(w.StrideW), I32Word(w.DilationH), I32Word(w.DilationW),
		I32Word(w.PadTop), I32Word(w.PadLeft), I32Word(w.PadBottom), I32Word(w.PadRight),
		I32Word(last),
	}
	return append(out, p.Clamp.words()...)
}

// ParseConvParams reads CONV2D or DEPTHWISE_CONV2D params (11 words).
func ParseConvParams(t OpType, w []uint32) (ConvParams, error) {
	if len(w) != 11 {
		return ConvParams{}, fmt.Errorf("%s: want 11 params, have %d", t, len(w))
	}
	p := ConvParams{Window: Window{
		StrideH: WordI32(w[0]), StrideW: WordI32(w[1]),
		DilationH: WordI32(w[2]), DilationW: WordI32(w[3]),
		PadTop: WordI32(w[4]), PadLeft: WordI32(w[5]), PadBottom: WordI32(w[6]), PadRight: WordI32(w[7]),
	}, Clamp: Clamp{WordF32(w[9]), WordF32(w[10])}}
	if t == OpDepthwiseConv2D {
		p.Multiplier = WordI32(w[8])
	} else {
		p.Groups = WordI32(w[8])
	}
	return p, nil
}

// PoolParams are the params of MAX_POOL2D and AVG_POOL2D. Only MAX_POOL2D
// has a dilation (ONNX MaxPool's dilations), in two optional trailing words;
// AVG_POOL2D ignores it.
type PoolParams struct {
	KernelH, KernelW int
	Window
	CountIncludePad bool // AVG_POOL2D only
	Clamp           Clamp
}

// Words encodes MAX_POOL2D params (10 words, 12 when dilated) or, for avg,
// AVG_POOL2D (11).
func (p PoolParams) Words(t OpType) []uint32 {
	w := p.Window.normalized()
	out := []uint32{
		I32Word(p.KernelH), I32Word(p.KernelW), I32Word(w.StrideH), I32Word(w.StrideW),
		I32Word(w.PadTop), I32Word(w.PadLeft), I32Word(w.PadBottom), I32Word(w.PadRight),
	}
	if t == OpAvgPool2D {
		inc := 0
		if p.CountIncludePad {
			inc = 1
		}
		out = append(out, I32Word(inc))
	}
	out = append(out, p.Clamp.words()...)
	if t == OpMaxPool2D && (w.DilationH != 1 || w.DilationW != 1) {
		out = append(out, I32Word(w.DilationH), I32Word(w.DilationW))
	}
	return out
}

// ParsePoolParams reads MAX_POOL2D (10 or 12 words) or AVG_POOL2D (11 words) params.
func ParsePoolParams(t OpType, w []uint32) (PoolParams, error) {
	want := 10
	if t == OpAvgPool2D {
		want = 11
	} else if len(w) == 12 {
		want = 12
	}
	if len(w) != want {
		return PoolParams{}, fmt.Errorf("%s: want %d params, have %d", t, want, len(w))
	}
	p := PoolParams{KernelH: WordI32(w[0]), KernelW: WordI32(w[1]), Window: Window{
		StrideH: WordI32(w[2]), StrideW: WordI32(w[3]), DilationH: 1, DilationW: 1,
		PadTop: WordI32(w[4]), PadLeft: WordI32(w[5]), PadBottom: WordI32(w[6]), PadRight: WordI32(w[7]),
	}}
	k := 8
	if t == OpAvgPool2D {
		p.CountIncludePad = w[8] != 0
		k = 9
	}
	p.Clamp = Clamp{WordF32(w[k]), WordF32(w[k+1])}
	if len(w) == 12 {
		p.DilationH, p.DilationW = WordI32(w[10]), WordI32(w[11])
	}
	return p, nil
}

// ClampWords encodes the params of DENSE, ADD and MUL (act_min, act_max)
// and of CLIP (min, max).
func ClampWords(c Clamp) []uint32 { return c.words() }

// F32Words encodes one f32 param each (BATCH_NORM epsilon, SOFTMAX beta,
// LEAKY_RELU alpha).
func F32Words(v ...float32) []uint32 {
	out := make([]uint32, len(v))
	for i, f := range v {
		out[i] = F32Word(f)
	}
	return out
}

// I32Words encodes one i32 param each (CONCAT axis, TRANSPOSE perm, GELU).
func I32Words(v ...int) []uint32 {
	out := make([]uint32, len(v))
	for i, n := range v {
		out[i] = I32Word(n)
	}
	return out
}

// PadMode is the PAD op's mode.
type PadMode int

const (
	PadConstant PadMode = 0
	PadReflect  PadMode = 1
	PadEdge     PadMode = 2
)

// PadWords encodes PAD params: mode, value, pads before, pads after.
func PadWords(mode PadMode, value float32, before, after []int) []uint32 {
	out := []uint32{I32Word(int(mode)), F32Word(value)}
	out = append(out, I32Words(before...)...)
	return append(out, I32Words(after...)...)
}

// ---- int8 ops (ids 64..75): every param word is an i32 ----

// MetaInt8Rounding is the META key naming the requantization rounding the
// converter computed the int8 params for: RoundingDouble (TFLite's
// default) or RoundingSingle. A runtime built for the other mode refuses
// the file.
const (
	MetaInt8Rounding = "int8_rounding"
	RoundingDouble   = "double"
	RoundingSingle   = "single"
)

// QOut is the int8 output side of an op: zero point and the fused
// activation as a clamp already in the quantized domain.
type QOut struct {
	ZeroPoint      int32
	ActMin, ActMax int32
}

// QOutNone is an int8 output with zero point zp and no activation.
func QOutNone(zp int32) QOut { return QOut{zp, -128, 127} }

// ConvI8Params are the params of CONV2D_I8 (Groups) and
// DEPTHWISE_CONV2D_I8 (Multiplier); zero Groups/Multiplier mean 1. The
// per-channel multipliers and shifts are i32 tensors (inputs 3 and 4).
type ConvI8Params struct {
	Window
	Groups      int // CONV2D_I8 only
	Multiplier  int // DEPTHWISE_CONV2D_I8 only
	InZeroPoint int32
	Out         QOut
}

// Words encodes CONV2D_I8 params (13 words).
func (p ConvI8Params) Words() []uint32 { return p.words(one(p.Groups)) }

// DepthwiseWords encodes DEPTHWISE_CONV2D_I8 params (13 words).
func (p ConvI8Params) DepthwiseWords() []uint32 { return p.words(one(p.Multiplier)) }

func (p ConvI8Params) words(last int) []uint32 {
	w := p.Window.normalized()
	return I32Words(w.StrideH, w.StrideW, w.DilationH, w.DilationW,
		w.PadTop, w.PadLeft, w.PadBottom, w.PadRight, last,
		int(p.InZeroPoint), int(p.Out.ZeroPoint), int(p.Out.ActMin), int(p.Out.ActMax))
}

// ParseConvI8Params reads CONV2D_I8 or DEPTHWISE_CONV2D_I8 params (13 words).
func ParseConvI8Params(t OpType, w []uint32) (ConvI8Params, error) {
	if len(w) != 13 {
		return ConvI8Params{}, fmt.Errorf("%s: want 13 params, have %d", t, len(w))
	}
	p := ConvI8Params{Window: Window{
		StrideH: WordI32(w[0]), StrideW: WordI32(w[1]),
		DilationH: WordI32(w[2]), DilationW: WordI32(w[3]),
		PadTop: WordI32(w[4]), PadLeft: WordI32(w[5]), PadBottom: WordI32(w[6]), PadRight: WordI32(w[7]),
	}, InZeroPoint: int32(w[9]), Out: QOut{int32(w[10]), int32(w[11]), int32(w[12])}}
	if t == OpDepthwiseConv2DI8 {
		p.Multiplier = WordI32(w[8])
	} else {
		p.Groups = WordI32(w[8])
	}
	return p, nil
}

// DenseI8Words encodes DENSE_I8 params: in_zp, out_zp, act_min, act_max.
func DenseI8Words(inZeroPoint int32, out QOut) []uint32 {
	return I32Words(int(inZeroPoint), int(out.ZeroPoint), int(out.ActMin), int(out.ActMax))
}

// PoolI8Params are the params of AVG_POOL2D_I8 and MAX_POOL2D_I8 (input and
// output share quantization; padding is never counted). Only MAX_POOL2D_I8
// has a dilation, in two optional trailing words.
type PoolI8Params struct {
	KernelH, KernelW int
	Window
	ActMin, ActMax int32
}

// Words encodes the 10 pool words, 12 when dilated (max only).
func (p PoolI8Params) Words() []uint32 {
	w := p.Window.normalized()
	out := I32Words(p.KernelH, p.KernelW, w.StrideH, w.StrideW,
		w.PadTop, w.PadLeft, w.PadBottom, w.PadRight, int(p.ActMin), int(p.ActMax))
	if w.DilationH != 1 || w.DilationW != 1 {
		out = append(out, I32Words(w.DilationH, w.DilationW)...)
	}
	return out
}

// ParsePoolI8Params reads AVG_POOL2D_I8 (10 words) / MAX_POOL2D_I8 (10 or 12
// words) params.
func ParsePoolI8Params(t OpType, w []uint32) (PoolI8Params, error) {
	if len(w) != 10 && !(t == OpMaxPool2DI8 && len(w) == 12) {
		return PoolI8Params{}, fmt.Errorf("%s: want 10 params, have %d", t, len(w))
	}
	p := PoolI8Params{KernelH: WordI32(w[0]), KernelW: WordI32(w[1]), Window: Window{
		StrideH: WordI32(w[2]), StrideW: WordI32(w[3]), DilationH: 1, DilationW: 1,
		PadTop: WordI32(w[4]), PadLeft: WordI32(w[5]), PadBottom: WordI32(w[6]), PadRight: WordI32(w[7]),
	}, ActMin: int32(w[8]), ActMax: int32(w[9])}
	if len(w) == 12 {
		p.DilationH, p.DilationW = WordI32(w[10]), WordI32(w[11])
	}
	return p, nil
}

// AddI8Params are the ADD_I8 params (TFLite's int8 add: both inputs
// shifted left by LeftShift, rescaled by M1/Shift1 and M2/Shift2, summed,
// rescaled by MOut/ShiftOut).
type AddI8Params struct {
	In1ZeroPoint, In2ZeroPoint int32
	Out                        QOut
	LeftShift                  int32
	M1, Shift1, M2, Shift2     int32
	MOut, ShiftOut             int32
}

// Words encodes the 12 ADD_I8 words.
func (p AddI8Params) Words() []uint32 {
	return I32Words(int(p.In1ZeroPoint), int(p.In2ZeroPoint), int(p.Out.ZeroPoint), int(p.LeftShift),
		int(p.M1), int(p.Shift1), int(p.M2), int(p.Shift2), int(p.MOut), int(p.ShiftOut),
		int(p.Out.ActMin), int(p.Out.ActMax))
}

// MulI8Params are the MUL_I8 params.
type MulI8Params struct {
	In1ZeroPoint, In2ZeroPoint int32
	Out                        QOut
	M, Shift                   int32
}

// Words encodes the 7 MUL_I8 words.
func (p MulI8Params) Words() []uint32 {
	return I32Words(int(p.In1ZeroPoint), int(p.In2ZeroPoint), int(p.Out.ZeroPoint), int(p.M), int(p.Shift),
		int(p.Out.ActMin), int(p.Out.ActMax))
}

// SoftmaxI8Words encodes SOFTMAX_I8 params: M, shift, diff_min.
func SoftmaxI8Words(m, shift, diffMin int32) []uint32 {
	return I32Words(int(m), int(shift), int(diffMin))
}

// ActFnI8Words encodes LOGISTIC_I8 / TANH_I8 params: in_zp, M, shift, radius.
func ActFnI8Words(inZeroPoint, m, shift, radius int32) []uint32 {
	return I32Words(int(inZeroPoint), int(m), int(shift), int(radius))
}

// RequantizeWords encodes an i8 -> i8 QUANTIZE: M, shift, in_zp, out_zp.
// An f32 -> i8 QUANTIZE and a DEQUANTIZE have no params (nil).
func RequantizeWords(m, shift, inZeroPoint, outZeroPoint int32) []uint32 {
	return I32Words(int(m), int(shift), int(inZeroPoint), int(outZeroPoint))
}

// I32Bytes is the little-endian image of v (bias, multiplier and shift
// tensors of the int8 ops).
func I32Bytes(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

// BytesI32 decodes a little-endian int32 payload.
func BytesI32(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// I8Bytes is the byte image of v.
func I8Bytes(v []int8) []byte {
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

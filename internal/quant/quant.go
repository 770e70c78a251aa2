// Package quant computes the int8 requantization parameters a converter
// stores in a .nk file, exactly as TensorFlow Lite (Micro) computes them at
// prepare time: Q0.31 multipliers and shifts per channel or per tensor,
// activation clamps in the quantized domain, and the fixed-point parameters
// of softmax, logistic and tanh.
//
// Bit-exactness with TFLite depends on mirroring its arithmetic to the
// last bit: scales are float32 in the flatbuffer and are combined in double,
// except for the per-tensor fully-connected multiplier whose scale product is
// taken in float32 first (see FullyConnectedMultiplier). docs/INT8.md has the
// formulas; the tests compare against values TFLite's own code produced.
package quant

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Rounding is the requantization rounding mode the kernels are built with.
// It changes a few converter results too, so the converter must know it.
type Rounding int

const (
	// DoubleRounding is TFLite's default: a rounding doubling high multiply
	// followed by a rounding right shift.
	DoubleRounding Rounding = iota
	// SingleRounding is TFLITE_SINGLE_ROUNDING=1 / NETKIT_SINGLE_ROUNDING=1:
	// one 64-bit multiply and one rounding shift. QuantizeMultiplier then
	// caps the shift at 30, and softmax caps its real multiplier at 2^30-1.
	SingleRounding
)

func (r Rounding) String() string {
	if r == SingleRounding {
		return "single"
	}
	return "double"
}

// ParseRounding reads a rounding mode as the CLI spells it ("double",
// "single").
func ParseRounding(s string) (Rounding, error) {
	switch s {
	case "double":
		return DoubleRounding, nil
	case "single":
		return SingleRounding, nil
	}
	return 0, fmt.Errorf("want double or single, have %q", s)
}

// Int8 limits of the quantized domain.
const (
	QMin = -128
	QMax = 127
)

// MinShift and MaxShift bound the shift a kernel's requantize accepts.
const (
	MinShift = -31
	MaxShift = 30
)

// ErrRange reports a scale combination the int8 kernels cannot represent
// (a multiplier whose shift falls outside [MinShift, MaxShift], a negative
// or non-finite scale).
var ErrRange = errors.New("quant: parameter out of range")

// Multiplier is a Q0.31 fixed-point multiplier M (in [2^30, 2^31-1], or 0)
// and a power-of-two exponent Shift (positive = left): the real value is
// M * 2^(Shift-31).
type Multiplier struct {
	M     int32
	Shift int32
}

// Real returns the real number the multiplier encodes.
func (m Multiplier) Real() float64 {
	return math.Ldexp(float64(m.M), int(m.Shift)-31)
}

// QuantizeMultiplier encodes d as TFLite's QuantizeMultiplier does: the
// frexp significand rounded half away from zero to 31 bits, a significand
// that rounds up to 2^31 renormalised, scales below 2^-32 flushed to zero,
// and in single-rounding mode shifts above 30 clamped (to the largest
// multiplier). d must be finite; a negative d gives a negative M as TFLite.
func QuantizeMultiplier(d float64, r Rounding) Multiplier {
	if d == 0 {
		return Multiplier{}
	}
	q, shift := math.Frexp(d)
	qf := int64(math.Round(q * (1 << 31)))
	if qf == 1<<31 {
		qf /= 2
		shift++
	}
	if shift < -31 {
		shift = 0
		qf = 0
	}
	if r == SingleRounding && shift > 30 {
		shift = 30
		qf = 1<<31 - 1
	}
	return Multiplier{M: int32(qf), Shift: int32(shift)}
}

// checked is QuantizeMultiplier for kernel multipliers: it refuses scales
// the requantize primitive cannot take (shift outside [-31, 30]).
func checked(what string, d float64, r Rounding) (Multiplier, error) {
	if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
		return Multiplier{}, fmt.Errorf("%w: %s real multiplier %g", ErrRange, what, d)
	}
	m := QuantizeMultiplier(d, r)
	if m.Shift < MinShift || m.Shift > MaxShift {
		return Multiplier{}, fmt.Errorf("%w: %s real multiplier %g needs shift %d (allowed %d..%d)",
			ErrRange, what, d, m.Shift, MinShift, MaxShift)
	}
	return m, nil
}

func checkScale(what string, s float32) error {
	if !(s > 0) || math.IsInf(float64(s), 0) {
		return fmt.Errorf("%w: %s scale %g must be positive and finite", ErrRange, what, s)
	}
	return nil
}

// ConvMultipliers returns one multiplier per output channel for Conv2D,
// DepthwiseConv2D and per-channel FullyConnected:
// (double)s_in * (double)s_w[c] / (double)s_out (TFLite
// PopulateConvolutionQuantizationParams). A single weight scale (per-tensor
// weights) is broadcast to all channels.
func ConvMultipliers(sIn float32, sW []float32, sOut float32, channels int, r Rounding) ([]Multiplier, error) {
	if len(sW) != 1 && len(sW) != channels {
		return nil, fmt.Errorf("%w: %d weight scales for %d channels", ErrRange, len(sW), channels)
	}
	if err := checkScale("input", sIn); err != nil {
		return nil, err
	}
	if err := checkScale("output", sOut); err != nil {
		return nil, err
	}
	out := make([]Multiplier, channels)
	for c := range out {
		s := sW[0]
		if len(sW) > 1 {
			s = sW[c]
		}
		if err := checkScale("weight", s); err != nil {
			return nil, err
		}
		m, err := checked(fmt.Sprintf("channel %d", c), float64(sIn)*float64(s)/float64(sOut), r)
		if err != nil {
			return nil, err
		}
		out[c] = m
	}
	return out, nil
}

// FullyConnectedMultiplier is the per-tensor FullyConnected multiplier with
// TFLite's quirk (GetQuantizedConvolutionMultipler): the input and weight
// scales are multiplied in float32, and only that product is widened to
// double before the division by the output scale. For ~99% of scale
// triples this differs from ConvMultipliers in the low bits of M.
func FullyConnectedMultiplier(sIn, sW, sOut float32, r Rounding) (Multiplier, error) {
	for _, c := range []struct {
		what string
		s    float32
	}{{"input", sIn}, {"weight", sW}, {"output", sOut}} {
		if err := checkScale(c.what, c.s); err != nil {
			return Multiplier{}, err
		}
	}
	product := float32(sIn * sW) // explicit float32 rounding, no fused multiply-add
	return checked("fully connected", float64(product)/float64(sOut), r)
}

// AddLeftShift is the headroom shift int8 Add applies to both inputs.
const AddLeftShift = 20

// AddParams are the int8 Add parameters (TFLite CalculateOpDataAdd).
type AddParams struct {
	LeftShift int32
	In1, In2  Multiplier // input rescales, shift <= 0
	Out       Multiplier
}

// Add computes the Add parameters: twice the larger input scale is the
// common scale; each input is rescaled to it after a left shift of 20, and
// the sum is rescaled to the output, all in double.
func Add(s1, s2, sOut float32, r Rounding) (AddParams, error) {
	for _, c := range []struct {
		what string
		s    float32
	}{{"input 1", s1}, {"input 2", s2}, {"output", sOut}} {
		if err := checkScale(c.what, c.s); err != nil {
			return AddParams{}, err
		}
	}
	twiceMax := 2 * math.Max(float64(s1), float64(s2))
	p := AddParams{LeftShift: AddLeftShift}
	var err error
	if p.In1, err = checked("add input 1", float64(s1)/twiceMax, r); err != nil {
		return AddParams{}, err
	}
	if p.In2, err = checked("add input 2", float64(s2)/twiceMax, r); err != nil {
		return AddParams{}, err
	}
	if p.Out, err = checked("add output", twiceMax/(float64(int64(1)<<AddLeftShift)*float64(sOut)), r); err != nil {
		return AddParams{}, err
	}
	return p, nil
}

// Mul computes the int8 Mul multiplier s1*s2/s_out in double.
func Mul(s1, s2, sOut float32, r Rounding) (Multiplier, error) {
	for _, c := range []struct {
		what string
		s    float32
	}{{"input 1", s1}, {"input 2", s2}, {"output", sOut}} {
		if err := checkScale(c.what, c.s); err != nil {
			return Multiplier{}, err
		}
	}
	return checked("mul", float64(s1)*float64(s2)/float64(sOut), r)
}

// Requantize is the multiplier of a int8 -> int8 QUANTIZE op (a rescale):
// s_in / s_out in double.
func Requantize(sIn, sOut float32, r Rounding) (Multiplier, error) {
	if err := checkScale("input", sIn); err != nil {
		return Multiplier{}, err
	}
	if err := checkScale("output", sOut); err != nil {
		return Multiplier{}, err
	}
	return checked("requantize", float64(sIn)/float64(sOut), r)
}

// Mean is the multiplier of an int8 MEAN over n elements per output, as
// TFLite Micro's QuantizedMeanOrSum uses it: s_in / s_out in double
// (QuantizeMultiplier), then 1/n folded in with integers only: with s the
// floor of log2(n), capped at 32 and at 31 + shift, M' = (M << s) / n
// (truncating) and shift' = shift - s. M' may fall below 2^30.
func Mean(sIn, sOut float32, n int, r Rounding) (Multiplier, error) {
	if n < 1 {
		return Multiplier{}, fmt.Errorf("%w: mean over %d elements", ErrRange, n)
	}
	m, err := Requantize(sIn, sOut, r)
	if err != nil {
		return Multiplier{}, err
	}
	s := min(bits.Len64(uint64(n))-1, 32, 31+int(m.Shift))
	return Multiplier{M: int32((int64(m.M) << s) / int64(n)), Shift: m.Shift - int32(s)}, nil
}

// CalculateInputRadius is TFLite's bound on |input| past which a
// fixed-point function saturates: floor((2^intBits - 1) *
// 2^(totalBits-intBits) / 2^leftShift).
func CalculateInputRadius(intBits, leftShift, totalBits int) int32 {
	maxRescaled := float64(int64(1)<<intBits-1) * float64(int64(1)<<(totalBits-intBits)) /
		math.Ldexp(1, leftShift)
	return int32(math.Floor(maxRescaled))
}

// SoftmaxScaledDiffBits is the number of integer bits of the scaled input
// difference softmax feeds to exp (Q5.26).
const SoftmaxScaledDiffBits = 5

// SoftmaxParams are the int8 softmax parameters (output scale 1/256, zero
// point -128).
type SoftmaxParams struct {
	Multiplier       // applied to (x - max) * 2^Shift; Shift >= 0
	DiffMin    int32 // differences below this contribute exp = 0
}

// Softmax computes the softmax parameters (TFLite PreprocessSoftmaxScaling
// and CalculateInputRadius): real = min(beta * s_in * 2^26, cap) with cap
// 2^31-1 (2^30-1 in single rounding), quantized as a multiplier > 1.
func Softmax(beta, sIn float32, r Rounding) (SoftmaxParams, error) {
	if err := checkScale("input", sIn); err != nil {
		return SoftmaxParams{}, err
	}
	if !(beta > 0) || math.IsInf(float64(beta), 0) {
		return SoftmaxParams{}, fmt.Errorf("%w: softmax beta %g", ErrRange, beta)
	}
	limit := float64(int64(1)<<31 - 1)
	if r == SingleRounding {
		limit = float64(int64(1)<<30 - 1)
	}
	real := math.Min(float64(beta)*float64(sIn)*float64(int64(1)<<(31-SoftmaxScaledDiffBits)), limit)
	if !(real > 1) {
		return SoftmaxParams{}, fmt.Errorf("%w: softmax beta*scale %g too small (needs > 2^-26)", ErrRange, real/(1<<26))
	}
	m := QuantizeMultiplier(real, r)
	if m.Shift < 0 || m.Shift > 31 {
		return SoftmaxParams{}, fmt.Errorf("%w: softmax shift %d", ErrRange, m.Shift)
	}
	return SoftmaxParams{
		Multiplier: m,
		DiffMin:    -CalculateInputRadius(SoftmaxScaledDiffBits, int(m.Shift), 31),
	}, nil
}

// LUTInputBits is the number of integer bits of the Q4.27 input of the
// int8 logistic and tanh.
const LUTInputBits = 4

// ActivationFnParams are the int8 logistic / tanh parameters.
type ActivationFnParams struct {
	InputZeroPoint int32
	Multiplier           // rescales (x - zp) to Q4.27; Shift is a left shift
	Radius         int32 // |x - zp| >= Radius saturates
}

// LogisticTanh computes the int8 logistic and tanh parameters as TFLite
// Micro's prepare does: frexp(s_in * 2^27) rounded to 31 bits. Unlike
// QuantizeMultiplier it has no renormalisation for a significand that rounds
// up to 2^31, but a float32 scale's 24-bit significand never does.
func LogisticTanh(sIn float32, zp int32) (ActivationFnParams, error) {
	if err := checkScale("input", sIn); err != nil {
		return ActivationFnParams{}, err
	}
	q, shift := math.Frexp(float64(sIn) * float64(int64(1)<<(31-LUTInputBits)))
	m := int32(math.Round(q * (1 << 31))) // exact: q has 24 significant bits
	if shift > MaxShift || shift < 0 {
		return ActivationFnParams{}, fmt.Errorf("%w: logistic/tanh input scale %g gives shift %d", ErrRange, sIn, shift)
	}
	return ActivationFnParams{
		InputZeroPoint: zp,
		Multiplier:     Multiplier{M: m, Shift: int32(shift)},
		Radius:         CalculateInputRadius(LUTInputBits, shift, 31),
	}, nil
}

// Activation is a fused activation function.
type Activation int

const (
	ActNone Activation = iota
	ActRelu
	ActReluN1To1
	ActRelu6
)

// QuantizeValue is TFLite's quantize for activation bounds: zp +
// round(x / scale), with the division in float32 and rounding half away
// from zero.
func QuantizeValue(x, scale float32, zp int32) int32 {
	return zp + int32(math.Round(float64(x/scale)))
}

// QuantizeI8 is QuantizeValue clamped to int8 (TFLite's Quantize of a real
// input value): the rounding is done in float64 so no x overflows.
func QuantizeI8(x, scale float32, zp int32) int8 {
	q := math.Round(float64(x/scale)) + float64(zp)
	return int8(max(-128, min(127, q)))
}

// ActivationRange is the int8 clamp [lo, hi] of a fused activation
// (TFLite CalculateActivationRangeQuantized).
func ActivationRange(act Activation, scale float32, zp int32) (lo, hi int32, err error) {
	if err := checkScale("output", scale); err != nil {
		return 0, 0, err
	}
	lo, hi = QMin, QMax
	switch act {
	case ActNone:
	case ActRelu:
		lo = max(lo, QuantizeValue(0, scale, zp))
	case ActRelu6:
		lo = max(lo, QuantizeValue(0, scale, zp))
		hi = min(hi, QuantizeValue(6, scale, zp))
	case ActReluN1To1:
		lo = max(lo, QuantizeValue(-1, scale, zp))
		hi = min(hi, QuantizeValue(1, scale, zp))
	default:
		return 0, 0, fmt.Errorf("%w: activation %d has no int8 clamp", ErrRange, act)
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("%w: activation range [%d, %d] is empty", ErrRange, lo, hi)
	}
	return lo, hi, nil
}

// Padding resolves TFLite SAME/VALID padding along one axis: the output
// size, and the padding before and after (the odd remainder goes after).
// It returns out <= 0 when the window does not fit (VALID on a too small
// input).
func Padding(same bool, in, k, stride, dilation int) (out, before, after int) {
	eff := (k-1)*dilation + 1
	if same {
		out = (in + stride - 1) / stride
	} else {
		out = (in + stride - eff) / stride
	}
	if out <= 0 {
		return out, 0, 0
	}
	total := max(0, (out-1)*stride+eff-in)
	return out, total / 2, total/2 + total%2
}

// DequantizeWeights turns int8 weights into float32, scale * (q - zp) with
// one rounding, per tensor (one scale) or per channel along axis. The
// importer uses it for hybrid models (int8 weights under float
// activations), which it converts to float32.
func DequantizeWeights(q []int8, shape []int32, scale []float32, zp []int64, axis int) ([]float32, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("%w: shape %v", ErrRange, shape)
		}
		n *= int(d)
	}
	if n != len(q) || len(scale) == 0 || (len(zp) != 0 && len(zp) != len(scale)) {
		return nil, fmt.Errorf("%w: %d weights for shape %v, %d scales, %d zero points", ErrRange, len(q), shape, len(scale), len(zp))
	}
	stride, channels := n, 1
	if len(scale) > 1 {
		if axis < 0 || axis >= len(shape) || int(shape[axis]) != len(scale) {
			return nil, fmt.Errorf("%w: %d scales along axis %d of %v", ErrRange, len(scale), axis, shape)
		}
		stride, channels = 1, len(scale)
		for _, d := range shape[axis+1:] {
			stride *= int(d)
		}
	}
	out := make([]float32, n)
	for i, v := range q {
		c := (i / stride) % channels
		var z int64
		if len(zp) > 0 {
			z = zp[c]
		}
		out[i] = float32(float64(scale[c]) * float64(int64(v)-z))
	}
	return out, nil
}

// GeluLUT is the 256-entry int8 table of TFLite's int8 GELU (its prepare
// builds it the same way): entry x+128 holds GELU of scale_in*(x - zp_in)
// in float32, divided by scale_out (as a multiply by the float32 inverse),
// rounded half away from zero, plus zp_out, saturated. The erf form runs in
// double inside (TFLite multiplies by the double 1/sqrt 2); the tanh form
// in float32.
func GeluLUT(sIn float32, zpIn int32, sOut float32, zpOut int32, approximate bool) ([256]int8, error) {
	var lut [256]int8
	if err := checkScale("input", sIn); err != nil {
		return lut, err
	}
	if err := checkScale("output", sOut); err != nil {
		return lut, err
	}
	inv := float32(1) / sOut
	for v := int32(-128); v <= 127; v++ {
		x := float32(sIn * float32(v-zpIn))
		y := geluF32(x, approximate)
		q := math.Round(float64(float32(y*inv))) + float64(zpOut)
		lut[v+128] = int8(min(max(q, QMin), QMax))
	}
	return lut, nil
}

func geluF32(x float32, approximate bool) float32 {
	half := float32(0.5 * x)
	if !approximate {
		return float32(float64(half) * (1 + math.Erf(float64(x)*(1/math.Sqrt2))))
	}
	const sqrt2dPi = float32(2 / math.SqrtPi * (1 / math.Sqrt2)) // sqrt(2/pi)
	cube := float32(float32(float32(0.044715*x)*x) * x)
	inner := float32(sqrt2dPi * float32(x+cube))
	return float32(half * float32(1+float32(math.Tanh(float64(inner)))))
}

// HardSwishLUT is TFLite Micro's int8 HARD_SWISH as a table of the 256
// outputs, each computed by its integer kernel (reference hard_swish.h with
// the prepare of hard_swish_common.cc): in float32, the input rescaled to a
// hi-res scale s_in/128, output multiplier (s_in/128)/s_out (its exponent
// must be <= 0) and "reluish" multiplier (s_in/128)/(3/32768), each from
// QuantizeMultiplier rounded down to 16 bits (saturating at 32767); then
// per value int16 fixed point: the rounding doubling high multiply, the
// relu6-like ramp mapped to [0, 32767], a plain doubling high multiply of
// the two, a rounding shift (which for shifts of 16 or more gives +1 or -1,
// as gemmlowp's int16 one does) and the output zero point, clamped.
func HardSwishLUT(sIn float32, zpIn int32, sOut float32, zpOut int32, r Rounding) ([256]int8, error) {
	var lut [256]int8
	if err := checkScale("input", sIn); err != nil {
		return lut, err
	}
	if err := checkScale("output", sOut); err != nil {
		return lut, err
	}
	hires := float32(1.0/128.0) * sIn
	outM := QuantizeMultiplier(float64(hires/sOut), r)
	if outM.Shift > 0 {
		return lut, fmt.Errorf("%w: hard swish output multiplier %g needs shift %d > 0 (TFLite refuses it)", ErrRange, hires/sOut, outM.Shift)
	}
	reluM := QuantizeMultiplier(float64(hires/float32(3.0/32768.0)), r)
	outM16, reluM16 := downScale16(outM.M), downScale16(reluM.M)
	for v := int32(-128); v <= 127; v++ {
		hi := int16((v - zpIn) * 128)
		pre := srdhm16(hi, outM16)
		ramp := hi
		if reluM.Shift > 0 {
			ramp = satShl16(ramp, int(reluM.Shift)-1)
		}
		ramp = srdhm16(ramp, reluM16)
		if reluM.Shift > 0 {
			ramp = satShl16(ramp, 1)
		}
		if reluM.Shift < 0 {
			ramp = rdbpot16(ramp, int(-reluM.Shift))
		}
		ramp = int16((int32(ramp) + 32768) >> 1)
		o := int16(int32(rdbpot16(sdhm16(ramp, pre), int(-outM.Shift))) + zpOut)
		lut[v+128] = int8(min(max(o, QMin), QMax))
	}
	return lut, nil
}

// downScale16 rounds a Q0.31 multiplier to Q0.15, saturating at 32767.
func downScale16(m int32) int16 {
	if m >= math.MaxInt32-(1<<15) {
		return math.MaxInt16
	}
	return int16((m + 1<<15) >> 16)
}

// srdhm16 is gemmlowp's int16 SaturatingRoundingDoublingHighMul.
func srdhm16(a, b int16) int16 {
	if a == math.MinInt16 && b == math.MinInt16 {
		return math.MaxInt16
	}
	ab := int32(a) * int32(b)
	nudge := int32(1 << 14)
	if ab < 0 {
		nudge = 1 - 1<<14
	}
	return int16((ab + nudge) / (1 << 15))
}

// sdhm16 is the doubling high multiply without rounding (truncating).
func sdhm16(a, b int16) int16 {
	if a == math.MinInt16 && b == math.MinInt16 {
		return math.MaxInt16
	}
	return int16(int32(a) * int32(b) / (1 << 15))
}

// satShl16 shifts left by n, saturating to int16.
func satShl16(v int16, n int) int16 {
	return int16(min(max(int64(v)<<n, math.MinInt16), math.MaxInt16))
}

// rdbpot16 is gemmlowp's RoundingDivideByPOT on int16: halves away from
// zero; for e >= 16 its mask is all ones, giving +1 for x >= 0, -1 below.
func rdbpot16(x int16, e int) int16 {
	mask := int16(int64(1)<<e - 1)
	thr := mask >> 1
	if x < 0 {
		thr++
	}
	up := int32(0)
	if x&mask > thr {
		up = 1
	}
	return int16(int32(x)>>e + up)
}

package int8ref

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/quant"
)

// ErrShape reports inconsistent sizes or parameters handed to an op.
var ErrShape = errors.New("int8ref: bad shape or parameter")

func shapeErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrShape}, args...)...)
}

// NHWC is a rank-4 activation shape: batch, height, width, channels.
type NHWC struct{ N, H, W, C int }

func (s NHWC) size() int { return s.N * s.H * s.W * s.C }

func (s NHWC) valid() bool { return s.N > 0 && s.H > 0 && s.W > 0 && s.C > 0 }

// Out is the int8 output quantization and fused activation of an op.
type Out struct {
	ZeroPoint      int32
	ActMin, ActMax int32 // quantized clamp, from quant.ActivationRange
}

// finish requantizes an accumulator, adds the output zero point, then
// clamps: the order TFLite uses (clamping before the offset is wrong).
func (o Out) finish(acc int32, m quant.Multiplier, r quant.Rounding) int8 {
	v := int64(Requantize(acc, m, r)) + int64(o.ZeroPoint)
	return int8(min(max(v, int64(o.ActMin)), int64(o.ActMax)))
}

func (o Out) check() error {
	if o.ActMin > o.ActMax || o.ActMin < quant.QMin || o.ActMax > quant.QMax {
		return shapeErr("activation range [%d, %d]", o.ActMin, o.ActMax)
	}
	return nil
}

// Window describes a 2-D sliding window: strides, dilations, the leading
// padding (top, left) and the output size; the trailing padding is implied.
type Window struct {
	StrideH, StrideW     int
	DilationH, DilationW int // 0 means 1
	PadTop, PadLeft      int
	OutH, OutW           int
}

func (w Window) dil() (int, int) {
	dh, dw := w.DilationH, w.DilationW
	if dh == 0 {
		dh = 1
	}
	if dw == 0 {
		dw = 1
	}
	return dh, dw
}

func (w Window) check() error {
	dh, dw := w.dil()
	if w.StrideH < 1 || w.StrideW < 1 || dh < 1 || dw < 1 || w.OutH < 1 || w.OutW < 1 || w.PadTop < 0 || w.PadLeft < 0 {
		return shapeErr("window %+v", w)
	}
	return nil
}

// ConvParams are the parameters of Conv2D and DepthwiseConv2D.
type ConvParams struct {
	Window
	InZeroPoint int32
	Out
	Mult     []quant.Multiplier // one per output channel (or one for all)
	Rounding quant.Rounding
}

func (p ConvParams) mult(c int) quant.Multiplier {
	if len(p.Mult) == 1 {
		return p.Mult[0]
	}
	return p.Mult[c]
}

// Conv2D is the int8 convolution: x NHWC, w OHWI [O, KH, KW, C/groups],
// optional int32 bias [O]; groups = C / (w's last dim). Taps outside the
// input contribute nothing (as if padded with the input zero point).
func Conv2D(x []int8, xs NHWC, w []int8, o, kh, kw, cPerGroup int, bias []int32, p ConvParams) ([]int8, error) {
	if !xs.valid() || len(x) != xs.size() || o < 1 || kh < 1 || kw < 1 || cPerGroup < 1 ||
		len(w) != o*kh*kw*cPerGroup || xs.C%cPerGroup != 0 {
		return nil, shapeErr("conv input %v weights %dx%dx%dx%d", xs, o, kh, kw, cPerGroup)
	}
	groups := xs.C / cPerGroup
	if o%groups != 0 || (bias != nil && len(bias) != o) || (len(p.Mult) != 1 && len(p.Mult) != o) {
		return nil, shapeErr("conv: %d outputs, %d groups, %d biases, %d multipliers", o, groups, len(bias), len(p.Mult))
	}
	if err := p.Window.check(); err != nil {
		return nil, err
	}
	if err := p.Out.check(); err != nil {
		return nil, err
	}
	dh, dw := p.dil()
	outPerGroup := o / groups
	y := make([]int8, xs.N*p.OutH*p.OutW*o)
	i := 0
	for n := 0; n < xs.N; n++ {
		for oy := 0; oy < p.OutH; oy++ {
			for ox := 0; ox < p.OutW; ox++ {
				for oc := 0; oc < o; oc++ {
					g := oc / outPerGroup
					var acc int64
					for ky := 0; ky < kh; ky++ {
						iy := oy*p.StrideH - p.PadTop + ky*dh
						if iy < 0 || iy >= xs.H {
							continue
						}
						for kx := 0; kx < kw; kx++ {
							ix := ox*p.StrideW - p.PadLeft + kx*dw
							if ix < 0 || ix >= xs.W {
								continue
							}
							for ic := 0; ic < cPerGroup; ic++ {
								xv := int64(x[((n*xs.H+iy)*xs.W+ix)*xs.C+g*cPerGroup+ic]) - int64(p.InZeroPoint)
								wv := int64(w[((oc*kh+ky)*kw+kx)*cPerGroup+ic])
								acc += xv * wv
							}
						}
					}
					if bias != nil {
						acc += int64(bias[oc])
					}
					y[i] = p.finish(wrap32(acc), p.mult(oc), p.Rounding)
					i++
				}
			}
		}
	}
	return y, nil
}

// DepthwiseConv2D is the int8 depthwise convolution with channel
// multiplier m: w is [1, KH, KW, C*m], output channel c*m+j reads input
// channel c.
func DepthwiseConv2D(x []int8, xs NHWC, w []int8, kh, kw, m int, bias []int32, p ConvParams) ([]int8, error) {
	o := xs.C * m
	if !xs.valid() || len(x) != xs.size() || kh < 1 || kw < 1 || m < 1 || len(w) != kh*kw*o {
		return nil, shapeErr("depthwise input %v weights %dx%dx%d", xs, kh, kw, o)
	}
	if (bias != nil && len(bias) != o) || (len(p.Mult) != 1 && len(p.Mult) != o) {
		return nil, shapeErr("depthwise: %d biases, %d multipliers for %d channels", len(bias), len(p.Mult), o)
	}
	if err := p.Window.check(); err != nil {
		return nil, err
	}
	if err := p.Out.check(); err != nil {
		return nil, err
	}
	dh, dw := p.dil()
	y := make([]int8, xs.N*p.OutH*p.OutW*o)
	i := 0
	for n := 0; n < xs.N; n++ {
		for oy := 0; oy < p.OutH; oy++ {
			for ox := 0; ox < p.OutW; ox++ {
				for oc := 0; oc < o; oc++ {
					ic := oc / m
					var acc int64
					for ky := 0; ky < kh; ky++ {
						iy := oy*p.StrideH - p.PadTop + ky*dh
						if iy < 0 || iy >= xs.H {
							continue
						}
						for kx := 0; kx < kw; kx++ {
							ix := ox*p.StrideW - p.PadLeft + kx*dw
							if ix < 0 || ix >= xs.W {
								continue
							}
							xv := int64(x[((n*xs.H+iy)*xs.W+ix)*xs.C+ic]) - int64(p.InZeroPoint)
							acc += xv * int64(w[(ky*kw+kx)*o+oc])
						}
					}
					if bias != nil {
						acc += int64(bias[oc])
					}
					y[i] = p.finish(wrap32(acc), p.mult(oc), p.Rounding)
					i++
				}
			}
		}
	}
	return y, nil
}

// FCParams are the FullyConnected parameters.
type FCParams struct {
	InZeroPoint int32
	Out
	Mult     []quant.Multiplier // one (per-tensor) or one per unit
	Rounding quant.Rounding
}

// FullyConnected is y[b, u] = requant(sum_k (x[b,k] - zp) * w[u,k] + bias[u]).
func FullyConnected(x []int8, batch, depth int, w []int8, units int, bias []int32, p FCParams) ([]int8, error) {
	if batch < 1 || depth < 1 || units < 1 || len(x) != batch*depth || len(w) != units*depth ||
		(bias != nil && len(bias) != units) || (len(p.Mult) != 1 && len(p.Mult) != units) {
		return nil, shapeErr("fully connected %dx%d by %dx%d", batch, depth, units, depth)
	}
	if err := p.Out.check(); err != nil {
		return nil, err
	}
	y := make([]int8, batch*units)
	for b := 0; b < batch; b++ {
		for u := 0; u < units; u++ {
			var acc int64
			for k := 0; k < depth; k++ {
				acc += (int64(x[b*depth+k]) - int64(p.InZeroPoint)) * int64(w[u*depth+k])
			}
			if bias != nil {
				acc += int64(bias[u])
			}
			m := p.Mult[0]
			if len(p.Mult) > 1 {
				m = p.Mult[u]
			}
			y[b*units+u] = p.finish(wrap32(acc), m, p.Rounding)
		}
	}
	return y, nil
}

// PoolParams are the AvgPool / MaxPool parameters (input and output share
// scale and zero point; the clamp is the fused activation).
type PoolParams struct {
	Window
	KH, KW         int
	ActMin, ActMax int32
}

func pool(x []int8, xs NHWC, p PoolParams, reduce func(vals []int8) int32) ([]int8, error) {
	if !xs.valid() || len(x) != xs.size() || p.KH < 1 || p.KW < 1 {
		return nil, shapeErr("pool input %v kernel %dx%d", xs, p.KH, p.KW)
	}
	if err := p.Window.check(); err != nil {
		return nil, err
	}
	if p.ActMin > p.ActMax {
		return nil, shapeErr("pool clamp [%d, %d]", p.ActMin, p.ActMax)
	}
	y := make([]int8, xs.N*p.OutH*p.OutW*xs.C)
	vals := make([]int8, 0, p.KH*p.KW)
	i := 0
	for n := 0; n < xs.N; n++ {
		for oy := 0; oy < p.OutH; oy++ {
			for ox := 0; ox < p.OutW; ox++ {
				for c := 0; c < xs.C; c++ {
					vals = vals[:0]
					for ky := 0; ky < p.KH; ky++ {
						iy := oy*p.StrideH - p.PadTop + ky
						for kx := 0; kx < p.KW; kx++ {
							ix := ox*p.StrideW - p.PadLeft + kx
							if iy >= 0 && iy < xs.H && ix >= 0 && ix < xs.W {
								vals = append(vals, x[((n*xs.H+iy)*xs.W+ix)*xs.C+c])
							}
						}
					}
					if len(vals) == 0 {
						return nil, shapeErr("pool window at (%d, %d) covers no input", oy, ox)
					}
					y[i] = int8(min(max(reduce(vals), p.ActMin), p.ActMax))
					i++
				}
			}
		}
	}
	return y, nil
}

// AvgPool averages the valid (unpadded) taps, rounding half away from
// zero, then clamps.
func AvgPool(x []int8, xs NHWC, p PoolParams) ([]int8, error) {
	return pool(x, xs, p, func(vals []int8) int32 {
		var sum int64
		for _, v := range vals {
			sum += int64(v)
		}
		return int32(roundHalfAway(sum, int64(len(vals))))
	})
}

// roundHalfAway is n/d (d > 0) rounded to nearest, ties away from zero.
func roundHalfAway(n, d int64) int64 {
	q, r := n/d, n%d
	if 2*abs64(r) >= d {
		if n < 0 {
			q--
		} else {
			q++
		}
	}
	return q
}

// MaxPool takes the largest valid tap, then clamps.
func MaxPool(x []int8, xs NHWC, p PoolParams) ([]int8, error) {
	return pool(x, xs, p, func(vals []int8) int32 {
		m := int32(math.MinInt8)
		for _, v := range vals {
			m = max(m, int32(v))
		}
		return m
	})
}

// AddParams are the int8 Add parameters.
type AddParams struct {
	In1ZeroPoint, In2ZeroPoint int32
	Out
	Scales   quant.AddParams
	Rounding quant.Rounding
}

// Add adds two int8 tensors of the same size: both inputs are shifted
// left by 20 bits of headroom, rescaled to a common scale, summed, and the
// sum rescaled to the output.
func Add(a, b []int8, p AddParams) ([]int8, error) {
	if len(a) != len(b) || len(a) == 0 {
		return nil, shapeErr("add of %d and %d elements (no broadcasting)", len(a), len(b))
	}
	if err := p.Out.check(); err != nil {
		return nil, err
	}
	y := make([]int8, len(a))
	for i := range a {
		sa := wrap32((int64(a[i]) - int64(p.In1ZeroPoint)) << p.Scales.LeftShift)
		sb := wrap32((int64(b[i]) - int64(p.In2ZeroPoint)) << p.Scales.LeftShift)
		sum := int64(Requantize(sa, p.Scales.In1, p.Rounding)) + int64(Requantize(sb, p.Scales.In2, p.Rounding))
		y[i] = p.finish(wrap32(sum), p.Scales.Out, p.Rounding)
	}
	return y, nil
}

// MulParams are the int8 Mul parameters.
type MulParams struct {
	In1ZeroPoint, In2ZeroPoint int32
	Out
	Mult     quant.Multiplier
	Rounding quant.Rounding
}

// Mul multiplies two int8 tensors of the same size element by element.
func Mul(a, b []int8, p MulParams) ([]int8, error) {
	if len(a) != len(b) || len(a) == 0 {
		return nil, shapeErr("mul of %d and %d elements (no broadcasting)", len(a), len(b))
	}
	if err := p.Out.check(); err != nil {
		return nil, err
	}
	y := make([]int8, len(a))
	for i := range a {
		prod := (int64(a[i]) - int64(p.In1ZeroPoint)) * (int64(b[i]) - int64(p.In2ZeroPoint))
		y[i] = p.finish(wrap32(prod), p.Mult, p.Rounding)
	}
	return y, nil
}

// Softmax is the int8 softmax over rows of rowLen elements; the output has
// scale 1/256 and zero point -128. The parameters (quant.Softmax) already
// carry the rounding mode's differences, and the scaled difference
// (x - max) * 2^shift * M is the same in both modes.
func Softmax(x []int8, rowLen int, p quant.SoftmaxParams) ([]int8, error) {
	if rowLen < 1 || len(x)%rowLen != 0 || p.Shift < 0 || p.Shift > 31 {
		return nil, shapeErr("softmax of %d elements in rows of %d, shift %d", len(x), rowLen, p.Shift)
	}
	y := make([]int8, len(x))
	scaled := make([]int32, rowLen)
	for start := 0; start < len(x); start += rowLen {
		row := x[start : start+rowLen]
		mx := int32(math.MinInt8)
		for _, v := range row {
			mx = max(mx, int32(v))
		}
		var sum int64 // Q12.19 sum of exps
		for i, v := range row {
			d := int32(v) - mx
			if d < p.DiffMin {
				continue
			}
			scaled[i] = SRDHM(wrap32(int64(d)<<p.Shift), p.M) // Q5.26
			sum += int64(RoundingDivideByPOT(ExpOnNegativeValues(scaled[i], 5), 12))
		}
		s := wrap32(sum)
		// normalise the sum to [1, 2): 1/sum = 2^-(bits over one) / (1 + frac)
		headroom := clz32(s)
		frac := wrap32(int64(uint32(s)<<headroom) - 1<<31)
		recip := OneOverOnePlusX(frac)
		shift := (12 - headroom) + 31 - 8
		for i, v := range row {
			out := int64(math.MinInt8)
			if int32(v)-mx >= p.DiffMin {
				e := ExpOnNegativeValues(scaled[i], 5)
				out = int64(RoundingDivideByPOT(SRDHM(recip, e), shift)) - 128
			}
			y[start+i] = int8(min(max(out, math.MinInt8), math.MaxInt8))
		}
	}
	return y, nil
}

func activationFn(x []int8, p quant.ActivationFnParams, r quant.Rounding, fn func(int32) int32, outBits int, zp int64) []int8 {
	y := make([]int8, len(x))
	for i, v := range x {
		in := int32(v) - p.InputZeroPoint
		switch {
		case in <= -p.Radius:
			y[i] = math.MinInt8
		case in >= p.Radius:
			y[i] = math.MaxInt8
		default:
			q := Requantize(in, p.Multiplier, r) // Q4.27
			out := int64(RoundingDivideByPOT(fn(q), 31-outBits)) + zp
			y[i] = int8(min(max(out, math.MinInt8), math.MaxInt8))
		}
	}
	return y
}

// Logistic is the int8 logistic; output scale 1/256, zero point -128.
func Logistic(x []int8, p quant.ActivationFnParams, r quant.Rounding) []int8 {
	return activationFn(x, p, r, LogisticQ4, 8, -128)
}

// Tanh is the int8 tanh; output scale 1/128, zero point 0.
func Tanh(x []int8, p quant.ActivationFnParams, r quant.Rounding) []int8 {
	return activationFn(x, p, r, TanhQ4, 7, 0)
}

// Quantize converts float32 to int8: round(x / scale) (float32 division,
// ties away from zero) plus the zero point, saturated. NaN maps to the
// zero point.
func Quantize(f []float32, scale float32, zp int32) []int8 {
	y := make([]int8, len(f))
	for i, v := range f {
		q := math.Round(float64(v / scale))
		if math.IsNaN(q) {
			q = 0
		}
		y[i] = int8(math.Min(math.Max(q+float64(zp), math.MinInt8), math.MaxInt8))
	}
	return y
}

// Dequantize converts int8 to float32: scale * (q - zp), rounded once.
func Dequantize(q []int8, scale float32, zp int32) []float32 {
	y := make([]float32, len(q))
	for i, v := range q {
		y[i] = float32(float64(scale) * float64(int32(v)-zp))
	}
	return y
}

// Gelu is TFLite's int8 GELU (kernels/gelu.cc: a table its prepare fills
// by LUTPopulate), element by element: dequantize in float32, GELU (the erf
// form with the double 1/sqrt 2 and double erf, the tanh form in float32
// with sqrt(2/pi) rounded to float32), times the float32 1/scale_out,
// std::round, plus zp_out, saturated.
func Gelu(x []int8, sIn float32, zpIn int32, sOut float32, zpOut int32, approximate bool) []int8 {
	invOut := 1 / sOut
	y := make([]int8, len(x))
	for i, q := range x {
		v := sIn * float32(int32(q)-zpIn)
		var g float32
		if approximate {
			k := float32(math.Sqrt(2 / math.Pi))
			t := float32(math.Tanh(float64(k * (v + float32(float32(float32(0.044715)*v)*v)*v))))
			g = float32(0.5) * v * (1 + t)
		} else {
			g = float32(float64(float32(0.5)*v) * (1 + math.Erf(float64(v)*math.Sqrt(0.5))))
		}
		r := math.Round(float64(g*invOut)) + float64(zpOut)
		y[i] = int8(math.Min(math.Max(r, math.MinInt8), math.MaxInt8))
	}
	return y
}

// SVDFParams are the integer SVDF's shapes and quantization: the state and
// weights_time are int16 when State16, else int8.
type SVDFParams struct {
	Batch, Input, Filters, Memory, Rank int
	State16                             bool
	Feature, Time                       quant.Multiplier // input*weights_feature -> state, state*weights_time -> output
	InZp, StateZp, OutZp                int32
	Rounding                            quant.Rounding
}

// SVDF is one step of TFLite's integer SVDF (reference EvalIntegerSvdf):
// state [batch][filters*memory] (int8 or int16 values held in int32) moves
// one element left, each filter's newest slot takes the feature dot product
// requantized, saturated to the state type, plus the state zero point
// (stored with the state type's wrap-around); each unit's output is its
// rank filters' time dot products plus the bias, requantized to int8. The
// fused activation is not applied, as in TFLite's int8 kernel. It returns
// the output and updates state.
func SVDF(x []int8, wf []int8, wt []int32, bias []int32, state []int32, p SVDFParams) ([]int8, error) {
	if p.Rank < 1 || p.Filters%p.Rank != 0 || len(x) != p.Batch*p.Input || len(wf) != p.Filters*p.Input ||
		len(wt) != p.Filters*p.Memory || len(state) != p.Batch*p.Filters*p.Memory ||
		(bias != nil && len(bias) != p.Filters/p.Rank) {
		return nil, shapeErr("svdf: inconsistent sizes")
	}
	lo, hi, bits := int32(-128), int32(127), 8
	if p.State16 {
		lo, hi, bits = -32768, 32767, 16
	}
	copy(state, state[1:])
	units := p.Filters / p.Rank
	y := make([]int8, p.Batch*units)
	for b := range p.Batch {
		st := state[b*p.Filters*p.Memory : (b+1)*p.Filters*p.Memory]
		for f := range p.Filters {
			var acc int64
			for c := range p.Input {
				acc += int64(wf[f*p.Input+c]) * (int64(x[b*p.Input+c]) - int64(p.InZp))
			}
			v := min(max(Requantize(wrap32(acc), p.Feature, p.Rounding), lo), hi) + p.StateZp
			// TFLite stores zero point + value into the state type: two's complement wrap
			st[f*p.Memory+p.Memory-1] = int32(int64(v) << (64 - bits) >> (64 - bits))
		}
		for u := range units {
			var acc int64
			if bias != nil {
				acc = int64(bias[u])
			}
			for r := range p.Rank {
				f := u*p.Rank + r
				for j := range p.Memory {
					acc += int64(wt[f*p.Memory+j]) * (int64(st[f*p.Memory+j]) - int64(p.StateZp))
				}
			}
			v := Requantize(wrap32(acc), p.Time, p.Rounding) + p.OutZp
			y[b*units+u] = int8(min(max(v, -128), 127))
		}
	}
	return y, nil
}

// Mean is TFLite Micro's int8 MEAN (QuantizedMeanOrSum, no sum): each
// output sums the raw int8 inputs over the dims of shape that mask reduces
// (bit d: dim d) in an int32 that wraps, takes off inZp times the count n
// (the difference wrapped to int32), requantizes by m, which has 1/n folded
// in (quant.Mean), adds outZp and clamps to int8. The output keeps the
// rank, the reduced dims as 1.
func Mean(x []int8, shape []int, mask int, inZp, outZp int32, m quant.Multiplier, r quant.Rounding) ([]int8, error) {
	outShape := slices.Clone(shape)
	n, size := 1, 1
	for d, v := range shape {
		size *= v
		if mask>>d&1 != 0 {
			n *= v
			outShape[d] = 1
		}
	}
	if len(x) != size || mask>>len(shape) != 0 {
		return nil, shapeErr("mean: %d values for shape %v, axes mask %#x", len(x), shape, mask)
	}
	outSize := 1
	for _, v := range outShape {
		outSize *= v
	}
	acc := make([]int32, outSize)
	idx := make([]int, len(shape))
	for i := range x {
		o := 0 // the output's row-major offset: reduced indices count as 0
		for d := range shape {
			if mask>>d&1 == 0 {
				o = o*outShape[d] + idx[d]
			} else {
				o *= outShape[d]
			}
		}
		acc[o] = wrap32(int64(acc[o]) + int64(x[i]))
		for d := len(shape) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	y := make([]int8, outSize)
	for o, a := range acc {
		v := Requantize(wrap32(int64(a)-int64(inZp)*int64(n)), m, r) + outZp
		y[o] = int8(min(max(v, -128), 127))
	}
	return y, nil
}

package int8ref_test

// The C int8 kernels (through the nk package: one-op .nk models built with
// nkfile, run by the C core) against internal/int8ref, the independent Go
// oracle that is bit-exact with TFLite. Random shapes and parameters from
// a fixed seed; every output byte must match. The oracle runs in the
// rounding mode the C core was built with (default double; build it with
// CGO_CFLAGS=-DNETKIT_SINGLE_ROUNDING=1 for single), found by asking the
// core which META int8_rounding it accepts.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/int8ref"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/nk"
)

var rounding = buildRounding()

// roundingModel is a one-op i8 model whose META names the rounding mode.
func roundingModel(mode string) []byte {
	b := nkfile.NewBuilder()
	x := b.Input("x", nkfile.I8, 2, 2)
	b.Output(b.Reshape("r", x, 4))
	b.Meta(nkfile.MetaInt8Rounding, mode)
	m, err := b.Model()
	if err != nil {
		panic(err)
	}
	img, err := nkfile.Encode(m)
	if err != nil {
		panic(err)
	}
	return img
}

func loads(img []byte) error {
	m, err := nk.LoadBytes(img)
	if err == nil {
		err = m.Close()
	}
	return err
}

// buildRounding: the mode whose files the C core accepts.
func buildRounding() quant.Rounding {
	if loads(roundingModel(nkfile.RoundingDouble)) != nil {
		return quant.SingleRounding
	}
	return quant.DoubleRounding
}

// The core accepts files for its own rounding mode only.
func TestCoreRefusesOtherRounding(t *testing.T) {
	own, other := nkfile.RoundingDouble, nkfile.RoundingSingle
	if rounding == quant.SingleRounding {
		own, other = other, own
	}
	require.NoError(t, loads(roundingModel(own)))
	err := loads(roundingModel(other))
	require.Error(t, err)
	require.Contains(t, err.Error(), "int8_rounding")
	t.Logf("C core built for %s rounding", own)
}

type gen struct{ *rand.Rand }

func newGen(seed uint64) gen { return gen{rand.New(rand.NewPCG(seed, 0x6e6b))} }

func (g gen) between(lo, hi int) int { return lo + g.IntN(hi-lo+1) }

func (g gen) i8s(n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(g.IntN(256) - 128)
	}
	return v
}

// scale is log-uniform in [lo, hi].
func (g gen) scale(lo, hi float64) float32 {
	return float32(lo * math.Pow(hi/lo, g.Float64()))
}

func (g gen) zp() int32 { return int32(g.IntN(256) - 128) }

// out picks an output zero point and a clamp: none, relu, relu6 or a
// random range.
func (g gen) out(scale float32) int8ref.Out {
	zp := g.zp()
	acts := []quant.Activation{quant.ActNone, quant.ActRelu, quant.ActRelu6}
	if g.IntN(4) < 3 {
		lo, hi, err := quant.ActivationRange(acts[g.IntN(len(acts))], scale, zp)
		if err == nil {
			return int8ref.Out{ZeroPoint: zp, ActMin: lo, ActMax: hi}
		}
	}
	a, b := g.between(-128, 127), g.between(-128, 127)
	return int8ref.Out{ZeroPoint: zp, ActMin: int32(min(a, b)), ActMax: int32(max(a, b))}
}

func qout(o int8ref.Out) nkfile.QOut {
	return nkfile.QOut{ZeroPoint: o.ZeroPoint, ActMin: o.ActMin, ActMax: o.ActMax}
}

func i8bytes(v []int8) []byte { return nkfile.I8Bytes(v) }

// multTensors adds the M and shift tensors of a per-channel op.
func multTensors(b *nkfile.Builder, ms []quant.Multiplier) (mID, sID int) {
	m := make([]int32, len(ms))
	s := make([]int32, len(ms))
	for i, v := range ms {
		m[i], s[i] = v.M, v.Shift
	}
	mID = b.Const("M", nkfile.I32, []int{len(m)}, nkfile.I32Bytes(m))
	sID = b.Const("shift", nkfile.I32, []int{len(s)}, nkfile.I32Bytes(s))
	return mID, sID
}

// run builds the model, loads it into the C core, feeds ins and returns
// the single output's bytes.
func run(t *testing.T, b *nkfile.Builder, out int, ins ...[]byte) []byte {
	t.Helper()
	b.Output(out)
	m, err := b.Model()
	require.NoError(t, err)
	return runModel(t, m, ins...)
}

// runModel is run for a model built by hand: it records the core's
// rounding mode, checks the model as a writer does, and runs it.
func runModel(t *testing.T, m *nkfile.Model, ins ...[]byte) []byte {
	t.Helper()
	mode := nkfile.RoundingDouble
	if rounding == quant.SingleRounding {
		mode = nkfile.RoundingSingle
	}
	m.Meta = append(m.Meta, nkfile.KV{Key: nkfile.MetaInt8Rounding, Value: mode})
	require.NoError(t, m.CheckShapes())
	out := m.Outputs[0].Tensor
	img, err := nkfile.Encode(m)
	require.NoError(t, err)
	cm, err := nk.LoadBytes(img)
	require.NoError(t, err)
	defer cm.Close()
	got := make([]byte, m.Tensors[out].Bytes())
	require.NoError(t, cm.RunRaw(ins, [][]byte{got}))
	return got
}

func requireSame(t *testing.T, want []int8, got []byte, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		if int8(got[i]) != want[i] {
			t.Fatalf("%s: byte %d of %d: C %d, oracle %d", what, i, len(want), int8(got[i]), want[i])
		}
	}
}

type win2 struct {
	oh, ow                 int
	top, left, bot, right  int
	sh, sw, dh, dw, kh, kw int
}

// window picks SAME or VALID padding for a kernel over h x w; ok is false
// when VALID leaves no output.
func (g gen) window(h, w, kh, kw, maxStride, maxDil int) (win2, bool) {
	v := win2{sh: g.between(1, maxStride), sw: g.between(1, maxStride), dh: g.between(1, maxDil), dw: g.between(1, maxDil), kh: kh, kw: kw}
	same := g.IntN(2) == 0
	v.oh, v.top, v.bot = quant.Padding(same, h, kh, v.sh, v.dh)
	v.ow, v.left, v.right = quant.Padding(same, w, kw, v.sw, v.dw)
	return v, v.oh > 0 && v.ow > 0
}

func (v win2) nk() nkfile.Window {
	return nkfile.Window{StrideH: v.sh, StrideW: v.sw, DilationH: v.dh, DilationW: v.dw,
		PadTop: v.top, PadLeft: v.left, PadBottom: v.bot, PadRight: v.right}
}

func (v win2) ref() int8ref.Window {
	return int8ref.Window{StrideH: v.sh, StrideW: v.sw, DilationH: v.dh, DilationW: v.dw,
		PadTop: v.top, PadLeft: v.left, OutH: v.oh, OutW: v.ow}
}

func (g gen) bias(n int) []int32 {
	if g.IntN(5) == 0 {
		return nil
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(g.IntN(1<<16) - 1<<15)
	}
	return v
}

func biasID(b *nkfile.Builder, bias []int32) int {
	if bias == nil {
		return -1
	}
	return b.Const("bias", nkfile.I32, []int{len(bias)}, nkfile.I32Bytes(bias))
}

// weightScales: per-channel (n) or per-tensor (one).
func (g gen) weightScales(n int) []float32 {
	k := n
	if g.IntN(4) == 0 {
		k = 1
	}
	s := make([]float32, k)
	for i := range s {
		s[i] = g.scale(0.0005, 0.05)
	}
	return s
}

// multipliers: one per weight scale, so per-tensor weights give a single
// multiplier (stored as [1] tensors, broadcast by the kernel).
func multipliers(t *testing.T, sIn float32, sW []float32, sOut float32) []quant.Multiplier {
	ms, err := quant.ConvMultipliers(sIn, sW, sOut, len(sW), rounding)
	require.NoError(t, err)
	return ms
}

func TestConv2DMatchesOracle(t *testing.T) {
	g := newGen(1)
	cases := 0
	for cases < 300 {
		n, h, w := g.between(1, 2), g.between(1, 9), g.between(1, 9)
		groups := 1
		if g.IntN(3) == 0 {
			groups = g.between(2, 3)
		}
		cg, og := g.between(1, 6), g.between(1, 7)
		c, o := cg*groups, og*groups
		kh, kw := g.between(1, 4), g.between(1, 4)
		v, ok := g.window(h, w, kh, kw, 3, 2)
		if !ok {
			continue
		}
		cases++
		sIn, sOut := g.scale(0.005, 0.1), g.scale(0.01, 0.5)
		sW := g.weightScales(o)
		ms := multipliers(t, sIn, sW, sOut)
		x, wt, bias := g.i8s(n*h*w*c), g.i8s(o*kh*kw*cg), g.bias(o)
		inZp, out := g.zp(), g.out(sOut)
		want, err := int8ref.Conv2D(x, int8ref.NHWC{N: n, H: h, W: w, C: c}, wt, o, kh, kw, cg, bias,
			int8ref.ConvParams{Window: v.ref(), InZeroPoint: inZp, Out: out, Mult: ms, Rounding: rounding})
		require.NoError(t, err)

		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, n, h, w, c)
		wi := b.Const("w", nkfile.I8, []int{o, kh, kw, cg}, i8bytes(wt))
		mi, si := multTensors(b, ms)
		p := nkfile.ConvI8Params{Window: v.nk(), Groups: groups, InZeroPoint: inZp, Out: qout(out)}
		y := b.Op(nkfile.OpConv2DI8, "conv", []int{xi, wi, biasID(b, bias), mi, si}, p.Words(), nkfile.ActNone)
		got := run(t, b, y, i8bytes(x))
		requireSame(t, want, got, fmt.Sprintf("conv case %d x[%d,%d,%d,%d] w[%d,%d,%d,%d] groups %d %+v", cases, n, h, w, c, o, kh, kw, cg, groups, v))
	}
}

func TestDepthwiseConv2DMatchesOracle(t *testing.T) {
	g := newGen(2)
	cases := 0
	for cases < 300 {
		n, h, w, c := g.between(1, 2), g.between(1, 9), g.between(1, 9), g.between(1, 11)
		mult := g.between(1, 3)
		kh, kw := g.between(1, 4), g.between(1, 4)
		v, ok := g.window(h, w, kh, kw, 3, 2)
		if !ok {
			continue
		}
		cases++
		checkDepthwise(t, g, n, h, w, c, mult, kh, kw, v, g.zp, fmt.Sprintf("depthwise case %d", cases))
	}
}

// Multiplier 1 without horizontal dilation, the depthwise convs the Arm DSP
// kernel takes (csrc/kernels/armv7em/dsp_depthwise.c; this package's tests
// run it when the core is built with NETKIT_EMULATE_DSP=1): mostly 3x3
// windows at stride 1 and 2 over rows wide enough for several pixel pairs
// and both borders, other kernel sizes, vertical dilation, channel counts
// around multiples of 4 and the extreme input zero points.
func TestDepthwiseConv2DMultiplier1MatchesOracle(t *testing.T) {
	g := newGen(22)
	cases := 0
	for cases < 400 {
		n, h, w := g.between(1, 2), g.between(1, 8), g.between(1, 20)
		c := 4 * g.between(1, 5)
		if g.IntN(3) == 0 {
			c = g.between(1, 13)
		}
		kh, kw := 3, 3
		if g.IntN(3) == 0 {
			kh, kw = g.between(1, 5), g.between(1, 5)
		}
		v := win2{sh: g.between(1, 3), sw: g.between(1, 3), dh: g.between(1, 2), dw: 1, kh: kh, kw: kw}
		same := g.IntN(4) != 0
		v.oh, v.top, v.bot = quant.Padding(same, h, kh, v.sh, v.dh)
		v.ow, v.left, v.right = quant.Padding(same, w, kw, v.sw, v.dw)
		if g.IntN(8) == 0 {
			// explicit padding up to past the kernel: windows with no
			// valid tap at all give the bias alone
			v.top, v.bot = g.between(0, kh+1), g.between(0, kh+1)
			v.left, v.right = g.between(0, kw+2), g.between(0, kw+2)
			v.oh, v.ow = 0, 0
			if eh := v.dh*(kh-1) + 1; h+v.top+v.bot >= eh && w+v.left+v.right >= kw {
				v.oh = (h+v.top+v.bot-eh)/v.sh + 1
				v.ow = (w+v.left+v.right-kw)/v.sw + 1
			}
		}
		if v.oh <= 0 || v.ow <= 0 {
			continue
		}
		zp := g.zp
		switch g.IntN(5) {
		case 0:
			zp = func() int32 { return -128 }
		case 1:
			zp = func() int32 { return 127 }
		}
		cases++
		checkDepthwise(t, g, n, h, w, c, 1, kh, kw, v, zp, fmt.Sprintf("depthwise multiplier 1 case %d", cases))
	}
}

// checkDepthwise runs one depthwise conv with random data, weights, bias
// and quantization (input zero point from zp) through the C core and the
// oracle.
func checkDepthwise(t *testing.T, g gen, n, h, w, c, mult, kh, kw int, v win2, zp func() int32, what string) {
	t.Helper()
	o := c * mult
	sIn, sOut := g.scale(0.005, 0.1), g.scale(0.01, 0.5)
	sW := g.weightScales(o)
	ms := multipliers(t, sIn, sW, sOut)
	x, wt, bias := g.i8s(n*h*w*c), g.i8s(kh*kw*o), g.bias(o)
	inZp, out := zp(), g.out(sOut)
	want, err := int8ref.DepthwiseConv2D(x, int8ref.NHWC{N: n, H: h, W: w, C: c}, wt, kh, kw, mult, bias,
		int8ref.ConvParams{Window: v.ref(), InZeroPoint: inZp, Out: out, Mult: ms, Rounding: rounding})
	require.NoError(t, err)

	b := nkfile.NewBuilder()
	xi := b.Input("x", nkfile.I8, n, h, w, c)
	wi := b.Const("w", nkfile.I8, []int{1, kh, kw, o}, i8bytes(wt))
	mi, si := multTensors(b, ms)
	p := nkfile.ConvI8Params{Window: v.nk(), Multiplier: mult, InZeroPoint: inZp, Out: qout(out)}
	y := b.Op(nkfile.OpDepthwiseConv2DI8, "dw", []int{xi, wi, biasID(b, bias), mi, si}, p.DepthwiseWords(), nkfile.ActNone)
	got := run(t, b, y, i8bytes(x))
	requireSame(t, want, got, fmt.Sprintf("%s x[%d,%d,%d,%d] k %dx%d mult %d %+v", what, n, h, w, c, kh, kw, mult, v))
}

func TestDenseMatchesOracle(t *testing.T) {
	g := newGen(3)
	for k := range 300 {
		batch, depth, units := g.between(1, 3), g.between(1, 70), g.between(1, 11)
		sIn, sOut := g.scale(0.005, 0.1), g.scale(0.01, 0.5)
		var ms []quant.Multiplier
		if g.IntN(2) == 0 { // per-tensor, with TFLite's float32 product quirk
			m, err := quant.FullyConnectedMultiplier(sIn, g.scale(0.0005, 0.05), sOut, rounding)
			require.NoError(t, err)
			ms = []quant.Multiplier{m}
		} else {
			ms = multipliers(t, sIn, g.weightScales(units), sOut)
		}
		x, wt, bias := g.i8s(batch*depth), g.i8s(units*depth), g.bias(units)
		inZp, out := g.zp(), g.out(sOut)
		want, err := int8ref.FullyConnected(x, batch, depth, wt, units, bias,
			int8ref.FCParams{InZeroPoint: inZp, Out: out, Mult: ms, Rounding: rounding})
		require.NoError(t, err)

		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, batch, depth)
		wi := b.Const("w", nkfile.I8, []int{units, depth}, i8bytes(wt))
		mi, si := multTensors(b, ms)
		y := b.Op(nkfile.OpDenseI8, "fc", []int{xi, wi, biasID(b, bias), mi, si}, nkfile.DenseI8Words(inZp, qout(out)), nkfile.ActNone)
		got := run(t, b, y, i8bytes(x))
		requireSame(t, want, got, fmt.Sprintf("dense case %d %dx%d by %d, %d multipliers", k, batch, depth, units, len(ms)))
	}
}

func TestPoolsMatchOracle(t *testing.T) {
	g := newGen(4)
	cases := 0
	for cases < 300 {
		n, h, w, c := g.between(1, 2), g.between(1, 9), g.between(1, 9), g.between(1, 6)
		kh, kw := g.between(1, 4), g.between(1, 4)
		v, ok := g.window(h, w, kh, kw, 3, 1)
		if !ok {
			continue
		}
		cases++
		x := g.i8s(n * h * w * c)
		a, bb := g.between(-128, 127), g.between(-128, 127)
		lo, hi := int32(min(a, bb)), int32(max(a, bb))
		if g.IntN(2) == 0 {
			lo, hi = -128, 127
		}
		isMax := cases%2 == 0
		rp := int8ref.PoolParams{Window: v.ref(), KH: kh, KW: kw, ActMin: lo, ActMax: hi}
		xs := int8ref.NHWC{N: n, H: h, W: w, C: c}
		var want []int8
		var err error
		op := nkfile.OpAvgPool2DI8
		if isMax {
			op = nkfile.OpMaxPool2DI8
			want, err = int8ref.MaxPool(x, xs, rp)
		} else {
			want, err = int8ref.AvgPool(x, xs, rp)
		}
		require.NoError(t, err)
		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, n, h, w, c)
		p := nkfile.PoolI8Params{KernelH: kh, KernelW: kw, Window: v.nk(), ActMin: lo, ActMax: hi}
		y := b.Op(op, "pool", []int{xi}, p.Words(), nkfile.ActNone)
		got := run(t, b, y, i8bytes(x))
		requireSame(t, want, got, fmt.Sprintf("%s case %d x[%d,%d,%d,%d] k %dx%d %+v", op, cases, n, h, w, c, kh, kw, v))
	}
}

func (g gen) shape() []int {
	s := make([]int, g.between(1, 4))
	for i := range s {
		s[i] = g.between(1, 6)
	}
	return s
}

func elems(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

func TestAddMulMatchOracle(t *testing.T) {
	g := newGen(5)
	for k := range 300 {
		shape := g.shape()
		a, bv := g.i8s(elems(shape)), g.i8s(elems(shape))
		s1, s2, sOut := g.scale(0.005, 0.2), g.scale(0.005, 0.2), g.scale(0.005, 0.4)
		z1, z2, out := g.zp(), g.zp(), g.out(sOut)
		b := nkfile.NewBuilder()
		ai := b.Input("a", nkfile.I8, shape...)
		bi := b.Input("b", nkfile.I8, shape...)
		var want []int8
		var y int
		if k%2 == 0 {
			ap, err := quant.Add(s1, s2, sOut, rounding)
			require.NoError(t, err)
			want, err = int8ref.Add(a, bv, int8ref.AddParams{In1ZeroPoint: z1, In2ZeroPoint: z2, Out: out, Scales: ap, Rounding: rounding})
			require.NoError(t, err)
			p := nkfile.AddI8Params{In1ZeroPoint: z1, In2ZeroPoint: z2, Out: qout(out), LeftShift: ap.LeftShift,
				M1: ap.In1.M, Shift1: ap.In1.Shift, M2: ap.In2.M, Shift2: ap.In2.Shift, MOut: ap.Out.M, ShiftOut: ap.Out.Shift}
			y = b.Op(nkfile.OpAddI8, "add", []int{ai, bi}, p.Words(), nkfile.ActNone)
		} else {
			m, err := quant.Mul(s1, s2, sOut, rounding)
			require.NoError(t, err)
			want, err = int8ref.Mul(a, bv, int8ref.MulParams{In1ZeroPoint: z1, In2ZeroPoint: z2, Out: out, Mult: m, Rounding: rounding})
			require.NoError(t, err)
			p := nkfile.MulI8Params{In1ZeroPoint: z1, In2ZeroPoint: z2, Out: qout(out), M: m.M, Shift: m.Shift}
			y = b.Op(nkfile.OpMulI8, "mul", []int{ai, bi}, p.Words(), nkfile.ActNone)
		}
		got := run(t, b, y, i8bytes(a), i8bytes(bv))
		requireSame(t, want, got, fmt.Sprintf("add/mul case %d shape %v", k, shape))
	}
}

// edgeMults are the (M, shift) pairs at the limits the readers accept;
// {2^31-1, 30} with output zero point -128 is the reviewer's overflow
// (docs/INT8.md, "Parameter edges").
var edgeMults = []quant.Multiplier{{M: 0, Shift: -31}, {M: 0, Shift: 30}, {M: 1 << 30, Shift: -31},
	{M: 1 << 30, Shift: 30}, {M: math.MaxInt32, Shift: -31}, {M: math.MaxInt32, Shift: 30}}

// The oracle and the C core agree at the parameter edges: dense at the
// 2^16 depth limit with INT32_MIN/INT32_MAX biases, add and mul with
// every edge multiplier and zero points -128 and 127.
func TestEdgeParamsMatchOracle(t *testing.T) {
	for _, depth := range []int{1, nkfile.MaxI8AccumDepth} {
		for _, bv := range []int32{math.MinInt32, math.MaxInt32} {
			for _, zp := range []int32{-128, 127} {
				units := len(edgeMults)
				x, wt, bias := make([]int8, depth), make([]int8, units*depth), make([]int32, units)
				for i := range x {
					x[i] = int8(-zp - 1) // -128 -> 127, 127 -> -128: the largest |x - zp|
				}
				for i := range wt {
					wt[i] = int8(-128 + 255*(i/depth%2))
				}
				for i := range bias {
					bias[i] = bv
				}
				out := int8ref.Out{ZeroPoint: -zp - 1, ActMin: -128, ActMax: 127}
				want, err := int8ref.FullyConnected(x, 1, depth, wt, units, bias,
					int8ref.FCParams{InZeroPoint: zp, Out: out, Mult: edgeMults, Rounding: rounding})
				require.NoError(t, err)
				b := nkfile.NewBuilder()
				xi := b.Input("x", nkfile.I8, 1, depth)
				wi := b.Const("w", nkfile.I8, []int{units, depth}, i8bytes(wt))
				mi, si := multTensors(b, edgeMults)
				y := b.Op(nkfile.OpDenseI8, "fc", []int{xi, wi, biasID(b, bias), mi, si}, nkfile.DenseI8Words(zp, qout(out)), nkfile.ActNone)
				requireSame(t, want, run(t, b, y, i8bytes(x)), fmt.Sprintf("dense depth %d bias %d zp %d", depth, bv, zp))
			}
		}
	}
	a, bv := make([]int8, 256), make([]int8, 256)
	for i := range a {
		a[i], bv[i] = int8(i-128), int8(127-i)
	}
	for _, m := range edgeMults {
		for _, zp := range []int32{-128, 127} {
			out := int8ref.Out{ZeroPoint: zp, ActMin: -128, ActMax: 127}
			ap := quant.AddParams{LeftShift: 23, In1: m, In2: m, Out: m}
			want, err := int8ref.Add(a, bv, int8ref.AddParams{In1ZeroPoint: zp, In2ZeroPoint: -zp - 1, Out: out, Scales: ap, Rounding: rounding})
			require.NoError(t, err)
			b := nkfile.NewBuilder()
			ai, bi := b.Input("a", nkfile.I8, 256), b.Input("b", nkfile.I8, 256)
			p := nkfile.AddI8Params{In1ZeroPoint: zp, In2ZeroPoint: -zp - 1, Out: qout(out), LeftShift: 23,
				M1: m.M, Shift1: m.Shift, M2: m.M, Shift2: m.Shift, MOut: m.M, ShiftOut: m.Shift}
			y := b.Op(nkfile.OpAddI8, "add", []int{ai, bi}, p.Words(), nkfile.ActNone)
			requireSame(t, want, run(t, b, y, i8bytes(a), i8bytes(bv)), fmt.Sprintf("add %+v zp %d", m, zp))

			want, err = int8ref.Mul(a, bv, int8ref.MulParams{In1ZeroPoint: zp, In2ZeroPoint: zp, Out: out, Mult: m, Rounding: rounding})
			require.NoError(t, err)
			b = nkfile.NewBuilder()
			ai, bi = b.Input("a", nkfile.I8, 256), b.Input("b", nkfile.I8, 256)
			mp := nkfile.MulI8Params{In1ZeroPoint: zp, In2ZeroPoint: zp, Out: qout(out), M: m.M, Shift: m.Shift}
			y = b.Op(nkfile.OpMulI8, "mul", []int{ai, bi}, mp.Words(), nkfile.ActNone)
			requireSame(t, want, run(t, b, y, i8bytes(a), i8bytes(bv)), fmt.Sprintf("mul %+v zp %d", m, zp))
		}
	}
}

func TestSoftmaxMatchesOracle(t *testing.T) {
	g := newGen(6)
	for k := range 200 {
		rows, cols := g.between(1, 5), g.between(1, 40)
		if k%20 == 0 {
			cols = g.between(200, 700) // long rows, incl. all-equal ones below
		}
		x := g.i8s(rows * cols)
		if k%10 == 5 {
			for i := range x {
				x[i] = 17
			}
		}
		beta := float32(1)
		if g.IntN(3) == 0 {
			beta = g.scale(0.1, 4)
		}
		sp, err := quant.Softmax(beta, g.scale(0.01, 0.5), rounding)
		require.NoError(t, err)
		want, err := int8ref.Softmax(x, cols, sp)
		require.NoError(t, err)
		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, rows, cols)
		y := b.Op(nkfile.OpSoftmaxI8, "softmax", []int{xi}, nkfile.SoftmaxI8Words(sp.M, sp.Shift, sp.DiffMin), nkfile.ActNone)
		got := run(t, b, y, i8bytes(x))
		requireSame(t, want, got, fmt.Sprintf("softmax case %d %dx%d %+v", k, rows, cols, sp))
	}
}

// Logistic and tanh over all 256 inputs, once (computed per value) and
// twice over (the 256-entry table path).
func TestLogisticTanhMatchOracle(t *testing.T) {
	g := newGen(7)
	all := make([]int8, 256)
	for i := range all {
		all[i] = int8(i - 128)
	}
	for k := range 120 {
		x := all
		if k%2 == 1 {
			x = append(slices.Clone(all), all...)
		}
		p, err := quant.LogisticTanh(g.scale(0.001, 0.5), g.zp())
		require.NoError(t, err)
		isTanh := k%4 >= 2
		op, want := nkfile.OpLogisticI8, int8ref.Logistic(x, p, rounding)
		if isTanh {
			op, want = nkfile.OpTanhI8, int8ref.Tanh(x, p, rounding)
		}
		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, len(x))
		y := b.Op(op, "fn", []int{xi}, nkfile.ActFnI8Words(p.InputZeroPoint, p.M, p.Shift, p.Radius), nkfile.ActNone)
		got := run(t, b, y, i8bytes(x))
		requireSame(t, want, got, fmt.Sprintf("%s case %d %+v", op, k, p))
	}
}

// LUT_I8 with the table internal/quant builds for TFLite's int8 GELU
// (both forms), over every int8 value, against int8ref.Gelu: random input
// and output quantization. The table is float math, so it does not depend
// on the rounding mode.
func TestGeluLUTMatchesOracle(t *testing.T) {
	g := newGen(11)
	all := make([]int8, 256)
	for i := range all {
		all[i] = int8(i - 128)
	}
	for k := range 200 {
		sIn, zpIn, sOut, zpOut := g.scale(0.002, 0.2), g.zp(), g.scale(0.002, 0.2), g.zp()
		approximate := k%2 == 1
		lut, err := quant.GeluLUT(sIn, zpIn, sOut, zpOut, approximate)
		require.NoError(t, err)
		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, len(all))
		tab := b.Const("lut", nkfile.I8, []int{256}, nkfile.I8Bytes(lut[:]))
		b.SetQuant(tab, &nkfile.Quant{Axis: -1, Scale: []float32{sOut}, ZeroPoint: []int32{zpOut}})
		y := b.Op(nkfile.OpLutI8, "gelu", []int{xi, tab}, nil, nkfile.ActNone)
		b.SetQuant(y, &nkfile.Quant{Axis: -1, Scale: []float32{sOut}, ZeroPoint: []int32{zpOut}})
		got := run(t, b, y, i8bytes(all))
		want := int8ref.Gelu(all, sIn, zpIn, sOut, zpOut, approximate)
		// the oracle itself: within half a step of float64 GELU where not saturated
		for i, q := range want {
			v := float64(sIn) * float64(int32(all[i])-zpIn)
			exact := 0.5 * v * (1 + math.Erf(v/math.Sqrt2))
			if approximate {
				exact = 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
			}
			if q > -128 && q < 127 {
				require.InDelta(t, exact, float64(sOut)*float64(int32(q)-zpOut), 0.5001*float64(sOut), "case %d value %d", k, all[i])
			}
		}
		requireSame(t, want, got,
			fmt.Sprintf("case %d: in %g/%d out %g/%d approximate %v", k, sIn, zpIn, sOut, zpOut, approximate))
	}
}

func TestQuantizeDequantizeMatchOracle(t *testing.T) {
	g := newGen(8)
	for k := range 100 {
		shape := g.shape()
		n := elems(shape)
		scale, zp := g.scale(0.001, 0.5), g.zp()
		q := &nkfile.Quant{Axis: -1, Scale: []float32{scale}, ZeroPoint: []int32{zp}}

		// f32 -> i8, with values on exact ties, huge and NaN ones
		f := make([]float32, n)
		for i := range f {
			switch g.IntN(8) {
			case 0:
				f[i] = (float32(g.between(-300, 300)) + 0.5) * scale
			case 1:
				f[i] = float32(g.NormFloat64() * 1e6)
			case 2:
				f[i] = float32(math.NaN())
			default:
				f[i] = float32(g.NormFloat64()*60) * scale
			}
		}
		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.F32, shape...)
		y := b.Op(nkfile.OpQuantize, "q", []int{xi}, nil, nkfile.ActNone)
		b.SetQuant(y, q)
		got := run(t, b, y, nkfile.F32Bytes(f))
		requireSame(t, int8ref.Quantize(f, scale, zp), got, fmt.Sprintf("quantize case %d", k))

		// i8 -> f32
		x := g.i8s(n)
		b = nkfile.NewBuilder()
		xi = b.Input("x", nkfile.I8, shape...)
		b.SetQuant(xi, q)
		y = b.Op(nkfile.OpDequantize, "dq", []int{xi}, nil, nkfile.ActNone)
		gotF := nkfile.BytesF32(run(t, b, y, i8bytes(x)))
		wantF := int8ref.Dequantize(x, scale, zp)
		for i := range wantF {
			require.Equal(t, math.Float32bits(wantF[i]), math.Float32bits(gotF[i]), "dequantize case %d elem %d", k, i)
		}

		// i8 -> i8 rescale: TFLite's Requantize
		sOut, zOut := g.scale(0.001, 0.5), g.zp()
		m, err := quant.Requantize(scale, sOut, rounding)
		require.NoError(t, err)
		want := make([]int8, n)
		for i, v := range x {
			r := int64(int8ref.Requantize(int32(v)-zp, m, rounding)) + int64(zOut)
			want[i] = int8(min(max(r, -128), 127))
		}
		b = nkfile.NewBuilder()
		xi = b.Input("x", nkfile.I8, shape...)
		y = b.Op(nkfile.OpQuantize, "rq", []int{xi}, nkfile.RequantizeWords(m.M, m.Shift, zp, zOut), nkfile.ActNone)
		requireSame(t, want, run(t, b, y, i8bytes(x)), fmt.Sprintf("requantize case %d", k))
	}
}

// The byte-moving ops on i8 against index arithmetic written here.
func TestShapeOpsI8(t *testing.T) {
	g := newGen(9)
	for k := range 60 {
		shape := g.shape()
		r := len(shape)
		x := g.i8s(elems(shape))
		strides := make([]int, r)
		for d, s := r-1, 1; d >= 0; d-- {
			strides[d], s = s, s*shape[d]
		}
		at := func(idx []int) int8 {
			off := 0
			for d := range idx {
				off += idx[d] * strides[d]
			}
			return x[off]
		}
		// transpose by a random permutation
		perm := g.Perm(r)
		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, shape...)
		y := b.Op(nkfile.OpTranspose, "t", []int{xi}, nkfile.I32Words(perm...), nkfile.ActNone)
		got := run(t, b, y, i8bytes(x))
		outShape := make([]int, r)
		for d := range perm {
			outShape[d] = shape[perm[d]]
		}
		want := make([]int8, 0, len(x))
		forEach(outShape, func(o []int) {
			idx := make([]int, r)
			for d := range o {
				idx[perm[d]] = o[d]
			}
			want = append(want, at(idx))
		})
		requireSame(t, want, got, fmt.Sprintf("transpose case %d %v perm %v", k, shape, perm))

		// constant pad with a quantized value (negative ones included)
		before, after := make([]int, r), make([]int, r)
		padded := make([]int, r)
		for d := range shape {
			before[d], after[d] = g.between(0, 2), g.between(0, 2)
			padded[d] = shape[d] + before[d] + after[d]
		}
		val := g.between(-128, 127)
		words := nkfile.PadWords(nkfile.PadConstant, 0, before, after)
		words[1] = nkfile.I32Word(val)
		b = nkfile.NewBuilder()
		xi = b.Input("x", nkfile.I8, shape...)
		y = b.Op(nkfile.OpPad, "pad", []int{xi}, words, nkfile.ActNone)
		got = run(t, b, y, i8bytes(x))
		want = want[:0]
		forEach(padded, func(o []int) {
			idx := make([]int, r)
			for d := range o {
				idx[d] = o[d] - before[d]
				if idx[d] < 0 || idx[d] >= shape[d] {
					want = append(want, int8(val))
					return
				}
			}
			want = append(want, at(idx))
		})
		requireSame(t, want, got, fmt.Sprintf("pad case %d %v value %d", k, shape, val))

		// concat of x with itself on a random axis
		axis := g.IntN(r)
		b = nkfile.NewBuilder()
		xi = b.Input("x", nkfile.I8, shape...)
		xj := b.Input("x2", nkfile.I8, shape...)
		y = b.Op(nkfile.OpConcat, "cat", []int{xi, xj}, nkfile.I32Words(axis), nkfile.ActNone)
		x2 := g.i8s(len(x))
		got = run(t, b, y, i8bytes(x), i8bytes(x2))
		catShape := slices.Clone(shape)
		catShape[axis] *= 2
		want = want[:0]
		forEach(catShape, func(o []int) {
			idx := slices.Clone(o)
			src := x
			if idx[axis] >= shape[axis] {
				idx[axis] -= shape[axis]
				src = x2
			}
			off := 0
			for d := range idx {
				off += idx[d] * strides[d]
			}
			want = append(want, src[off])
		})
		requireSame(t, want, got, fmt.Sprintf("concat case %d %v axis %d", k, shape, axis))

		// slice: a random start and step (negative ones included) per dim
		begin, step, count := make([]int, r), make([]int, r), make([]int, r)
		for d, n := range shape {
			step[d] = g.between(1, 2) * (1 - 2*g.IntN(2))
			begin[d] = g.IntN(n)
			if step[d] > 0 {
				count[d] = (n-begin[d]+step[d]-1)/step[d] - g.IntN(1+(n-begin[d]-1)/step[d])
			} else {
				count[d] = begin[d]/-step[d] + 1
			}
		}
		// SLICE takes its output shape from the output tensor: no builder inference
		m := &nkfile.Model{
			Tensors: []nkfile.Tensor{{Name: "x", DType: nkfile.I8, Shape: shape}, {Name: "y", DType: nkfile.I8, Shape: count}},
			Ops: []nkfile.Op{{Type: nkfile.OpSlice, Name: "slice", Inputs: []int{0}, Outputs: []int{1},
				Params: nkfile.I32Words(append(slices.Clone(begin), step...)...)}},
			Inputs: []nkfile.IO{{Tensor: 0}}, Outputs: []nkfile.IO{{Tensor: 1}},
		}
		got = runModel(t, m, i8bytes(x))
		want = want[:0]
		forEach(count, func(o []int) {
			idx := make([]int, r)
			for d := range o {
				idx[d] = begin[d] + o[d]*step[d]
			}
			want = append(want, at(idx))
		})
		requireSame(t, want, got, fmt.Sprintf("slice case %d %v begin %v step %v count %v", k, shape, begin, step, count))
	}
}

// forEach visits every index of shape in row-major order.
func forEach(shape []int, f func(idx []int)) {
	idx := make([]int, len(shape))
	for {
		f(idx)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// TFLite Micro's int8 MEAN over random axes of random shapes (rank 1..5,
// among them the global pooling [1,H,W,C] over H and W), with the
// multiplier folded by quant.Mean: every byte as the oracle's.
func TestReduceMeanMatchesOracle(t *testing.T) {
	g := newGen(11)
	for k := range 400 {
		shape := make([]int, g.between(1, 5))
		for i := range shape {
			shape[i] = g.between(1, 7)
		}
		mask := g.IntN(1 << len(shape))
		if k%4 == 0 { // global average pooling
			shape, mask = []int{1, g.between(1, 12), g.between(1, 12), g.between(1, 40)}, 0b0110
		}
		n := 1
		for d, v := range shape {
			if mask>>d&1 != 0 {
				n *= v
			}
		}
		sIn, sOut := g.scale(0.001, 0.5), g.scale(0.001, 0.5)
		if k%7 == 0 { // a tiny ratio: the fold's cap at 31 + shift
			sOut = sIn * float32(math.Ldexp(1, g.between(18, 26)))
		}
		m, err := quant.Mean(sIn, sOut, n, rounding)
		require.NoError(t, err)
		inZp, outZp := g.zp(), g.zp()
		x := g.i8s(elems(shape))
		want, err := int8ref.Mean(x, shape, mask, inZp, outZp, m, rounding)
		require.NoError(t, err)
		b := nkfile.NewBuilder()
		xi := b.Input("x", nkfile.I8, shape...)
		y := b.Op(nkfile.OpReduceMeanI8, "mean", []int{xi}, nkfile.I32Words(mask, int(inZp), int(outZp), int(m.M), int(m.Shift)), nkfile.ActNone)
		got := run(t, b, y, i8bytes(x))
		requireSame(t, want, got, fmt.Sprintf("mean case %d shape %v mask %#b n %d m %v", k, shape, mask, n, m))
	}
}

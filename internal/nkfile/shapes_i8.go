package nkfile

import (
	"fmt"
	"slices"
)

// Shape and parameter rules of the int8 ops (ids 64..75), mirroring the C
// validators in csrc/ops/*_i8.c: the two readers accept the same images.

// MaxI8AccumDepth bounds the products summed into one int32 accumulator
// of CONV2D_I8, DEPTHWISE_CONV2D_I8 and DENSE_I8 (kernel taps times input
// channels per group), so the sum of x*w and the zero-point term cannot
// overflow.
const MaxI8AccumDepth = 1 << 16

// MaxI8PoolTaps bounds the kernel area of the int8 pools (the int32 sum).
const MaxI8PoolTaps = 1 << 24

func i32At(w []uint32, k int) int32 { return int32(w[k]) }

func checkZeroPoint(what string, zp int32) error {
	if zp < -128 || zp > 127 {
		return fmt.Errorf("%s %d outside -128..127", what, zp)
	}
	return nil
}

func checkQClamp(lo, hi int32) error {
	if lo < -128 || hi > 127 || lo > hi {
		return fmt.Errorf("activation clamp [%d, %d] must be within -128..127 and not empty", lo, hi)
	}
	return nil
}

// checkMultiplier: a Q0.31 multiplier in [2^30, 2^31) or 0 and a shift in
// [-31, 30] (positive = left).
func checkMultiplier(what string, m, shift int32) error {
	if m != 0 && m < 1<<30 {
		return fmt.Errorf("%s multiplier %d must be 0 or in [2^30, 2^31)", what, m)
	}
	if shift < -31 || shift > 30 {
		return fmt.Errorf("%s shift %d outside -31..30", what, shift)
	}
	return nil
}

// checkPerChannel checks the shapes of the M and shift inputs: [n] or [1].
func checkPerChannel(in [][]int, n int) error {
	m, s := in[3], in[4]
	if len(m) != 1 || (m[0] != n && m[0] != 1) || !slices.Equal(m, s) {
		return fmt.Errorf("multiplier %v and shift %v must both be [%d] or [1]", m, s, n)
	}
	return nil
}

func inferShapeI8(op *Op, in [][]int) ([]int, error) {
	t, p := op.Type, op.Params
	x := in[0]
	switch t {
	case OpConv2DI8, OpDepthwiseConv2DI8:
		cp, err := ParseConvI8Params(t, p)
		if err != nil {
			return nil, err
		}
		w := in[1]
		if len(x) != 4 || len(w) != 4 {
			return nil, fmt.Errorf("x %v and W %v must be rank 4", x, w)
		}
		var outC, depth int
		if t == OpConv2DI8 {
			g := cp.Groups
			if g < 1 || x[3]%g != 0 || w[0]%g != 0 || w[3] != x[3]/g {
				return nil, fmt.Errorf("x %v, W %v and groups %d: want W [O, KH, KW, C/groups]", x, w, g)
			}
			outC, depth = w[0], w[1]*w[2]*w[3]
		} else {
			mult := cp.Multiplier
			if mult < 1 || w[0] != 1 || w[3] != x[3]*mult {
				return nil, fmt.Errorf("x %v, W %v and multiplier %d: want W [1, KH, KW, C*M]", x, w, mult)
			}
			outC, depth = w[3], w[1]*w[2]
		}
		if err := checkBias(in, outC); err != nil {
			return nil, err
		}
		if err := checkPerChannel(in, outC); err != nil {
			return nil, err
		}
		oh, ow, err := window(x, w[1], w[2], cp.Window)
		if err != nil {
			return nil, err
		}
		if depth > MaxI8AccumDepth {
			return nil, fmt.Errorf("accumulation depth %d above %d", depth, MaxI8AccumDepth)
		}
		if err := checkConvOut(cp.InZeroPoint, cp.Out); err != nil {
			return nil, err
		}
		return []int{x[0], oh, ow, outC}, nil
	case OpDenseI8:
		w := in[1]
		if len(x) < 1 || len(w) != 2 || w[1] != x[len(x)-1] {
			return nil, fmt.Errorf("x %v and W %v: want x [..., K] and W [N, K]", x, w)
		}
		if err := checkBias(in, w[0]); err != nil {
			return nil, err
		}
		if err := checkPerChannel(in, w[0]); err != nil {
			return nil, err
		}
		if w[1] > MaxI8AccumDepth {
			return nil, fmt.Errorf("accumulation depth %d above %d", w[1], MaxI8AccumDepth)
		}
		if err := checkConvOut(i32At(p, 0), QOut{i32At(p, 1), i32At(p, 2), i32At(p, 3)}); err != nil {
			return nil, err
		}
		return append(slices.Clone(x[:len(x)-1]), w[0]), nil
	case OpAvgPool2DI8, OpMaxPool2DI8:
		pp, err := ParsePoolI8Params(t, p)
		if err != nil {
			return nil, err
		}
		if len(x) != 4 {
			return nil, fmt.Errorf("x %v must be rank 4", x)
		}
		if pp.PadTop >= pp.KernelH || pp.PadBottom >= pp.KernelH || pp.PadLeft >= pp.KernelW || pp.PadRight >= pp.KernelW {
			return nil, fmt.Errorf("pads must be smaller than the kernel")
		}
		oh, ow, err := window(x, pp.KernelH, pp.KernelW, pp.Window)
		if err != nil {
			return nil, err
		}
		if !poolAxisCovered(x[1], oh, pp.KernelH, pp.StrideH, pp.DilationH, pp.PadTop) ||
			!poolAxisCovered(x[2], ow, pp.KernelW, pp.StrideW, pp.DilationW, pp.PadLeft) {
			return nil, fmt.Errorf("a dilated window lands only on padding")
		}
		if int64(pp.KernelH)*int64(pp.KernelW) > MaxI8PoolTaps {
			return nil, fmt.Errorf("kernel %dx%d above %d taps", pp.KernelH, pp.KernelW, MaxI8PoolTaps)
		}
		if err := checkQClamp(pp.ActMin, pp.ActMax); err != nil {
			return nil, err
		}
		return []int{x[0], oh, ow, x[3]}, nil
	case OpAddI8, OpMulI8:
		out, err := BroadcastShapes(in[0], in[1])
		if err != nil {
			return nil, err
		}
		for k, what := range []string{"input 1 zero point", "input 2 zero point", "output zero point"} {
			if err := checkZeroPoint(what, i32At(p, k)); err != nil {
				return nil, err
			}
		}
		if t == OpAddI8 {
			if ls := i32At(p, 3); ls < 0 || ls > 23 {
				return nil, fmt.Errorf("left shift %d outside 0..23", ls)
			}
			for k, what := range []string{"input 1", "input 2", "output"} {
				if err := checkMultiplier(what, i32At(p, 4+2*k), i32At(p, 5+2*k)); err != nil {
					return nil, err
				}
			}
			if err := checkQClamp(i32At(p, 10), i32At(p, 11)); err != nil {
				return nil, err
			}
		} else {
			if err := checkMultiplier("output", i32At(p, 3), i32At(p, 4)); err != nil {
				return nil, err
			}
			if err := checkQClamp(i32At(p, 5), i32At(p, 6)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case OpSoftmaxI8:
		if len(x) < 1 {
			return nil, fmt.Errorf("softmax needs rank >= 1")
		}
		m, shift, diffMin := i32At(p, 0), i32At(p, 1), i32At(p, 2)
		if m != 0 && m < 1<<30 {
			return nil, fmt.Errorf("multiplier %d must be 0 or in [2^30, 2^31)", m)
		}
		if shift < 0 || shift > 31 || diffMin > 0 {
			return nil, fmt.Errorf("shift %d must be 0..31 and diff_min %d <= 0", shift, diffMin)
		}
		return slices.Clone(x), nil
	case OpLutI8:
		if len(in[1]) != 1 || in[1][0] != 256 {
			return nil, fmt.Errorf("table %v, want [256]", in[1])
		}
		return slices.Clone(x), nil
	case OpLogisticI8, OpTanhI8:
		if err := checkZeroPoint("input zero point", i32At(p, 0)); err != nil {
			return nil, err
		}
		if err := checkMultiplier("input", i32At(p, 1), i32At(p, 2)); err != nil {
			return nil, err
		}
		if r := i32At(p, 3); r < 0 {
			return nil, fmt.Errorf("radius %d must be >= 0", r)
		}
		return slices.Clone(x), nil
	case OpQuantize:
		switch len(p) {
		case 0:
		case 4:
			// the zero points' ranges depend on the dtypes: checkOpTypes
			if err := checkMultiplier("requantize", i32At(p, 0), i32At(p, 1)); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%d params, want 0 (f32 input) or 4 (i8, i16 input)", len(p))
		}
		return slices.Clone(x), nil
	case OpSvdfI8:
		return inferSvdf(p, in)
	case OpReduceMeanI8:
		if err := checkZeroPoint("input zero point", i32At(p, 1)); err != nil {
			return nil, err
		}
		if err := checkZeroPoint("output zero point", i32At(p, 2)); err != nil {
			return nil, err
		}
		// the multiplier has the element count folded in: any in [0, 2^31)
		if m, shift := i32At(p, 3), i32At(p, 4); m < 0 || shift < -31 || shift > 30 {
			return nil, fmt.Errorf("multiplier %d must be >= 0 and shift %d in -31..30", m, shift)
		}
		return inferShape(&Op{Type: OpReduceMean, Params: p[:1]}, in)
	case OpDequantize:
		return slices.Clone(x), nil
	}
	return nil, fmt.Errorf("no shape rule")
}

func checkConvOut(inZp int32, out QOut) error {
	if err := checkZeroPoint("input zero point", inZp); err != nil {
		return err
	}
	if err := checkZeroPoint("output zero point", out.ZeroPoint); err != nil {
		return err
	}
	return checkQClamp(out.ActMin, out.ActMax)
}

// checkOpTypes applies the dtype rules of the C op table: an op runs on
// the dtype of its input 0 when the table has that (op, dtype) entry, and
// each entry fixes the dtypes of the other inputs and the output. It also
// checks what only the tensors tell: the i8 PAD value, the f32 PAD value,
// the QUANT records QUANTIZE and DEQUANTIZE read, and the values of the
// constant multiplier and shift tensors.
func (m *Model) checkOpTypes(op *Op) error {
	dt := func(k int) DType {
		if k >= len(op.Inputs) || op.Inputs[k] < 0 || op.Inputs[k] >= len(m.Tensors) {
			return 0
		}
		return m.Tensors[op.Inputs[k]].DType
	}
	out := &m.Tensors[op.Outputs[0]]
	in0 := dt(0)
	want := func(outDT DType, ins ...DType) error {
		for k := range op.Inputs {
			if op.Inputs[k] < 0 {
				continue
			}
			w := ins[min(k, len(ins)-1)]
			if got := dt(k); got != w {
				return fmt.Errorf("input %d is %s, want %s", k, got, w)
			}
		}
		if out.DType != outDT {
			return fmt.Errorf("output is %s, want %s", out.DType, outDT)
		}
		return nil
	}
	t := op.Type
	switch {
	case t < opFloatEnd && in0 == F32:
		if err := want(F32, F32); err != nil {
			return err
		}
		if t == OpPad && WordI32(op.Params[0]) == int(PadConstant) && WordF32(op.Params[1]) != WordF32(op.Params[1]) {
			return fmt.Errorf("constant value is NaN")
		}
		return nil
	case (t == OpConcat || t == OpReshape || t == OpPad || t == OpTranspose || t == OpSlice) && in0 == I8:
		if err := want(I8, I8); err != nil {
			return err
		}
		if t == OpPad {
			if v := i32At(op.Params, 1); v < -128 || v > 127 {
				return fmt.Errorf("i8 pad value %d outside -128..127", v)
			}
		}
		return nil
	case (t == OpConv2DI8 || t == OpDepthwiseConv2DI8 || t == OpDenseI8) && in0 == I8:
		if err := want(I8, I8, I8, I32, I32, I32); err != nil {
			return err
		}
		ms, ss := &m.Tensors[op.Inputs[3]], &m.Tensors[op.Inputs[4]]
		if !ms.Const() || !ss.Const() {
			return fmt.Errorf("multiplier and shift must be constant tensors")
		}
		mv, sv := BytesI32(ms.Data), BytesI32(ss.Data)
		for c := range mv {
			if err := checkMultiplier(fmt.Sprintf("channel %d", c), mv[c], sv[c]); err != nil {
				return err
			}
		}
		return nil
	case in0 != F32 && TypedOp(t, in0): // integer, float16 or double: no clamp; quantized: max and min of raw values only
		if err := want(in0, in0); err != nil {
			return err
		}
		if clampAt(op.Params, 0) != NoClamp {
			return fmt.Errorf("%s tensors take no clamp", in0)
		}
		for _, id := range append(slices.Clone(op.Inputs), op.Outputs[0]) {
			if m.Tensors[id].Quant != nil && t != OpMaximum && t != OpMinimum {
				return fmt.Errorf("tensor %q is quantized: int8 arithmetic is ADD_I8 / MUL_I8", m.Tensors[id].Name)
			}
		}
		return nil
	case t == OpSoftmaxI8 && in0 == I8 && out.DType == I16: // TFLite's int8 -> int16 softmax
		return nil
	case t >= OpAvgPool2DI8 && t <= OpTanhI8 && in0 == I8:
		return want(I8, I8)
	case t == OpQuantize && (in0 == I8 || in0 == I16) && len(op.Params) == 4:
		if out.DType != I8 && out.DType != I16 && out.DType != I32 {
			return fmt.Errorf("output is %s, want i8, i16 or i32", out.DType)
		}
		if err := checkIntZeroPoint("input zero point", i32At(op.Params, 2), in0); err != nil {
			return err
		}
		return checkIntZeroPoint("output zero point", i32At(op.Params, 3), out.DType)
	case t == OpSvdfI8 && in0 == I8:
		wt := dt(2)
		if wt != I8 && wt != I16 {
			return fmt.Errorf("weights_time is %s, want i8 or i16", wt)
		}
		if err := want(I8, I8, I8, wt, I32, wt); err != nil {
			return err
		}
		st := &m.Tensors[op.Inputs[4]]
		if !st.State {
			return fmt.Errorf("the state (input 4) must be a STATE tensor")
		}
		return checkIntZeroPoint("state zero point", i32At(op.Params, 6), wt)
	case t == OpQuantize && (in0 == F32 || in0 == I8):
		if err := want(I8, in0); err != nil {
			return err
		}
		if in0 == F32 && len(op.Params) != 0 || in0 == I8 && len(op.Params) != 4 {
			return fmt.Errorf("%s input takes %d params, have %d", in0, map[DType]int{F32: 0, I8: 4}[in0], len(op.Params))
		}
		if in0 == F32 && out.Quant == nil {
			return fmt.Errorf("output has no quantization record")
		}
		return nil
	case t == OpResize2D && in0 == I8:
		if err := want(I8, I8); err != nil {
			return err
		}
		if WordI32(op.Params[0]) != ResizeNearest {
			return fmt.Errorf("i8 resize is nearest only")
		}
		return nil
	case t == OpReduceMeanI8 && in0 == I8:
		return want(I8, I8)
	case t == OpLutI8 && in0 == I8:
		if err := want(I8, I8); err != nil {
			return err
		}
		if tab := &m.Tensors[op.Inputs[1]]; !tab.Const() || tab.Elems() != 256 {
			return fmt.Errorf("table must be a constant of 256 values")
		}
		return nil
	case t == OpDequantize && in0 == I8:
		if err := want(F32, I8); err != nil {
			return err
		}
		if m.Tensors[op.Inputs[0]].Quant == nil {
			return fmt.Errorf("input has no quantization record")
		}
		return nil
	}
	return fmt.Errorf("not supported on %s input", in0)
}

// checkIntZeroPoint checks a zero point against an integer dtype's range
// (i32: any).
func checkIntZeroPoint(what string, zp int32, dt DType) error {
	switch dt {
	case I8:
		return checkZeroPoint(what, zp)
	case I16:
		if zp < -32768 || zp > 32767 {
			return fmt.Errorf("%s %d outside int16", what, zp)
		}
	}
	return nil
}

// SvdfI8Words are the params of SVDF_I8.
func SvdfI8Words(rank int, m1, shift1, m2, shift2, inZp, stateZp, outZp int32) []uint32 {
	return []uint32{uint32(int32(rank)), uint32(m1), uint32(shift1), uint32(m2), uint32(shift2),
		uint32(inZp), uint32(stateZp), uint32(outZp)}
}

// inferSvdf: x [B, I], weights_feature [F, I], weights_time [F, M], bias
// [F/rank] or absent, state [B, F*M] -> [B, F/rank].
func inferSvdf(p []uint32, in [][]int) ([]int, error) {
	x, wf, wt, st := in[0], in[1], in[2], in[4]
	rank := int(i32At(p, 0))
	if len(x) != 2 || len(wf) != 2 || len(wt) != 2 || len(st) != 2 {
		return nil, fmt.Errorf("x %v, weights %v %v and state %v must be rank 2", x, wf, wt, st)
	}
	f, mem := wt[0], wt[1]
	if rank < 1 || f%rank != 0 || wf[0] != f || wf[1] != x[1] {
		return nil, fmt.Errorf("x %v, weights_feature %v, weights_time %v, rank %d: want [F, I], [F, M], rank dividing F", x, wf, wt, rank)
	}
	if st[0] != x[0] || st[1] != f*mem {
		return nil, fmt.Errorf("state %v, want [%d, %d]", st, x[0], f*mem)
	}
	if in[3] != nil && (len(in[3]) != 1 || in[3][0] != f/rank) {
		return nil, fmt.Errorf("bias %v, want [%d]", in[3], f/rank)
	}
	for _, z := range []struct {
		what string
		k    int
	}{{"input zero point", 5}, {"output zero point", 7}} {
		if err := checkZeroPoint(z.what, i32At(p, z.k)); err != nil {
			return nil, err
		}
	}
	if err := checkMultiplier("feature", i32At(p, 1), i32At(p, 2)); err != nil {
		return nil, err
	}
	if err := checkMultiplier("time", i32At(p, 3), i32At(p, 4)); err != nil {
		return nil, err
	}
	return []int{x[0], f / rank}, nil
}

package nkfile

import (
	"fmt"
	"slices"
)

// Shape inference for the writer side: model builders and converters ask
// for an op's output shape instead of computing it by hand, and
// CheckShapes verifies a whole model before it is written. The C core's
// op validators remain the authority at load time; these rules mirror the
// spec's op table.

// ConvOutDim is the output extent of a convolution or pool along one axis,
// or a value < 1 when the window does not fit.
func ConvOutDim(in, kernel, stride, dilation, padBefore, padAfter int) int {
	eff := dilation*(kernel-1) + 1
	span := in + padBefore + padAfter - eff
	if span < 0 || stride < 1 {
		return 0
	}
	return span/stride + 1
}

// paramCount is the number of param words each op takes; -1 when it
// depends on the input rank (PAD, TRANSPOSE).
var paramCount = [opTypeEnd]int{
	OpDense: 2, OpConv2D: 11, OpDepthwiseConv2D: 11, OpMaxPool2D: -1, OpAvgPool2D: 11,
	OpGlobalAvgPool: 0, OpBatchNorm: 1, OpRelu: 0, OpClip: 2, OpLeakyRelu: 1,
	OpSigmoid: 0, OpTanh: 0, OpGelu: 1, OpSoftmax: 1, OpAdd: 2, OpMul: 2,
	OpConcat: 1, OpReshape: 0, OpPad: -1, OpTranspose: -1, OpResize2D: -1, OpConvTranspose2D: 10,
	OpSub: 2, OpDiv: 2, OpMaximum: 2, OpMinimum: 2, OpPow: 2, OpExp: 0, OpSqrt: 0, OpNeg: 0,
	OpAbs: 0, OpReciprocal: 0, OpHardSigmoid: 2, OpHardSwish: 0,
	OpReduceMean: 1, OpReduceSum: 1, OpReduceMax: 1, OpSlice: -1, OpMatMul: 2,
	OpLayerNorm: 2, OpLSTM: -1, OpGRU: -1,
	OpConv2DI8: 13, OpDepthwiseConv2DI8: 13, OpDenseI8: 4, OpAvgPool2DI8: 10, OpMaxPool2DI8: -1,
	OpAddI8: 12, OpMulI8: 7, OpSoftmaxI8: 3, OpLogisticI8: 4, OpTanhI8: 4,
	OpQuantize: -1, OpDequantize: 0, OpLutI8: 0, OpSvdfI8: 8, OpReduceMeanI8: 5,
}

// inputArity is the [min, max] number of inputs of each op.
var inputArity = [opTypeEnd][2]int{
	OpDense: {2, 3}, OpConv2D: {2, 3}, OpDepthwiseConv2D: {2, 3}, OpMaxPool2D: {1, 1},
	OpAvgPool2D: {1, 1}, OpGlobalAvgPool: {1, 1}, OpBatchNorm: {5, 5}, OpRelu: {1, 1},
	OpClip: {1, 1}, OpLeakyRelu: {1, 1}, OpSigmoid: {1, 1}, OpTanh: {1, 1}, OpGelu: {1, 1},
	OpSoftmax: {1, 1}, OpAdd: {2, 2}, OpMul: {2, 2}, OpConcat: {1, MaxOpInputs},
	OpReshape: {1, 1}, OpPad: {1, 1}, OpTranspose: {1, 1}, OpResize2D: {1, 1}, OpConvTranspose2D: {2, 3},
	OpSub: {2, 2}, OpDiv: {2, 2}, OpMaximum: {2, 2}, OpMinimum: {2, 2}, OpPow: {2, 2},
	OpExp: {1, 1}, OpSqrt: {1, 1}, OpNeg: {1, 1}, OpAbs: {1, 1}, OpReciprocal: {1, 1},
	OpHardSigmoid: {1, 1}, OpHardSwish: {1, 1},
	OpReduceMean: {1, 1}, OpReduceSum: {1, 1}, OpReduceMax: {1, 1}, OpSlice: {1, 1},
	OpMatMul: {2, 2}, OpLayerNorm: {2, 3}, OpLSTM: {3, 7}, OpGRU: {3, 5},
	OpConv2DI8: {5, 5}, OpDepthwiseConv2DI8: {5, 5}, OpDenseI8: {5, 5}, OpAvgPool2DI8: {1, 1},
	OpMaxPool2DI8: {1, 1}, OpAddI8: {2, 2}, OpMulI8: {2, 2}, OpSoftmaxI8: {1, 1},
	OpLogisticI8: {1, 1}, OpTanhI8: {1, 1}, OpQuantize: {1, 1}, OpDequantize: {1, 1},
	OpLutI8: {2, 2}, OpSvdfI8: {5, 5}, OpReduceMeanI8: {1, 1},
}

// optionalInput reports whether input k of op type t may be absent (the bias).
func optionalInput(t OpType, k int) bool {
	switch t {
	case OpDense, OpConv2D, OpDepthwiseConv2D, OpConv2DI8, OpDepthwiseConv2DI8, OpDenseI8, OpLayerNorm,
		OpConvTranspose2D:
		return k == 2
	case OpLSTM, OpGRU:
		return k >= 3
	case OpSvdfI8:
		return k == 3
	}
	return false
}

// BroadcastShapes returns the numpy broadcast of a and b.
func BroadcastShapes(a, b []int) ([]int, error) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range n {
		da, db := 1, 1
		if k := i - (n - len(a)); k >= 0 {
			da = a[k]
		}
		if k := i - (n - len(b)); k >= 0 {
			db = b[k]
		}
		switch {
		case da == db, db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// InferShape returns the output shape of a single-output op given its
// input shapes (nil for an absent optional input). RESHAPE has no
// inferable output (its target is the output tensor itself) and errors.
func InferShape(op *Op, in [][]int) ([]int, error) {
	out, err := inferShape(op, in)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", op.Type, op.Name, err)
	}
	return out, nil
}

func inferShape(op *Op, in [][]int) ([]int, error) {
	t := op.Type
	if !t.Known() {
		return nil, fmt.Errorf("unknown op type")
	}
	ar := inputArity[t]
	if len(in) < ar[0] || len(in) > ar[1] {
		return nil, fmt.Errorf("%d inputs, want %d..%d", len(in), ar[0], ar[1])
	}
	for k, s := range in {
		if s == nil && !optionalInput(t, k) {
			return nil, fmt.Errorf("input %d is absent but required", k)
		}
	}
	if want := paramCount[t]; want >= 0 && len(op.Params) != want {
		return nil, fmt.Errorf("%d params, want %d", len(op.Params), want)
	}
	x := in[0]
	switch t {
	case OpDense:
		w := in[1]
		if len(x) < 1 || len(w) != 2 || w[1] != x[len(x)-1] {
			return nil, fmt.Errorf("x %v and W %v: want x [..., K] and W [N, K]", x, w)
		}
		if err := checkBias(in, w[0]); err != nil {
			return nil, err
		}
		if err := checkClamp(clampAt(op.Params, 0)); err != nil {
			return nil, err
		}
		return append(slices.Clone(x[:len(x)-1]), w[0]), nil
	case OpConv2D, OpDepthwiseConv2D:
		p, err := ParseConvParams(t, op.Params)
		if err != nil {
			return nil, err
		}
		w := in[1]
		if len(x) != 4 || len(w) != 4 {
			return nil, fmt.Errorf("x %v and W %v must be rank 4", x, w)
		}
		var outC int
		if t == OpConv2D {
			g := p.Groups
			if g < 1 || x[3]%g != 0 || w[0]%g != 0 || w[3] != x[3]/g {
				return nil, fmt.Errorf("x %v, W %v and groups %d: want W [O, KH, KW, C/groups]", x, w, g)
			}
			outC = w[0]
		} else {
			mult := p.Multiplier
			if mult < 1 || w[0] != 1 || w[3] != x[3]*mult {
				return nil, fmt.Errorf("x %v, W %v and multiplier %d: want W [1, KH, KW, C*M]", x, w, mult)
			}
			outC = w[3]
		}
		if err := checkBias(in, outC); err != nil {
			return nil, err
		}
		oh, ow, err := window(x, w[1], w[2], p.Window)
		if err != nil {
			return nil, err
		}
		if err := checkClamp(p.Clamp); err != nil {
			return nil, err
		}
		return []int{x[0], oh, ow, outC}, nil
	case OpMaxPool2D, OpAvgPool2D:
		p, err := ParsePoolParams(t, op.Params)
		if err != nil {
			return nil, err
		}
		if len(x) != 4 {
			return nil, fmt.Errorf("x %v must be rank 4", x)
		}
		if p.PadTop >= p.KernelH || p.PadBottom >= p.KernelH || p.PadLeft >= p.KernelW || p.PadRight >= p.KernelW {
			return nil, fmt.Errorf("pads must be smaller than the kernel")
		}
		oh, ow, err := window(x, p.KernelH, p.KernelW, p.Window)
		if err != nil {
			return nil, err
		}
		if !poolAxisCovered(x[1], oh, p.KernelH, p.StrideH, p.DilationH, p.PadTop) ||
			!poolAxisCovered(x[2], ow, p.KernelW, p.StrideW, p.DilationW, p.PadLeft) {
			return nil, fmt.Errorf("a dilated window lands only on padding")
		}
		if t == OpAvgPool2D && op.Params[8] > 1 {
			return nil, fmt.Errorf("count_include_pad must be 0 or 1")
		}
		if err := checkClamp(p.Clamp); err != nil {
			return nil, err
		}
		return []int{x[0], oh, ow, x[3]}, nil
	case OpGlobalAvgPool:
		if len(x) != 4 {
			return nil, fmt.Errorf("x %v must be rank 4", x)
		}
		return []int{x[0], 1, 1, x[3]}, nil
	case OpBatchNorm:
		if len(x) < 1 {
			return nil, fmt.Errorf("x must have a channel axis")
		}
		c := x[len(x)-1]
		for k := 1; k < 5; k++ {
			if !slices.Equal(in[k], []int{c}) {
				return nil, fmt.Errorf("input %d is %v, want [%d]", k, in[k], c)
			}
		}
		if eps := WordF32(op.Params[0]); !finite(eps) || eps < 0 {
			return nil, fmt.Errorf("epsilon %g must be finite and >= 0", eps)
		}
		return slices.Clone(x), nil
	case OpRelu, OpSigmoid, OpTanh:
		return slices.Clone(x), nil
	case OpClip:
		if err := checkClamp(clampAt(op.Params, 0)); err != nil {
			return nil, err
		}
		return slices.Clone(x), nil
	case OpLeakyRelu:
		if !finite(WordF32(op.Params[0])) {
			return nil, fmt.Errorf("alpha must be finite")
		}
		return slices.Clone(x), nil
	case OpGelu:
		if op.Params[0] > 1 {
			return nil, fmt.Errorf("approximate must be 0 (erf) or 1 (tanh)")
		}
		return slices.Clone(x), nil
	case OpSoftmax:
		if len(x) < 1 {
			return nil, fmt.Errorf("softmax needs rank >= 1")
		}
		if !finite(WordF32(op.Params[0])) {
			return nil, fmt.Errorf("beta must be finite")
		}
		return slices.Clone(x), nil
	case OpExp, OpSqrt, OpNeg, OpAbs, OpReciprocal, OpHardSwish:
		return slices.Clone(x), nil
	case OpHardSigmoid:
		if !finite(WordF32(op.Params[0])) || !finite(WordF32(op.Params[1])) {
			return nil, fmt.Errorf("alpha and beta must be finite")
		}
		return slices.Clone(x), nil
	case OpAdd, OpMul, OpSub, OpDiv, OpMaximum, OpMinimum, OpPow:
		if err := checkClamp(clampAt(op.Params, 0)); err != nil {
			return nil, err
		}
		return BroadcastShapes(in[0], in[1])
	case OpConcat:
		axis := WordI32(op.Params[0])
		if axis < 0 || axis >= len(x) {
			return nil, fmt.Errorf("axis %d outside 0..%d", axis, len(x)-1)
		}
		out := slices.Clone(x)
		for _, s := range in[1:] {
			if len(s) != len(x) {
				return nil, fmt.Errorf("inputs %v and %v differ in rank", x, s)
			}
			for k := range s {
				if k != axis && s[k] != x[k] {
					return nil, fmt.Errorf("inputs %v and %v differ off axis %d", x, s, axis)
				}
			}
			out[axis] += s[axis]
		}
		return out, nil
	case OpReshape:
		return nil, fmt.Errorf("reshape takes its output shape from the output tensor")
	case OpLayerNorm:
		axis, eps := WordI32(op.Params[0]), WordF32(op.Params[1])
		if axis < 0 || axis >= len(x) {
			return nil, fmt.Errorf("axis %d outside 0..%d", axis, len(x)-1)
		}
		for k, p := range in[1:] {
			if p != nil && !slices.Equal(p, x[axis:]) {
				return nil, fmt.Errorf("input %d %v is not dims %d.. of %v", k+1, p, axis, x)
			}
		}
		if !finite(eps) || eps < 0 {
			return nil, fmt.Errorf("epsilon must be finite and >= 0")
		}
		return slices.Clone(x), nil
	case OpMatMul:
		if err := checkClamp(clampAt(op.Params, 0)); err != nil {
			return nil, err
		}
		return MatMulShape(in[0], in[1])
	case OpSlice:
		return nil, fmt.Errorf("slice takes its output shape from the output tensor")
	case OpReduceMean, OpReduceSum, OpReduceMax, OpReduceMeanI8:
		mask := op.Params[0]
		if len(x) < 32 && mask>>uint(len(x)) != 0 {
			return nil, fmt.Errorf("axes mask %#x names dims beyond rank %d", mask, len(x))
		}
		out := slices.Clone(x)
		for k := range out {
			if mask>>uint(k)&1 != 0 {
				out[k] = 1
			}
		}
		return out, nil
	case OpPad:
		r := len(x)
		if len(op.Params) != 2+2*r {
			return nil, fmt.Errorf("%d params, want %d for rank %d", len(op.Params), 2+2*r, r)
		}
		mode := WordI32(op.Params[0])
		if mode < 0 || mode > int(PadEdge) {
			return nil, fmt.Errorf("unknown pad mode %d", mode)
		}
		// the value word is f32 (NaN refused) or, on i8, an i32: CheckShapes
		// checks it once the dtype is known
		out := make([]int, r)
		for k := range r {
			// Negative pads crop; reflect mirrors without repeating the edge.
			before, after, n := WordI32(op.Params[2+k]), WordI32(op.Params[2+r+k]), x[k]
			limit := MaxDim
			if PadMode(mode) == PadReflect {
				limit = n - 1
			}
			out[k] = n + before + after
			if before > limit || after > limit || before < -n || after < -n || out[k] < 1 {
				return nil, fmt.Errorf("pads %d,%d on axis %d of size %d are out of range", before, after, k, n)
			}
		}
		return out, nil
	case OpTranspose:
		r := len(x)
		if len(op.Params) != r {
			return nil, fmt.Errorf("%d params, want a perm of %d", len(op.Params), r)
		}
		seen := make([]bool, r)
		out := make([]int, r)
		for k, w := range op.Params {
			p := WordI32(w)
			if p < 0 || p >= r || seen[p] {
				return nil, fmt.Errorf("perm %v is not a permutation", op.Params)
			}
			seen[p] = true
			out[k] = x[p]
		}
		return out, nil
	case OpResize2D:
		return resize2DShape(op.Params, x)
	case OpConvTranspose2D:
		return convTranspose2DShape(op.Params, in)
	case OpLSTM, OpGRU:
		outs, err := RNNShapes(op, in)
		if err != nil {
			return nil, err
		}
		return outs[0], nil
	}
	return inferShapeI8(op, in)
}

// checkClamp rejects a NaN or empty fused-activation range.
func checkClamp(c Clamp) error {
	if c.Min != c.Min || c.Max != c.Max || c.Min > c.Max {
		return fmt.Errorf("activation clamp [%g, %g] is empty or NaN", c.Min, c.Max)
	}
	return nil
}

func finite(f float32) bool { return f == f && f-f == 0 }

// clampAt reads the clamp stored in words k and k+1.
func clampAt(w []uint32, k int) Clamp { return Clamp{WordF32(w[k]), WordF32(w[k+1])} }

func checkBias(in [][]int, n int) error {
	if len(in) >= 3 && in[2] != nil && !slices.Equal(in[2], []int{n}) {
		return fmt.Errorf("bias %v, want [%d]", in[2], n)
	}
	return nil
}

// window checks a parsed window (zero strides are errors here, unlike in
// the Words helpers) and returns the output extent.
// poolAxisCovered reports whether every pool window along one axis has a
// tap inside the input (taps dil apart; with dilation a window can straddle
// the input without landing on it).
func poolAxisCovered(in, out, k, stride, dil, pad int) bool {
	for o := range out {
		start := o*stride - pad
		first := 0
		if start < 0 {
			first = (-start + dil - 1) / dil
		}
		if first >= k || start+first*dil >= in {
			return false
		}
	}
	return true
}

func window(x []int, kh, kw int, w Window) (oh, ow int, err error) {
	for i, v := range []int{kh, kw, w.StrideH, w.StrideW, w.DilationH, w.DilationW, w.PadTop, w.PadLeft, w.PadBottom, w.PadRight} {
		lo := 0
		if i < 6 {
			lo = 1 // kernel, stride and dilation
		}
		if v < lo || v > MaxDim {
			return 0, 0, fmt.Errorf("window %dx%d %+v: kernel, stride and dilation must be 1..%d, pads 0..%d", kh, kw, w, MaxDim, MaxDim)
		}
	}
	oh = ConvOutDim(x[1], kh, w.StrideH, w.DilationH, w.PadTop, w.PadBottom)
	ow = ConvOutDim(x[2], kw, w.StrideW, w.DilationW, w.PadLeft, w.PadRight)
	if oh < 1 || ow < 1 {
		return 0, 0, fmt.Errorf("window %dx%d does not fit input %v", kh, kw, x)
	}
	return oh, ow, nil
}

// CheckShapes verifies every op's input and output shapes, dtypes and
// parameters by the rules of the C core's op table (float ops on f32,
// int8 ops and the byte-moving ops on i8).
func (m *Model) CheckShapes() error {
	for i := range m.Ops {
		op := &m.Ops[i]
		in := make([][]int, len(op.Inputs))
		for k, id := range op.Inputs {
			if id >= 0 && id < len(m.Tensors) {
				in[k] = m.Tensors[id].Shape
			}
		}
		if op.Type == OpLSTM || op.Type == OpGRU {
			if err := m.checkRNNOutputs(op, in); err != nil {
				return fmt.Errorf("nkfile: op %d (%s %q): %w", i, op.Type, op.Name, err)
			}
		} else if len(op.Outputs) != 1 || op.Outputs[0] < 0 || op.Outputs[0] >= len(m.Tensors) {
			return fmt.Errorf("nkfile: op %d (%s %q): want exactly one valid output", i, op.Type, op.Name)
		}
		got := m.Tensors[op.Outputs[0]]
		if op.Type == OpReshape {
			if len(in) != 1 || in[0] == nil {
				return fmt.Errorf("nkfile: op %d (reshape %q): want one input", i, op.Name)
			}
			src := m.Tensors[op.Inputs[0]]
			if src.Elems() != got.Elems() {
				return fmt.Errorf("nkfile: op %d (reshape %q): %v and %v differ in element count", i, op.Name, src.Shape, got.Shape)
			}
		} else if op.Type == OpSlice {
			if len(in) != 1 || in[0] == nil {
				return fmt.Errorf("nkfile: op %d (slice %q): want one input", i, op.Name)
			}
			if err := CheckSlice(op.Params, in[0], got.Shape); err != nil {
				return fmt.Errorf("nkfile: op %d (slice %q): %w", i, op.Name, err)
			}
		} else {
			want, err := InferShape(op, in)
			if err != nil {
				return fmt.Errorf("nkfile: op %d: %w", i, err)
			}
			if !slices.Equal(want, got.Shape) {
				return fmt.Errorf("nkfile: op %d (%s %q): output tensor is %v, the op produces %v", i, op.Type, op.Name, got.Shape, want)
			}
		}
		if err := m.checkOpTypes(op); err != nil {
			return fmt.Errorf("nkfile: op %d (%s %q): %w", i, op.Type, op.Name, err)
		}
	}
	return nil
}

// SliceWords are the params of a SLICE: begin per dim, then step per dim.
func SliceWords(begin, step []int) []uint32 {
	return append(I32Words(begin...), I32Words(step...)...)
}

// CheckSlice checks SLICE params against its input and output shapes: one
// begin and one non-zero step per dim, and every index read inside the input.
func CheckSlice(params []uint32, in, out []int) error {
	r := len(in)
	if len(params) != 2*r || len(out) != r {
		return fmt.Errorf("%d params and a rank-%d output for a rank-%d input, want %d and %d", len(params), len(out), r, 2*r, r)
	}
	for k := range r {
		begin, step := WordI32(params[k]), WordI32(params[r+k])
		last := begin + (out[k]-1)*step
		if step == 0 || begin < 0 || begin >= in[k] || last < 0 || last >= in[k] {
			return fmt.Errorf("dim %d: begin %d step %d for %d outputs leaves input %v", k, begin, step, out[k], in)
		}
	}
	return nil
}

// MatMulShape is the output of a batched matrix product a [..., M, K] @
// b [..., K, N] with numpy broadcasting of the batch dims (ranks >= 2).
func MatMulShape(a, b []int) ([]int, error) {
	if len(a) < 2 || len(b) < 2 || a[len(a)-1] != b[len(b)-2] {
		return nil, fmt.Errorf("%v @ %v: want [..., M, K] @ [..., K, N]", a, b)
	}
	batch, err := BroadcastShapes(a[:len(a)-2], b[:len(b)-2])
	if err != nil {
		return nil, fmt.Errorf("%v @ %v: batch dims: %w", a, b, err)
	}
	return append(batch, a[len(a)-2], b[len(b)-1]), nil
}

package int8ref

import (
	"fmt"

	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
)

// RunTFLite executes the first subgraph of an int8 TFLite model with this
// package's ops: the whole-model oracle for netkit's importer and kernels.
// Parameters are derived from the file's scales with internal/quant, the
// way TFLite Micro's prepare derives them. It returns every tensor's int8
// values by tensor index (constants and the input included).
//
// Supported: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, AVERAGE_POOL_2D,
// MAX_POOL_2D, ADD and MUL (equal shapes), RESHAPE, SOFTMAX, LOGISTIC,
// TANH, with int8 activations, int8 weights and int32 biases.
func RunTFLite(m *tflite.Model, input []int8, r quant.Rounding) (map[int32][]int8, error) {
	if len(m.Subgraphs) == 0 {
		return nil, fmt.Errorf("%w: no subgraph", ErrShape)
	}
	g := &graph{m: m, sg: &m.Subgraphs[0], vals: map[int32][]int8{}, r: r}
	if len(g.sg.Inputs) != 1 {
		return nil, fmt.Errorf("%w: %d graph inputs, want 1", ErrShape, len(g.sg.Inputs))
	}
	in := g.sg.Inputs[0]
	if err := g.wantType(in, tflite.Int8); err != nil {
		return nil, err
	}
	if len(input) != numel(g.sg.Tensors[in].Shape) {
		return nil, fmt.Errorf("%w: input has %d values, tensor %v", ErrShape, len(input), g.sg.Tensors[in].Shape)
	}
	g.vals[in] = input
	for i := range g.sg.Operators {
		if err := g.run(&g.sg.Operators[i]); err != nil {
			code, _ := m.Op(&g.sg.Operators[i])
			return nil, fmt.Errorf("operator %d (%v): %w", i, code, err)
		}
	}
	return g.vals, nil
}

type graph struct {
	m    *tflite.Model
	sg   *tflite.Subgraph
	vals map[int32][]int8
	r    quant.Rounding
}

func numel(shape []int32) int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	return n
}

func (g *graph) tensor(i int32) *tflite.Tensor { return &g.sg.Tensors[i] }

func (g *graph) wantType(i int32, ty tflite.TensorType) error {
	if t := g.tensor(i); t.Type != ty {
		return fmt.Errorf("%w: tensor %d %q is %v, want %v", ErrShape, i, t.Name, t.Type, ty)
	}
	return nil
}

// scaleZp is a per-tensor scale and zero point.
func (g *graph) scaleZp(i int32) (float32, int32, error) {
	q := g.tensor(i).Quant
	if q == nil || len(q.Scale) == 0 || len(q.ZeroPoint) == 0 {
		return 0, 0, fmt.Errorf("%w: tensor %d %q is not quantized", ErrShape, i, g.tensor(i).Name)
	}
	return q.Scale[0], int32(q.ZeroPoint[0]), nil
}

// value is a tensor's int8 data: computed, or a constant buffer.
func (g *graph) value(i int32) ([]int8, error) {
	if v, ok := g.vals[i]; ok {
		return v, nil
	}
	if err := g.wantType(i, tflite.Int8); err != nil {
		return nil, err
	}
	data := g.m.Buffers[g.tensor(i).Buffer].Data
	if len(data) != numel(g.tensor(i).Shape) {
		return nil, fmt.Errorf("%w: tensor %d %q has no value yet", ErrShape, i, g.tensor(i).Name)
	}
	v := make([]int8, len(data))
	for k, b := range data {
		v[k] = int8(b)
	}
	return v, nil
}

func (g *graph) bias(op *tflite.Operator, n int) ([]int32, error) {
	if len(op.Inputs) < 3 || op.Inputs[2] < 0 {
		return nil, nil
	}
	i := op.Inputs[2]
	if err := g.wantType(i, tflite.Int32); err != nil {
		return nil, err
	}
	data := g.m.Buffers[g.tensor(i).Buffer].Data
	if len(data) != 4*n {
		return nil, fmt.Errorf("%w: bias has %d bytes for %d channels", ErrShape, len(data), n)
	}
	b := make([]int32, n)
	for k := range b {
		b[k] = int32(uint32(data[4*k]) | uint32(data[4*k+1])<<8 | uint32(data[4*k+2])<<16 | uint32(data[4*k+3])<<24)
	}
	return b, nil
}

var actOf = map[tflite.Activation]quant.Activation{
	tflite.ActNone: quant.ActNone, tflite.ActRelu: quant.ActRelu,
	tflite.ActReluN1To1: quant.ActReluN1To1, tflite.ActRelu6: quant.ActRelu6,
}

// out is the output's zero point and clamp for a fused activation.
func (g *graph) out(i int32, act tflite.Activation) (Out, float32, error) {
	s, zp, err := g.scaleZp(i)
	if err != nil {
		return Out{}, 0, err
	}
	a, ok := actOf[act]
	if !ok {
		return Out{}, 0, fmt.Errorf("%w: fused activation %v", ErrShape, act)
	}
	lo, hi, err := quant.ActivationRange(a, s, zp)
	return Out{ZeroPoint: zp, ActMin: lo, ActMax: hi}, s, err
}

func nhwc(shape []int32) (NHWC, error) {
	if len(shape) != 4 {
		return NHWC{}, fmt.Errorf("%w: shape %v is not NHWC", ErrShape, shape)
	}
	return NHWC{int(shape[0]), int(shape[1]), int(shape[2]), int(shape[3])}, nil
}

// window resolves SAME/VALID padding and checks it against the output shape.
func window(pad tflite.Padding, in, out NHWC, kh, kw, sh, sw, dh, dw int) (Window, error) {
	oh, top, _ := quant.Padding(pad == tflite.PaddingSame, in.H, kh, sh, dh)
	ow, left, _ := quant.Padding(pad == tflite.PaddingSame, in.W, kw, sw, dw)
	if oh != out.H || ow != out.W {
		return Window{}, fmt.Errorf("%w: %v padding gives %dx%d, output is %dx%d", ErrShape, pad, oh, ow, out.H, out.W)
	}
	return Window{StrideH: sh, StrideW: sw, DilationH: dh, DilationW: dw, PadTop: top, PadLeft: left, OutH: oh, OutW: ow}, nil
}

func (g *graph) run(op *tflite.Operator) error {
	code, err := g.m.Op(op)
	if err != nil {
		return err
	}
	if len(op.Inputs) == 0 || len(op.Outputs) != 1 {
		return fmt.Errorf("%w: %d inputs, %d outputs", ErrShape, len(op.Inputs), len(op.Outputs))
	}
	outIdx := op.Outputs[0]
	x, err := g.value(op.Inputs[0])
	if err != nil {
		return err
	}
	if err := g.wantType(outIdx, tflite.Int8); err != nil {
		return err
	}
	var y []int8
	switch code {
	case tflite.OpConv2D, tflite.OpDepthwiseConv2D:
		y, err = g.conv(op, code, x)
	case tflite.OpFullyConnected:
		y, err = g.fullyConnected(op, x)
	case tflite.OpAveragePool2D, tflite.OpMaxPool2D:
		y, err = g.pool(op, code, x)
	case tflite.OpAdd, tflite.OpMul:
		y, err = g.binary(op, code, x)
	case tflite.OpReshape:
		y = x
		if len(x) != numel(g.tensor(outIdx).Shape) {
			err = fmt.Errorf("%w: reshape of %d values to %v", ErrShape, len(x), g.tensor(outIdx).Shape)
		}
	case tflite.OpSoftmax:
		y, err = g.softmax(op, x)
	case tflite.OpLogistic, tflite.OpTanh:
		var s float32
		var zp int32
		if s, zp, err = g.scaleZp(op.Inputs[0]); err != nil {
			return err
		}
		var p quant.ActivationFnParams
		if p, err = quant.LogisticTanh(s, zp); err != nil {
			return err
		}
		if code == tflite.OpLogistic {
			y = Logistic(x, p, g.r)
		} else {
			y = Tanh(x, p, g.r)
		}
	default:
		return fmt.Errorf("%w: operator %v is not supported", ErrShape, code)
	}
	if err != nil {
		return err
	}
	if len(y) != numel(g.tensor(outIdx).Shape) {
		return fmt.Errorf("%w: produced %d values for output %v", ErrShape, len(y), g.tensor(outIdx).Shape)
	}
	g.vals[outIdx] = y
	return nil
}

func (g *graph) conv(op *tflite.Operator, code tflite.BuiltinOp, x []int8) ([]int8, error) {
	if len(op.Inputs) < 2 {
		return nil, fmt.Errorf("%w: convolution without weights", ErrShape)
	}
	xs, err := nhwc(g.tensor(op.Inputs[0]).Shape)
	if err != nil {
		return nil, err
	}
	wt := g.tensor(op.Inputs[1])
	w, err := g.value(op.Inputs[1])
	if err != nil {
		return nil, err
	}
	ys, err := nhwc(g.tensor(op.Outputs[0]).Shape)
	if err != nil {
		return nil, err
	}
	ws, err := nhwc(wt.Shape) // [O,KH,KW,I] or [1,KH,KW,O]
	if err != nil {
		return nil, err
	}
	var pad tflite.Padding
	var sh, sw, dh, dw int
	var act tflite.Activation
	switch o := op.Options.(type) {
	case tflite.Conv2DOptions:
		pad, sh, sw, dh, dw, act = o.Padding, int(o.StrideH), int(o.StrideW), int(o.DilationH), int(o.DilationW), o.Activation
	case tflite.DepthwiseConv2DOptions:
		pad, sh, sw, dh, dw, act = o.Padding, int(o.StrideH), int(o.StrideW), int(o.DilationH), int(o.DilationW), o.Activation
	default:
		return nil, fmt.Errorf("%w: options %T", ErrShape, op.Options)
	}
	win, err := window(pad, xs, ys, ws.H, ws.W, sh, sw, dh, dw)
	if err != nil {
		return nil, err
	}
	sIn, zpIn, err := g.scaleZp(op.Inputs[0])
	if err != nil {
		return nil, err
	}
	out, sOut, err := g.out(op.Outputs[0], act)
	if err != nil {
		return nil, err
	}
	if wt.Quant == nil {
		return nil, fmt.Errorf("%w: weights are not quantized", ErrShape)
	}
	mult, err := quant.ConvMultipliers(sIn, wt.Quant.Scale, sOut, ys.C, g.r)
	if err != nil {
		return nil, err
	}
	bias, err := g.bias(op, ys.C)
	if err != nil {
		return nil, err
	}
	p := ConvParams{Window: win, InZeroPoint: zpIn, Out: out, Mult: mult, Rounding: g.r}
	if code == tflite.OpConv2D {
		return Conv2D(x, xs, w, ws.N, ws.H, ws.W, ws.C, bias, p)
	}
	if ws.C != ys.C || ys.C%xs.C != 0 {
		return nil, fmt.Errorf("%w: depthwise %d -> %d channels", ErrShape, xs.C, ys.C)
	}
	return DepthwiseConv2D(x, xs, w, ws.H, ws.W, ys.C/xs.C, bias, p)
}

func (g *graph) fullyConnected(op *tflite.Operator, x []int8) ([]int8, error) {
	o, ok := op.Options.(tflite.FullyConnectedOptions)
	if !ok || len(op.Inputs) < 2 || o.WeightsFormat != 0 {
		return nil, fmt.Errorf("%w: fully connected options %T", ErrShape, op.Options)
	}
	wt := g.tensor(op.Inputs[1])
	w, err := g.value(op.Inputs[1])
	if err != nil {
		return nil, err
	}
	if len(wt.Shape) != 2 || wt.Quant == nil {
		return nil, fmt.Errorf("%w: weights %v", ErrShape, wt.Shape)
	}
	units, depth := int(wt.Shape[0]), int(wt.Shape[1])
	if depth == 0 || len(x)%depth != 0 {
		return nil, fmt.Errorf("%w: %d inputs for depth %d", ErrShape, len(x), depth)
	}
	sIn, zpIn, err := g.scaleZp(op.Inputs[0])
	if err != nil {
		return nil, err
	}
	out, sOut, err := g.out(op.Outputs[0], o.Activation)
	if err != nil {
		return nil, err
	}
	var mult []quant.Multiplier
	if len(wt.Quant.Scale) == 1 {
		m, err := quant.FullyConnectedMultiplier(sIn, wt.Quant.Scale[0], sOut, g.r)
		if err != nil {
			return nil, err
		}
		mult = []quant.Multiplier{m}
	} else if mult, err = quant.ConvMultipliers(sIn, wt.Quant.Scale, sOut, units, g.r); err != nil {
		return nil, err
	}
	bias, err := g.bias(op, units)
	if err != nil {
		return nil, err
	}
	return FullyConnected(x, len(x)/depth, depth, w, units, bias, FCParams{InZeroPoint: zpIn, Out: out, Mult: mult, Rounding: g.r})
}

func (g *graph) pool(op *tflite.Operator, code tflite.BuiltinOp, x []int8) ([]int8, error) {
	o, ok := op.Options.(tflite.Pool2DOptions)
	if !ok {
		return nil, fmt.Errorf("%w: pool options %T", ErrShape, op.Options)
	}
	xs, err := nhwc(g.tensor(op.Inputs[0]).Shape)
	if err != nil {
		return nil, err
	}
	ys, err := nhwc(g.tensor(op.Outputs[0]).Shape)
	if err != nil {
		return nil, err
	}
	win, err := window(o.Padding, xs, ys, int(o.FilterHeight), int(o.FilterWidth), int(o.StrideH), int(o.StrideW), 1, 1)
	if err != nil {
		return nil, err
	}
	out, _, err := g.out(op.Outputs[0], o.Activation)
	if err != nil {
		return nil, err
	}
	p := PoolParams{Window: win, KH: int(o.FilterHeight), KW: int(o.FilterWidth), ActMin: out.ActMin, ActMax: out.ActMax}
	if code == tflite.OpAveragePool2D {
		return AvgPool(x, xs, p)
	}
	return MaxPool(x, xs, p)
}

func (g *graph) binary(op *tflite.Operator, code tflite.BuiltinOp, a []int8) ([]int8, error) {
	if len(op.Inputs) != 2 {
		return nil, fmt.Errorf("%w: %d inputs", ErrShape, len(op.Inputs))
	}
	b, err := g.value(op.Inputs[1])
	if err != nil {
		return nil, err
	}
	s1, zp1, err := g.scaleZp(op.Inputs[0])
	if err != nil {
		return nil, err
	}
	s2, zp2, err := g.scaleZp(op.Inputs[1])
	if err != nil {
		return nil, err
	}
	var act tflite.Activation
	switch o := op.Options.(type) {
	case tflite.AddOptions:
		act = o.Activation
	case tflite.MulOptions:
		act = o.Activation
	}
	out, sOut, err := g.out(op.Outputs[0], act)
	if err != nil {
		return nil, err
	}
	if code == tflite.OpAdd {
		p, err := quant.Add(s1, s2, sOut, g.r)
		if err != nil {
			return nil, err
		}
		return Add(a, b, AddParams{In1ZeroPoint: zp1, In2ZeroPoint: zp2, Out: out, Scales: p, Rounding: g.r})
	}
	m, err := quant.Mul(s1, s2, sOut, g.r)
	if err != nil {
		return nil, err
	}
	return Mul(a, b, MulParams{In1ZeroPoint: zp1, In2ZeroPoint: zp2, Out: out, Mult: m, Rounding: g.r})
}

func (g *graph) softmax(op *tflite.Operator, x []int8) ([]int8, error) {
	o, ok := op.Options.(tflite.SoftmaxOptions)
	if !ok {
		return nil, fmt.Errorf("%w: softmax options %T", ErrShape, op.Options)
	}
	s, _, err := g.scaleZp(op.Inputs[0])
	if err != nil {
		return nil, err
	}
	sOut, zpOut, err := g.scaleZp(op.Outputs[0])
	if err != nil {
		return nil, err
	}
	if sOut != 1.0/256 || zpOut != -128 {
		return nil, fmt.Errorf("%w: int8 softmax output must be scale 1/256, zero point -128 (have %g, %d)", ErrShape, sOut, zpOut)
	}
	p, err := quant.Softmax(o.Beta, s, g.r)
	if err != nil {
		return nil, err
	}
	shape := g.tensor(op.Inputs[0]).Shape
	if len(shape) == 0 {
		return nil, fmt.Errorf("%w: softmax of a scalar", ErrShape)
	}
	return Softmax(x, int(shape[len(shape)-1]), p)
}

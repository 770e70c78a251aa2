package ptq

import (
	"fmt"
	"math"
	"slices"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
)

// Options control Quantize.
type Options struct {
	// Int8IO keeps the graph inputs and outputs int8 (for firmware that
	// quantizes itself); by default they stay float32 and the model
	// quantizes and dequantizes inside.
	Int8IO bool
	// Rounding is the requantization rounding of the target runtime.
	Rounding quant.Rounding
	// Given, if set, fixes the quantization instead of calibration ranges
	// (an ONNX QDQ model: the exporter chose it).
	Given *Given
}

// Given is the quantization a pre-quantized model fixes, by source tensor id.
type Given struct {
	Act     map[int]QParams   // activations
	Weights map[int][]float32 // weight scales per output channel (one: per tensor), zero point 0
	Source  string            // what the summary says they came from
}

// QParams is a per-tensor int8 quantization: real = Scale * (q - ZeroPoint).
type QParams struct {
	Scale     float32
	ZeroPoint int32
}

// ParamsOf is the asymmetric int8 quantization of a range that holds 0:
// 255 steps across it, zero exactly representable. A range of one point
// (a tensor that was always 0) gets the step 1/255.
func ParamsOf(r Range) QParams {
	lo, hi := float64(min(r.Lo, 0)), float64(max(r.Hi, 0))
	scale := float32((hi - lo) / 255)
	if !(scale > 0) || math.IsInf(float64(scale), 0) {
		return QParams{Scale: 1.0 / 255, ZeroPoint: quant.QMin}
	}
	zp := quant.QMin - int32(math.Round(lo/float64(scale)))
	return QParams{Scale: scale, ZeroPoint: max(quant.QMin, min(quant.QMax, zp))}
}

// Summary says what Quantize did.
type Summary struct {
	Int8Ops  map[nkfile.OpType]int // int8 ops written, by type
	FloatOps []string              // ops left float ("name (type): why")
	Quantize int                   // QUANTIZE ops inserted (float -> int8)
	Dequant  int                   // DEQUANTIZE ops inserted (int8 -> float)
	// Tensors lists every int8 activation: its name, its quantization,
	// and the range it came from (calibrated) or why it has none (inherited
	// from an op's input, fixed by the op).
	Tensors []TensorReport
}

// TensorReport is one int8 activation tensor.
type TensorReport struct {
	Name   string
	Params QParams
	Range  *Range // nil when not calibrated
	Source string // "calibrated", "as input of OP", "fixed by OP"
}

type domain int

const (
	inFloat domain = iota
	inInt8
)

type twinKey struct {
	src int
	d   domain
}

type builder struct {
	src    *nkfile.Model
	ranges map[int]Range
	opts   Options
	dst    nkfile.Model
	twin   map[twinKey]int // (source tensor, domain) -> tensor id in dst
	consts map[int]int     // source const tensor -> dst id (float copies)
	qp     map[int]QParams // source tensor -> its int8 quantization, once chosen
	sum    Summary
}

// Quantize returns the int8 version of the float model m, with the
// activation ranges observed on m (tensor id -> range; every float
// activation an int8 op reads or writes, and every graph input, needs one).
func Quantize(m *nkfile.Model, ranges map[int]Range, opts Options) (*nkfile.Model, *Summary, error) {
	b := &builder{
		src: m, ranges: ranges, opts: opts,
		twin: map[twinKey]int{}, consts: map[int]int{}, qp: map[int]QParams{},
		sum: Summary{Int8Ops: map[nkfile.OpType]int{}},
	}
	for _, in := range m.Inputs {
		d := inFloat
		if opts.Int8IO {
			d = inInt8
		}
		id, err := b.newActivation(in.Tensor, d)
		if err != nil {
			return nil, nil, err
		}
		if d == inInt8 {
			if err := b.calibrated(in.Tensor, id); err != nil {
				return nil, nil, err
			}
		}
		b.dst.Inputs = append(b.dst.Inputs, nkfile.IO{Tensor: id, Layout: in.Layout})
	}
	for i := range m.Ops {
		if err := b.op(&m.Ops[i]); err != nil {
			op := &m.Ops[i]
			return nil, nil, fmt.Errorf("op %d (%s %q): %w", i, op.Type, op.Name, err)
		}
	}
	for _, out := range m.Outputs {
		d := inFloat
		if opts.Int8IO {
			d = inInt8
		}
		id, err := b.need(out.Tensor, d)
		if err != nil {
			return nil, nil, fmt.Errorf("output %q: %w", m.Tensors[out.Tensor].Name, err)
		}
		b.dst.Outputs = append(b.dst.Outputs, nkfile.IO{Tensor: id, Layout: out.Layout})
	}
	b.dst.Meta = slices.Clone(m.Meta)
	r := nkfile.RoundingDouble
	if opts.Rounding == quant.SingleRounding {
		r = nkfile.RoundingSingle
	}
	b.dst.Meta = setMeta(b.dst.Meta, nkfile.MetaInt8Rounding, r)
	return &b.dst, &b.sum, nil
}

func setMeta(kv []nkfile.KV, key, value string) []nkfile.KV {
	for i := range kv {
		if kv[i].Key == key {
			kv[i].Value = value
			return kv
		}
	}
	return append(kv, nkfile.KV{Key: key, Value: value})
}

func (b *builder) add(t nkfile.Tensor) int {
	b.dst.Tensors = append(b.dst.Tensors, t)
	return len(b.dst.Tensors) - 1
}

// newActivation adds the dst tensor standing for source tensor src in
// domain d (int8 without its quantization yet: setQuant adds it).
func (b *builder) newActivation(src int, d domain) (int, error) {
	if _, dup := b.twin[twinKey{src, d}]; dup {
		return 0, fmt.Errorf("tensor %q written twice", b.src.Tensors[src].Name)
	}
	t := b.src.Tensors[src]
	t.Shape = slices.Clone(t.Shape)
	t.Data, t.Quant = nil, nil
	t.Name += b.suffix(src, d)
	if d == inInt8 {
		t.DType = nkfile.I8
	}
	id := b.add(t)
	b.twin[twinKey{src, d}] = id
	return id, nil
}

// suffix tells apart the two versions of a tensor converted between
// domains: graph inputs and outputs keep their names in the I/O domain, other
// tensors in int8.
func (b *builder) suffix(src int, d domain) string {
	home := inInt8
	io := slices.ContainsFunc(b.src.Inputs, func(x nkfile.IO) bool { return x.Tensor == src }) ||
		slices.ContainsFunc(b.src.Outputs, func(x nkfile.IO) bool { return x.Tensor == src })
	if io && !b.opts.Int8IO {
		home = inFloat
	}
	switch {
	case d == home:
		return ""
	case d == inInt8:
		return "/int8"
	}
	return "/float"
}

// setQuant gives int8 tensor dst (standing for source tensor src) its
// quantization and reports it.
func (b *builder) setQuant(src, dst int, q QParams, r *Range, source string) {
	b.qp[src] = q
	b.dst.Tensors[dst].Quant = &nkfile.Quant{Axis: -1, Scale: []float32{q.Scale}, ZeroPoint: []int32{q.ZeroPoint}}
	b.sum.Tensors = append(b.sum.Tensors, TensorReport{Name: b.dst.Tensors[dst].Name, Params: q, Range: r, Source: source})
}

// calibrated quantizes int8 tensor dst from the observed range of src.
func (b *builder) calibrated(src, dst int) error {
	if g := b.opts.Given; g != nil {
		q, ok := g.Act[src]
		if !ok {
			return fmt.Errorf("tensor %q has no quantization (%s)", b.src.Tensors[src].Name, g.Source)
		}
		b.setQuant(src, dst, q, nil, g.Source)
		return nil
	}
	r, ok := b.ranges[src]
	if !ok {
		return fmt.Errorf("no calibration range for tensor %q", b.src.Tensors[src].Name)
	}
	b.setQuant(src, dst, ParamsOf(r), &r, "calibrated")
	return nil
}

// need returns the dst id of source tensor src in domain d, converting
// (QUANTIZE / DEQUANTIZE, inserted here, before the op being built) from
// the domain it was produced in.
func (b *builder) need(src int, d domain) (int, error) {
	if id, ok := b.twin[twinKey{src, d}]; ok {
		return id, nil
	}
	other := inInt8
	if d == inInt8 {
		other = inFloat
	}
	from, ok := b.twin[twinKey{src, other}]
	if !ok {
		return 0, fmt.Errorf("tensor %q is read before it is written", b.src.Tensors[src].Name)
	}
	if d == inInt8 {
		id, err := b.newActivation(src, inInt8)
		if err != nil {
			return 0, err
		}
		if err := b.calibrated(src, id); err != nil {
			return 0, err
		}
		b.dst.Ops = append(b.dst.Ops, nkfile.Op{Type: nkfile.OpQuantize, Name: b.dst.Tensors[id].Name, Inputs: []int{from}, Outputs: []int{id}})
		b.sum.Quantize++
		return id, nil
	}
	id, err := b.newActivation(src, inFloat)
	if err != nil {
		return 0, err
	}
	b.dst.Ops = append(b.dst.Ops, nkfile.Op{Type: nkfile.OpDequantize, Name: b.dst.Tensors[id].Name, Inputs: []int{from}, Outputs: []int{id}})
	b.sum.Dequant++
	return id, nil
}

// float copies op as it is, reading float inputs.
func (b *builder) float(op *nkfile.Op, why string) error {
	out := *op
	out.Inputs = slices.Clone(op.Inputs)
	out.Outputs = slices.Clone(op.Outputs)
	for k, t := range op.Inputs {
		if t < 0 {
			continue
		}
		if b.src.Tensors[t].Const() {
			id, ok := b.consts[t]
			if !ok {
				id = b.add(b.src.Tensors[t])
				b.consts[t] = id
			}
			out.Inputs[k] = id
			continue
		}
		id, err := b.need(t, inFloat)
		if err != nil {
			return err
		}
		out.Inputs[k] = id
	}
	for k, t := range op.Outputs {
		id, err := b.newActivation(t, inFloat)
		if err != nil {
			return err
		}
		out.Outputs[k] = id
	}
	b.dst.Ops = append(b.dst.Ops, out)
	b.sum.FloatOps = append(b.sum.FloatOps, fmt.Sprintf("%s (%s): %s", op.Name, op.Type, why))
	return nil
}

// int8In returns the int8 dst id of runtime input src and its quantization.
func (b *builder) int8In(src int) (int, QParams, error) {
	id, err := b.need(src, inInt8)
	if err != nil {
		return 0, QParams{}, err
	}
	return id, b.qp[src], nil
}

// emit appends an int8 op writing the int8 version of source tensor out.
func (b *builder) emit(op *nkfile.Op, t nkfile.OpType, inputs []int, params []uint32) {
	b.dst.Ops = append(b.dst.Ops, nkfile.Op{Type: t, Name: op.Name, Inputs: inputs, Outputs: []int{b.twin[twinKey{op.Outputs[0], inInt8}]}, Params: params, Act: op.Act})
	b.sum.Int8Ops[t]++
}

// clampI8 is a float clamp in the quantized domain of q (TFLite's
// CalculateActivationRangeQuantized, for any bounds).
func clampI8(c nkfile.Clamp, q QParams) (lo, hi int32) {
	lo, hi = quant.QMin, quant.QMax
	if !math.IsInf(float64(c.Min), 0) {
		lo = int32(max(quant.QMin, min(quant.QMax, float64(quant.QuantizeValue(c.Min, q.Scale, q.ZeroPoint)))))
	}
	if !math.IsInf(float64(c.Max), 0) {
		hi = int32(max(quant.QMin, min(quant.QMax, float64(quant.QuantizeValue(c.Max, q.Scale, q.ZeroPoint)))))
	}
	return lo, hi
}

func (b *builder) op(op *nkfile.Op) error {
	if len(op.Outputs) != 1 {
		return b.float(op, "more than one output")
	}
	runtimeIns := 0
	for _, t := range op.Inputs {
		if t >= 0 && !b.src.Tensors[t].Const() {
			runtimeIns++
			if b.src.Tensors[t].DType != nkfile.F32 {
				return b.float(op, "input is not float32")
			}
		}
	}
	switch op.Type {
	case nkfile.OpDense, nkfile.OpConv2D, nkfile.OpDepthwiseConv2D:
		if runtimeIns != 1 || op.Inputs[0] < 0 || b.src.Tensors[op.Inputs[0]].Const() || !b.src.Tensors[op.Inputs[1]].Const() {
			return b.float(op, "weights are not constant")
		}
		return b.weighted(op)
	case nkfile.OpMaxPool2D, nkfile.OpAvgPool2D:
		p, err := nkfile.ParsePoolParams(op.Type, op.Params)
		if err != nil {
			return err
		}
		if p.CountIncludePad && (p.PadTop|p.PadLeft|p.PadBottom|p.PadRight) != 0 {
			return b.float(op, "average counts padding (the int8 kernel never does)")
		}
		t := nkfile.OpMaxPool2DI8
		if op.Type == nkfile.OpAvgPool2D {
			t = nkfile.OpAvgPool2DI8
		}
		return b.inherit(op, t, func(q QParams) []uint32 {
			lo, hi := clampI8(p.Clamp, q)
			return nkfile.PoolI8Params{KernelH: p.KernelH, KernelW: p.KernelW, Window: p.Window, ActMin: lo, ActMax: hi}.Words()
		})
	case nkfile.OpGlobalAvgPool:
		s := b.src.Tensors[op.Inputs[0]].Shape
		if len(s) != 4 {
			return b.float(op, "input is not rank 4")
		}
		return b.inherit(op, nkfile.OpAvgPool2DI8, func(QParams) []uint32 {
			return nkfile.PoolI8Params{KernelH: s[1], KernelW: s[2], ActMin: quant.QMin, ActMax: quant.QMax}.Words()
		})
	case nkfile.OpReshape, nkfile.OpTranspose:
		if runtimeIns != 1 || len(op.Inputs) != 1 {
			return b.float(op, "not one runtime input")
		}
		return b.inherit(op, op.Type, func(QParams) []uint32 { return op.Params })
	case nkfile.OpAdd, nkfile.OpMul:
		if runtimeIns != 2 {
			return b.float(op, "a constant operand (no int8 constant operands yet)")
		}
		return b.binary(op)
	case nkfile.OpSoftmax, nkfile.OpSigmoid, nkfile.OpTanh:
		return b.fixedOut(op)
	case nkfile.OpGelu:
		return b.gelu(op)
	case nkfile.OpResize2D:
		if nkfile.WordI32(op.Params[0]) != nkfile.ResizeNearest {
			return b.float(op, "bilinear or cubic (the int8 resize copies, nearest only)")
		}
		if nkfile.WordI32(op.Params[1]) == nkfile.ResizeTFCropAndResize {
			return b.float(op, "tf_crop_and_resize (its extrapolation value is a float)")
		}
		return b.inherit(op, op.Type, func(QParams) []uint32 { return op.Params })
	case nkfile.OpConcat:
		if runtimeIns != len(op.Inputs) {
			return b.float(op, "a constant input")
		}
		return b.concat(op)
	}
	return b.float(op, "no int8 kernel")
}

// inherit writes an int8 op whose output shares its input's quantization
// (pools, reshape, transpose: they only move or average values).
func (b *builder) inherit(op *nkfile.Op, t nkfile.OpType, params func(QParams) []uint32) error {
	in, q, err := b.int8In(op.Inputs[0])
	if err != nil {
		return err
	}
	id, err := b.newActivation(op.Outputs[0], inInt8)
	if err != nil {
		return err
	}
	if err := b.checkGiven(op.Outputs[0], q); err != nil {
		return err
	}
	b.setQuant(op.Outputs[0], id, q, nil, "as input of "+op.Type.String())
	b.emit(op, t, []int{in}, params(q))
	return nil
}

// checkGiven refuses a given output quantization that differs from the one
// the int8 op fixes (its input's, or TFLite's for softmax and friends).
func (b *builder) checkGiven(src int, q QParams) error {
	if b.opts.Given == nil {
		return nil
	}
	if g, ok := b.opts.Given.Act[src]; ok && g != q {
		return fmt.Errorf("output %q is quantized as %+v; the int8 op writes %+v", b.src.Tensors[src].Name, g, q)
	}
	return nil
}

// calibratedOut adds the int8 output of op quantized from its range.
func (b *builder) calibratedOut(op *nkfile.Op) (QParams, error) {
	id, err := b.newActivation(op.Outputs[0], inInt8)
	if err != nil {
		return QParams{}, err
	}
	if err := b.calibrated(op.Outputs[0], id); err != nil {
		return QParams{}, err
	}
	return b.qp[op.Outputs[0]], nil
}

func (b *builder) binary(op *nkfile.Op) error {
	a, qa, err := b.int8In(op.Inputs[0])
	if err != nil {
		return err
	}
	c, qc, err := b.int8In(op.Inputs[1])
	if err != nil {
		return err
	}
	clamp := nkfile.Clamp{Min: nkfile.WordF32(op.Params[0]), Max: nkfile.WordF32(op.Params[1])}
	qo, err := b.calibratedOut(op)
	if err != nil {
		return err
	}
	lo, hi := clampI8(clamp, qo)
	out := nkfile.QOut{ZeroPoint: qo.ZeroPoint, ActMin: lo, ActMax: hi}
	if op.Type == nkfile.OpAdd {
		p, err := quant.Add(qa.Scale, qc.Scale, qo.Scale, b.opts.Rounding)
		if err != nil {
			return err
		}
		b.emit(op, nkfile.OpAddI8, []int{a, c}, nkfile.AddI8Params{
			In1ZeroPoint: qa.ZeroPoint, In2ZeroPoint: qc.ZeroPoint, Out: out, LeftShift: p.LeftShift,
			M1: p.In1.M, Shift1: p.In1.Shift, M2: p.In2.M, Shift2: p.In2.Shift, MOut: p.Out.M, ShiftOut: p.Out.Shift,
		}.Words())
		return nil
	}
	m, err := quant.Mul(qa.Scale, qc.Scale, qo.Scale, b.opts.Rounding)
	if err != nil {
		return err
	}
	b.emit(op, nkfile.OpMulI8, []int{a, c}, nkfile.MulI8Params{
		In1ZeroPoint: qa.ZeroPoint, In2ZeroPoint: qc.ZeroPoint, Out: out, M: m.M, Shift: m.Shift,
	}.Words())
	return nil
}

// concat writes an int8 CONCAT (which copies bytes) with the output's
// calibrated quantization, requantizing (int8 QUANTIZE) each input
// quantized otherwise, as TFLite's converter does.
func (b *builder) concat(op *nkfile.Op) error {
	ins := make([]int, len(op.Inputs))
	qs := make([]QParams, len(op.Inputs))
	for k, src := range op.Inputs {
		var err error
		if ins[k], qs[k], err = b.int8In(src); err != nil {
			return err
		}
	}
	qo, err := b.calibratedOut(op)
	if err != nil {
		return err
	}
	for k := range ins {
		if qs[k] == qo {
			continue
		}
		m, err := quant.Requantize(qs[k].Scale, qo.Scale, b.opts.Rounding)
		if err != nil {
			return err
		}
		src := b.dst.Tensors[ins[k]]
		id := b.add(nkfile.Tensor{Name: src.Name + "/requantized", DType: nkfile.I8, Shape: slices.Clone(src.Shape),
			Quant: &nkfile.Quant{Axis: -1, Scale: []float32{qo.Scale}, ZeroPoint: []int32{qo.ZeroPoint}}})
		b.dst.Ops = append(b.dst.Ops, nkfile.Op{Type: nkfile.OpQuantize, Name: b.dst.Tensors[id].Name, Inputs: []int{ins[k]}, Outputs: []int{id},
			Params: nkfile.RequantizeWords(m.M, m.Shift, qs[k].ZeroPoint, qo.ZeroPoint)})
		b.sum.Int8Ops[nkfile.OpQuantize]++
		ins[k] = id
	}
	b.emit(op, nkfile.OpConcat, ins, op.Params)
	return nil
}

// gelu writes LUT_I8 with TFLite's int8 GELU table for the input's and
// the calibrated output's quantization.
func (b *builder) gelu(op *nkfile.Op) error {
	in, q, err := b.int8In(op.Inputs[0])
	if err != nil {
		return err
	}
	qo, err := b.calibratedOut(op)
	if err != nil {
		return err
	}
	lut, err := quant.GeluLUT(q.Scale, q.ZeroPoint, qo.Scale, qo.ZeroPoint, nkfile.WordI32(op.Params[0]) != 0)
	if err != nil {
		return err
	}
	name := b.src.Tensors[op.Outputs[0]].Name + "/gelu_lut"
	table := b.add(nkfile.Tensor{Name: name, DType: nkfile.I8, Shape: []int{256}, Data: nkfile.I8Bytes(lut[:]),
		Quant: &nkfile.Quant{Axis: -1, Scale: []float32{qo.Scale}, ZeroPoint: []int32{qo.ZeroPoint}}})
	b.emit(op, nkfile.OpLutI8, []int{in, table}, nil)
	return nil
}

// fixedOut writes softmax, logistic and tanh, whose int8 outputs have the
// quantization TFLite fixes for them.
func (b *builder) fixedOut(op *nkfile.Op) error {
	in, q, err := b.int8In(op.Inputs[0])
	if err != nil {
		return err
	}
	var t nkfile.OpType
	var params []uint32
	out := QParams{Scale: 1.0 / 256, ZeroPoint: -128}
	switch op.Type {
	case nkfile.OpSoftmax:
		p, err := quant.Softmax(nkfile.WordF32(op.Params[0]), q.Scale, b.opts.Rounding)
		if err != nil {
			return err
		}
		t, params = nkfile.OpSoftmaxI8, nkfile.SoftmaxI8Words(p.M, p.Shift, p.DiffMin)
	default:
		p, err := quant.LogisticTanh(q.Scale, q.ZeroPoint)
		if err != nil {
			return err
		}
		t = nkfile.OpLogisticI8
		if op.Type == nkfile.OpTanh {
			t, out = nkfile.OpTanhI8, QParams{Scale: 1.0 / 128, ZeroPoint: 0}
		}
		params = nkfile.ActFnI8Words(p.InputZeroPoint, p.M, p.Shift, p.Radius)
	}
	id, err := b.newActivation(op.Outputs[0], inInt8)
	if err != nil {
		return err
	}
	if err := b.checkGiven(op.Outputs[0], out); err != nil {
		return err
	}
	b.setQuant(op.Outputs[0], id, out, nil, "fixed by "+t.String())
	b.emit(op, t, []int{in}, params)
	return nil
}

// weighted writes DENSE_I8, CONV2D_I8 or DEPTHWISE_CONV2D_I8 with weights
// quantized per output channel and the bias in int32.
func (b *builder) weighted(op *nkfile.Op) error {
	in, qi, err := b.int8In(op.Inputs[0])
	if err != nil {
		return err
	}
	w := &b.src.Tensors[op.Inputs[1]]
	// output channels: the first weight axis, the last for depthwise
	axis := 0
	if op.Type == nkfile.OpDepthwiseConv2D {
		axis = len(w.Shape) - 1
	}
	var wq []int8
	var ws []float32
	if b.opts.Given != nil {
		wq, ws, err = givenWeights(nkfile.BytesF32(w.Data), w.Shape, axis, b.opts.Given.Weights[op.Inputs[1]])
	} else {
		wq, ws, err = quantizeWeights(nkfile.BytesF32(w.Data), w.Shape, axis)
	}
	if err != nil {
		return fmt.Errorf("weights %q: %w", w.Name, err)
	}
	channels := len(ws)
	wid := b.add(nkfile.Tensor{Name: w.Name, DType: nkfile.I8, Shape: slices.Clone(w.Shape), Data: nkfile.I8Bytes(wq),
		Quant: &nkfile.Quant{Axis: axis, Scale: ws, ZeroPoint: make([]int32, channels)}})

	bid := -1
	if len(op.Inputs) > 2 && op.Inputs[2] >= 0 {
		bt := &b.src.Tensors[op.Inputs[2]]
		if !bt.Const() || bt.Elems() != channels {
			return fmt.Errorf("bias %q: want %d constant values", bt.Name, channels)
		}
		bias, bs, err := quantizeBias(nkfile.BytesF32(bt.Data), qi.Scale, ws)
		if err != nil {
			return fmt.Errorf("bias %q: %w", bt.Name, err)
		}
		bid = b.add(nkfile.Tensor{Name: bt.Name, DType: nkfile.I32, Shape: []int{channels}, Data: nkfile.I32Bytes(bias),
			Quant: &nkfile.Quant{Axis: 0, Scale: bs, ZeroPoint: make([]int32, channels)}})
	}

	qo, err := b.calibratedOut(op)
	if err != nil {
		return err
	}
	mult, err := quant.ConvMultipliers(qi.Scale, ws, qo.Scale, channels, b.opts.Rounding)
	if err != nil {
		return err
	}
	ms, shifts := make([]int32, channels), make([]int32, channels)
	for c, m := range mult {
		ms[c], shifts[c] = m.M, m.Shift
	}
	mid := b.add(nkfile.Tensor{Name: op.Name + "/multiplier", DType: nkfile.I32, Shape: []int{channels}, Data: nkfile.I32Bytes(ms)})
	sid := b.add(nkfile.Tensor{Name: op.Name + "/shift", DType: nkfile.I32, Shape: []int{channels}, Data: nkfile.I32Bytes(shifts)})
	inputs := []int{in, wid, bid, mid, sid}

	switch op.Type {
	case nkfile.OpDense:
		clamp := nkfile.Clamp{Min: nkfile.WordF32(op.Params[0]), Max: nkfile.WordF32(op.Params[1])}
		lo, hi := clampI8(clamp, qo)
		b.emit(op, nkfile.OpDenseI8, inputs, nkfile.DenseI8Words(qi.ZeroPoint, nkfile.QOut{ZeroPoint: qo.ZeroPoint, ActMin: lo, ActMax: hi}))
	default:
		p, err := nkfile.ParseConvParams(op.Type, op.Params)
		if err != nil {
			return err
		}
		lo, hi := clampI8(p.Clamp, qo)
		cp := nkfile.ConvI8Params{Window: p.Window, Groups: p.Groups, Multiplier: p.Multiplier, InZeroPoint: qi.ZeroPoint,
			Out: nkfile.QOut{ZeroPoint: qo.ZeroPoint, ActMin: lo, ActMax: hi}}
		if op.Type == nkfile.OpConv2D {
			b.emit(op, nkfile.OpConv2DI8, inputs, cp.Words())
		} else {
			b.emit(op, nkfile.OpDepthwiseConv2DI8, inputs, cp.DepthwiseWords())
		}
	}
	return nil
}

// quantizeWeights quantizes w (row-major, shape) per channel along axis,
// symmetric: scale max|w|/127, values rounded half away from zero into
// -127..127. An all-zero channel gets scale 1 (any scale holds it).
func quantizeWeights(w []float32, shape []int, axis int) ([]int8, []float32, error) {
	channels, stride := shape[axis], 1
	for _, d := range shape[axis+1:] {
		stride *= d
	}
	absMax := make([]float64, channels)
	for i, v := range w {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, nil, fmt.Errorf("element %d is %v", i, v)
		}
		c := (i / stride) % channels
		absMax[c] = max(absMax[c], math.Abs(float64(v)))
	}
	scales := make([]float32, channels)
	for c, a := range absMax {
		scales[c] = float32(a / 127)
		if !(scales[c] > 0) {
			scales[c] = 1
		}
	}
	q := make([]int8, len(w))
	for i, v := range w {
		s := scales[(i/stride)%channels]
		q[i] = int8(max(-127, min(127, math.Round(float64(v)/float64(s)))))
	}
	return q, scales, nil
}

// givenWeights quantizes w with the scales a pre-quantized model gave it
// (per channel along axis, or one), and checks every value lands on the
// grid: anything else means the scales belong to another axis or the
// weights were changed after quantization (a BatchNorm folded in).
func givenWeights(w []float32, shape []int, axis int, scales []float32) ([]int8, []float32, error) {
	channels, stride := shape[axis], 1
	for _, d := range shape[axis+1:] {
		stride *= d
	}
	switch len(scales) {
	case channels:
	case 1:
		scales = slices.Repeat(scales, channels)
	case 0:
		return nil, nil, fmt.Errorf("no quantization given (weights must come through DequantizeLinear)")
	default:
		return nil, nil, fmt.Errorf("%d scales for %d output channels", len(scales), channels)
	}
	q := make([]int8, len(w))
	for i, v := range w {
		s := float64(scales[(i/stride)%channels])
		x := float64(v) / s
		r := math.Round(x)
		if math.Abs(x-r) > 1e-3 || r < -128 || r > 127 {
			return nil, nil, fmt.Errorf("element %d (%v) is not an int8 multiple of its output channel's scale %v", i, v, s)
		}
		q[i] = int8(r)
	}
	return q, slices.Clone(scales), nil
}

// quantizeBias is the int32 bias of an int8 op: b / (s_in * s_w[c]),
// rounded, saturated to int32.
func quantizeBias(bias []float32, sIn float32, sW []float32) ([]int32, []float32, error) {
	out := make([]int32, len(bias))
	scales := make([]float32, len(bias))
	for c, v := range bias {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, nil, fmt.Errorf("element %d is %v", c, v)
		}
		s := float64(sIn) * float64(sW[c])
		scales[c] = float32(s)
		out[c] = int32(max(math.MinInt32, min(math.MaxInt32, math.Round(float64(v)/s))))
	}
	return out, scales, nil
}

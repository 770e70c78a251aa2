// Package tfliteimport converts a TensorFlow Lite model (read by
// internal/tflite) into a netkit .nk model (internal/nkfile).
//
// int8 models map to the int8 ops of NK_FORMAT.md (ids 64..75) with every
// requantization parameter computed here by internal/quant exactly as
// TFLite Micro computes it at prepare time, so the integer results match
// TFLM bit for bit and nothing is derived in RAM at load. Per-channel
// multipliers and shifts become CONST i32 tensors. Float models map to the
// float ops with fused activations as clamps; TFLite's layouts are already
// netkit's (NHWC activations, OHWI conv weights, [1,KH,KW,C*M] depthwise
// weights, [N,K] dense weights), so no weight is transposed. Hybrid models
// (int8 weights under float activations) become float models: their
// weights are dequantized here.
package tfliteimport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/quant"
	"github.com/netkit/netkit/internal/tflite"
)

// ErrUnsupported reports a model the importer cannot convert exactly.
var ErrUnsupported = errors.New("tfliteimport: unsupported")

// Options configure Convert.
type Options struct {
	Source   string         // original file name, stored in META
	Labels   string         // class names separated by '\n' for the first output, or ""
	Rounding quant.Rounding // requantization mode the target runtime is built with
	// Batch is the size given to a dynamic batch dimension (shape_signature
	// -1 first); 0 or 1 keeps the stored shapes (one sample). Above 1 every
	// graph input and output must then lead with it; META batch records it.
	Batch int
}

// Convert converts the first subgraph of m.
func Convert(m *tflite.Model, opt Options) (*nkfile.Model, error) {
	if len(m.Subgraphs) == 0 {
		return nil, fmt.Errorf("%w: model has no subgraph", ErrUnsupported)
	}
	if len(m.Subgraphs) > 1 {
		return nil, fmt.Errorf("%w: %d subgraphs (control flow); only single-subgraph models convert", ErrUnsupported, len(m.Subgraphs))
	}
	sg := &m.Subgraphs[0]
	if opt.Batch > 1 {
		var err error
		if sg, err = withBatch(sg, opt.Batch); err != nil {
			return nil, err
		}
	}
	c := &converter{m: m, sg: sg, opt: opt, ids: map[int32]int{}, params: map[string]int{}}
	if err := c.checkOps(); err != nil {
		return nil, err
	}
	for _, ti := range c.sg.Inputs {
		id, err := c.runtime(ti)
		if err != nil {
			return nil, fmt.Errorf("graph input %d: %w", ti, err)
		}
		c.out.Inputs = append(c.out.Inputs, nkfile.IO{Tensor: id})
	}
	for i := range c.sg.Operators {
		op := &c.sg.Operators[i]
		code, _ := m.Op(op)
		if err := c.convert(op, code); err != nil {
			return nil, fmt.Errorf("operator %d (%v, output %q): %w", i, code, c.outName(op), err)
		}
	}
	for _, ti := range c.sg.Outputs {
		id, ok := c.ids[ti]
		if !ok {
			return nil, fmt.Errorf("%w: graph output %d is produced by no operator", ErrUnsupported, ti)
		}
		c.out.Outputs = append(c.out.Outputs, nkfile.IO{Tensor: id})
	}
	c.out.Meta = append(c.out.Meta, nkfile.KV{Key: "producer", Value: "netkit convert (tflite importer)"})
	if opt.Source != "" {
		c.out.Meta = append(c.out.Meta, nkfile.KV{Key: "source", Value: opt.Source})
	}
	if c.int8 {
		c.out.Meta = append(c.out.Meta, nkfile.KV{Key: nkfile.MetaInt8Rounding, Value: opt.Rounding.String()})
	}
	if opt.Labels != "" {
		c.out.Meta = append(c.out.Meta, nkfile.KV{Key: "labels", Value: opt.Labels})
	}
	if opt.Batch > 1 {
		c.out.Meta = append(c.out.Meta, nkfile.KV{Key: nkfile.MetaBatch, Value: strconv.Itoa(opt.Batch)})
		for _, io := range slices.Concat(c.out.Inputs, c.out.Outputs) {
			if t := c.out.Tensors[io.Tensor]; len(t.Shape) == 0 || t.Shape[0] != opt.Batch {
				return nil, fmt.Errorf("--batch %d: %q has shape %v, which does not lead with the batch", opt.Batch, t.Name, t.Shape)
			}
		}
	}
	model := c.out
	if err := model.Validate(); err != nil {
		return nil, err
	}
	if err := model.CheckShapes(); err != nil {
		return nil, err
	}
	return &model, nil
}

type converter struct {
	m   *tflite.Model
	sg  *tflite.Subgraph
	opt Options
	out nkfile.Model
	ids map[int32]int // TFLite tensor index -> .nk tensor id
	// params maps the bytes of an i32 parameter tensor to its id
	params map[string]int
	int8   bool // some op runs in int8
}

var supported = map[tflite.BuiltinOp]bool{
	tflite.OpConv2D: true, tflite.OpDepthwiseConv2D: true, tflite.OpFullyConnected: true,
	tflite.OpAveragePool2D: true, tflite.OpMaxPool2D: true, tflite.OpAdd: true, tflite.OpMul: true,
	tflite.OpReshape: true, tflite.OpSoftmax: true, tflite.OpLogistic: true, tflite.OpTanh: true,
	tflite.OpQuantize: true, tflite.OpDequantize: true, tflite.OpPad: true, tflite.OpPadV2: true,
	tflite.OpConcatenation: true, tflite.OpResizeBilinear: true, tflite.OpResizeNearestNeighbor: true,
	tflite.OpTransposeConv: true, tflite.OpGelu: true, tflite.OpSVDF: true, tflite.OpUnidirectionalLSTM: true,
	tflite.OpMean: true, tflite.OpSub: true, tflite.OpDiv: true, tflite.OpMaximum: true, tflite.OpMinimum: true,
	tflite.OpExp: true, tflite.OpSqrt: true, tflite.OpHardSwish: true, tflite.OpSqueeze: true, tflite.OpStridedSlice: true,
}

// int16OK are the operators that take int16 tensors: QUANTIZE between
// integer types, SOFTMAX with int16 output and SVDF's int16 state.
var int16OK = map[tflite.BuiltinOp]bool{tflite.OpQuantize: true, tflite.OpSoftmax: true, tflite.OpSVDF: true}

// checkOps refuses, in one error, every operator the importer cannot map
// and every tensor type netkit does not run (int16 activations).
func (c *converter) checkOps() error {
	bad := map[string]int{}
	for i := range c.sg.Operators {
		op := &c.sg.Operators[i]
		code, err := c.m.Op(op)
		if err != nil {
			return err
		}
		switch {
		case !supported[code]:
			bad[fmt.Sprintf("%v is not supported", code)]++
		default:
			for _, ti := range slices.Concat(op.Inputs, op.Outputs) {
				if ti < 0 || int(ti) >= len(c.sg.Tensors) {
					continue
				}
				if t := c.sg.Tensors[ti]; t.Type == tflite.Int16 && !int16OK[code] {
					bad[fmt.Sprintf("%v with int16 tensors is not supported", code)]++
					break
				}
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(bad))
	for m, n := range bad {
		plural := "s"
		if n == 1 {
			plural = ""
		}
		msgs = append(msgs, fmt.Sprintf("%s (%d operator%s)", m, n, plural))
	}
	sort.Strings(msgs)
	return fmt.Errorf("%w: %s", ErrUnsupported, strings.Join(msgs, "; "))
}

func (c *converter) outName(op *tflite.Operator) string {
	if len(op.Outputs) == 0 || op.Outputs[0] < 0 || int(op.Outputs[0]) >= len(c.sg.Tensors) {
		return ""
	}
	return c.sg.Tensors[op.Outputs[0]].Name
}

func (c *converter) tensor(ti int32) (*tflite.Tensor, error) {
	if ti < 0 || int(ti) >= len(c.sg.Tensors) {
		return nil, fmt.Errorf("%w: tensor index %d out of %d", ErrUnsupported, ti, len(c.sg.Tensors))
	}
	return &c.sg.Tensors[ti], nil
}

func (c *converter) data(t *tflite.Tensor) []byte {
	if int(t.Buffer) >= len(c.m.Buffers) {
		return nil
	}
	return c.m.Buffers[t.Buffer].Data
}

// withBatch returns a copy of sg whose tensors with a dynamic batch
// (shape_signature -1 first, stored as 1) have batch as their first dim.
// Shapes the converter reads (reshape and dense outputs among them) then
// carry the batch; the model is not changed.
func withBatch(sg *tflite.Subgraph, batch int) (*tflite.Subgraph, error) {
	out := *sg
	out.Tensors = slices.Clone(sg.Tensors)
	for i := range out.Tensors {
		t := &out.Tensors[i]
		if len(t.ShapeSignature) > 0 && t.ShapeSignature[0] == -1 && len(t.Shape) > 0 && t.Shape[0] == 1 {
			t.Shape = slices.Clone(t.Shape)
			t.Shape[0] = int32(batch)
		}
	}
	for _, ti := range sg.Inputs {
		if ti < 0 || int(ti) >= len(sg.Tensors) {
			continue // reported by the conversion
		}
		if t := &sg.Tensors[ti]; len(t.ShapeSignature) == 0 || t.ShapeSignature[0] != -1 {
			return nil, fmt.Errorf("%w: --batch %d: input %q has a fixed batch (shape %v, shape_signature %v); --batch needs a dynamic one (-1)",
				ErrUnsupported, batch, t.Name, t.Shape, t.ShapeSignature)
		}
	}
	return &out, nil
}

func shapeOf(t *tflite.Tensor) []int {
	s := make([]int, len(t.Shape))
	for i, d := range t.Shape {
		s[i] = int(d)
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

func (c *converter) add(t nkfile.Tensor) int {
	c.out.Tensors = append(c.out.Tensors, t)
	return len(c.out.Tensors) - 1
}

func dtypeOf(t *tflite.Tensor) (nkfile.DType, error) {
	switch t.Type {
	case tflite.Float32:
		return nkfile.F32, nil
	case tflite.Int8:
		return nkfile.I8, nil
	case tflite.Int16:
		return nkfile.I16, nil
	case tflite.Int32:
		return nkfile.I32, nil
	}
	return 0, fmt.Errorf("%w: tensor %q is %v", ErrUnsupported, t.Name, t.Type)
}

// scaleZp is an int8 tensor's per-tensor scale and zero point.
func scaleZp(t *tflite.Tensor) (float32, int32, error) {
	q := t.Quant
	if q == nil || len(q.Scale) != 1 || len(q.ZeroPoint) != 1 {
		return 0, 0, fmt.Errorf("%w: int8 tensor %q needs one scale and zero point", ErrUnsupported, t.Name)
	}
	zp := q.ZeroPoint[0]
	if zp < quant.QMin || zp > quant.QMax {
		return 0, 0, fmt.Errorf("%w: tensor %q zero point %d outside int8", ErrUnsupported, t.Name, zp)
	}
	return q.Scale[0], int32(zp), nil
}

// scaleZps is scaleZp of an op's input and of its output.
func scaleZps(x, y *tflite.Tensor) (sIn float32, zpIn int32, sOut float32, zpOut int32, err error) {
	if sIn, zpIn, err = scaleZp(x); err == nil {
		sOut, zpOut, err = scaleZp(y)
	}
	return sIn, zpIn, sOut, zpOut, err
}

// intScaleZp is scaleZp for an int8, int16 or int32 tensor: the zero
// point within the type's range.
func intScaleZp(t *tflite.Tensor) (float32, int32, error) {
	if t.Type == tflite.Int8 {
		return scaleZp(t)
	}
	q := t.Quant
	if q == nil || len(q.Scale) != 1 || len(q.ZeroPoint) != 1 {
		return 0, 0, fmt.Errorf("%w: %v tensor %q needs one scale and zero point", ErrUnsupported, t.Type, t.Name)
	}
	zp := q.ZeroPoint[0]
	if t.Type == tflite.Int16 && (zp < math.MinInt16 || zp > math.MaxInt16) || zp < math.MinInt32 || zp > math.MaxInt32 {
		return 0, 0, fmt.Errorf("%w: tensor %q zero point %d outside %v", ErrUnsupported, t.Name, zp, t.Type)
	}
	return q.Scale[0], int32(zp), nil
}

// quantRecord is the .nk QUANT record of an int8 tensor (per tensor, or
// per channel along axis for weights).
func quantRecord(t *tflite.Tensor, axis int) *nkfile.Quant {
	q := t.Quant
	if q == nil || len(q.Scale) == 0 {
		return nil
	}
	r := &nkfile.Quant{Axis: -1, Scale: slices.Clone(q.Scale), ZeroPoint: make([]int32, len(q.Scale))}
	if len(q.Scale) > 1 {
		r.Axis = axis
	}
	for i := range r.ZeroPoint {
		if i < len(q.ZeroPoint) {
			r.ZeroPoint[i] = int32(q.ZeroPoint[i])
		}
	}
	return r
}

// runtime returns the .nk id of an activation tensor, creating the graph
// input or the op output the first time.
func (c *converter) runtime(ti int32) (int, error) {
	if id, ok := c.ids[ti]; ok {
		return id, nil
	}
	t, err := c.tensor(ti)
	if err != nil {
		return -1, err
	}
	dt, err := dtypeOf(t)
	if err != nil {
		return -1, err
	}
	nt := nkfile.Tensor{Name: t.Name, DType: dt, Shape: shapeOf(t)}
	if dt != nkfile.F32 {
		// integer activations (int32: a QUANTIZE output) carry their scale
		if _, _, err := intScaleZp(t); err != nil {
			return -1, err
		}
		nt.Quant = quantRecord(t, -1)
	}
	id := c.add(nt)
	c.ids[ti] = id
	return id, nil
}

// input returns an op input that must already exist (graph input or an
// earlier op's output) or be a constant.
func (c *converter) input(ti int32) (int, error) {
	if id, ok := c.ids[ti]; ok {
		return id, nil
	}
	t, err := c.tensor(ti)
	if err != nil {
		return -1, err
	}
	if len(c.data(t)) == 0 {
		return -1, fmt.Errorf("%w: tensor %q is read before any operator writes it", ErrUnsupported, t.Name)
	}
	return c.constant(ti)
}

// constant adds a constant tensor as stored: int8 with its quantization,
// int32 or float32.
func (c *converter) constant(ti int32) (int, error) {
	if id, ok := c.ids[ti]; ok {
		return id, nil
	}
	t, err := c.tensor(ti)
	if err != nil {
		return -1, err
	}
	dt, err := dtypeOf(t)
	if err != nil {
		return -1, err
	}
	shape := shapeOf(t)
	data := c.data(t)
	if len(data) != elems(shape)*dt.Size() {
		return -1, fmt.Errorf("%w: constant %q has %d bytes for %v %s", ErrUnsupported, t.Name, len(data), shape, dt)
	}
	nt := nkfile.Tensor{Name: t.Name, DType: dt, Shape: shape, Data: slices.Clone(data)}
	if dt == nkfile.I8 {
		if t.Quant != nil {
			nt.Quant = quantRecord(t, int(t.Quant.QuantizedDimension))
		}
		if nt.Quant == nil {
			return -1, fmt.Errorf("%w: int8 constant %q is not quantized", ErrUnsupported, t.Name)
		}
	}
	id := c.add(nt)
	c.ids[ti] = id
	return id, nil
}

// floatConstant adds a constant as float32, dequantizing int8 weights of a
// hybrid model (scale * (q - zp), per tensor or per channel).
func (c *converter) floatConstant(ti int32) (int, error) {
	t, err := c.tensor(ti)
	if err != nil {
		return -1, err
	}
	if t.Type == tflite.Float32 {
		return c.constant(ti)
	}
	if id, ok := c.ids[ti]; ok {
		return id, nil
	}
	f, err := c.floatValues(t)
	if err != nil {
		return -1, err
	}
	id := c.add(nkfile.Tensor{Name: t.Name, DType: nkfile.F32, Shape: shapeOf(t), Data: nkfile.F32Bytes(f)})
	c.ids[ti] = id
	return id, nil
}

// floatValues are a float32 or (hybrid model) int8 constant's values as
// float32.
func (c *converter) floatValues(t *tflite.Tensor) ([]float32, error) {
	raw := c.data(t)
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: tensor %q is not a constant", ErrUnsupported, t.Name)
	}
	switch t.Type {
	case tflite.Float32:
		if len(raw) != 4*elems(shapeOf(t)) {
			return nil, fmt.Errorf("%w: constant %q has %d bytes for f32 %v", ErrUnsupported, t.Name, len(raw), t.Shape)
		}
		f := make([]float32, len(raw)/4)
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return f, nil
	case tflite.Int8:
	default:
		return nil, fmt.Errorf("%w: %v constant %q under float activations", ErrUnsupported, t.Type, t.Name)
	}
	q := t.Quant
	if q == nil || len(q.Scale) == 0 {
		return nil, fmt.Errorf("%w: int8 constant %q is not quantized", ErrUnsupported, t.Name)
	}
	vals := make([]int8, len(raw))
	for i, b := range raw {
		vals[i] = int8(b)
	}
	f, err := quant.DequantizeWeights(vals, t.Shape, q.Scale, q.ZeroPoint, int(q.QuantizedDimension))
	if err != nil {
		return nil, fmt.Errorf("dequantizing %q: %w", t.Name, err)
	}
	return f, nil
}

// constI32 adds an i32 parameter tensor (multipliers, shifts), or reuses
// an earlier one with the same values: per-tensor shifts repeat often, and
// every tensor costs a record in the arena.
func (c *converter) constI32(name string, v []int32) int {
	data := nkfile.I32Bytes(v)
	key := string(data)
	if id, ok := c.params[key]; ok {
		return id
	}
	id := c.add(nkfile.Tensor{Name: name, DType: nkfile.I32, Shape: []int{len(v)}, Data: data})
	c.params[key] = id
	return id
}

// multipliers stores per-channel (or one-element) M and shift tensors.
func (c *converter) multipliers(name string, ms []quant.Multiplier) (mID, shiftID int) {
	m := make([]int32, len(ms))
	s := make([]int32, len(ms))
	for i, x := range ms {
		m[i], s[i] = x.M, x.Shift
	}
	return c.constI32(name+"/multiplier", m), c.constI32(name+"/shift", s)
}

// emit appends an op writing TFLite tensor outTi.
func (c *converter) emit(t nkfile.OpType, outTi int32, in []int, params []uint32, act nkfile.Activation) error {
	out, err := c.runtime(outTi)
	if err != nil {
		return err
	}
	c.out.Ops = append(c.out.Ops, nkfile.Op{Type: t, Name: c.out.Tensors[out].Name, Inputs: in,
		Outputs: []int{out}, Params: params, Act: act})
	return nil
}

// reshape inserts a RESHAPE of tensor id to shape (for ops whose TFLite
// form flattens implicitly) and returns the new tensor.
func (c *converter) reshape(id int, shape []int) int {
	src := c.out.Tensors[id]
	nt := nkfile.Tensor{Name: src.Name + "/reshape", DType: src.DType, Shape: shape, Quant: src.Quant}
	out := c.add(nt)
	c.out.Ops = append(c.out.Ops, nkfile.Op{Type: nkfile.OpReshape, Name: nt.Name, Inputs: []int{id}, Outputs: []int{out}})
	return out
}

var actOf = map[tflite.Activation]quant.Activation{
	tflite.ActNone: quant.ActNone, tflite.ActRelu: quant.ActRelu,
	tflite.ActReluN1To1: quant.ActReluN1To1, tflite.ActRelu6: quant.ActRelu6,
}

// floatClamp is a fused activation as an f32 clamp.
func floatClamp(a tflite.Activation) (nkfile.Clamp, error) {
	switch a {
	case tflite.ActNone:
		return nkfile.NoClamp, nil
	case tflite.ActRelu:
		return nkfile.Clamp{Min: 0, Max: nkfile.Inf32}, nil
	case tflite.ActRelu6:
		return nkfile.Clamp{Min: 0, Max: 6}, nil
	case tflite.ActReluN1To1:
		return nkfile.Clamp{Min: -1, Max: 1}, nil
	}
	return nkfile.Clamp{}, fmt.Errorf("%w: fused activation %v", ErrUnsupported, a)
}

// int8Out is an int8 output's zero point and quantized clamp.
type int8Out struct {
	scale          float32
	zp             int32
	actMin, actMax int32
}

func (c *converter) outInt8(ti int32, a tflite.Activation) (int8Out, error) {
	t, err := c.tensor(ti)
	if err != nil {
		return int8Out{}, err
	}
	s, zp, err := scaleZp(t)
	if err != nil {
		return int8Out{}, err
	}
	qa, ok := actOf[a]
	if !ok {
		return int8Out{}, fmt.Errorf("%w: fused activation %v", ErrUnsupported, a)
	}
	lo, hi, err := quant.ActivationRange(qa, s, zp)
	return int8Out{scale: s, zp: zp, actMin: lo, actMax: hi}, err
}

func (o int8Out) qout() nkfile.QOut {
	return nkfile.QOut{ZeroPoint: o.zp, ActMin: o.actMin, ActMax: o.actMax}
}

func (c *converter) convert(op *tflite.Operator, code tflite.BuiltinOp) error {
	if len(op.Outputs) != 1 || len(op.Inputs) == 0 {
		return fmt.Errorf("%w: %d inputs and %d outputs", ErrUnsupported, len(op.Inputs), len(op.Outputs))
	}
	out, err := c.tensor(op.Outputs[0])
	if err != nil {
		return err
	}
	x, err := c.tensor(op.Inputs[0])
	if err != nil {
		return err
	}
	switch code {
	case tflite.OpQuantize:
		return c.quantize(op, x, out)
	case tflite.OpDequantize:
		return c.dequantize(op, x, out)
	case tflite.OpTransposeConv: // input 0 is the output shape
		return c.transposeConv(op, out)
	case tflite.OpSVDF:
		return c.svdf(op, x, out)
	case tflite.OpUnidirectionalLSTM:
		return c.lstm(op, x, out)
	case tflite.OpSoftmax:
		if x.Type == tflite.Int8 && out.Type == tflite.Int16 {
			c.int8 = true
			return c.softmax(op, true)
		}
	}
	isInt8 := out.Type == tflite.Int8
	if isInt8 != (x.Type == tflite.Int8) {
		return fmt.Errorf("%w: input %v and output %v", ErrUnsupported, x.Type, out.Type)
	}
	if !isInt8 && out.Type != tflite.Float32 {
		return fmt.Errorf("%w: output %v", ErrUnsupported, out.Type)
	}
	if isInt8 {
		c.int8 = true
	}
	switch code {
	case tflite.OpConv2D, tflite.OpDepthwiseConv2D:
		return c.conv(op, code, isInt8)
	case tflite.OpFullyConnected:
		return c.fullyConnected(op, isInt8)
	case tflite.OpAveragePool2D, tflite.OpMaxPool2D:
		return c.pool(op, code, isInt8)
	case tflite.OpAdd, tflite.OpMul, tflite.OpSub, tflite.OpDiv, tflite.OpMaximum, tflite.OpMinimum:
		return c.binary(op, code, isInt8)
	case tflite.OpExp, tflite.OpSqrt, tflite.OpHardSwish:
		return c.unary(op, code, isInt8)
	case tflite.OpStridedSlice:
		return c.stridedSlice(op, x, isInt8)
	case tflite.OpReshape, tflite.OpSqueeze: // the output tensor's shape says which
		xid, err := c.input(op.Inputs[0])
		if err != nil {
			return err
		}
		if isInt8 {
			if err := sameQuant(x, out); err != nil {
				return err
			}
		}
		return c.emit(nkfile.OpReshape, op.Outputs[0], []int{xid}, nil, nkfile.ActNone)
	case tflite.OpSoftmax:
		return c.softmax(op, isInt8)
	case tflite.OpLogistic, tflite.OpTanh:
		return c.activation(op, code, isInt8)
	case tflite.OpPad, tflite.OpPadV2:
		return c.pad(op, isInt8)
	case tflite.OpConcatenation:
		return c.concat(op, isInt8)
	case tflite.OpResizeBilinear, tflite.OpResizeNearestNeighbor:
		return c.resize(op, code, isInt8)
	case tflite.OpGelu:
		return c.gelu(op, isInt8)
	case tflite.OpMean:
		return c.mean(op, x, isInt8)
	}
	return fmt.Errorf("%w: operator %v", ErrUnsupported, code)
}

// sameQuant refuses ops that move int8 bytes unchanged between tensors of
// different quantization (TFLite requires them equal).
func sameQuant(a, b *tflite.Tensor) error {
	sa, za, err := scaleZp(a)
	if err != nil {
		return err
	}
	sb, zb, err := scaleZp(b)
	if err != nil {
		return err
	}
	if sa != sb || za != zb {
		return fmt.Errorf("%w: input (scale %g, zero point %d) and output (scale %g, zero point %d) quantization differ",
			ErrUnsupported, sa, za, sb, zb)
	}
	return nil
}

// window resolves SAME/VALID padding and checks it against the output.
func window(pad tflite.Padding, in, out []int, kh, kw, sh, sw, dh, dw int) (nkfile.Window, error) {
	if len(in) != 4 || len(out) != 4 {
		return nkfile.Window{}, fmt.Errorf("%w: input %v and output %v must be NHWC", ErrUnsupported, in, out)
	}
	if pad != tflite.PaddingSame && pad != tflite.PaddingValid {
		return nkfile.Window{}, fmt.Errorf("%w: padding %v", ErrUnsupported, pad)
	}
	if sh < 1 || sw < 1 || dh < 1 || dw < 1 {
		return nkfile.Window{}, fmt.Errorf("%w: stride %dx%d, dilation %dx%d", ErrUnsupported, sh, sw, dh, dw)
	}
	same := pad == tflite.PaddingSame
	oh, top, bottom := quant.Padding(same, in[1], kh, sh, dh)
	ow, left, right := quant.Padding(same, in[2], kw, sw, dw)
	if oh != out[1] || ow != out[2] {
		return nkfile.Window{}, fmt.Errorf("%w: %v padding gives %dx%d, the output is %dx%d", ErrUnsupported, pad, oh, ow, out[1], out[2])
	}
	return nkfile.Window{StrideH: sh, StrideW: sw, DilationH: dh, DilationW: dw,
		PadTop: top, PadLeft: left, PadBottom: bottom, PadRight: right}, nil
}

func (c *converter) conv(op *tflite.Operator, code tflite.BuiltinOp, isInt8 bool) error {
	if len(op.Inputs) < 2 {
		return fmt.Errorf("%w: no weights", ErrUnsupported)
	}
	x, _ := c.tensor(op.Inputs[0])
	w, err := c.tensor(op.Inputs[1])
	if err != nil {
		return err
	}
	y, _ := c.tensor(op.Outputs[0])
	xs, ws, ys := shapeOf(x), shapeOf(w), shapeOf(y)
	if len(ws) != 4 || len(xs) != 4 || len(ys) != 4 {
		return fmt.Errorf("%w: weights %v, input %v, output %v must be rank 4", ErrUnsupported, ws, xs, ys)
	}
	var pad tflite.Padding
	var sh, sw, dh, dw int
	var act tflite.Activation
	last := 1 // groups or multiplier
	switch o := op.Options.(type) {
	case tflite.Conv2DOptions:
		pad, sh, sw, dh, dw, act = o.Padding, int(o.StrideH), int(o.StrideW), int(o.DilationH), int(o.DilationW), o.Activation
		if ws[3] == 0 || xs[3]%ws[3] != 0 {
			return fmt.Errorf("%w: input channels %d and weights %v", ErrUnsupported, xs[3], ws)
		}
		last = xs[3] / ws[3]
	case tflite.DepthwiseConv2DOptions:
		pad, sh, sw, dh, dw, act = o.Padding, int(o.StrideH), int(o.StrideW), int(o.DilationH), int(o.DilationW), o.Activation
		if xs[3] == 0 || ys[3]%xs[3] != 0 {
			return fmt.Errorf("%w: depthwise %d -> %d channels", ErrUnsupported, xs[3], ys[3])
		}
		last = ys[3] / xs[3]
		// the options' multiplier is advisory in TFLite (old files write 0); the shapes decide
		if o.DepthMultiplier > 0 && int(o.DepthMultiplier) != last {
			return fmt.Errorf("%w: depth multiplier %d, but %d -> %d channels", ErrUnsupported, o.DepthMultiplier, xs[3], ys[3])
		}
	default:
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	win, err := window(pad, xs, ys, ws[1], ws[2], sh, sw, dh, dw)
	if err != nil {
		return err
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	bias := -1
	hasBias := len(op.Inputs) > 2 && op.Inputs[2] >= 0
	if !isInt8 {
		wid, err := c.floatConstant(op.Inputs[1])
		if err != nil {
			return err
		}
		if hasBias {
			if bias, err = c.floatConstant(op.Inputs[2]); err != nil {
				return err
			}
		}
		clamp, err := floatClamp(act)
		if err != nil {
			return err
		}
		p := nkfile.ConvParams{Window: win, Clamp: clamp}
		if code == tflite.OpConv2D {
			p.Groups = last
			return c.emit(nkfile.OpConv2D, op.Outputs[0], []int{xid, wid, bias}, p.Words(), clamp.Act())
		}
		p.Multiplier = last
		return c.emit(nkfile.OpDepthwiseConv2D, op.Outputs[0], []int{xid, wid, bias}, p.DepthwiseWords(), clamp.Act())
	}
	sIn, zpIn, err := scaleZp(x)
	if err != nil {
		return err
	}
	o, err := c.outInt8(op.Outputs[0], act)
	if err != nil {
		return err
	}
	if w.Type != tflite.Int8 || w.Quant == nil {
		return fmt.Errorf("%w: int8 convolution with %v weights", ErrUnsupported, w.Type)
	}
	if err := symmetric(w); err != nil {
		return err
	}
	ms, err := quant.ConvMultipliers(sIn, w.Quant.Scale, o.scale, ys[3], c.opt.Rounding)
	if err != nil {
		return err
	}
	wid, err := c.constant(op.Inputs[1])
	if err != nil {
		return err
	}
	if hasBias {
		if bias, err = c.int32Bias(op.Inputs[2], ys[3]); err != nil {
			return err
		}
	}
	mid, sid := c.multipliers(y.Name, ms)
	p := nkfile.ConvI8Params{Window: win, InZeroPoint: zpIn, Out: o.qout()}
	t, params := nkfile.OpConv2DI8, []uint32(nil)
	if code == tflite.OpConv2D {
		p.Groups = last
		params = p.Words()
	} else {
		t, p.Multiplier = nkfile.OpDepthwiseConv2DI8, last
		params = p.DepthwiseWords()
	}
	return c.emit(t, op.Outputs[0], []int{xid, wid, bias, mid, sid}, params, int8Act(act))
}

// symmetric checks that int8 weights have zero point 0, as TFLite's int8
// kernels assume (they have no filter offset).
func symmetric(w *tflite.Tensor) error {
	for _, z := range w.Quant.ZeroPoint {
		if z != 0 {
			return fmt.Errorf("%w: weights %q have zero point %d (int8 weights are symmetric)", ErrUnsupported, w.Name, z)
		}
	}
	return nil
}

// int8Act names a fused activation for the op record's informational byte.
func int8Act(a tflite.Activation) nkfile.Activation {
	switch a {
	case tflite.ActNone:
		return nkfile.ActNone
	case tflite.ActRelu:
		return nkfile.ActRelu
	case tflite.ActRelu6:
		return nkfile.ActRelu6
	}
	return nkfile.ActClamp
}

func (c *converter) int32Bias(ti int32, n int) (int, error) {
	t, err := c.tensor(ti)
	if err != nil {
		return -1, err
	}
	if t.Type != tflite.Int32 || elems(shapeOf(t)) != n {
		return -1, fmt.Errorf("%w: bias %q is %v %v, want INT32 [%d]", ErrUnsupported, t.Name, t.Type, t.Shape, n)
	}
	return c.constant(ti)
}

func (c *converter) fullyConnected(op *tflite.Operator, isInt8 bool) error {
	o, ok := op.Options.(tflite.FullyConnectedOptions)
	if !ok || len(op.Inputs) < 2 {
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	if o.WeightsFormat != 0 {
		return fmt.Errorf("%w: weights format %d (only DEFAULT)", ErrUnsupported, o.WeightsFormat)
	}
	x, _ := c.tensor(op.Inputs[0])
	w, err := c.tensor(op.Inputs[1])
	if err != nil {
		return err
	}
	y, _ := c.tensor(op.Outputs[0])
	ws := shapeOf(w)
	if len(ws) != 2 || len(c.data(w)) == 0 {
		return fmt.Errorf("%w: weights %q %v must be a constant [N, K]", ErrUnsupported, w.Name, ws)
	}
	units, depth := ws[0], ws[1]
	xs, ys := shapeOf(x), shapeOf(y)
	if depth == 0 || elems(xs)%depth != 0 {
		return fmt.Errorf("%w: input %v is not a whole number of rows of %d", ErrUnsupported, xs, depth)
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	// DENSE maps x [..., K] to [..., N]; TFLite flattens x to rows of K
	// first (keep_num_dims false), so reshape when the leading dims differ.
	if len(ys) == 0 || ys[len(ys)-1] != units {
		return fmt.Errorf("%w: weights %v and output %v do not agree", ErrUnsupported, ws, ys)
	}
	want := append(slices.Clone(ys[:len(ys)-1]), depth)
	if elems(want) != elems(xs) {
		return fmt.Errorf("%w: input %v, weights %v and output %v do not agree", ErrUnsupported, xs, ws, ys)
	}
	if !slices.Equal(xs, want) {
		xid = c.reshape(xid, want)
	}
	bias := -1
	hasBias := len(op.Inputs) > 2 && op.Inputs[2] >= 0
	if !isInt8 {
		wid, err := c.floatConstant(op.Inputs[1])
		if err != nil {
			return err
		}
		if hasBias {
			if bias, err = c.floatConstant(op.Inputs[2]); err != nil {
				return err
			}
		}
		clamp, err := floatClamp(o.Activation)
		if err != nil {
			return err
		}
		return c.emit(nkfile.OpDense, op.Outputs[0], []int{xid, wid, bias}, nkfile.ClampWords(clamp), clamp.Act())
	}
	sIn, zpIn, err := scaleZp(x)
	if err != nil {
		return err
	}
	out, err := c.outInt8(op.Outputs[0], o.Activation)
	if err != nil {
		return err
	}
	if w.Type != tflite.Int8 || w.Quant == nil || len(w.Quant.Scale) == 0 {
		return fmt.Errorf("%w: int8 fully connected with %v weights", ErrUnsupported, w.Type)
	}
	if err := symmetric(w); err != nil {
		return err
	}
	var ms []quant.Multiplier
	if len(w.Quant.Scale) == 1 {
		m, err := quant.FullyConnectedMultiplier(sIn, w.Quant.Scale[0], out.scale, c.opt.Rounding)
		if err != nil {
			return err
		}
		ms = []quant.Multiplier{m}
	} else if ms, err = quant.ConvMultipliers(sIn, w.Quant.Scale, out.scale, units, c.opt.Rounding); err != nil {
		return err
	}
	wid, err := c.constant(op.Inputs[1])
	if err != nil {
		return err
	}
	if hasBias {
		if bias, err = c.int32Bias(op.Inputs[2], units); err != nil {
			return err
		}
	}
	mid, sid := c.multipliers(y.Name, ms)
	return c.emit(nkfile.OpDenseI8, op.Outputs[0], []int{xid, wid, bias, mid, sid},
		nkfile.DenseI8Words(zpIn, out.qout()), int8Act(o.Activation))
}

func (c *converter) pool(op *tflite.Operator, code tflite.BuiltinOp, isInt8 bool) error {
	o, ok := op.Options.(tflite.Pool2DOptions)
	if !ok {
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	x, _ := c.tensor(op.Inputs[0])
	y, _ := c.tensor(op.Outputs[0])
	kh, kw := int(o.FilterHeight), int(o.FilterWidth)
	win, err := window(o.Padding, shapeOf(x), shapeOf(y), kh, kw, int(o.StrideH), int(o.StrideW), 1, 1)
	if err != nil {
		return err
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	if !isInt8 {
		clamp, err := floatClamp(o.Activation)
		if err != nil {
			return err
		}
		t := nkfile.OpAvgPool2D
		if code == tflite.OpMaxPool2D {
			t = nkfile.OpMaxPool2D
		}
		// TFLite averages over the valid taps only: count_include_pad 0
		p := nkfile.PoolParams{KernelH: kh, KernelW: kw, Window: win, Clamp: clamp}
		return c.emit(t, op.Outputs[0], []int{xid}, p.Words(t), clamp.Act())
	}
	if err := sameQuant(x, y); err != nil {
		return err
	}
	out, err := c.outInt8(op.Outputs[0], o.Activation)
	if err != nil {
		return err
	}
	t := nkfile.OpAvgPool2DI8
	if code == tflite.OpMaxPool2D {
		t = nkfile.OpMaxPool2DI8
	}
	p := nkfile.PoolI8Params{KernelH: kh, KernelW: kw, Window: win, ActMin: out.actMin, ActMax: out.actMax}
	return c.emit(t, op.Outputs[0], []int{xid}, p.Words(), int8Act(o.Activation))
}

// binaryOps maps the binary operators to their nk ops (numpy broadcasting;
// float: a fused activation as the clamp; int8 MAXIMUM and MINIMUM too).
var binaryOps = map[tflite.BuiltinOp]nkfile.OpType{
	tflite.OpAdd: nkfile.OpAdd, tflite.OpMul: nkfile.OpMul, tflite.OpSub: nkfile.OpSub, tflite.OpDiv: nkfile.OpDiv,
	tflite.OpMaximum: nkfile.OpMaximum, tflite.OpMinimum: nkfile.OpMinimum,
}

// unary maps float EXP, SQRT and HARD_SWISH to their nk ops, and int8
// HARD_SWISH to LUT_I8 with the 256 outputs of TFLite Micro's integer
// kernel (quant.HardSwishLUT).
func (c *converter) unary(op *tflite.Operator, code tflite.BuiltinOp, isInt8 bool) error {
	if isInt8 && code == tflite.OpHardSwish {
		return c.lutI8(op, "hard_swish", func(sIn float32, zpIn int32, sOut float32, zpOut int32) ([256]int8, error) {
			return quant.HardSwishLUT(sIn, zpIn, sOut, zpOut, c.opt.Rounding)
		})
	}
	if isInt8 {
		return fmt.Errorf("%w: int8 %v (float %v converts)", ErrUnsupported, code, code)
	}
	xid, err := c.floatInput(op.Inputs[0])
	if err != nil {
		return err
	}
	t := map[tflite.BuiltinOp]nkfile.OpType{tflite.OpExp: nkfile.OpExp, tflite.OpSqrt: nkfile.OpSqrt, tflite.OpHardSwish: nkfile.OpHardSwish}[code]
	return c.emit(t, op.Outputs[0], []int{xid}, nil, nkfile.ActNone)
}

// maxMinI8 maps int8 MAXIMUM and MINIMUM to the nk ops on i8, which compare
// the raw values as TFLite Micro's int8 kernels do: exact when both inputs
// and the output share one quantization, which it requires here.
func (c *converter) maxMinI8(op *tflite.Operator, code tflite.BuiltinOp, a, b *tflite.Tensor) error {
	y, err := c.tensor(op.Outputs[0])
	if err != nil {
		return err
	}
	if b.Type != tflite.Int8 {
		return fmt.Errorf("%w: second input %v", ErrUnsupported, b.Type)
	}
	for _, in := range []*tflite.Tensor{a, b} {
		if err := sameQuant(in, y); err != nil {
			return err
		}
	}
	aid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	bid, err := c.input(op.Inputs[1])
	if err != nil {
		return err
	}
	return c.emit(binaryOps[code], op.Outputs[0], []int{aid, bid}, nkfile.ClampWords(nkfile.NoClamp), nkfile.ActNone)
}

// lutI8 maps an int8 elementwise op to LUT_I8 with the table build makes
// from the input's and the output's quantization.
func (c *converter) lutI8(op *tflite.Operator, what string, build func(sIn float32, zpIn int32, sOut float32, zpOut int32) ([256]int8, error)) error {
	x, _ := c.tensor(op.Inputs[0])
	y, _ := c.tensor(op.Outputs[0])
	sIn, zpIn, sOut, zpOut, err := scaleZps(x, y)
	if err != nil {
		return err
	}
	lut, err := build(sIn, zpIn, sOut, zpOut)
	if err != nil {
		return err
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	tab := c.add(nkfile.Tensor{Name: y.Name + "/" + what + "_lut", DType: nkfile.I8, Shape: []int{256}, Data: nkfile.I8Bytes(lut[:]), Quant: quantRecord(y, -1)})
	return c.emit(nkfile.OpLutI8, op.Outputs[0], []int{xid, tab}, nil, nkfile.ActNone)
}

func (c *converter) binary(op *tflite.Operator, code tflite.BuiltinOp, isInt8 bool) error {
	if len(op.Inputs) != 2 {
		return fmt.Errorf("%w: %d inputs", ErrUnsupported, len(op.Inputs))
	}
	var act tflite.Activation
	switch o := op.Options.(type) {
	case tflite.AddOptions:
		act = o.Activation
	case tflite.MulOptions:
		act = o.Activation
	case tflite.SubOptions:
		act = o.Activation
	case tflite.DivOptions:
		act = o.Activation
	case nil:
	default:
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	a, _ := c.tensor(op.Inputs[0])
	b, err := c.tensor(op.Inputs[1])
	if err != nil {
		return err
	}
	var aid, bid int
	if !isInt8 {
		if aid, err = c.floatInput(op.Inputs[0]); err != nil {
			return err
		}
		if bid, err = c.floatInput(op.Inputs[1]); err != nil {
			return err
		}
		clamp, err := floatClamp(act)
		if err != nil {
			return err
		}
		t := binaryOps[code]
		return c.emit(t, op.Outputs[0], []int{aid, bid}, nkfile.ClampWords(clamp), clamp.Act())
	}
	if code == tflite.OpMaximum || code == tflite.OpMinimum {
		return c.maxMinI8(op, code, a, b)
	}
	if code != tflite.OpAdd && code != tflite.OpMul {
		return fmt.Errorf("%w: int8 %v (float %v converts)", ErrUnsupported, code, code)
	}
	if b.Type != tflite.Int8 {
		return fmt.Errorf("%w: second input %v", ErrUnsupported, b.Type)
	}
	if aid, err = c.input(op.Inputs[0]); err != nil {
		return err
	}
	if bid, err = c.input(op.Inputs[1]); err != nil {
		return err
	}
	s1, zp1, err := scaleZp(a)
	if err != nil {
		return err
	}
	s2, zp2, err := scaleZp(b)
	if err != nil {
		return err
	}
	out, err := c.outInt8(op.Outputs[0], act)
	if err != nil {
		return err
	}
	if code == tflite.OpAdd {
		p, err := quant.Add(s1, s2, out.scale, c.opt.Rounding)
		if err != nil {
			return err
		}
		params := nkfile.AddI8Params{In1ZeroPoint: zp1, In2ZeroPoint: zp2, Out: out.qout(), LeftShift: p.LeftShift,
			M1: p.In1.M, Shift1: p.In1.Shift, M2: p.In2.M, Shift2: p.In2.Shift, MOut: p.Out.M, ShiftOut: p.Out.Shift}
		return c.emit(nkfile.OpAddI8, op.Outputs[0], []int{aid, bid}, params.Words(), int8Act(act))
	}
	m, err := quant.Mul(s1, s2, out.scale, c.opt.Rounding)
	if err != nil {
		return err
	}
	params := nkfile.MulI8Params{In1ZeroPoint: zp1, In2ZeroPoint: zp2, Out: out.qout(), M: m.M, Shift: m.Shift}
	return c.emit(nkfile.OpMulI8, op.Outputs[0], []int{aid, bid}, params.Words(), int8Act(act))
}

// floatInput is an activation, or a constant operand (dequantized if int8).
func (c *converter) floatInput(ti int32) (int, error) {
	if id, ok := c.ids[ti]; ok {
		return id, nil
	}
	t, err := c.tensor(ti)
	if err != nil {
		return -1, err
	}
	if len(c.data(t)) > 0 {
		return c.floatConstant(ti)
	}
	return c.input(ti)
}

func (c *converter) softmax(op *tflite.Operator, isInt8 bool) error {
	o, ok := op.Options.(tflite.SoftmaxOptions)
	if !ok {
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	x, _ := c.tensor(op.Inputs[0])
	y, _ := c.tensor(op.Outputs[0])
	if len(x.Shape) == 0 {
		return fmt.Errorf("%w: softmax of a scalar", ErrUnsupported)
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	if !isInt8 {
		if !(o.Beta > 0) || math.IsInf(float64(o.Beta), 0) {
			return fmt.Errorf("%w: softmax beta %g", ErrUnsupported, o.Beta)
		}
		return c.emit(nkfile.OpSoftmax, op.Outputs[0], []int{xid}, nkfile.F32Words(o.Beta), nkfile.ActNone)
	}
	s, _, err := scaleZp(x)
	if err != nil {
		return err
	}
	sOut, zpOut, err := intScaleZp(y)
	if err != nil {
		return err
	}
	switch {
	case y.Type == tflite.Int16:
		// TFLite's tolerance for the int16 output scale
		if math.Abs(float64(sOut)-1.0/65536) > 0.001/65536 || zpOut != -32768 {
			return fmt.Errorf("%w: int16 softmax output must have scale 1/65536 and zero point -32768 (has %g, %d)", ErrUnsupported, sOut, zpOut)
		}
	case sOut != 1.0/256 || zpOut != -128:
		return fmt.Errorf("%w: int8 softmax output must have scale 1/256 and zero point -128 (has %g, %d)", ErrUnsupported, sOut, zpOut)
	}
	p, err := quant.Softmax(o.Beta, s, c.opt.Rounding)
	if err != nil {
		return err
	}
	return c.emit(nkfile.OpSoftmaxI8, op.Outputs[0], []int{xid}, nkfile.SoftmaxI8Words(p.M, p.Shift, p.DiffMin), nkfile.ActNone)
}

func (c *converter) activation(op *tflite.Operator, code tflite.BuiltinOp, isInt8 bool) error {
	x, _ := c.tensor(op.Inputs[0])
	y, _ := c.tensor(op.Outputs[0])
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	if !isInt8 {
		t := nkfile.OpSigmoid
		if code == tflite.OpTanh {
			t = nkfile.OpTanh
		}
		return c.emit(t, op.Outputs[0], []int{xid}, nil, nkfile.ActNone)
	}
	s, zp, err := scaleZp(x)
	if err != nil {
		return err
	}
	sOut, zpOut, err := scaleZp(y)
	if err != nil {
		return err
	}
	t, wantS, wantZp := nkfile.OpLogisticI8, float32(1.0/256), int32(-128)
	if code == tflite.OpTanh {
		t, wantS, wantZp = nkfile.OpTanhI8, 1.0/128, 0
	}
	if sOut != wantS || zpOut != wantZp {
		return fmt.Errorf("%w: int8 %v output must have scale %g and zero point %d (has %g, %d)", ErrUnsupported, code, wantS, wantZp, sOut, zpOut)
	}
	p, err := quant.LogisticTanh(s, zp)
	if err != nil {
		return err
	}
	return c.emit(t, op.Outputs[0], []int{xid}, nkfile.ActFnI8Words(p.InputZeroPoint, p.M, p.Shift, p.Radius), nkfile.ActNone)
}

func (c *converter) quantize(op *tflite.Operator, x, y *tflite.Tensor) error {
	intOut := y.Type == tflite.Int8 || y.Type == tflite.Int16 || y.Type == tflite.Int32
	if y.Type != tflite.Int8 && !(intOut && (x.Type == tflite.Int8 || x.Type == tflite.Int16)) {
		return fmt.Errorf("%w: QUANTIZE from %v to %v", ErrUnsupported, x.Type, y.Type)
	}
	if _, _, err := intScaleZp(y); err != nil {
		return err
	}
	c.int8 = true
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	switch x.Type {
	case tflite.Float32:
		return c.emit(nkfile.OpQuantize, op.Outputs[0], []int{xid}, nil, nkfile.ActNone)
	case tflite.Int8, tflite.Int16:
		// TFLite's Requantize: (x - zp_in) * s_in/s_out + zp_out, clamped
		sIn, zpIn, err := intScaleZp(x)
		if err != nil {
			return err
		}
		sOut, zpOut, _ := intScaleZp(y)
		m, err := quant.Requantize(sIn, sOut, c.opt.Rounding)
		if err != nil {
			return err
		}
		return c.emit(nkfile.OpQuantize, op.Outputs[0], []int{xid}, nkfile.RequantizeWords(m.M, m.Shift, zpIn, zpOut), nkfile.ActNone)
	}
	return fmt.Errorf("%w: QUANTIZE from %v", ErrUnsupported, x.Type)
}

// requantize emits an int8 -> int8 QUANTIZE of tensor id (TFLite tensor
// from) to a new tensor of from's shape with to's quantization.
func (c *converter) requantize(id int, from, to *tflite.Tensor) (int, error) {
	sIn, zpIn, sOut, zpOut, err := scaleZps(from, to)
	if err != nil {
		return -1, err
	}
	m, err := quant.Requantize(sIn, sOut, c.opt.Rounding)
	if err != nil {
		return -1, err
	}
	src := c.out.Tensors[id]
	nt := nkfile.Tensor{Name: src.Name + "/requantized", DType: nkfile.I8, Shape: slices.Clone(src.Shape), Quant: quantRecord(to, -1)}
	out := c.add(nt)
	c.out.Ops = append(c.out.Ops, nkfile.Op{Type: nkfile.OpQuantize, Name: nt.Name, Inputs: []int{id}, Outputs: []int{out},
		Params: nkfile.RequantizeWords(m.M, m.Shift, zpIn, zpOut)})
	return out, nil
}

func (c *converter) dequantize(op *tflite.Operator, x, y *tflite.Tensor) error {
	if y.Type != tflite.Float32 {
		return fmt.Errorf("%w: DEQUANTIZE to %v", ErrUnsupported, y.Type)
	}
	if x.Type != tflite.Int8 {
		return fmt.Errorf("%w: DEQUANTIZE of %v (float16 weights are not supported)", ErrUnsupported, x.Type)
	}
	if len(c.data(x)) > 0 {
		// a dequantized constant (weights): fold it at convert time
		id, err := c.floatConstant(op.Inputs[0])
		if err != nil {
			return err
		}
		c.ids[op.Outputs[0]] = id
		return nil
	}
	if _, _, err := scaleZp(x); err != nil {
		return err
	}
	c.int8 = true
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	return c.emit(nkfile.OpDequantize, op.Outputs[0], []int{xid}, nil, nkfile.ActNone)
}

// pad maps PAD / PADV2: paddings from the constant int32 [rank, 2] input;
// the value is 0.0 (the zero point in int8) or PADV2's constant.
func (c *converter) pad(op *tflite.Operator, isInt8 bool) error {
	if len(op.Inputs) < 2 {
		return fmt.Errorf("%w: no paddings", ErrUnsupported)
	}
	x, _ := c.tensor(op.Inputs[0])
	y, _ := c.tensor(op.Outputs[0])
	pt, err := c.tensor(op.Inputs[1])
	if err != nil {
		return err
	}
	rank := len(x.Shape)
	raw := c.data(pt)
	if pt.Type != tflite.Int32 || len(raw) != 8*rank {
		return fmt.Errorf("%w: paddings %q must be a constant INT32 [%d, 2]", ErrUnsupported, pt.Name, rank)
	}
	pads := nkfile.BytesI32(raw)
	before, after := make([]int, rank), make([]int, rank)
	for k := range rank {
		before[k], after[k] = int(pads[2*k]), int(pads[2*k+1])
		if before[k] < 0 || after[k] < 0 {
			return fmt.Errorf("%w: negative padding %v", ErrUnsupported, pads)
		}
	}
	var value float32 // PAD pads with real 0
	var qvalue int32
	if isInt8 {
		if err := sameQuant(x, y); err != nil {
			return err
		}
		_, zp, _ := scaleZp(y)
		qvalue = zp
	}
	if len(op.Inputs) > 2 && op.Inputs[2] >= 0 {
		vt, err := c.tensor(op.Inputs[2])
		if err != nil {
			return err
		}
		vb := c.data(vt)
		switch {
		case isInt8 && vt.Type == tflite.Int8 && len(vb) == 1:
			qvalue = int32(int8(vb[0])) // PADV2's value is stored already quantized
		case !isInt8 && vt.Type == tflite.Float32 && len(vb) == 4:
			value = nkfile.BytesF32(vb)[0]
		default:
			return fmt.Errorf("%w: pad value %q must be a constant scalar of the input's type", ErrUnsupported, vt.Name)
		}
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	params := nkfile.PadWords(nkfile.PadConstant, value, before, after)
	if isInt8 {
		params[1] = uint32(qvalue) // an i8 PAD's value word is the quantized i32
	}
	return c.emit(nkfile.OpPad, op.Outputs[0], []int{xid}, params, nkfile.ActNone)
}

// concat maps CONCATENATION. TFLite's int8 concatenation copies bytes, so
// its converter gives every input the output's quantization, inserting an
// int8 QUANTIZE (requantize) where they differ; so does this importer.
func (c *converter) concat(op *tflite.Operator, isInt8 bool) error {
	o, ok := op.Options.(tflite.ConcatenationOptions)
	if !ok {
		return fmt.Errorf("%w: options %T", ErrUnsupported, op.Options)
	}
	if o.Activation != tflite.ActNone {
		return fmt.Errorf("%w: concatenation with fused %v", ErrUnsupported, o.Activation)
	}
	if len(op.Inputs) > nkfile.MaxOpInputs {
		return fmt.Errorf("%w: %d inputs (at most %d)", ErrUnsupported, len(op.Inputs), nkfile.MaxOpInputs)
	}
	y, _ := c.tensor(op.Outputs[0])
	axis := int(o.Axis)
	if axis < 0 {
		axis += len(y.Shape)
	}
	if axis < 0 || axis >= len(y.Shape) {
		return fmt.Errorf("%w: axis %d of rank %d", ErrUnsupported, o.Axis, len(y.Shape))
	}
	ids := make([]int, len(op.Inputs))
	for k, ti := range op.Inputs {
		t, err := c.tensor(ti)
		if err != nil {
			return err
		}
		if isInt8 {
			if t.Type != tflite.Int8 {
				return fmt.Errorf("%w: input %d is %v", ErrUnsupported, k, t.Type)
			}
			if ids[k], err = c.input(ti); err != nil {
				return err
			}
			if sameQuant(t, y) != nil {
				ids[k], err = c.requantize(ids[k], t, y)
			}
		} else {
			ids[k], err = c.floatInput(ti)
		}
		if err != nil {
			return err
		}
	}
	return c.emit(nkfile.OpConcat, op.Outputs[0], ids, nkfile.I32Words(axis), nkfile.ActNone)
}

// svdf maps TFLite's integer SVDF (int8 input and output, int8
// weights_feature, int8 or int16 weights_time and state) to SVDF_I8 with the
// multipliers TFLite Micro's prepare computes; its variable state tensor
// becomes a STATE tensor that starts at its zero point.
func (c *converter) svdf(op *tflite.Operator, x, y *tflite.Tensor) error {
	o, ok := op.Options.(tflite.SVDFOptions)
	if !ok || len(op.Inputs) != 5 {
		return fmt.Errorf("%w: SVDF with options %T and %d inputs (want 5)", ErrUnsupported, op.Options, len(op.Inputs))
	}
	if x.Type != tflite.Int8 || y.Type != tflite.Int8 {
		return fmt.Errorf("%w: SVDF on %v -> %v (only the int8 form)", ErrUnsupported, x.Type, y.Type)
	}
	c.int8 = true
	var t [5]*tflite.Tensor
	for k, ti := range op.Inputs {
		if ti < 0 {
			continue
		}
		tk, err := c.tensor(ti)
		if err != nil {
			return err
		}
		t[k] = tk
	}
	wf, wt, bias, st := t[1], t[2], t[3], t[4]
	if wf == nil || wt == nil || st == nil || wf.Type != tflite.Int8 || (wt.Type != tflite.Int8 && wt.Type != tflite.Int16) || st.Type != wt.Type {
		return fmt.Errorf("%w: SVDF weights_feature must be INT8, weights_time and state both INT8 or both INT16", ErrUnsupported)
	}
	if !st.IsVariable || len(c.data(st)) != 0 {
		return fmt.Errorf("%w: SVDF state %q must be a variable tensor", ErrUnsupported, st.Name)
	}
	if _, ok := c.ids[op.Inputs[4]]; ok {
		return fmt.Errorf("%w: SVDF state %q is shared with another operator", ErrUnsupported, st.Name)
	}
	sIn, zpIn, sOut, zpOut, err := scaleZps(x, y)
	if err != nil {
		return err
	}
	sState, zpState, err := intScaleZp(st)
	if err != nil {
		return err
	}
	for _, w := range []*tflite.Tensor{wf, wt} {
		if w.Quant == nil || len(w.Quant.Scale) != 1 {
			return fmt.Errorf("%w: SVDF weights %q need one scale", ErrUnsupported, w.Name)
		}
		if err := symmetric(w); err != nil {
			return err
		}
	}
	sWf, sWt := wf.Quant.Scale[0], wt.Quant.Scale[0]
	if bias != nil {
		if bias.Quant == nil || len(bias.Quant.Scale) != 1 || math.Abs(float64(bias.Quant.Scale[0])-float64(sState*sWt)) >= 1e-5 {
			return fmt.Errorf("%w: SVDF bias %q scale must be state scale * weights_time scale", ErrUnsupported, bias.Name)
		}
	}
	// TFLM computes both scales in float, then widens them to double
	m1, err := quant.Requantize(float32(sIn*sWf), sState, c.opt.Rounding)
	if err != nil {
		return fmt.Errorf("SVDF feature scale: %w", err)
	}
	m2, err := quant.Requantize(float32(sState*sWt), sOut, c.opt.Rounding)
	if err != nil {
		return fmt.Errorf("SVDF time scale: %w", err)
	}
	ids := make([]int, 5)
	for k := 0; k < 4; k++ {
		if k == 3 && op.Inputs[3] < 0 {
			ids[k] = -1
			continue
		}
		if k == 0 {
			ids[k], err = c.input(op.Inputs[0])
		} else {
			ids[k], err = c.constant(op.Inputs[k])
		}
		if err != nil {
			return err
		}
	}
	ids[4] = c.add(nkfile.Tensor{Name: st.Name, DType: map[tflite.TensorType]nkfile.DType{tflite.Int8: nkfile.I8, tflite.Int16: nkfile.I16}[st.Type],
		Shape: shapeOf(st), Quant: quantRecord(st, -1), State: true})
	c.ids[op.Inputs[4]] = ids[4]
	return c.emit(nkfile.OpSvdfI8, op.Outputs[0], ids,
		nkfile.SvdfI8Words(int(o.Rank), m1.M, m1.Shift, m2.M, m2.Shift, zpIn, zpState, zpOut), nkfile.ActNone)
}

// UNIDIRECTIONAL_SEQUENCE_LSTM's input slots (TFLite's operator
// definition): the gate blocks of each weight kind in the order input,
// forget, cell, output; then the two variable state tensors.
const (
	lstmInputWeights     = 1  // 1..4: input_to_{input,forget,cell,output}_weights [H,I]
	lstmRecurrentWeights = 5  // 5..8: recurrent_to_*_weights [H,H]
	lstmPeepholes        = 9  // 9..11: cell_to_{input,forget,output}_weights
	lstmGateBiases       = 12 // 12..15: {input,forget,cell,output}_gate_bias [H]
	lstmProjection       = 16 // 16, 17: projection weights and bias
	lstmOutputState      = 18
	lstmCellState        = 19
	lstmLayerNorm        = 20 // 20..23: layer norm coefficients
)

// lstmGateOrder takes TFLite's gate blocks (i, f, c, o) into the LSTM op's
// order (i, o, f, c).
var lstmGateOrder = [4]int{0, 3, 1, 2}

// lstm maps TFLite's float UNIDIRECTIONAL_SEQUENCE_LSTM (full LSTM with
// input gate, no peepholes, projection, layer norm or clips, tanh) to the
// LSTM op: the gate weights stacked into W and R in its gate order, the
// gate biases as W's bias (R's is zero), and the two variable state tensors
// as STATE tensors read as the initial state and written as Y_h and Y_c,
// so the state carries from one invoke to the next as TFLite's does. Y
// ([batch, time, 1, H] or [time, 1, batch, H]) is reshaped to the TFLite
// output.
func (c *converter) lstm(op *tflite.Operator, x, y *tflite.Tensor) error {
	o, ok := op.Options.(tflite.UnidirectionalLSTMOptions)
	if !ok || len(op.Inputs) != 20 && len(op.Inputs) != 24 {
		return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM with options %T and %d inputs (want 20 or 24)", ErrUnsupported, op.Options, len(op.Inputs))
	}
	if x.Type != tflite.Float32 || y.Type != tflite.Float32 {
		return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM on %v -> %v (only float32 activations)", ErrUnsupported, x.Type, y.Type)
	}
	has := func(k int) bool { return k < len(op.Inputs) && op.Inputs[k] >= 0 }
	var refuse []string
	if !has(lstmInputWeights) || !has(lstmRecurrentWeights) || !has(lstmGateBiases) {
		refuse = append(refuse, "no input gate (CIFG)")
	}
	if has(lstmPeepholes) || has(lstmPeepholes+1) || has(lstmPeepholes+2) {
		refuse = append(refuse, "peepholes")
	}
	if has(lstmProjection) || has(lstmProjection+1) {
		refuse = append(refuse, "a projection")
	}
	for k := lstmLayerNorm; k < len(op.Inputs); k++ {
		if has(k) {
			refuse = append(refuse, "layer normalization")
			break
		}
	}
	if o.CellClip != 0 || o.ProjClip != 0 {
		refuse = append(refuse, "a cell or projection clip")
	}
	if o.Activation != tflite.ActTanh {
		refuse = append(refuse, fmt.Sprintf("activation %v (tanh only)", o.Activation))
	}
	if o.DiagonalRecurrent {
		refuse = append(refuse, "diagonal recurrent weights")
	}
	if len(refuse) > 0 {
		return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM with %s", ErrUnsupported, strings.Join(refuse, ", "))
	}
	xs := shapeOf(x)
	if len(xs) != 3 {
		return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM input %v, want rank 3", ErrUnsupported, xs)
	}
	batch, steps, in := xs[0], xs[1], xs[2]
	if o.TimeMajor {
		batch, steps = steps, batch
	}
	// the four gates' W blocks [H,I], R blocks [H,H] and biases [H]
	var w, r, b [4][]float32
	hidden := -1
	for g := range 4 {
		for _, part := range []struct {
			slot int
			dst  *[]float32
			cols int // 0: the hidden size
		}{{lstmInputWeights + g, &w[g], in}, {lstmRecurrentWeights + g, &r[g], 0}, {lstmGateBiases + g, &b[g], 1}} {
			t, err := c.tensor(op.Inputs[part.slot])
			if err != nil {
				return err
			}
			v, err := c.floatValues(t)
			if err != nil {
				return err
			}
			if hidden < 0 {
				hidden = len(v) / max(in, 1)
			}
			cols := part.cols
			if cols == 0 {
				cols = hidden
			}
			if hidden < 1 || len(v) != hidden*cols {
				return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM %q has shape %v, want [%d, %d]", ErrUnsupported, t.Name, t.Shape, hidden, cols)
			}
			*part.dst = v
		}
	}
	var wAll, rAll []float32
	bAll := make([]float32, 0, 8*hidden)
	for _, g := range lstmGateOrder {
		wAll = append(wAll, w[g]...)
		rAll = append(rAll, r[g]...)
		bAll = append(bAll, b[g]...)
	}
	bAll = append(bAll, make([]float32, 4*hidden)...) // R's bias
	name := c.outName(op)
	wID := c.add(nkfile.Tensor{Name: name + "/W", DType: nkfile.F32, Shape: []int{1, 4 * hidden, in}, Data: nkfile.F32Bytes(wAll)})
	rID := c.add(nkfile.Tensor{Name: name + "/R", DType: nkfile.F32, Shape: []int{1, 4 * hidden, hidden}, Data: nkfile.F32Bytes(rAll)})
	bID := c.add(nkfile.Tensor{Name: name + "/B", DType: nkfile.F32, Shape: []int{1, 8 * hidden}, Data: nkfile.F32Bytes(bAll)})
	stateShape, yShape := []int{batch, 1, hidden}, []int{batch, steps, 1, hidden}
	if o.TimeMajor {
		stateShape, yShape = []int{1, batch, hidden}, []int{steps, 1, batch, hidden}
	}
	var states [2]int
	for k, slot := range []int{lstmOutputState, lstmCellState} {
		st, err := c.tensor(op.Inputs[slot])
		if err != nil {
			return err
		}
		if st.Type != tflite.Float32 || !st.IsVariable || len(c.data(st)) != 0 || elems(shapeOf(st)) != batch*hidden {
			return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM state %q must be a float32 variable tensor of %d x %d", ErrUnsupported, st.Name, batch, hidden)
		}
		if _, ok := c.ids[op.Inputs[slot]]; ok {
			return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM state %q is shared with another operator", ErrUnsupported, st.Name)
		}
		states[k] = c.add(nkfile.Tensor{Name: st.Name, DType: nkfile.F32, Shape: stateShape, State: true})
		c.ids[op.Inputs[slot]] = states[k]
	}
	xID, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	yID := c.add(nkfile.Tensor{Name: name + "/Y", DType: nkfile.F32, Shape: yShape})
	params := nkfile.RNN{BatchFirst: !o.TimeMajor, Clip: nkfile.NoClip, Acts: nkfile.DefaultRNNActs()}.Words()
	c.out.Ops = append(c.out.Ops, nkfile.Op{Type: nkfile.OpLSTM, Name: name, Params: params,
		Inputs: []int{xID, wID, rID, bID, states[0], states[1]}, Outputs: []int{yID, states[0], states[1]}})
	out, err := c.runtime(op.Outputs[0])
	if err != nil {
		return err
	}
	if !slices.Equal(c.out.Tensors[out].Shape, []int{yShape[0], yShape[1] * yShape[2], yShape[3]}) {
		return fmt.Errorf("%w: UNIDIRECTIONAL_SEQUENCE_LSTM output %v for input %v and %d cells", ErrUnsupported, c.out.Tensors[out].Shape, xs, hidden)
	}
	c.out.Ops = append(c.out.Ops, nkfile.Op{Type: nkfile.OpReshape, Name: c.out.Tensors[out].Name, Inputs: []int{yID}, Outputs: []int{out}})
	return nil
}

// mean maps MEAN (constant axes, negative ones counted from the end) to
// REDUCE_MEAN, or int8 MEAN to REDUCE_MEAN_I8 with TFLite Micro's
// multiplier (quant.Mean: s_in / s_out with 1/count folded in); both keep
// the reduced dims as 1, and without keep_dims a RESHAPE drops them.
func (c *converter) mean(op *tflite.Operator, x *tflite.Tensor, isInt8 bool) error {
	o, ok := op.Options.(tflite.ReducerOptions)
	if !ok || len(op.Inputs) != 2 {
		return fmt.Errorf("%w: MEAN with options %T and %d inputs (want 2)", ErrUnsupported, op.Options, len(op.Inputs))
	}
	at, err := c.tensor(op.Inputs[1])
	if err != nil {
		return err
	}
	raw := c.data(at)
	if at.Type != tflite.Int32 || len(raw) == 0 || len(raw)%4 != 0 {
		return fmt.Errorf("%w: MEAN axes %q must be a constant int32 tensor", ErrUnsupported, at.Name)
	}
	shape := shapeOf(x)
	mask := 0
	for k := 0; k < len(raw); k += 4 {
		a := int(int32(binary.LittleEndian.Uint32(raw[k:])))
		if a < 0 {
			a += len(shape)
		}
		if a < 0 || a >= len(shape) {
			return fmt.Errorf("%w: MEAN axis %d of a rank-%d input", ErrUnsupported, a, len(shape))
		}
		mask |= 1 << a
	}
	xid, err := c.input(op.Inputs[0])
	if err != nil {
		return err
	}
	kind, params := nkfile.OpReduceMean, nkfile.I32Words(mask)
	if isInt8 {
		y, err := c.tensor(op.Outputs[0])
		if err != nil {
			return err
		}
		if y.Type != tflite.Int8 {
			return fmt.Errorf("%w: int8 MEAN to a %v output", ErrUnsupported, y.Type)
		}
		sIn, zpIn, sOut, zpOut, err := scaleZps(x, y)
		if err != nil {
			return err
		}
		n := 1
		for a, d := range shape {
			if mask&(1<<a) != 0 {
				n *= d
			}
		}
		m, err := quant.Mean(sIn, sOut, n, c.opt.Rounding)
		if err != nil {
			return err
		}
		kind, params = nkfile.OpReduceMeanI8, nkfile.I32Words(mask, int(zpIn), int(zpOut), int(m.M), int(m.Shift))
	}
	if o.KeepDims {
		return c.emit(kind, op.Outputs[0], []int{xid}, params, nkfile.ActNone)
	}
	kept := slices.Clone(shape)
	for a := range kept {
		if mask&(1<<a) != 0 {
			kept[a] = 1
		}
	}
	out, err := c.runtime(op.Outputs[0])
	if err != nil {
		return err
	}
	name, y := c.outName(op), c.out.Tensors[out]
	mid := c.add(nkfile.Tensor{Name: name + "/keepdims", DType: y.DType, Shape: kept, Quant: y.Quant})
	c.out.Ops = append(c.out.Ops, nkfile.Op{Type: kind, Name: name + "/keepdims", Inputs: []int{xid}, Outputs: []int{mid}, Params: params})
	return c.emit(nkfile.OpReshape, op.Outputs[0], []int{mid}, nil, nkfile.ActNone)
}

// stridedSlice maps STRIDED_SLICE (constant begin, end and strides; the
// begin, end and shrink-axis masks) to SLICE, each axis resolved as
// TFLite's strided_slice_logic does: a negative index counts from the end,
// a masked one takes the axis' first or last, then both clamp to the axis
// ([0, n] for a positive stride, [-1, n-1] for a negative one), and a
// shrunk axis ends one past its start. A RESHAPE drops the shrunk axes.
// int8 moves bytes, so input and output must share their quantization.
func (c *converter) stridedSlice(op *tflite.Operator, x *tflite.Tensor, isInt8 bool) error {
	o, _ := op.Options.(tflite.StridedSliceOptions)
	if len(op.Inputs) != 4 || o.EllipsisMask != 0 || o.NewAxisMask != 0 || o.Offset {
		return fmt.Errorf("%w: STRIDED_SLICE with %d inputs, ellipsis mask %d, new axis mask %d, offset %v (want 4, 0, 0, false)",
			ErrUnsupported, len(op.Inputs), o.EllipsisMask, o.NewAxisMask, o.Offset)
	}
	shape := shapeOf(x)
	r := len(shape)
	var idx [3][]int32 // begin, end, strides
	for k := range idx {
		t, err := c.tensor(op.Inputs[k+1])
		if err != nil {
			return err
		}
		raw := c.data(t)
		if t.Type != tflite.Int32 || len(raw) != 4*r {
			return fmt.Errorf("%w: STRIDED_SLICE input %d %q must be a constant int32 vector of %d", ErrUnsupported, k+1, t.Name, r)
		}
		idx[k] = nkfile.BytesI32(raw)
	}
	clampAxis := func(v, n, stride int) int {
		if stride > 0 {
			return min(max(v, 0), n)
		}
		return min(max(v, -1), n-1)
	}
	begin, step, count, kept := make([]int, r), make([]int, r), make([]int, r), []int{}
	for a, n := range shape {
		s := int(idx[2][a])
		if s == 0 {
			return fmt.Errorf("%w: STRIDED_SLICE stride 0 on axis %d", ErrUnsupported, a)
		}
		bit := int32(1) << a
		start, stop := int(idx[0][a]), int(idx[1][a])
		switch {
		case o.BeginMask&bit != 0 && s > 0:
			start = 0
		case o.BeginMask&bit != 0:
			start = n - 1
		case start < 0:
			start += n
		}
		start = clampAxis(start, n, s)
		switch {
		case o.ShrinkAxisMask&bit != 0:
			stop = start + 1
		case o.EndMask&bit != 0 && s > 0:
			stop = n
		case o.EndMask&bit != 0:
			stop = -1
		default:
			if stop < 0 {
				stop += n
			}
			stop = clampAxis(stop, n, s)
		}
		if s > 0 {
			count[a] = max(0, (stop-start+s-1)/s)
		} else {
			count[a] = max(0, (start-stop-s-1)/-s)
		}
		if count[a] == 0 {
			return fmt.Errorf("%w: STRIDED_SLICE gives an empty axis %d (an empty tensor may only be a graph input or output)", ErrUnsupported, a)
		}
		begin[a], step[a] = start, s
		if o.ShrinkAxisMask&bit == 0 {
			kept = append(kept, count[a])
		}
	}
	y, err := c.tensor(op.Outputs[0])
	if err != nil {
		return err
	}
	if !slices.Equal(shapeOf(y), kept) {
		return fmt.Errorf("%w: STRIDED_SLICE of %v gives %v, the output is %v", ErrUnsupported, shape, kept, shapeOf(y))
	}
	input := c.floatInput
	if isInt8 {
		if err := sameQuant(x, y); err != nil {
			return err
		}
		input = c.input
	}
	xid, err := input(op.Inputs[0])
	if err != nil {
		return err
	}
	params := nkfile.I32Words(append(begin, step...)...)
	if o.ShrinkAxisMask == 0 {
		return c.emit(nkfile.OpSlice, op.Outputs[0], []int{xid}, params, nkfile.ActNone)
	}
	out, err := c.runtime(op.Outputs[0])
	if err != nil {
		return err
	}
	name, yt := c.outName(op), c.out.Tensors[out]
	mid := c.add(nkfile.Tensor{Name: name + "/slice", DType: yt.DType, Shape: count, Quant: yt.Quant})
	c.out.Ops = append(c.out.Ops, nkfile.Op{Type: nkfile.OpSlice, Name: name + "/slice", Inputs: []int{xid}, Outputs: []int{mid}, Params: params})
	return c.emit(nkfile.OpReshape, op.Outputs[0], []int{mid}, nil, nkfile.ActNone)
}

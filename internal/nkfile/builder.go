package nkfile

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Builder assembles a Model op by op, creating each op's output tensor with
// the shape InferShape gives, so callers never compute shapes by hand. The
// first error sticks and is returned by Model; ids returned after an error
// are -1.
type Builder struct {
	m   Model
	err error
}

// NewBuilder starts an empty model.
func NewBuilder() *Builder { return &Builder{} }

func (b *Builder) add(t Tensor) int {
	b.m.Tensors = append(b.m.Tensors, t)
	return len(b.m.Tensors) - 1
}

// Input adds a graph input (a runtime tensor) with the native layout.
func (b *Builder) Input(name string, dt DType, shape ...int) int {
	id := b.add(Tensor{Name: name, DType: dt, Shape: shape})
	b.m.Inputs = append(b.m.Inputs, IO{Tensor: id})
	return id
}

// EmptyOutput adds a graph output with a dim of 0: no op produces it (an
// empty tensor holds nothing; only graph inputs and outputs may be empty).
func (b *Builder) EmptyOutput(name string, dt DType, shape ...int) int {
	id := b.add(Tensor{Name: name, DType: dt, Shape: shape})
	b.m.Outputs = append(b.m.Outputs, IO{Tensor: id})
	return id
}

// Const adds a constant tensor holding data (little-endian bytes).
func (b *Builder) Const(name string, dt DType, shape []int, data []byte) int {
	return b.add(Tensor{Name: name, DType: dt, Shape: shape, Data: data})
}

// ConstF32 adds a float32 constant.
func (b *Builder) ConstF32(name string, shape []int, v []float32) int {
	return b.Const(name, F32, shape, F32Bytes(v))
}

// F32Bytes is the little-endian image of v.
func F32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// BytesF32 decodes a little-endian float32 payload.
func BytesF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// Op appends an op whose single output is a new runtime tensor named like
// the op, shaped by InferShape, of input 0's dtype. It returns the output id.
func (b *Builder) Op(t OpType, name string, in []int, params []uint32, act Activation) int {
	if b.err != nil {
		return -1
	}
	shapes := make([][]int, len(in))
	for k, id := range in {
		if id == -1 {
			continue
		}
		if id < 0 || id >= len(b.m.Tensors) {
			b.err = fmt.Errorf("nkfile: %s %q: input %d is tensor %d, which does not exist", t, name, k, id)
			return -1
		}
		shapes[k] = b.m.Tensors[id].Shape
	}
	op := Op{Type: t, Name: name, Inputs: in, Params: params, Act: act}
	shape, err := InferShape(&op, shapes)
	if err != nil {
		b.err = fmt.Errorf("nkfile: %w", err)
		return -1
	}
	return b.emit(op, shape)
}

func (b *Builder) emit(op Op, shape []int) int {
	dt := F32
	if len(op.Inputs) > 0 && op.Inputs[0] >= 0 {
		dt = b.m.Tensors[op.Inputs[0]].DType
	}
	switch op.Type {
	case OpQuantize:
		dt = I8
	case OpDequantize:
		dt = F32
	}
	out := b.add(Tensor{Name: op.Name, DType: dt, Shape: shape})
	op.Outputs = []int{out}
	b.m.Ops = append(b.m.Ops, op)
	return out
}

// Reshape appends a RESHAPE of x to shape.
func (b *Builder) Reshape(name string, x int, shape ...int) int {
	if b.err != nil {
		return -1
	}
	if x < 0 || x >= len(b.m.Tensors) {
		b.err = fmt.Errorf("nkfile: reshape %q: tensor %d does not exist", name, x)
		return -1
	}
	src := Tensor{Shape: shape}
	if src.Elems() != b.m.Tensors[x].Elems() {
		b.err = fmt.Errorf("nkfile: reshape %q: %v and %v differ in element count", name, b.m.Tensors[x].Shape, shape)
		return -1
	}
	return b.emit(Op{Type: OpReshape, Name: name, Inputs: []int{x}}, shape)
}

// Dense appends x @ W^T + bias (bias may be -1) clamped by act.
func (b *Builder) Dense(name string, x, w, bias int, act Activation) int {
	return b.Op(OpDense, name, []int{x, w, bias}, ClampWords(ClampOf(act)), act)
}

// Conv2D appends a convolution; p.Clamp is ignored in favour of act's range.
func (b *Builder) Conv2D(name string, x, w, bias int, p ConvParams, act Activation) int {
	p.Clamp = ClampOf(act)
	return b.Op(OpConv2D, name, []int{x, w, bias}, p.Words(), act)
}

// DepthwiseConv2D appends a depthwise convolution clamped by act.
func (b *Builder) DepthwiseConv2D(name string, x, w, bias int, p ConvParams, act Activation) int {
	p.Clamp = ClampOf(act)
	return b.Op(OpDepthwiseConv2D, name, []int{x, w, bias}, p.DepthwiseWords(), act)
}

// Pool appends a MAX_POOL2D or AVG_POOL2D with no clamp.
func (b *Builder) Pool(t OpType, name string, x int, p PoolParams) int {
	p.Clamp = NoClamp
	return b.Op(t, name, []int{x}, p.Words(t), ActNone)
}

// Output marks tensors as graph outputs, in order.
func (b *Builder) Output(ids ...int) {
	for _, id := range ids {
		b.m.Outputs = append(b.m.Outputs, IO{Tensor: id})
	}
}

// SetQuant sets the quantization record of tensor id (an int8 op's output,
// a QUANTIZE output).
func (b *Builder) SetQuant(id int, q *Quant) {
	if b.err == nil && id >= 0 && id < len(b.m.Tensors) {
		b.m.Tensors[id].Quant = q
	}
}

// Meta adds a metadata pair.
func (b *Builder) Meta(key, value string) { b.m.Meta = append(b.m.Meta, KV{key, value}) }

// Model returns the built model after Validate and CheckShapes.
func (b *Builder) Model() (*Model, error) {
	if b.err != nil {
		return nil, b.err
	}
	m := b.m
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.CheckShapes(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Package nkfile writes and reads the netkit .nk model format, version 1
// (docs/NK_FORMAT.md), in pure Go.
//
// The C core is the only reader at run time; this package is the host's
// writer (converters, test model generators, aot) and a strict reader for
// tools. Decode never trusts the input: every malformed image yields a
// *FormatError naming the offending byte offset, never a panic.
package nkfile

import (
	"fmt"
	"math"
)

// Format constants from docs/NK_FORMAT.md.
const (
	Magic        = "NKIT"
	VersionMajor = 1
	VersionMinor = 0

	HeaderSize       = 32
	SectionEntrySize = 16
	TensorRecordSize = 48
	MaxSections      = 64
	MaxRank          = 6
	MaxDim           = 1 << 24
	MaxOpInputs      = 8
	MaxOpOutputs     = 4
	MaxGraphIO       = 16
	PayloadAlign     = 16

	// None marks an absent string, tensor or quantization record.
	None = 0xFFFFFFFF
)

// Section kinds.
const (
	SectionTensors = 1
	SectionOps     = 2
	SectionGraph   = 3
	SectionStrings = 4
	SectionQuant   = 5
	SectionMeta    = 6
	SectionData    = 7
)

// DType is a tensor element type; the numbers are those stored in the file.
type DType uint8

const (
	F32 DType = 1
	I8  DType = 2
	I16 DType = 3
	I32 DType = 4
)

// Size is the byte size of one element, 0 for an unknown dtype.
func (d DType) Size() int {
	switch d {
	case F32, I32:
		return 4
	case I16:
		return 2
	case I8:
		return 1
	}
	return 0
}

func (d DType) String() string {
	switch d {
	case F32:
		return "f32"
	case I8:
		return "i8"
	case I16:
		return "i16"
	case I32:
		return "i32"
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Layout records the layout the source framework used for a graph input or output.
type Layout uint32

const (
	LayoutNative Layout = 0
	LayoutNCHW   Layout = 1
)

func (l Layout) String() string {
	switch l {
	case LayoutNative:
		return "native"
	case LayoutNCHW:
		return "nchw"
	}
	return fmt.Sprintf("layout(%d)", uint32(l))
}

// OpType is an op id as stored in the file.
type OpType uint16

const (
	OpDense           OpType = 1
	OpConv2D          OpType = 2
	OpDepthwiseConv2D OpType = 3
	OpMaxPool2D       OpType = 4
	OpAvgPool2D       OpType = 5
	OpGlobalAvgPool   OpType = 6
	OpBatchNorm       OpType = 7
	OpRelu            OpType = 8
	OpClip            OpType = 9
	OpLeakyRelu       OpType = 10
	OpSigmoid         OpType = 11
	OpTanh            OpType = 12
	OpGelu            OpType = 13
	OpSoftmax         OpType = 14
	OpAdd             OpType = 15
	OpMul             OpType = 16
	OpConcat          OpType = 17
	OpReshape         OpType = 18
	OpPad             OpType = 19
	OpTranspose       OpType = 20

	// int8 ops (format v1.1, docs/NK_FORMAT.md "int8 ops"). CONCAT,
	// RESHAPE, PAD and TRANSPOSE keep their ids on i8 tensors.
	OpConv2DI8          OpType = 64
	OpDepthwiseConv2DI8 OpType = 65
	OpDenseI8           OpType = 66
	OpAvgPool2DI8       OpType = 67
	OpMaxPool2DI8       OpType = 68
	OpAddI8             OpType = 69
	OpMulI8             OpType = 70
	OpSoftmaxI8         OpType = 71
	OpLogisticI8        OpType = 72
	OpTanhI8            OpType = 73
	OpQuantize          OpType = 74
	OpDequantize        OpType = 75

	opFloatEnd = 21 // one past the last float op
	opTypeEnd  = 76 // one past the last op
)

// The lower-case names match the C core's op table names.
var opNames = [opTypeEnd]string{
	OpDense: "dense", OpConv2D: "conv2d", OpDepthwiseConv2D: "depthwise_conv2d",
	OpMaxPool2D: "max_pool2d", OpAvgPool2D: "avg_pool2d", OpGlobalAvgPool: "global_avg_pool",
	OpBatchNorm: "batch_norm", OpRelu: "relu", OpClip: "clip", OpLeakyRelu: "leaky_relu",
	OpSigmoid: "sigmoid", OpTanh: "tanh", OpGelu: "gelu", OpSoftmax: "softmax",
	OpAdd: "add", OpMul: "mul", OpConcat: "concat", OpReshape: "reshape",
	OpPad: "pad", OpTranspose: "transpose",
	OpConv2DI8: "conv2d_i8", OpDepthwiseConv2DI8: "depthwise_conv2d_i8", OpDenseI8: "dense_i8",
	OpAvgPool2DI8: "avg_pool2d_i8", OpMaxPool2DI8: "max_pool2d_i8", OpAddI8: "add_i8",
	OpMulI8: "mul_i8", OpSoftmaxI8: "softmax_i8", OpLogisticI8: "logistic_i8", OpTanhI8: "tanh_i8",
	OpQuantize: "quantize", OpDequantize: "dequantize",
}

// Known reports whether t is an op type of format version 1 (float ids
// 1..20, int8 ids 64..75).
func (t OpType) Known() bool {
	return (t >= 1 && t < opFloatEnd) || (t >= OpConv2DI8 && t < opTypeEnd)
}

func (t OpType) String() string {
	if t.Known() {
		return opNames[t]
	}
	return fmt.Sprintf("op(%d)", uint16(t))
}

// Activation names the fused activation of an op (informational in the
// file: the clamp itself is in the op's params).
type Activation uint8

const (
	ActNone  Activation = 0
	ActRelu  Activation = 1
	ActRelu6 Activation = 2
	ActClamp Activation = 3
)

func (a Activation) String() string {
	switch a {
	case ActNone:
		return "none"
	case ActRelu:
		return "relu"
	case ActRelu6:
		return "relu6"
	case ActClamp:
		return "clamp"
	}
	return fmt.Sprintf("act(%d)", uint8(a))
}

// Range is the clamp [lo, hi] a named activation stands for; ActClamp has
// no fixed range and returns the unbounded one.
func (a Activation) Range() (lo, hi float32) {
	inf := float32(math.Inf(1))
	switch a {
	case ActRelu:
		return 0, inf
	case ActRelu6:
		return 0, 6
	}
	return -inf, inf
}

// Model is a whole .nk graph. Tensor ids are indices into Tensors; Ops are
// in execution order.
type Model struct {
	Tensors []Tensor
	Ops     []Op
	Inputs  []IO
	Outputs []IO
	Meta    []KV
}

// Tensor is one tensor record. Data holds the payload of a constant tensor
// and is nil for a runtime tensor (activations, graph I/O).
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
	Quant *Quant
}

// Elems is the element count (1 for a scalar).
func (t *Tensor) Elems() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Bytes is the payload size the shape and dtype imply.
func (t *Tensor) Bytes() int { return t.Elems() * t.DType.Size() }

// Const reports whether the tensor carries a payload.
func (t *Tensor) Const() bool { return t.Data != nil }

// Quant holds per-tensor (Axis -1, one entry) or per-channel quantization.
type Quant struct {
	Axis      int
	Scale     []float32
	ZeroPoint []int32
}

// Op is one op record. Inputs entries are tensor ids, -1 for an absent
// optional input. Params are raw 32-bit words (i32 or f32 per the op).
type Op struct {
	Type    OpType
	Name    string
	Inputs  []int
	Outputs []int
	Params  []uint32
	Act     Activation
}

// IO is a graph input or output.
type IO struct {
	Tensor int
	Layout Layout
}

// KV is a metadata pair.
type KV struct {
	Key, Value string
}

// MetaValue returns the value stored for key.
func (m *Model) MetaValue(key string) (string, bool) {
	for _, kv := range m.Meta {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// FormatError reports a malformed .nk image, like debug/elf.FormatError.
type FormatError struct {
	Off int64  // byte offset the problem was found at
	Msg string // what is wrong
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("nkfile: %s (at offset %d)", e.Msg, e.Off)
}

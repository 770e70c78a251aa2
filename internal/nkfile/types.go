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
	VersionMinor = 1
	// MinorElems is the first minor whose tensor records carry the element
	// count in their last word (docs/NK_FORMAT.md).
	MinorElems = 1

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
	// The graph I/O of ONNX models with integer, float16 or double tensors:
	// only the elementwise binary ops run on these (TypedOp). F16 holds IEEE
	// binary16 bits.
	U8  DType = 5
	U16 DType = 6
	U32 DType = 7
	I64 DType = 8
	U64 DType = 9
	F16 DType = 10
	F64 DType = 11
)

// Size is the byte size of one element, 0 for an unknown dtype.
func (d DType) Size() int {
	switch d {
	case I8, U8:
		return 1
	case I16, U16, F16:
		return 2
	case F32, I32, U32:
		return 4
	case I64, U64, F64:
		return 8
	}
	return 0
}

var dtypeNames = [...]string{F32: "f32", I8: "i8", I16: "i16", I32: "i32", U8: "u8", U16: "u16", U32: "u32",
	I64: "i64", U64: "u64", F16: "f16", F64: "f64"}

func (d DType) String() string {
	if int(d) < len(dtypeNames) && dtypeNames[d] != "" {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// TypedOp reports whether op t runs on d, a dtype other than f32, through
// the one generic kernel of the C core's NK_OP_ANY_DTYPE entries: integers
// on ADD, MUL, SUB, DIV, MAXIMUM and MINIMUM, F16 and F64 on the last two.
func TypedOp(t OpType, d DType) bool {
	switch t {
	case OpMaximum, OpMinimum:
		return true
	case OpAdd, OpMul, OpSub, OpDiv:
		return d != F16 && d != F64
	}
	return false
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

// OpType is an op id as stored in the file. The ids and names come from
// ops.tsv, the one list C and Go share (ops_gen.go, csrc/nk_op_ids.h).
type OpType uint16

//go:generate go run ../tools/opgen

// Known reports whether t is an op type of format version 1 (listed in
// ops.tsv; ids left out there are reserved, not known).
func (t OpType) Known() bool {
	return t < opTypeEnd && opNames[t] != ""
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
	// State marks a STATE tensor: a runtime tensor that keeps its value from
	// one invoke to the next (an LSTM/GRU state read and rewritten by its
	// op; zero at load and after a reset). Never constant.
	State bool
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

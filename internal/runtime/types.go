package runtime

import "strconv"

// DType is an element type; the numbers are nk_dtype's.
type DType int32

// The element types of nk_dtype.
const (
	F32 DType = 1
	I8  DType = 2
	I16 DType = 3
	I32 DType = 4
)

// String returns the C core's short name ("f32", "i8", ...).
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
	return "dtype(" + strconv.Itoa(int(d)) + ")"
}

// Size returns the bytes per element, 0 for an unknown dtype.
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

// Layout is the source layout of a tensor (nk_layout).
type Layout int32

// The layouts of nk_layout.
const (
	LayoutNative Layout = 0
	LayoutNCHW   Layout = 1
)

// String returns "native" or "nchw".
func (l Layout) String() string {
	switch l {
	case LayoutNative:
		return "native"
	case LayoutNCHW:
		return "nchw"
	}
	return "layout(" + strconv.Itoa(int(l)) + ")"
}

// TensorInfo describes a graph input or output.
type TensorInfo struct {
	Name      string
	Shape     []int
	DType     DType
	Layout    Layout
	Scale     float32 // per-tensor quantization scale, 0 when none
	ZeroPoint int32
}

// Elems returns the element count (1 for a scalar).
func (t TensorInfo) Elems() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Bytes returns the tensor's size in bytes.
func (t TensorInfo) Bytes() int { return t.Elems() * t.DType.Size() }

// Report is nk_inspect_model's report: exact arena figures and a per-op table.
// See include/netkit.h (nk_report_t) for what each figure means.
type Report struct {
	ArenaAfterLoad, ArenaAfterForward, ModelBytes, ContextBytes, PeakActivations,
	ActivationLowerBound, PingPongBytes, Workspace, FlashPayload, FileBytes,
	BytesStructs, BytesActivations, BytesIO, BytesWorkspace, BytesCopiedWeights, BytesPadding,
	MACs, ParamBytes int64
	NumTensors      int
	Inputs, Outputs []TensorInfo
	Ops             []OpInfo
}

// OpInfo is one row of the per-op table (nk_op_info_t).
type OpInfo struct {
	Index                                                 int
	Op, Name                                              string
	InShape, OutShape                                     []int
	MACs, ParamBytes, ActOffset, ActBytes, WorkspaceBytes int64
	InPlace                                               bool
}

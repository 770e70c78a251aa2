package runtime

import "github.com/netkit/netkit/internal/nkfile"

// DType is an element type; the numbers are nk_dtype's and the .nk file's,
// so the one definition in nkfile serves both.
type DType = nkfile.DType

// The element types of nk_dtype.
const (
	F32 = nkfile.F32
	I8  = nkfile.I8
	I16 = nkfile.I16
	I32 = nkfile.I32
)

// Layout is the source layout of a tensor (nk_layout and the .nk GRAPH entry).
type Layout = nkfile.Layout

// The layouts of nk_layout.
const (
	LayoutNative = nkfile.LayoutNative
	LayoutNCHW   = nkfile.LayoutNCHW
)

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

// Report is the C core's report on a model (nk_report_t, from nk_model_report):
// exact arena figures and a per-op table.
// See include/netkit.h (nk_report_t) for what each figure means.
type Report struct {
	ArenaAfterLoad, ArenaAfterForward, ModelBytes, ContextBytes, PeakActivations,
	ActivationLowerBound, PingPongBytes, Workspace, FlashPayload, FileBytes,
	BytesStructs, BytesActivations, BytesIO, BytesWorkspace, BytesCopiedWeights, BytesPadding,
	MACs, ParamBytes int64
	// BackendHeapBytes is host heap a backend's per-op state holds outside
	// the arena (XNNPACK's packed weights); 0 without a backend.
	BackendHeapBytes int64
	NumTensors       int
	Inputs, Outputs  []TensorInfo
	Ops              []OpInfo
}

// OpInfo is one row of the per-op table (nk_op_info_t).
type OpInfo struct {
	Index                                                 int
	Op, Name                                              string
	InShape, OutShape                                     []int
	MACs, ParamBytes, ActOffset, ActBytes, WorkspaceBytes int64
	InPlace                                               bool
	// Impl is what runs the op: the build's backend ("xnnpack",
	// "cmsis-nn"), the host ISA kernel set of a float op or of an int8 op
	// it has kernels for ("avx512vnni", "avx512", "avx2", "neon"), or
	// "portable" (netkit's kernels).
	Impl string
}

package engine

import "unsafe"

// Go mirrors of the structs that cross the C boundary (include/netkit.h).
// Fixed-width fields only, no structs by value (purego's rules); C pointers
// are unsafe.Pointer so the GC ignores them and no uintptr conversion is
// needed. A test in package nk compares every size and offset with the C
// compiler's (see Layouts).

// MaxDims is NK_MAX_DIMS.
const MaxDims = 6

// ABIVersion is the NK_ABI_VERSION these mirrors match.
const ABIVersion = 5

// CArena mirrors nk_arena_t.
type CArena struct {
	Base       unsafe.Pointer
	Capacity   uintptr // size_t
	Used       uintptr
	HighWater  uintptr
	AllocCount uint32
	FailAt     uint32
	HeapOwned  uint32
	Reserved   uint32
}

// CError mirrors nk_error_t.
type CError struct {
	Status    int32
	OpIndex   int32
	Requested uint64
	FreeBytes uint64
	Capacity  uint64
	Message   [256]byte
}

// CTensor mirrors nk_tensor_t.
type CTensor struct {
	Name           unsafe.Pointer // const char *, into the image
	Data           unsafe.Pointer // into the context's activations
	Bytes          uint64
	DType          int32
	Rank           int32
	Dims           [MaxDims]int32
	Layout         int32
	QuantZeroPoint int32
	QuantScale     float32
	Reserved       int32
}

// COpInfo mirrors nk_op_info_t.
type COpInfo struct {
	Op             [24]byte
	Name           [128]byte
	Index          int32
	OutRank        int32
	OutDims        [MaxDims]int32
	InRank         int32
	InDims         [MaxDims]int32
	Stage          int32 // staged rows' band | slots << 8; also keeps MACs 8-aligned on 32-bit
	MACs           uint64
	ParamBytes     uint64
	ActOffset      uint64
	ActBytes       uint64
	WorkspaceBytes uint64
	InPlace        int32
	LastUse        int32
	Impl           [16]byte
	InputNumber    int32
	InputLastUse   int32
	InputOffset    uint64
	Chunks         int32
	Room           int32
}

// CReport mirrors nk_report_t.
type CReport struct {
	ArenaAfterLoad       uint64
	ArenaAfterForward    uint64
	ModelBytes           uint64
	ContextBytes         uint64
	PeakActivations      uint64
	ActivationLowerBound uint64
	PingPongBytes        uint64
	Workspace            uint64
	FlashPayload         uint64
	FileBytes            uint64
	BytesStructs         uint64
	BytesActivations     uint64
	BytesIO              uint64
	BytesWorkspace       uint64
	BytesCopiedWeights   uint64
	BytesPadding         uint64
	MACs                 uint64
	ParamBytes           uint64
	NumOps               int32
	NumTensors           int32
	NumInputs            int32
	NumOutputs           int32
	BackendHeapBytes     uint64
	RegionRecords        uint64
	RegionActivations    uint64
	BytesState           uint64
}

// StructLayout is the size and field offsets of one mirrored struct, in
// declaration order, named as in C.
type StructLayout struct {
	Name    string
	Size    uintptr
	Offsets []uintptr
	Fields  []string
}

// Layouts returns the Go side of every mirror; the cgo package produces the
// same table with sizeof/offsetof and a test compares them.
func Layouts() []StructLayout {
	var a CArena
	var e CError
	var t CTensor
	var o COpInfo
	var r CReport
	return []StructLayout{
		{"nk_arena_t", unsafe.Sizeof(a),
			[]uintptr{unsafe.Offsetof(a.Base), unsafe.Offsetof(a.Capacity), unsafe.Offsetof(a.Used),
				unsafe.Offsetof(a.HighWater), unsafe.Offsetof(a.AllocCount), unsafe.Offsetof(a.FailAt),
				unsafe.Offsetof(a.HeapOwned), unsafe.Offsetof(a.Reserved)},
			[]string{"base", "capacity", "used", "high_water", "alloc_count", "fail_at", "heap_owned", "reserved"}},
		{"nk_error_t", unsafe.Sizeof(e),
			[]uintptr{unsafe.Offsetof(e.Status), unsafe.Offsetof(e.OpIndex), unsafe.Offsetof(e.Requested),
				unsafe.Offsetof(e.FreeBytes), unsafe.Offsetof(e.Capacity), unsafe.Offsetof(e.Message)},
			[]string{"status", "op_index", "requested", "free_bytes", "capacity", "message"}},
		{"nk_tensor_t", unsafe.Sizeof(t),
			[]uintptr{unsafe.Offsetof(t.Name), unsafe.Offsetof(t.Data), unsafe.Offsetof(t.Bytes),
				unsafe.Offsetof(t.DType), unsafe.Offsetof(t.Rank), unsafe.Offsetof(t.Dims),
				unsafe.Offsetof(t.Layout), unsafe.Offsetof(t.QuantZeroPoint), unsafe.Offsetof(t.QuantScale),
				unsafe.Offsetof(t.Reserved)},
			[]string{"name", "data", "bytes", "dtype", "rank", "dims", "layout", "quant_zero_point", "quant_scale", "reserved"}},
		{"nk_op_info_t", unsafe.Sizeof(o),
			[]uintptr{unsafe.Offsetof(o.Op), unsafe.Offsetof(o.Name), unsafe.Offsetof(o.Index),
				unsafe.Offsetof(o.OutRank), unsafe.Offsetof(o.OutDims), unsafe.Offsetof(o.InRank),
				unsafe.Offsetof(o.InDims), unsafe.Offsetof(o.Stage), unsafe.Offsetof(o.MACs),
				unsafe.Offsetof(o.ParamBytes),
				unsafe.Offsetof(o.ActOffset), unsafe.Offsetof(o.ActBytes), unsafe.Offsetof(o.WorkspaceBytes),
				unsafe.Offsetof(o.InPlace), unsafe.Offsetof(o.LastUse), unsafe.Offsetof(o.Impl),
				unsafe.Offsetof(o.InputNumber), unsafe.Offsetof(o.InputLastUse), unsafe.Offsetof(o.InputOffset),
				unsafe.Offsetof(o.Chunks), unsafe.Offsetof(o.Room)},
			[]string{"op", "name", "index", "out_rank", "out_dims", "in_rank", "in_dims", "stage", "macs", "param_bytes",
				"act_offset", "act_bytes", "workspace_bytes", "in_place", "last_use", "impl",
				"input_number", "input_last_use", "input_offset", "chunks", "room"}},
		{"nk_report_t", unsafe.Sizeof(r),
			[]uintptr{unsafe.Offsetof(r.ArenaAfterLoad), unsafe.Offsetof(r.ArenaAfterForward),
				unsafe.Offsetof(r.ModelBytes), unsafe.Offsetof(r.ContextBytes), unsafe.Offsetof(r.PeakActivations),
				unsafe.Offsetof(r.ActivationLowerBound), unsafe.Offsetof(r.PingPongBytes), unsafe.Offsetof(r.Workspace),
				unsafe.Offsetof(r.FlashPayload), unsafe.Offsetof(r.FileBytes), unsafe.Offsetof(r.BytesStructs),
				unsafe.Offsetof(r.BytesActivations), unsafe.Offsetof(r.BytesIO), unsafe.Offsetof(r.BytesWorkspace),
				unsafe.Offsetof(r.BytesCopiedWeights), unsafe.Offsetof(r.BytesPadding), unsafe.Offsetof(r.MACs),
				unsafe.Offsetof(r.ParamBytes), unsafe.Offsetof(r.NumOps), unsafe.Offsetof(r.NumTensors),
				unsafe.Offsetof(r.NumInputs), unsafe.Offsetof(r.NumOutputs), unsafe.Offsetof(r.BackendHeapBytes),
				unsafe.Offsetof(r.RegionRecords), unsafe.Offsetof(r.RegionActivations), unsafe.Offsetof(r.BytesState)},
			[]string{"arena_after_load", "arena_after_forward", "model_bytes", "context_bytes", "peak_activations",
				"activation_lower_bound", "pingpong_bytes", "workspace", "flash_payload", "file_bytes",
				"bytes_structs", "bytes_activations", "bytes_io", "bytes_workspace", "bytes_copied_weights",
				"bytes_padding", "macs", "param_bytes", "num_ops", "num_tensors", "num_inputs", "num_outputs",
				"backend_heap_bytes", "region_records", "region_activations", "bytes_state"}},
	}
}

// cstring returns the NUL-terminated prefix of a fixed C char array.
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// GoString copies a NUL-terminated C string; "" for nil.
func GoString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// CString returns s as a NUL-terminated byte slice for a C call.
func CString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

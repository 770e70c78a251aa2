package engine

import "unsafe"

// Backend is the table a binding fills: one Go function per C function used,
// with the C signature kept (pointers to the mirrors in abi.go, C handles as
// unsafe.Pointer, out-parameters for handles turned into results). It holds
// no logic; everything else lives in this package.
type Backend struct {
	Name string // "cgo" or "purego", for messages

	ABIVersion    func() uint32                                     // nk_abi_version
	Version       func() string                                     // nk_version
	ArenaInitHeap func(a *CArena, capacity uint64) Status           // nk_arena_init_heap
	ArenaFreeHeap func(a *CArena)                                   // nk_arena_free_heap
	ContextSize   func(m unsafe.Pointer) uint64                     // nk_context_size
	ModelUnload   func(m unsafe.Pointer)                            // nk_model_unload
	NumInputs     func(m unsafe.Pointer) int32                      // nk_model_num_inputs
	NumOutputs    func(m unsafe.Pointer) int32                      // nk_model_num_outputs
	NumOps        func(m unsafe.Pointer) int32                      // nk_model_num_ops
	Meta          func(m unsafe.Pointer, key string) unsafe.Pointer // nk_model_meta; nil when absent

	// nk_model_arena_size with a NULL scratch arena: the exact arena bytes
	// a load of the image in mode (LoadBuffer, LoadFile, LoadCopy) takes.
	ArenaSize func(bytes unsafe.Pointer, n uint64, mode uint32, e *CError) (uint64, Status)
	// nk_model_load_buffer: bytes must stay valid (pinned) for the model's life.
	LoadBuffer func(bytes unsafe.Pointer, n uint64, a *CArena, e *CError) (unsafe.Pointer, Status)
	// nk_model_load_buffer_shared: LoadBuffer without an activation block.
	LoadBufferShared func(bytes unsafe.Pointer, n uint64, a *CArena, e *CError) (unsafe.Pointer, Status)
	ActivationSize   func(m unsafe.Pointer) uint64 // nk_model_activation_size
	// nk_model_bind_activations: block is C memory (from ArenaAlloc).
	BindActivations func(m unsafe.Pointer, block unsafe.Pointer, size uint64, e *CError) Status
	ArenaAlloc      func(a *CArena, size, align uint64) unsafe.Pointer // nk_arena_alloc; nil when full
	// nk_model_region_sizes: what nk_model_load_buffer_regions takes from each arena.
	RegionSizes func(bytes unsafe.Pointer, n uint64, e *CError) (records, activations, recordsWithScratch, block uint64, s Status)
	// nk_model_load_file_ex; mode is LoadFile or LoadCopy.
	LoadFile func(path string, mode uint32, a *CArena, e *CError) (unsafe.Pointer, Status)
	// nk_model_report; ops may be nil when maxOps is 0.
	Report func(m unsafe.Pointer, r *CReport, ops *COpInfo, maxOps int32) Status
	// nk_model_tensor_offsets: n entries of offs (nil when n is 0).
	TensorOffsets func(m unsafe.Pointer, offs *uint64, n int32) Status

	ModelInput    func(m unsafe.Pointer, i int32, t *CTensor) Status // nk_model_input
	ModelOutput   func(m unsafe.Pointer, i int32, t *CTensor) Status // nk_model_output
	ModelInvoke   func(m unsafe.Pointer, e *CError) Status           // nk_model_invoke
	ContextCreate func(m unsafe.Pointer, a *CArena, e *CError) (unsafe.Pointer, Status)
	ContextInput  func(c unsafe.Pointer, i int32, t *CTensor) Status // nk_context_input
	ContextOutput func(c unsafe.Pointer, i int32, t *CTensor) Status // nk_context_output
	ContextInvoke func(c unsafe.Pointer, e *CError) Status           // nk_context_invoke
	// nk_model_reset_state / nk_context_reset_state: zero the STATE tensors.
	ModelResetState   func(m unsafe.Pointer) Status
	ContextResetState func(c unsafe.Pointer) Status

	// nk_model_profile / nk_context_profile: an invoke that stores each
	// op's time in ns in opNs[0..n).
	ModelProfile   func(m unsafe.Pointer, opNs *uint64, n int32, e *CError) Status
	ContextProfile func(c unsafe.Pointer, opNs *uint64, n int32, e *CError) Status
}

// Load modes, the NK_LOAD_* of include/netkit.h.
const (
	LoadBuffer uint32 = 0 // bound in place in the caller's bytes
	LoadFile   uint32 = 1 // a file mapped in place (NETKIT_MMAP), else read into the arena
	LoadCopy   uint32 = 2 // a file read into the arena: never touched again
)

// Opener returns the backend to use; library is the WithLibrary path ("" for
// the binding's default). Package nk ignores it.
type Opener func(library string) (*Backend, error)

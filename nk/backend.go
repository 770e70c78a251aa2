package nk

/*
#cgo CFLAGS: -I${SRCDIR}/../include -I${SRCDIR}/../csrc -O2
#cgo LDFLAGS: -lm
#include <stdlib.h>
#include "netkit.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/netkit/netkit/internal/engine"
)

// The engine's mirrors are layout-identical to the C structs (TestLayouts),
// so pointers to them are passed through as the C types.
func arena(a *engine.CArena) *C.nk_arena_t    { return (*C.nk_arena_t)(unsafe.Pointer(a)) }
func cerr(e *engine.CError) *C.nk_error_t     { return (*C.nk_error_t)(unsafe.Pointer(e)) }
func tensor(t *engine.CTensor) *C.nk_tensor_t { return (*C.nk_tensor_t)(unsafe.Pointer(t)) }
func model(m unsafe.Pointer) *C.nk_model_t    { return (*C.nk_model_t)(m) }
func ctx(c unsafe.Pointer) *C.nk_context_t    { return (*C.nk_context_t)(c) }

// open returns the compiled-in core; a library path is an error.
func open(library string) (*engine.Backend, error) {
	if library != "" {
		return nil, fmt.Errorf("nk: WithLibrary(%q): %w", library, errNoLibrary)
	}
	return &backend, nil
}

var backend = engine.Backend{
	Name:       "cgo",
	ABIVersion: func() uint32 { return uint32(C.nk_abi_version()) },
	Version:    func() string { return C.GoString(C.nk_version()) },
	ArenaInitHeap: func(a *engine.CArena, capacity uint64) engine.Status {
		return engine.Status(C.nk_arena_init_heap(arena(a), C.size_t(capacity)))
	},
	ArenaFreeHeap: func(a *engine.CArena) { C.nk_arena_free_heap(arena(a)) },
	ContextSize:   func(m unsafe.Pointer) uint64 { return uint64(C.nk_context_size(model(m))) },
	ModelUnload:   func(m unsafe.Pointer) { C.nk_model_unload(model(m)) },
	NumInputs:     func(m unsafe.Pointer) int32 { return int32(C.nk_model_num_inputs(model(m))) },
	NumOutputs:    func(m unsafe.Pointer) int32 { return int32(C.nk_model_num_outputs(model(m))) },
	NumOps:        func(m unsafe.Pointer) int32 { return int32(C.nk_model_num_ops(model(m))) },
	Meta: func(m unsafe.Pointer, key string) unsafe.Pointer {
		k := C.CString(key)
		defer C.free(unsafe.Pointer(k))
		return unsafe.Pointer(C.nk_model_meta(model(m), k))
	},
	LoadBuffer: func(b unsafe.Pointer, n uint64, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
		var m *C.nk_model_t
		s := C.nk_model_load_buffer(&m, b, C.size_t(n), arena(a), cerr(e))
		return unsafe.Pointer(m), engine.Status(s)
	},
	LoadBufferShared: func(b unsafe.Pointer, n uint64, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
		var m *C.nk_model_t
		s := C.nk_model_load_buffer_shared(&m, b, C.size_t(n), arena(a), cerr(e))
		return unsafe.Pointer(m), engine.Status(s)
	},
	ActivationSize: func(m unsafe.Pointer) uint64 { return uint64(C.nk_model_activation_size(model(m))) },
	BindActivations: func(m unsafe.Pointer, block unsafe.Pointer, size uint64, e *engine.CError) engine.Status {
		return engine.Status(C.nk_model_bind_activations(model(m), block, C.size_t(size), cerr(e)))
	},
	RegionSizes: func(b unsafe.Pointer, n uint64, e *engine.CError) (uint64, uint64, uint64, uint64, engine.Status) {
		var rec, act, recScratch, block C.size_t
		s := C.nk_model_region_sizes(b, C.size_t(n), nil, &rec, &act, &recScratch, &block, cerr(e))
		return uint64(rec), uint64(act), uint64(recScratch), uint64(block), engine.Status(s)
	},
	ArenaAlloc: func(a *engine.CArena, size, align uint64) unsafe.Pointer {
		return C.nk_arena_alloc(arena(a), C.size_t(size), C.size_t(align))
	},
	LoadFile: func(path string, mode uint32, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
		p := C.CString(path)
		defer C.free(unsafe.Pointer(p))
		var m *C.nk_model_t
		s := C.nk_model_load_file_ex(&m, p, C.uint32_t(mode), arena(a), cerr(e))
		return unsafe.Pointer(m), engine.Status(s)
	},
	ArenaSize: func(b unsafe.Pointer, n uint64, mode uint32, e *engine.CError) (uint64, engine.Status) {
		var need C.size_t
		s := C.nk_model_arena_size(b, C.size_t(n), C.uint32_t(mode), nil, &need, cerr(e))
		return uint64(need), engine.Status(s)
	},
	Report: func(m unsafe.Pointer, r *engine.CReport, ops *engine.COpInfo, maxOps int32) engine.Status {
		return engine.Status(C.nk_model_report(model(m), (*C.nk_report_t)(unsafe.Pointer(r)),
			(*C.nk_op_info_t)(unsafe.Pointer(ops)), C.int32_t(maxOps)))
	},
	TensorOffsets: func(m unsafe.Pointer, offs *uint64, n int32) engine.Status {
		return engine.Status(C.nk_model_tensor_offsets(model(m), (*C.uint64_t)(unsafe.Pointer(offs)), C.int32_t(n)))
	},
	ModelInput: func(m unsafe.Pointer, i int32, t *engine.CTensor) engine.Status {
		return engine.Status(C.nk_model_input(model(m), C.int32_t(i), tensor(t)))
	},
	ModelOutput: func(m unsafe.Pointer, i int32, t *engine.CTensor) engine.Status {
		return engine.Status(C.nk_model_output(model(m), C.int32_t(i), tensor(t)))
	},
	ModelInvoke: func(m unsafe.Pointer, e *engine.CError) engine.Status {
		return engine.Status(C.nk_model_invoke(model(m), cerr(e)))
	},
	ContextCreate: func(m unsafe.Pointer, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
		var c *C.nk_context_t
		s := C.nk_context_create(&c, model(m), arena(a), cerr(e))
		return unsafe.Pointer(c), engine.Status(s)
	},
	ContextInput: func(c unsafe.Pointer, i int32, t *engine.CTensor) engine.Status {
		return engine.Status(C.nk_context_input(ctx(c), C.int32_t(i), tensor(t)))
	},
	ContextOutput: func(c unsafe.Pointer, i int32, t *engine.CTensor) engine.Status {
		return engine.Status(C.nk_context_output(ctx(c), C.int32_t(i), tensor(t)))
	},
	ContextInvoke: func(c unsafe.Pointer, e *engine.CError) engine.Status {
		return engine.Status(C.nk_context_invoke(ctx(c), cerr(e)))
	},
	ModelResetState: func(m unsafe.Pointer) engine.Status {
		return engine.Status(C.nk_model_reset_state(model(m)))
	},
	ContextResetState: func(c unsafe.Pointer) engine.Status {
		return engine.Status(C.nk_context_reset_state(ctx(c)))
	},
	ModelProfile: func(m unsafe.Pointer, opNs *uint64, n int32, e *engine.CError) engine.Status {
		return engine.Status(C.nk_model_profile(model(m), (*C.uint64_t)(unsafe.Pointer(opNs)), C.int32_t(n), cerr(e)))
	},
	ContextProfile: func(c unsafe.Pointer, opNs *uint64, n int32, e *engine.CError) engine.Status {
		return engine.Status(C.nk_context_profile(ctx(c), (*C.uint64_t)(unsafe.Pointer(opNs)), C.int32_t(n), cerr(e)))
	},
}

//go:build darwin || freebsd || linux || netbsd

package nkc

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/netkit/netkit/internal/engine"
)

// libNames are the shared library's file names on this system, in the
// order they are tried: the development name (a symlink a -dev install
// adds), then the versioned name a runtime-only install has.
var libNames = func() []string {
	if runtime.GOOS == "darwin" {
		return []string{"libnetkit.dylib", fmt.Sprintf("libnetkit.%d.dylib", engine.ABIVersion)}
	}
	return []string{"libnetkit.so", fmt.Sprintf("libnetkit.so.%d", engine.ABIVersion)}
}()

var (
	libsMu sync.Mutex
	libs   = map[string]*engine.Backend{} // by WithLibrary path, "" for the search
)

// open returns the backend for the library at path, or found by the search
// when path is "". Libraries stay loaded for the life of the process.
func open(path string) (*engine.Backend, error) {
	libsMu.Lock()
	defer libsMu.Unlock()
	if b, ok := libs[path]; ok {
		return b, nil
	}
	var b *engine.Backend
	var err error
	if path != "" {
		b, err = openLibrary(path)
	} else {
		b, err = search()
	}
	if err != nil {
		return nil, err
	}
	libs[path] = b
	return b, nil
}

// search tries $NETKIT_LIB, the executable's folder, then the system loader.
func search() (*engine.Backend, error) {
	if p := os.Getenv("NETKIT_LIB"); p != "" {
		b, err := openLibrary(p)
		if err != nil {
			return nil, fmt.Errorf("nkc: $NETKIT_LIB: %w", err)
		}
		return b, nil
	}
	var tried []string
	if exe, err := os.Executable(); err == nil {
		for _, name := range libNames {
			p := filepath.Join(filepath.Dir(exe), name)
			if _, err := os.Stat(p); err == nil {
				return openLibrary(p)
			}
			tried = append(tried, p)
		}
	}
	var first error
	for _, name := range libNames {
		b, err := openLibrary(name)
		if err == nil {
			return b, nil
		}
		if first == nil {
			first = err
		}
		tried = append(tried, name+" (system loader)")
	}
	return nil, fmt.Errorf("%w (looked for %s; set $NETKIT_LIB or use nkc.WithLibrary)", first, strings.Join(tried, ", "))
}

// openLibrary dlopens path, resolves every symbol and checks the ABI version.
func openLibrary(path string) (*engine.Backend, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("nkc: cannot load %s: %w", path, err)
	}
	var l lib
	var missing []string
	for _, s := range l.symbols() {
		addr, err := purego.Dlsym(h, s.name)
		if err != nil || addr == 0 {
			missing = append(missing, s.name)
			continue
		}
		*s.addr = addr
	}
	if len(missing) > 0 {
		_ = purego.Dlclose(h)
		return nil, fmt.Errorf("nkc: %s lacks %s", path, strings.Join(missing, ", "))
	}
	if v := l.abiVersion(); v != engine.ABIVersion {
		_ = purego.Dlclose(h)
		return nil, fmt.Errorf("nkc: %s has ABI version %d, this package needs %d", path, v, engine.ABIVersion)
	}
	return l.backend(), nil
}

// lib holds the resolved address of every C function the backend calls.
type lib struct {
	abiVersionFn, version, arenaInitHeap, arenaFreeHeap, contextSize, modelUnload,
	numInputs, numOutputs, meta, arenaSize, loadBuffer, loadFile, modelInput, modelOutput,
	modelInvoke, contextCreate, contextInput, contextOutput, contextInvoke, report,
	numOps, modelProfile, contextProfile, loadBufferShared, activationSize, bindActivations,
	arenaAlloc, regionSizes, tensorOffsets, modelResetState, contextResetState uintptr
}

type symbol struct {
	name string
	addr *uintptr
}

func (l *lib) symbols() []symbol {
	return []symbol{
		{"nk_abi_version", &l.abiVersionFn}, {"nk_version", &l.version},
		{"nk_arena_init_heap", &l.arenaInitHeap}, {"nk_arena_free_heap", &l.arenaFreeHeap},
		{"nk_context_size", &l.contextSize}, {"nk_model_unload", &l.modelUnload},
		{"nk_model_num_inputs", &l.numInputs}, {"nk_model_num_outputs", &l.numOutputs},
		{"nk_model_meta", &l.meta}, {"nk_model_arena_size", &l.arenaSize},
		{"nk_model_load_buffer", &l.loadBuffer},
		{"nk_model_load_file_ex", &l.loadFile}, {"nk_model_input", &l.modelInput},
		{"nk_model_output", &l.modelOutput}, {"nk_model_invoke", &l.modelInvoke},
		{"nk_context_create", &l.contextCreate}, {"nk_context_input", &l.contextInput},
		{"nk_context_output", &l.contextOutput}, {"nk_context_invoke", &l.contextInvoke},
		{"nk_model_report", &l.report}, {"nk_model_num_ops", &l.numOps},
		{"nk_model_tensor_offsets", &l.tensorOffsets},
		{"nk_model_profile", &l.modelProfile}, {"nk_context_profile", &l.contextProfile},
		{"nk_model_load_buffer_shared", &l.loadBufferShared}, {"nk_model_activation_size", &l.activationSize},
		{"nk_model_bind_activations", &l.bindActivations}, {"nk_arena_alloc", &l.arenaAlloc},
		{"nk_model_reset_state", &l.modelResetState}, {"nk_context_reset_state", &l.contextResetState},
		{"nk_model_region_sizes", &l.regionSizes},
	}
}

func (l *lib) abiVersion() uint32 {
	r, _, _ := purego.SyscallN(l.abiVersionFn)
	return uint32(r)
}

// ptr turns a C pointer returned in a register into an unsafe.Pointer (the
// double conversion keeps go vet's unsafeptr check quiet: this is C memory,
// not Go memory, so the GC never moves or frees it).
func ptr(r uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&r)) }

// status reads a C enum (int) result: only the low 32 bits are defined.
func status(r uintptr) engine.Status { return engine.Status(int32(r)) }

// The calls below follow unsafe.Pointer rule 4: every Go pointer is
// converted to uintptr inside SyscallN's argument list (which is marked
// go:uintptrescapes), so the object stays alive and in place for the call.
func (l *lib) backend() *engine.Backend {
	return &engine.Backend{
		Name:       "purego",
		ABIVersion: l.abiVersion,
		Version: func() string {
			r, _, _ := purego.SyscallN(l.version)
			return engine.GoString(ptr(r))
		},
		ArenaInitHeap: func(a *engine.CArena, capacity uint64) engine.Status {
			r, _, _ := purego.SyscallN(l.arenaInitHeap, uintptr(unsafe.Pointer(a)), uintptr(capacity))
			return status(r)
		},
		ArenaFreeHeap: func(a *engine.CArena) { purego.SyscallN(l.arenaFreeHeap, uintptr(unsafe.Pointer(a))) },
		ContextSize: func(m unsafe.Pointer) uint64 {
			r, _, _ := purego.SyscallN(l.contextSize, uintptr(m))
			return uint64(r)
		},
		ModelUnload: func(m unsafe.Pointer) { purego.SyscallN(l.modelUnload, uintptr(m)) },
		NumInputs: func(m unsafe.Pointer) int32 {
			r, _, _ := purego.SyscallN(l.numInputs, uintptr(m))
			return int32(r)
		},
		NumOutputs: func(m unsafe.Pointer) int32 {
			r, _, _ := purego.SyscallN(l.numOutputs, uintptr(m))
			return int32(r)
		},
		NumOps: func(m unsafe.Pointer) int32 {
			r, _, _ := purego.SyscallN(l.numOps, uintptr(m))
			return int32(r)
		},
		Meta: func(m unsafe.Pointer, key string) unsafe.Pointer {
			k := engine.CString(key)
			r, _, _ := purego.SyscallN(l.meta, uintptr(m), uintptr(unsafe.Pointer(&k[0])))
			return ptr(r)
		},
		LoadBuffer: func(b unsafe.Pointer, n uint64, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
			var m unsafe.Pointer
			r, _, _ := purego.SyscallN(l.loadBuffer, uintptr(unsafe.Pointer(&m)), uintptr(b), uintptr(n),
				uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(e)))
			return m, status(r)
		},
		LoadBufferShared: func(b unsafe.Pointer, n uint64, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
			var m unsafe.Pointer
			r, _, _ := purego.SyscallN(l.loadBufferShared, uintptr(unsafe.Pointer(&m)), uintptr(b), uintptr(n),
				uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(e)))
			return m, status(r)
		},
		ActivationSize: func(m unsafe.Pointer) uint64 {
			r, _, _ := purego.SyscallN(l.activationSize, uintptr(m))
			return uint64(r)
		},
		BindActivations: func(m unsafe.Pointer, block unsafe.Pointer, size uint64, e *engine.CError) engine.Status {
			r, _, _ := purego.SyscallN(l.bindActivations, uintptr(m), uintptr(block), uintptr(size),
				uintptr(unsafe.Pointer(e)))
			return status(r)
		},
		RegionSizes: func(b unsafe.Pointer, n uint64, e *engine.CError) (uint64, uint64, uint64, uint64, engine.Status) {
			var rec, act, recScratch, block uintptr // size_t
			r, _, _ := purego.SyscallN(l.regionSizes, uintptr(b), uintptr(n), 0, uintptr(unsafe.Pointer(&rec)),
				uintptr(unsafe.Pointer(&act)), uintptr(unsafe.Pointer(&recScratch)), uintptr(unsafe.Pointer(&block)),
				uintptr(unsafe.Pointer(e)))
			return uint64(rec), uint64(act), uint64(recScratch), uint64(block), status(r)
		},
		ArenaAlloc: func(a *engine.CArena, size, align uint64) unsafe.Pointer {
			r, _, _ := purego.SyscallN(l.arenaAlloc, uintptr(unsafe.Pointer(a)), uintptr(size), uintptr(align))
			return ptr(r)
		},
		LoadFile: func(path string, mode uint32, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
			var m unsafe.Pointer
			p := engine.CString(path)
			r, _, _ := purego.SyscallN(l.loadFile, uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&p[0])),
				uintptr(mode), uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(e)))
			return m, status(r)
		},
		ArenaSize: func(b unsafe.Pointer, n uint64, mode uint32, e *engine.CError) (uint64, engine.Status) {
			var need uintptr // size_t
			r, _, _ := purego.SyscallN(l.arenaSize, uintptr(b), uintptr(n), uintptr(mode), 0,
				uintptr(unsafe.Pointer(&need)), uintptr(unsafe.Pointer(e)))
			return uint64(need), status(r)
		},
		Report: func(m unsafe.Pointer, rep *engine.CReport, ops *engine.COpInfo, maxOps int32) engine.Status {
			r, _, _ := purego.SyscallN(l.report, uintptr(m), uintptr(unsafe.Pointer(rep)),
				uintptr(unsafe.Pointer(ops)), uintptr(maxOps))
			return status(r)
		},
		TensorOffsets: func(m unsafe.Pointer, offs *uint64, n int32) engine.Status {
			r, _, _ := purego.SyscallN(l.tensorOffsets, uintptr(m), uintptr(unsafe.Pointer(offs)), uintptr(n))
			return status(r)
		},
		ModelInput:  l.tensorCall(l.modelInput),
		ModelOutput: l.tensorCall(l.modelOutput),
		ModelInvoke: invokeCall(l.modelInvoke),
		ContextCreate: func(m unsafe.Pointer, a *engine.CArena, e *engine.CError) (unsafe.Pointer, engine.Status) {
			var c unsafe.Pointer
			r, _, _ := purego.SyscallN(l.contextCreate, uintptr(unsafe.Pointer(&c)), uintptr(m),
				uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(e)))
			return c, status(r)
		},
		ContextInput:  l.tensorCall(l.contextInput),
		ContextOutput: l.tensorCall(l.contextOutput),
		ContextInvoke: invokeCall(l.contextInvoke),
		ModelResetState: func(m unsafe.Pointer) engine.Status {
			r, _, _ := purego.SyscallN(l.modelResetState, uintptr(m))
			return status(r)
		},
		ContextResetState: func(c unsafe.Pointer) engine.Status {
			r, _, _ := purego.SyscallN(l.contextResetState, uintptr(c))
			return status(r)
		},
		ModelProfile:   profileCall(l.modelProfile),
		ContextProfile: profileCall(l.contextProfile),
	}
}

// profileCall wraps nk_{model,context}_profile(handle, uint64_t *op_ns,
// int32 n, nk_error_t *): one C call per run, the clock read in C.
func profileCall(fn uintptr) func(unsafe.Pointer, *uint64, int32, *engine.CError) engine.Status {
	return func(h unsafe.Pointer, opNs *uint64, n int32, e *engine.CError) engine.Status {
		r, _, _ := purego.SyscallN(fn, uintptr(h), uintptr(unsafe.Pointer(opNs)), uintptr(n), uintptr(unsafe.Pointer(e)))
		return status(r)
	}
}

// tensorCall wraps nk_{model,context}_{input,output}(handle, int32 i, nk_tensor_t *).
func (l *lib) tensorCall(fn uintptr) func(unsafe.Pointer, int32, *engine.CTensor) engine.Status {
	return func(h unsafe.Pointer, i int32, t *engine.CTensor) engine.Status {
		r, _, _ := purego.SyscallN(fn, uintptr(h), uintptr(i), uintptr(unsafe.Pointer(t)))
		return status(r)
	}
}

// invokeCall wraps nk_{model,context}_invoke(handle, nk_error_t *), the
// per-run call. SyscallN's variadic slice escapes (go:uintptrescapes), so a
// slice built per call would cost one allocation per Run; the arguments go
// through pooled arrays instead. That is sound because e always points to
// the heap (the engine allocates each nk_error_t with new, and pointers passed
// through a Backend func value escape anyway), the Go heap does not move,
// and KeepAlive holds e until the C call has returned.
func invokeCall(fn uintptr) func(unsafe.Pointer, *engine.CError) engine.Status {
	return func(h unsafe.Pointer, e *engine.CError) engine.Status {
		a := argPool.Get().(*[2]uintptr)
		a[0], a[1] = uintptr(h), uintptr(unsafe.Pointer(e))
		r, _, _ := purego.SyscallN(fn, a[:]...)
		a[0], a[1] = 0, 0
		argPool.Put(a)
		runtime.KeepAlive(e)
		return status(r)
	}
}

var argPool = sync.Pool{New: func() any { return new([2]uintptr) }}

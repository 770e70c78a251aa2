package engine

import (
	"bytes"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"unsafe"
)

// Model is a loaded .nk model with its own C arena and a default execution
// context. Run, Predict, RunMulti and RunRaw on a Model are safe for
// concurrent use (they take turns on the default context); for parallel
// inference give each goroutine a Session.
type Model struct{ s *modelState }

// modelState is what the C side depends on. It is separate from Model so a
// cleanup can release it when a Model is dropped without Close.
type modelState struct {
	mu       *sync.Mutex  // shared by the models of one LoadShared: they run one at a time
	group    *sharedArena // LoadShared: the arena the models share, else nil
	b        *Backend
	closed   bool
	handle   unsafe.Pointer // nk_model_t *
	arena    *CArena        // pinned: the C model may keep a pointer to it
	capacity int64          // the arena's, kept for ArenaBytes after Close
	image    []byte         // LoadBytes: pinned, bound in place by the C core
	pin      goruntime.Pinner
	inputs   []TensorInfo
	outputs  []TensorInfo
	def      exec // the model's default context
	sessions map[*sessionState]struct{}
}

// Load maps the model file (nk_model_load_file) into a new arena sized
// exactly by nk_model_arena_size for a mapped file, unless WithArenaSize
// sets a budget, and loads it once. WithCopy reads the file into the arena
// instead (NK_LOAD_COPY). A mapped file must not be truncated or rewritten
// in place while the model lives (SIGBUS, or silently other weights); a file
// replaced by rename is safe.
func Load(open Opener, path string, opts ...Option) (*Model, error) {
	o := collect(opts)
	b, err := open(o.library)
	if err != nil {
		return nil, err
	}
	mode := LoadFile
	if o.copy {
		mode = LoadCopy
	}
	size := o.arenaSize
	if size == 0 {
		// sized from the bytes read now; a file changed before the load
		// below fails it with ErrArenaOverflow or loads the new bytes
		img, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrIO, err)
		}
		if size, err = arenaSize(b, aligned(img), mode); err != nil {
			return nil, err
		}
	}
	st, err := newModelState(b, size)
	if err != nil {
		return nil, err
	}
	ce := new(CError)
	h, s := b.LoadFile(path, mode, st.arena, ce)
	if s != StatusOK {
		st.release()
		return nil, cError(s, ce)
	}
	return st.finish(h)
}

// arenaSize is nk_model_arena_size for an aligned image.
func arenaSize(b *Backend, img []byte, mode uint32) (int64, error) {
	ce := new(CError)
	n, s := b.ArenaSize(unsafe.Pointer(unsafe.SliceData(img)), uint64(len(img)), mode, ce)
	if s != StatusOK {
		return 0, cError(s, ce)
	}
	if n > math.MaxInt64 {
		return 0, errorf(StatusArenaOverflow, fmt.Sprintf("netkit: the model needs %d B of arena", n))
	}
	return int64(n), nil
}

// LoadBytes binds b in place: the C core keeps views into it, so it is
// pinned for the model's life and must not be modified until Close. b must
// start at a 16-byte aligned address (any slice from make of 16 bytes or
// more is); a misaligned b is copied once into an aligned buffer instead.
// WithCopy always copies b, so the caller may reuse it.
func LoadBytes(open Opener, b []byte, opts ...Option) (*Model, error) {
	o := collect(opts)
	be, err := open(o.library)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errorf(StatusArg, "netkit: empty model image")
	}
	img := aligned(b)
	if o.copy && &img[0] == &b[0] { // not copied by aligned
		img = aligned(bytes.Clone(b))
	}
	return loadImage(be, img, o.arenaSize)
}

// loadImage loads the aligned img into an arena of size bytes, or of the
// exact size when size is 0.
func loadImage(b *Backend, img []byte, size int64) (*Model, error) {
	if size == 0 {
		var err error
		if size, err = arenaSize(b, img, LoadBuffer); err != nil {
			return nil, err
		}
	}
	st, err := newModelState(b, size)
	if err != nil {
		return nil, err
	}
	st.image = img
	st.pin.Pin(unsafe.SliceData(img))
	ce := new(CError)
	h, s := b.LoadBuffer(unsafe.Pointer(unsafe.SliceData(img)), uint64(len(img)), st.arena, ce)
	if s != StatusOK {
		st.release()
		return nil, cError(s, ce)
	}
	return st.finish(h)
}

// newModelState allocates the model's C heap arena of size bytes.
func newModelState(b *Backend, size int64) (*modelState, error) {
	if size <= 0 {
		return nil, errorf(StatusArg, fmt.Sprintf("netkit: arena size %d B: must be positive", size))
	}
	if uint64(size) > uint64(^uintptr(0)) {
		// the C side takes a size_t: on a 32-bit host the size would wrap
		return nil, fmt.Errorf("%w: cannot allocate a %d B arena: beyond this platform's address space",
			ErrOutOfMemory, size)
	}
	st := &modelState{mu: new(sync.Mutex), b: b, arena: new(CArena), capacity: size}
	st.pin.Pin(st.arena)
	if s := b.ArenaInitHeap(st.arena, uint64(size)); s != StatusOK {
		st.pin.Unpin()
		return nil, fmt.Errorf("%w: cannot allocate a %d B arena", ErrOutOfMemory, size)
	}
	return st, nil
}

// finish reads the I/O tensors of the loaded model h and arms the cleanup.
func (st *modelState) finish(h unsafe.Pointer) (*Model, error) {
	st.handle = h
	b := st.b
	var err error
	st.def, err = newExec(b, h, b.ModelInput, b.ModelOutput, b.ModelInvoke, b.NumInputs(h), b.NumOutputs(h))
	if err != nil {
		st.release()
		return nil, err
	}
	st.inputs, st.outputs = st.def.infoIn, st.def.infoOut
	st.def.profile = profiler{fn: b.ModelProfile, ops: int(b.NumOps(h))}
	st.def.reset = b.ModelResetState
	st.def.batch = batchSize(b.Meta(h, metaBatch), st.inputs, st.outputs)
	m := &Model{s: st}
	goruntime.AddCleanup(m, func(st *modelState) { _ = st.close() }, st)
	return m, nil
}

// release frees the C side; the caller holds mu or owns st alone.
func (st *modelState) release() {
	if st.handle != nil {
		st.b.ModelUnload(st.handle)
		st.handle = nil
	}
	if st.group != nil {
		st.group.users-- // under the group's shared mu
	}
	if st.group == nil || st.group.users == 0 {
		st.b.ArenaFreeHeap(st.arena)
	}
	st.pin.Unpin()
	st.image = nil
}

func (st *modelState) close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	st.closed = true
	for ss := range st.sessions {
		ss.close()
	}
	st.sessions = nil
	st.release()
	return nil
}

// Close releases the model, its arena and every open Session of it. A
// second Close, and any later call, returns ErrClosed.
func (m *Model) Close() error { return m.s.close() }

// Inputs describes the graph inputs, in order.
func (m *Model) Inputs() []TensorInfo { return cloneInfos(m.s.inputs) }

// Outputs describes the graph outputs, in order.
func (m *Model) Outputs() []TensorInfo { return cloneInfos(m.s.outputs) }

// ArenaBytes is the capacity of the model's arena.
func (m *Model) ArenaBytes() int64 { return m.s.capacity }

// Meta returns the metadata value for key ("labels", "producer", ...).
// It reports false when the key is absent or the model is closed.
func (m *Model) Meta(key string) (string, bool) {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return "", false
	}
	p := st.b.Meta(st.handle, key)
	if p == nil {
		return "", false
	}
	return GoString(p), true
}

// Labels returns the "labels" metadata split on newlines, nil when absent.
func (m *Model) Labels() []string {
	v, ok := m.Meta("labels")
	if !ok || v == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(v, "\n"), "\n")
}

// Run copies in to the single f32 input, runs, and copies the single f32
// output to out. Both lengths must match the tensors exactly (ErrShape).
func (m *Model) Run(in, out []float32) error {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	return st.def.run(in, out)
}

// Predict runs in and returns a new slice with the single output.
func (m *Model) Predict(in []float32) ([]float32, error) {
	return predict(m.s.outputs, in, m.Run)
}

// predict is Predict for a Model or a Session: one output, allocated here.
func predict(outs []TensorInfo, in []float32, run func(in, out []float32) error) ([]float32, error) {
	if len(outs) != 1 {
		return nil, errorf(StatusArg, fmt.Sprintf("netkit: Predict needs one output, the model has %d; use RunMulti", len(outs)))
	}
	out := make([]float32, outs[0].Elems())
	if err := run(in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// RunMulti runs a model with several f32 inputs and outputs, one slice per
// tensor in order.
func (m *Model) RunMulti(ins, outs [][]float32) error {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	return st.def.runMulti(ins, outs)
}

// ResetState zeroes the model's recurrent state (its STATE tensors, kept
// from one run to the next by a model converted with --stream-state), so
// the next run starts a new sequence. A no-op for a model without state.
func (m *Model) ResetState() error {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	return st.def.resetState()
}

// RunRaw runs with raw little-endian tensor bytes of any dtype, one slice
// per tensor; each length must equal the tensor's byte size.
func (m *Model) RunRaw(ins, outs [][]byte) error {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	return st.def.runRaw(ins, outs)
}

func cloneInfos(in []TensorInfo) []TensorInfo {
	out := make([]TensorInfo, len(in))
	for i, t := range in {
		t.Shape = append([]int(nil), t.Shape...)
		out[i] = t
	}
	return out
}

// aligned returns b, or a copy of b at a 16-byte aligned address when b is
// not aligned (the C core binds weights in place and requires alignment).
func aligned(b []byte) []byte {
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%16 == 0 {
		return b
	}
	buf := make([]byte, len(b)+15)
	off := (16 - uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%16) % 16
	c := buf[off : off+uintptr(len(b))]
	copy(c, b)
	return c
}

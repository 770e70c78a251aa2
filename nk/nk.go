// Package nk runs netkit models (.nk files) from Go through cgo. It compiles
// the C core itself (netkit.c includes csrc/netkit_unity.c), so go build
// needs only a C compiler; no CMake step.
//
// Each model lives in one C heap arena sized exactly by the C core
// (nk_model_arena_size, or the budget given by WithArenaSize) and is loaded
// once. Weights are bound in place: Load maps the file, LoadBytes pins the
// caller's slice. A Model
// runs on its default context and serializes concurrent calls; a Session
// adds an independent context (own activations, shared weights) for one
// goroutine, and its Run makes no Go allocations.
//
// Errors from the C core are *Error values that wrap a Status, so
// errors.Is(err, nk.ErrArenaOverflow) works and the figures (requested,
// free, capacity bytes, op index) are at hand.
//
// A mapped model file must not change while the model lives: truncating it
// kills the process with SIGBUS at the next Run, and rewriting it in place
// silently changes the weights the model computes with. Replacing it by
// rename is safe. A service whose model files may change under it loads
// with WithCopy: the file is read into the model's arena and never touched
// again.
//
// Package nkc offers the same API without cgo, loading libnetkit at run time.
package nk

//go:generate go run ../internal/tools/csrchash -o csrc_hash.go

import "github.com/netkit/netkit/internal/runtime"

type (
	// Model is a loaded model; see Load.
	Model = runtime.Model
	// Session is an extra execution context over a Model's weights.
	Session = runtime.Session
	// TensorInfo describes a graph input or output.
	TensorInfo = runtime.TensorInfo
	// DType is an element type (F32, I8, I16, I32).
	DType = runtime.DType
	// Layout is a tensor's source layout.
	Layout = runtime.Layout
	// Report is the C core's inspect report.
	Report = runtime.Report
	// OpInfo is one row of Report.Ops.
	OpInfo = runtime.OpInfo
	// Option configures Load, LoadBytes and Inspect.
	Option = runtime.Option
	// Status is an nk_status code; it implements error.
	Status = runtime.Status
	// Error is a failure with the figures that explain it.
	Error = runtime.Error
)

// Element types.
const (
	F32 = runtime.F32
	I8  = runtime.I8
	I16 = runtime.I16
	I32 = runtime.I32
)

// Layouts.
const (
	LayoutNative = runtime.LayoutNative
	LayoutNCHW   = runtime.LayoutNCHW
)

// Sentinels for errors.Is.
var (
	ErrArg           = runtime.ErrArg
	ErrArenaOverflow = runtime.ErrArenaOverflow
	ErrFormat        = runtime.ErrFormat
	ErrVersion       = runtime.ErrVersion
	ErrChecksum      = runtime.ErrChecksum
	ErrAlign         = runtime.ErrAlign
	ErrUnsupported   = runtime.ErrUnsupported
	ErrShape         = runtime.ErrShape
	ErrDType         = runtime.ErrDType
	ErrIO            = runtime.ErrIO
	ErrState         = runtime.ErrState
	// ErrClosed is returned by any call on a closed Model or Session.
	ErrClosed = runtime.ErrClosed
	// ErrOutOfMemory: the host heap could not provide an arena (not
	// ErrArenaOverflow, which means an arena too small for the model).
	ErrOutOfMemory = runtime.ErrOutOfMemory
)

// WithArenaSize imposes an arena budget of n bytes instead of the exact size
// from nk_model_arena_size; too small a budget fails with an *Error wrapping
// ErrArenaOverflow that carries the requested, free and capacity bytes.
func WithArenaSize(n int64) Option { return runtime.WithArenaSize(n) }

// WithCopy gives the model its own copy of the image: Load reads the file
// into the model's arena (which grows by the file's size) instead of
// mapping it, so the file may be truncated, rewritten or deleted while the
// model runs; LoadBytes copies b, which the caller may then reuse.
func WithCopy() Option { return runtime.WithCopy() }

func open(string) (*runtime.Backend, error) { return &backend, nil }

// Load maps the model file in place (nk_model_load_file), or with WithCopy
// reads it into the model's arena; either way the arena is sized exactly and
// the model loaded once. See the package comment for files that change.
func Load(path string, opts ...Option) (*Model, error) { return runtime.Load(open, path, opts...) }

// LoadBytes binds b in place, with no copy: b is pinned for the model's
// life and must not be modified until Close. b must be 16-byte aligned, as
// every slice from make of 16 bytes or more is; a misaligned b is copied
// once into an aligned buffer.
func LoadBytes(b []byte, opts ...Option) (*Model, error) {
	return runtime.LoadBytes(open, b, opts...)
}

// Inspect returns the C core's report for a model file loaded as a buffer
// (the firmware case): exact arena bytes after load and after a forward
// pass, the breakdown, and a per-op table. It loads the model once; a
// loaded Model reports on itself with Model.Report.
func Inspect(path string, opts ...Option) (*Report, error) {
	return runtime.Inspect(open, path, opts...)
}

// InspectBytes is Inspect for a model image in memory.
func InspectBytes(b []byte, opts ...Option) (*Report, error) {
	return runtime.InspectBytes(open, b, opts...)
}

// Version returns the C core's version string (NK_VERSION_STRING). The
// error is always nil here; it is in the signature because package nkc,
// which has the same API, loads the core at run time and may fail to.
func Version() (string, error) { return backend.Version(), nil }

// ABIVersion returns the C core's ABI version (NK_ABI_VERSION). The error is
// always nil here, as for Version.
func ABIVersion() (uint32, error) { return backend.ABIVersion(), nil }

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
// Package nkc offers the same API without cgo, loading libnetkit at run
// time; both packages' API is generated from one template
// (internal/tools/apigen), so a program moves between them by changing its
// import.
package nk

//go:generate go run ../internal/tools/csrchash -o csrc_hash.go
//go:generate go run ../internal/tools/apigen -pkg nk

import "fmt"

// errNoLibrary is open's error for a library path (WithLibrary): only
// package nkc loads libraries.
var errNoLibrary = fmt.Errorf("%w: only package nkc loads a shared library; package nk has the C core compiled in", ErrArg)

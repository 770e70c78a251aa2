// Package nkc runs netkit models with no cgo: it loads the C core from the
// shared library libnetkit (libnetkit.so, libnetkit.dylib) at run time with
// purego, and offers the same API as package nk. Build with
// CGO_ENABLED=0 and ship the library next to the executable.
//
// The library is looked up, in order: the path given by WithLibrary, then
// $NETKIT_LIB, then the executable's folder, then the system loader
// (LD_LIBRARY_PATH, DYLD_LIBRARY_PATH, the usual folders); in a folder and
// from the loader, libnetkit.so is tried before the versioned
// libnetkit.so.N (N the ABI version) that a runtime-only install has. Every symbol is
// resolved when the library is opened and its nk_abi_version must equal
// the one this package was written for; any failure is returned as an
// error from the first call, never a panic.
//
// Each model lives in one C heap arena sized exactly by the C core
// (nk_model_arena_size, or the budget given by WithArenaSize) and is loaded
// once. Errors from the C core are *Error values that wrap a Status, so
// errors.Is(err, nkc.ErrArenaOverflow) works.
//
// Load maps the model file, as package nk does: the file must not change
// while the model lives (truncated: SIGBUS at the next Run; rewritten in
// place: other weights, silently). Replacing it by rename is safe; a service
// whose model files may change under it loads with WithCopy.
package nkc

//go:generate go run ../internal/tools/apigen -pkg nkc

// Package engine is the Go core shared by package nk (cgo) and package nkc
// (purego): public types, options, error mapping, arena sizing and the
// Model/Session logic are written once here. Each binding fills a Backend,
// a thin table with one Go function per C function used, and carries the
// public API generated from one template (internal/tools/apigen): its own
// documented Model, Session, Option, Status, Error, DType, Layout and the
// report types over the ones here (the report types are declared once, in
// the template, and rendered here as report.go too). Its calls convert the
// errors made here to its own Status and *Error, keeping these as causes.
//
// Memory: every model gets its own C heap arena (nk_arena_init_heap) sized
// exactly by nk_model_arena_size for its load mode unless WithArenaSize
// imposes a budget. Each
// Session gets a second heap arena of nk_context_size bytes for its
// activations over the model's read-only weights. Inputs and outputs are
// copied straight into and out of the C tensors, so a run is one C call.
package engine

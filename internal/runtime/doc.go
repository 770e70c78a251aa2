// Package runtime is the Go core shared by package nk (cgo) and package nkc
// (purego): public types, options, error mapping, arena sizing and the
// Model/Session logic are written once here. Each binding fills a Backend,
// a thin table with one Go function per C function used, and carries the
// public API generated from one template (internal/tools/apigen): its own
// documented Model, Session, Option, TensorInfo, Report and OpInfo over
// the types here, and aliases for Status, Error, DType and Layout, which
// both packages share so errors.Is and errors.As work across them.
//
// Memory: every model gets its own C heap arena (nk_arena_init_heap) sized
// exactly by nk_model_arena_size for its load mode unless WithArenaSize
// imposes a budget. Each
// Session gets a second heap arena of nk_context_size bytes for its
// activations over the model's read-only weights. Inputs and outputs are
// copied straight into and out of the C tensors, so a run is one C call.
package runtime

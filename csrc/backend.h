/*
 * backend.h — implementations of an op that replace the core's eval: the
 * interface a vendor backend (vendor_kernels/<name>/) fills.
 *
 * A backend is a NULL-terminated table of nk_op_impl, nk_backend_impls,
 * compiled in by its CMake option (which also defines NETKIT_BACKEND=1).
 * At most one backend per build. At load, after the core's validate passed
 * and batch-norms were folded, each op takes the first implementation for
 * its (type, dtype of input 0) whose supports() says 1, else the core's
 * eval ("portable"); the choice lives in the op record (nk_op_rt.impl), so
 * two models in one program never share it. The workspace is sized from the
 * chosen implementation, so nk_model_arena_size and inspect stay exact.
 *
 * Without NETKIT_BACKEND none of this is compiled: op records, code size
 * and every figure are those of the core alone.
 */
#ifndef NK_BACKEND_H
#define NK_BACKEND_H

#include "nk_internal.h"

typedef struct nk_op_impl {
    const char *backend;          /* short name inspect prints per op: "cmsis-nn", "xnnpack" */
    uint16_t type; uint8_t dtype; /* the (op, dtype of input 0) pair it serves, as nk_op_def */
    /* Load time, after the core's validate passed: 1 when this implementation
     * computes these parameters exactly as the core kernel would (int8: byte-
     * identical; float: within 1e-5 relative), 0 to fall back to the core's
     * eval. Never fails, never allocates. */
    int (*supports)(const nk_op_rt *op, const nk_tensor_rt *t);
    /* Scratch bytes in the shared workspace (NULL: none); the op's workspace
     * becomes this instead of the core kernel's. */
    size_t (*workspace_size)(const nk_op_rt *op, const nk_tensor_rt *t);
    /* Runs the op, as nk_op_def.eval. op->impl_state is prepare's state. */
    nk_status (*eval)(const nk_op_rt *op, const nk_exec *x);
    /* Optional per-model state (XNNPACK operators); NULL when stateless.
     * prepare runs once per op at the end of a load (never while sizing),
     * with the final weights and the default context's pointers in x
     * (x->workspace is NULL while the model has no activation block yet,
     * after a shared or two-region load: x->data's activation entries are
     * then bare offsets, not addresses); it
     * stores its state in *state and the host-heap bytes it holds in *heap
     * (inspect reports their sum), or fails the load with err filled
     * (op index is filled by the caller). State must not come from the
     * arena: sizing never runs prepare. */
    nk_status (*prepare)(const nk_op_rt *op, const nk_exec *x, void **state, size_t *heap,
                         nk_error_t *err);
    /* Frees prepare's state: at nk_model_unload, or when the load fails
     * after prepare. */
    void (*release)(void *state);
} nk_op_impl;

/* The build's backend table, NULL-terminated (defined by the backend). */
extern NK_HIDDEN const nk_op_impl *const nk_backend_impls[];

/* The implementation an op runs with: the first of the table for its
 * (type, def->dtype) whose supports() says 1; NULL for the core's eval
 * (model.c, at load). */
NK_HIDDEN const nk_op_impl *nk_backend_find(const nk_op_rt *op, const nk_tensor_rt *t);

/* Name inspect prints for the core's own eval. */
#define NK_IMPL_PORTABLE "portable"

#endif /* NK_BACKEND_H */

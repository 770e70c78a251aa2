/*
 * xnnpack.c — netkit's XNNPACK backend (hosts): float32 conv2d, depthwise,
 * max/avg/global-average pooling, dense and add through XNNPACK's operator
 * API (Debian's libxnnpack-dev, a 2022 snapshot: xnn_create_* / xnn_setup_*
 * / xnn_run_operator). Everything else, and what XNNPACK cannot compute as
 * netkit does, runs on netkit's kernels (supports() says 0).
 *
 * Memory. XNNPACK's allocator is process-wide (xnn_initialize, once): ours
 * takes the host heap and charges every block to the op whose create or
 * setup asked for it (a thread-local counter set around those calls), so
 * inspect reports the packed weights and operator state of each model as
 * backend_heap_bytes. Nothing comes from the arena: sizing a model never
 * creates operators, and the arena figures are the core's. Operators are
 * created at load (prepare) and deleted at nk_model_unload (release).
 *
 * Threads. A setup binds raw input/output pointers (and the batch) into the
 * operator, and run reads them back, so one operator cannot serve two
 * contexts at once. Each op's operator has a mutex held across setup and
 * run: contexts invoking one model in parallel run it correctly, taking
 * turns per op (different ops still overlap). A setup is skipped when the
 * pointers are those of the previous run, so one context pays it once;
 * contexts that alternate re-run it (XNNPACK may then reallocate its
 * indirection buffer on the heap: invoke never takes arena memory either way).
 *
 * Reads past the end. XNNPACK's kernels may read up to 16 bytes past an
 * input (XNN_EXTRA_BYTES). Inputs here are always activations (an add with
 * a constant operand falls back), whose 16-byte slots end inside the
 * activation block or at its end, where the workspace follows in every
 * context: each op asks for 16 workspace bytes so that those bytes exist.
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#endif
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#include "backend.h"

#define NK_XNN_SLACK 16u /* readable bytes XNNPACK may touch past an input */

/* ------------------------------------------------------------------ */
/* The process-wide allocator                                          */
/* ------------------------------------------------------------------ */

/* The op state a create or setup on this thread is charging, else NULL. */
static __thread size_t *nk_xnn_charge;

/* Kept just below each block: what free and realloc need. */
typedef struct nk_xnn_meta {
    size_t header; /* bytes from the allocation's start to the block */
    size_t size;
    size_t *charged;
} nk_xnn_meta;

static void *nk_xnn_alloc(size_t align, size_t size) {
    nk_xnn_meta meta;
    void *raw;
    uint8_t *p;
    if (align < 16u) align = 16u;
    meta.header = align < 32u ? 32u : align; /* room for the meta, keeping the alignment */
    if (size > (size_t)-1 - meta.header || posix_memalign(&raw, align, meta.header + size) != 0) /* nk-alloc-ok: XNNPACK state on the host heap, counted by inspect */
        return NULL;
    p = (uint8_t *)raw + meta.header;
    meta.size = size;
    meta.charged = nk_xnn_charge;
    if (meta.charged != NULL) *meta.charged += size;
    memcpy(p - sizeof meta, &meta, sizeof meta);
    return p;
}

static void nk_xnn_free(void *ctx, void *ptr) {
    nk_xnn_meta meta;
    (void)ctx;
    if (ptr == NULL) return;
    memcpy(&meta, (uint8_t *)ptr - sizeof meta, sizeof meta);
    if (meta.charged != NULL) *meta.charged -= meta.size;
    free((uint8_t *)ptr - meta.header); /* nk-alloc-ok: XNNPACK state on the host heap, counted by inspect */
}

static void *nk_xnn_allocate(void *ctx, size_t size) {
    (void)ctx;
    return nk_xnn_alloc(16u, size);
}

static void *nk_xnn_aligned_allocate(void *ctx, size_t align, size_t size) {
    (void)ctx;
    return nk_xnn_alloc(align, size);
}

static void *nk_xnn_reallocate(void *ctx, void *ptr, size_t size) {
    nk_xnn_meta meta;
    void *q;
    if (ptr == NULL) return nk_xnn_alloc(16u, size);
    memcpy(&meta, (uint8_t *)ptr - sizeof meta, sizeof meta);
    q = nk_xnn_alloc(16u, size);
    if (q == NULL) return NULL; /* the old block stays valid */
    memcpy(q, ptr, meta.size < size ? meta.size : size);
    nk_xnn_free(ctx, ptr);
    return q;
}

static const struct xnn_allocator nk_xnn_allocator = {
    NULL, nk_xnn_allocate, nk_xnn_reallocate, nk_xnn_free, nk_xnn_aligned_allocate, nk_xnn_free,
};

static pthread_once_t nk_xnn_once = PTHREAD_ONCE_INIT;
static enum xnn_status nk_xnn_init_status = xnn_status_uninitialized;

static void nk_xnn_init(void) { nk_xnn_init_status = xnn_initialize(&nk_xnn_allocator); }

/* XNNPACK is initialized, once per process; 0 (every op falls back) when
 * this CPU is not one it supports. */
static int nk_xnn_ready(void) {
    pthread_once(&nk_xnn_once, nk_xnn_init);
    return nk_xnn_init_status == xnn_status_success;
}

/* ------------------------------------------------------------------ */
/* What XNNPACK computes as netkit does                                */
/* ------------------------------------------------------------------ */

static const nk_tensor_rt *nk_xnn_in(const nk_op_rt *op, const nk_tensor_rt *t, uint32_t i) {
    return i < op->n_in && op->in[i] != NK_NONE ? &t[op->in[i]] : NULL;
}

/* XNNPACK takes a clamp [min, max] with min < max (infinities meaning none). */
static int nk_xnn_clamp_ok(const nk_op_rt *op, uint32_t k) {
    float lo = nk_param_f32(op, k), hi = nk_param_f32(op, k + 1u);
    return lo < hi; /* false for NaN too */
}

/* The op's input 0 and output are f32 activations (validate checked the rest). */
static int nk_xnn_io_ok(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *x = nk_xnn_in(op, t, 0), *y = &t[op->out[0]];
    return nk_xnn_ready() && x != NULL && !x->is_const && x->dtype == NK_F32 && y->dtype == NK_F32;
}

/* XNNPACK packs weights and bias at create: they must be constants. */
static int nk_xnn_weights_ok(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *w = nk_xnn_in(op, t, 1), *b = nk_xnn_in(op, t, 2);
    return w != NULL && w->is_const && w->dtype == NK_F32 && (b == NULL || (b->is_const && b->dtype == NK_F32));
}

static int nk_xnn_conv_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    return nk_xnn_io_ok(op, t) && nk_xnn_weights_ok(op, t) && nk_xnn_clamp_ok(op, 9);
}

static int nk_xnn_dense_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    return nk_xnn_io_ok(op, t) && nk_xnn_weights_ok(op, t) && nk_xnn_clamp_ok(op, 0);
}

/* XNNPACK refuses a 1x1 pooling window; its average pooling leaves padding
 * out of the count (count_include_pad 0), so padding with
 * count_include_pad 1 falls back. */
static int nk_xnn_max_pool_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    return nk_xnn_io_ok(op, t) && nk_param_i32(op, 0) * nk_param_i32(op, 1) > 1 &&
           op->n_params == 10 /* no dilation words */ && nk_xnn_clamp_ok(op, 8);
}

static int nk_xnn_avg_pool_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    int padded = nk_param_i32(op, 4) != 0 || nk_param_i32(op, 5) != 0 || nk_param_i32(op, 6) != 0 ||
                 nk_param_i32(op, 7) != 0;
    return nk_xnn_io_ok(op, t) && nk_param_i32(op, 0) * nk_param_i32(op, 1) > 1 &&
           !(padded && nk_param_i32(op, 8) != 0) && nk_xnn_clamp_ok(op, 9);
}

static int nk_xnn_gap_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    return nk_xnn_io_ok(op, t);
}

/* Both operands activations (a constant's payload has no readable slack
 * after it), ranks within XNNPACK's 6, numpy broadcasting as ours. */
static int nk_xnn_add_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *b = nk_xnn_in(op, t, 1);
    return nk_xnn_io_ok(op, t) && b != NULL && !b->is_const && b->dtype == NK_F32 &&
           t[op->in[0]].rank >= 1 && t[op->in[0]].rank <= XNN_MAX_TENSOR_DIMS && b->rank >= 1 &&
           b->rank <= XNN_MAX_TENSOR_DIMS && nk_xnn_clamp_ok(op, 0);
}

static size_t nk_xnn_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    (void)op;
    (void)t;
    return NK_XNN_SLACK;
}

/* ------------------------------------------------------------------ */
/* Operators: created at load, set up and run at invoke                */
/* ------------------------------------------------------------------ */

typedef struct nk_xnn_state {
    xnn_operator_t op;
    pthread_mutex_t lock;  /* held across setup and run */
    size_t heap;           /* bytes XNNPACK holds for this operator */
    const void *in0, *in1; /* pointers of the last setup (NULL: none yet) */
    void *out;
} nk_xnn_state;

static nk_status nk_xnn_status(enum xnn_status s) {
    switch (s) {
    case xnn_status_success: return NK_OK;
    case xnn_status_out_of_memory: return NK_ERR_ARENA_OVERFLOW;
    default: return NK_ERR_UNSUPPORTED;
    }
}

static enum xnn_status nk_xnn_create(const nk_op_rt *op, const nk_exec *ex, xnn_operator_t *out) {
    const nk_tensor_rt *t = ex->tensors;
    const nk_tensor_rt *x = &t[op->in[0]], *w = nk_xnn_in(op, t, 1), *b = nk_xnn_in(op, t, 2);
    const float *bias = b != NULL ? (const float *)ex->data[op->in[2]] : NULL;
    const float *weights = (const float *)ex->data[op->in[1]];
    const size_t c = (size_t)x->dims[x->rank - 1];
    switch (op->type) {
    case NK_OP_CONV2D:
    case NK_OP_DEPTHWISE_CONV2D: {
        /* weights OHWI (groups: [G*O/G, KH, KW, C/G]); depthwise [1, KH, KW, C*M] */
        int dw = op->type == NK_OP_DEPTHWISE_CONV2D;
        uint32_t groups = dw ? (uint32_t)c : (uint32_t)nk_param_i32(op, 8);
        size_t gin = dw ? 1u : c / groups;
        size_t gout = dw ? (size_t)nk_param_i32(op, 8) : (size_t)w->dims[0] / groups;
        return xnn_create_convolution2d_nhwc_f32(
            (uint32_t)nk_param_i32(op, 4), (uint32_t)nk_param_i32(op, 7), (uint32_t)nk_param_i32(op, 6),
            (uint32_t)nk_param_i32(op, 5), (uint32_t)w->dims[1], (uint32_t)w->dims[2],
            (uint32_t)nk_param_i32(op, 0), (uint32_t)nk_param_i32(op, 1), (uint32_t)nk_param_i32(op, 2),
            (uint32_t)nk_param_i32(op, 3), groups, gin, gout, c, (size_t)groups * gout,
            weights, bias, nk_param_f32(op, 9), nk_param_f32(op, 10),
            dw ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0u, out);
    }
    case NK_OP_DENSE:
        return xnn_create_fully_connected_nc_f32(c, (size_t)w->dims[0], c, (size_t)w->dims[0],
                                                 weights, bias, nk_param_f32(op, 0),
                                                 nk_param_f32(op, 1), 0u, out);
    case NK_OP_MAX_POOL2D:
        return xnn_create_max_pooling2d_nhwc_f32(
            (uint32_t)nk_param_i32(op, 4), (uint32_t)nk_param_i32(op, 7), (uint32_t)nk_param_i32(op, 6),
            (uint32_t)nk_param_i32(op, 5), (uint32_t)nk_param_i32(op, 0), (uint32_t)nk_param_i32(op, 1),
            (uint32_t)nk_param_i32(op, 2), (uint32_t)nk_param_i32(op, 3), 1u, 1u, c, c, c,
            nk_param_f32(op, 8), nk_param_f32(op, 9), 0u, out);
    case NK_OP_AVG_POOL2D:
        return xnn_create_average_pooling2d_nhwc_f32(
            (uint32_t)nk_param_i32(op, 4), (uint32_t)nk_param_i32(op, 7), (uint32_t)nk_param_i32(op, 6),
            (uint32_t)nk_param_i32(op, 5), (uint32_t)nk_param_i32(op, 0), (uint32_t)nk_param_i32(op, 1),
            (uint32_t)nk_param_i32(op, 2), (uint32_t)nk_param_i32(op, 3), c, c, c, nk_param_f32(op, 9),
            nk_param_f32(op, 10), 0u, out);
    case NK_OP_GLOBAL_AVG_POOL:
        return xnn_create_global_average_pooling_nwc_f32(c, c, c, -INFINITY, INFINITY, 0u, out);
    case NK_OP_ADD:
        return xnn_create_add_nd_f32(nk_param_f32(op, 0), nk_param_f32(op, 1), 0u, out);
    default:
        return xnn_status_unsupported_parameter;
    }
}

/* Binds this context's pointers (and the batch) into the operator. */
static enum xnn_status nk_xnn_setup(const nk_op_rt *op, const nk_exec *x, xnn_operator_t xop) {
    const nk_tensor_rt *in = &x->tensors[op->in[0]];
    const float *a = (const float *)x->data[op->in[0]];
    float *y = (float *)x->data[op->out[0]];
    switch (op->type) {
    case NK_OP_CONV2D:
    case NK_OP_DEPTHWISE_CONV2D:
        return xnn_setup_convolution2d_nhwc_f32(xop, (size_t)in->dims[0], (size_t)in->dims[1],
                                                (size_t)in->dims[2], a, y, NULL);
    case NK_OP_DENSE:
        return xnn_setup_fully_connected_nc_f32(
            xop, in->elems / (uint32_t)x->tensors[op->in[1]].dims[1], a, y, NULL);
    case NK_OP_MAX_POOL2D:
        return xnn_setup_max_pooling2d_nhwc_f32(xop, (size_t)in->dims[0], (size_t)in->dims[1],
                                                (size_t)in->dims[2], a, y, NULL);
    case NK_OP_AVG_POOL2D:
        return xnn_setup_average_pooling2d_nhwc_f32(xop, (size_t)in->dims[0], (size_t)in->dims[1],
                                                    (size_t)in->dims[2], a, y, NULL);
    case NK_OP_GLOBAL_AVG_POOL:
        return xnn_setup_global_average_pooling_nwc_f32(
            xop, (size_t)in->dims[0], (size_t)in->dims[1] * (size_t)in->dims[2], a, y, NULL);
    case NK_OP_ADD: {
        const nk_tensor_rt *bt = &x->tensors[op->in[1]];
        size_t sa[XNN_MAX_TENSOR_DIMS], sb[XNN_MAX_TENSOR_DIMS];
        uint32_t d;
        for (d = 0; d < in->rank; d++) sa[d] = (size_t)in->dims[d];
        for (d = 0; d < bt->rank; d++) sb[d] = (size_t)bt->dims[d];
        return xnn_setup_add_nd_f32(xop, in->rank, sa, bt->rank, sb, a,
                                    (const float *)x->data[op->in[1]], y, NULL);
    }
    default:
        return xnn_status_unsupported_parameter;
    }
}

static void nk_xnn_release(void *state) {
    nk_xnn_state *s = (nk_xnn_state *)state;
    if (s == NULL) return;
    nk_xnn_charge = &s->heap;
    if (s->op != NULL) xnn_delete_operator(s->op);
    nk_xnn_charge = NULL;
    pthread_mutex_destroy(&s->lock);
    free(s); /* nk-alloc-ok: XNNPACK state on the host heap, counted by inspect */
}

/* Creates the operator (packing the weights) and sets it up once for the
 * default context, so its heap is in place and counted after the load.
 * A shared or two-region load has no activation block yet: eval sets it
 * up at the first run (XNNPACK offsets its indirection pointers from the
 * first input it saw, so a NULL one must never reach it). */
static nk_status nk_xnn_prepare(const nk_op_rt *op, const nk_exec *x, void **state, size_t *heap,
                                nk_error_t *err) {
    nk_xnn_state *s = (nk_xnn_state *)calloc(1, sizeof *s); /* nk-alloc-ok: XNNPACK state on the host heap, counted by inspect */
    enum xnn_status xs;
    *state = NULL;
    if (s == NULL) return nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1, "xnnpack: no heap for the operator state");
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s); /* nk-alloc-ok: XNNPACK state on the host heap, counted by inspect */
        return nk_fail(err, NK_ERR_ARENA_OVERFLOW, -1, "xnnpack: cannot create the operator's mutex");
    }
    nk_xnn_charge = &s->heap;
    xs = nk_xnn_create(op, x, &s->op);
    if (xs == xnn_status_success && x->workspace != NULL) xs = nk_xnn_setup(op, x, s->op); /* a block */
    nk_xnn_charge = NULL;
    if (xs != xnn_status_success) {
        nk_xnn_release(s);
        return nk_fail(err, nk_xnn_status(xs), -1,
                       xs == xnn_status_out_of_memory ? "xnnpack: out of heap memory creating the operator"
                                                      : "xnnpack: the operator refused these parameters");
    }
    s->in0 = x->data[op->in[0]];
    s->in1 = op->type == NK_OP_ADD ? x->data[op->in[1]] : NULL;
    s->out = x->data[op->out[0]];
    *state = s;
    *heap = s->heap + sizeof *s;
    return NK_OK;
}

static nk_status nk_xnn_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_xnn_state *s = (nk_xnn_state *)op->impl_state;
    const void *in0 = x->data[op->in[0]], *in1 = op->type == NK_OP_ADD ? x->data[op->in[1]] : NULL;
    void *out = x->data[op->out[0]];
    enum xnn_status xs = xnn_status_success;
    pthread_mutex_lock(&s->lock);
    if (in0 != s->in0 || in1 != s->in1 || out != s->out) {
        nk_xnn_charge = &s->heap;
        xs = nk_xnn_setup(op, x, s->op);
        nk_xnn_charge = NULL;
        s->in0 = xs == xnn_status_success ? in0 : NULL;
        s->in1 = in1;
        s->out = out;
    }
    if (xs == xnn_status_success) xs = xnn_run_operator(s->op, NULL);
    pthread_mutex_unlock(&s->lock);
    return nk_xnn_status(xs);
}

/* ------------------------------------------------------------------ */
/* The table                                                           */
/* ------------------------------------------------------------------ */

#define NK_XNN_IMPL(name, type, supports)                                                             \
    static const nk_op_impl name = {"xnnpack",      type,           NK_F32,         supports,          \
                                    nk_xnn_workspace, nk_xnn_eval,  nk_xnn_prepare, nk_xnn_release}

NK_XNN_IMPL(nk_xnn_conv2d, NK_OP_CONV2D, nk_xnn_conv_supports);
NK_XNN_IMPL(nk_xnn_depthwise, NK_OP_DEPTHWISE_CONV2D, nk_xnn_conv_supports);
NK_XNN_IMPL(nk_xnn_dense, NK_OP_DENSE, nk_xnn_dense_supports);
NK_XNN_IMPL(nk_xnn_max_pool, NK_OP_MAX_POOL2D, nk_xnn_max_pool_supports);
NK_XNN_IMPL(nk_xnn_avg_pool, NK_OP_AVG_POOL2D, nk_xnn_avg_pool_supports);
NK_XNN_IMPL(nk_xnn_gap, NK_OP_GLOBAL_AVG_POOL, nk_xnn_gap_supports);
NK_XNN_IMPL(nk_xnn_add, NK_OP_ADD, nk_xnn_add_supports);

const nk_op_impl *const nk_backend_impls[] = {
    &nk_xnn_conv2d, &nk_xnn_depthwise, &nk_xnn_dense, &nk_xnn_max_pool,
    &nk_xnn_avg_pool, &nk_xnn_gap, &nk_xnn_add, NULL,
};

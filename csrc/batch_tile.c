/*
 * batch_tile.c — a batch model's conv layers run a few samples at a time
 * (hosted builds with the host kernels; docs/MEMORY.md, "Batch tiles").
 *
 * A model converted with --batch N runs each op over all N samples. Its
 * conv and pool layers then pass N samples' activations through memory
 * from one op to the next (5 MB at batch 100 on the Fashion CNN) and lose
 * to a per-sample run that keeps them in cache. A batch tile is the longest
 * run of ops that treat samples independently (convs, pools, elementwise
 * ops) and holds a conv: invoke runs ops first..last on samples [0, C),
 * then on [C, 2C), and so on. Dense layers stay outside: over the whole
 * batch they are one GEMM, where batching pays.
 *
 * Memory: the tile's own tensors (made and read only inside it) are planned
 * at one chunk's size and reused by every chunk. Its edges (tensors alive in
 * the tile that it did not make, and tensors it makes that live past it)
 * keep the whole batch; the planner keeps them alive over the whole tile
 * (plan.h, 1b), and each chunk's ops see the chunk's slice of them. Each
 * sample goes through the same kernels as in the op-by-op run.
 */
#include "model.h"

#if NETKIT_HOST_KERNELS

#include <stdlib.h> /* getenv: a hosted build */

#define NK_BATCH_TILES_ENV "NETKIT_BATCH_TILES"
/* A chunk's largest own tensor stays within this (L2-resident with its
 * neighbours); one sample always fits. */
#ifndef NK_TILE_CHUNK_BYTES
#define NK_TILE_CHUNK_BYTES (64u * 1024u)
#endif

/* Op kinds whose output sample i depends on input sample i only. */
static int nk_tile_kind(uint32_t type) {
    switch (type) {
    case NK_OP_CONV2D: case NK_OP_DEPTHWISE_CONV2D: case NK_OP_MAX_POOL2D: case NK_OP_AVG_POOL2D:
    case NK_OP_GLOBAL_AVG_POOL: case NK_OP_RELU: case NK_OP_CLIP: case NK_OP_LEAKY_RELU:
    case NK_OP_SIGMOID: case NK_OP_TANH: case NK_OP_GELU: case NK_OP_ADD: case NK_OP_MUL:
    case NK_OP_SUB: case NK_OP_DIV: case NK_OP_MAXIMUM: case NK_OP_MINIMUM: case NK_OP_EXP:
    case NK_OP_SQRT: case NK_OP_NEG: case NK_OP_ABS: case NK_OP_RECIPROCAL:
    case NK_OP_HARD_SIGMOID: case NK_OP_HARD_SWISH:
        return 1;
    default:
        return 0;
    }
}

/* Op k may run chunk by chunk in a batch of n: a float op of a kind above
 * on netkit's kernels, every run-time tensor a whole batch with samples
 * first, and no constant with a sample axis (it would not be sliced). */
static int nk_tile_op(const nk_model_t *m, const nk_op_rt *op, uint32_t n) {
    const nk_tensor_rt *t = m->tensors;
    const nk_tensor_rt *y;
    uint32_t j;
    if (op->def == NULL || op->def->eval == NULL || (op->def->flags & NK_OPF_ALIAS) ||
        !nk_tile_kind(op->type) || op->n_out != 1)
        return 0;
#if NETKIT_BACKEND
    if (op->impl != NULL) return 0; /* its prepared state knows the whole batch */
#endif
    y = &t[op->out[0]];
    if (y->dtype != NK_F32 || y->rank < 2 || y->dims[0] != (int32_t)n) return 0;
    for (j = 0; j < op->n_in; j++) {
        const nk_tensor_rt *a;
        if (op->in[j] == NK_NONE) continue;
        a = &t[op->in[j]];
        if (a->is_state) return 0;
        if (a->is_const) {
            if (op->type != NK_OP_CONV2D && op->type != NK_OP_DEPTHWISE_CONV2D &&
                a->rank == y->rank && a->dims[0] != 1)
                return 0;
        } else if (a->rank < 2 || a->dims[0] != (int32_t)n ||
                   (j > 0 && a->elems != y->elems)) {
            return 0; /* a run-time operand broadcast over samples */
        }
    }
    return 1;
}

/* Gives record t, a batch of n samples, the shape of one chunk of `chunk`. */
static void nk_tile_shrink(nk_tensor_rt *t, uint32_t n, uint32_t chunk) {
    t->dims[0] = (int32_t)chunk;
    t->elems = t->elems / n * chunk;
}

/* The batch: the first graph input's leading dimension (0: none). */
static uint32_t nk_tile_batch(const nk_model_t *m) {
    const nk_tensor_rt *t;
    if (m->img.n_inputs == 0) return 0;
    t = &m->tensors[nk_format_io_tensor(&m->img, 0, 0)];
    return t->rank >= 2 && t->dims[0] > 1 ? (uint32_t)t->dims[0] : 0u;
}

nk_status nk_batch_tile_find(nk_model_t *m, nk_arena_t *a, nk_error_t *err) {
    const char *env = getenv(NK_BATCH_TILES_ENV);
    const uint32_t n = nk_tile_batch(m);
    const uint8_t *rec = nk_format_ops_begin(&m->img);
    const size_t mark = nk_arena_mark(a);
    uint32_t k, j, start = 0, run = 0, first = 0, len = 0, has_conv = 0, chunk, biggest = 0;
    nk_batch_tile *tile;
    uint8_t *role;
    nk_op_rt view;
    m->tile = NULL;
    if (m->host == NULL || n == 0 || (env != NULL && strcmp(env, "0") == 0)) return NK_OK;
    /* the longest run of tileable ops with a conv in it */
    for (k = 0; k <= m->n_ops; k++) {
        const nk_op_rt *op = k < m->n_ops ? (rec = nk_model_op_next(m, rec, k, &view), &view) : NULL;
        if (op != NULL && nk_tile_op(m, op, n)) {
            if (run++ == 0) start = k;
            if (op->type == NK_OP_CONV2D || op->type == NK_OP_DEPTHWISE_CONV2D) has_conv = 1;
            continue;
        }
        if (has_conv && run > len) {
            first = start;
            len = run;
        }
        run = 0;
        has_conv = 0;
    }
    if (len == 0) return NK_OK;

    tile = (nk_batch_tile *)nk_core_alloc(a, sizeof *tile, "batch tile", -1, NULL, err);
    role = (uint8_t *)nk_core_alloc(a, m->n_tensors, "batch tile tensor roles", -1, NULL, err);
    if (tile == NULL || role == NULL) return NK_ERR_ARENA_OVERFLOW;
    /* the tile's own tensors; then its edges: alive in it but made before
     * it, or made in it and read after it or a graph output */
    rec = nk_format_ops_begin(&m->img);
    for (k = 0; k < m->n_ops; k++) {
        const int inside = k >= first && k < first + len;
        rec = nk_model_op_next(m, rec, k, &view);
        for (j = 0; j < view.n_in; j++) {
            const uint32_t id = view.in[j];
            if (id == NK_NONE || m->tensors[id].is_const) continue;
            if (inside && role[id] == NK_TILE_OUTSIDE) role[id] = NK_TILE_EDGE_IN;
            if (!inside && role[id] == NK_TILE_OWN) role[id] = NK_TILE_EDGE_OUT;
        }
        if (inside) role[view.out[0]] = NK_TILE_OWN;
    }
    for (k = 0; k < m->n_tensors; k++) {
        if (role[k] != NK_TILE_OWN) continue;
        if (nk_format_io_flags(&m->img, k) & 2u) role[k] = NK_TILE_EDGE_OUT;
        else if (nk_tensor_bytes(&m->tensors[k]) / n > biggest) biggest = nk_tensor_bytes(&m->tensors[k]) / n;
    }
    for (chunk = n; chunk > 1; chunk--)
        if (n % chunk == 0 && (uint64_t)chunk * biggest <= NK_TILE_CHUNK_BYTES) break;
    if (chunk == n) { /* the whole batch fits a chunk: nothing to gain */
        nk_arena_rewind(a, mark);
        return NK_OK;
    }
    tile->tensors = (nk_tensor_rt *)nk_core_alloc(a, (size_t)m->n_tensors * sizeof(nk_tensor_rt),
                                                  "batch tile tensor records", -1, NULL, err);
    if (tile->tensors == NULL) return NK_ERR_ARENA_OVERFLOW;
#if NK_MODEL_REPORT
    m->stats.structs += sizeof *tile + m->n_tensors + (size_t)m->n_tensors * sizeof(nk_tensor_rt);
#endif
    memcpy(tile->tensors, m->tensors, (size_t)m->n_tensors * sizeof(nk_tensor_rt));
    for (k = 0; k < m->n_tensors; k++) /* the plan gives edges the whole batch */
        if (role[k] == NK_TILE_OWN) nk_tile_shrink(&tile->tensors[k], n, chunk);
    tile->first = first;
    tile->last = first + len - 1u;
    tile->chunks = n / chunk;
    tile->role = role;
    m->tile = tile;
    return NK_OK;
}

void nk_batch_tile_planned(const nk_model_t *m) {
    const nk_batch_tile *tile = m->tile;
    uint32_t k;
    if (tile == NULL) return;
    for (k = 0; k < m->n_tensors; k++) {
        nk_tensor_rt *t = &tile->tensors[k];
        const uint32_t n = (uint32_t)t->dims[0];
        if (tile->role[k] >= NK_TILE_EDGE_IN) nk_tile_shrink(t, n, n / tile->chunks);
    }
}

void nk_batch_tile_slide(nk_context_t *c, const nk_batch_tile *tile, int32_t chunks) {
    uint32_t k;
    for (k = 0; k < c->model->n_tensors; k++)
        if (tile->role[k] >= NK_TILE_EDGE_IN)
            c->data[k] = (uint8_t *)c->data[k] + (ptrdiff_t)chunks * (ptrdiff_t)nk_tensor_bytes(&tile->tensors[k]);
}

#endif /* NETKIT_HOST_KERNELS */

/*
 * model.h — the loaded model and its execution contexts (opaque in the
 * public API). Everything here lives in the caller's arena.
 *
 * A model is read-only once loaded: tensors, ops (with their op table
 * entries), the activation plan and the workspace size. A context holds
 * what one invoke writes: the activation block, the workspace and a data
 * pointer per tensor (constant payload or activation slot).
 */
#ifndef NK_MODEL_H
#define NK_MODEL_H

#include "format.h"
#include "plan.h"

/* Fold batch-norms left in the file into the producing conv/dense at load
 * (about 1 KB of code). Off, such a BN runs as its op: same results, a
 * little slower; `netkit convert` output never has one. */
#ifndef NETKIT_LOAD_FOLD_BN
#if defined(NETKIT_MCU)
#define NETKIT_LOAD_FOLD_BN 0
#else
#define NETKIT_LOAD_FOLD_BN 1
#endif
#endif

/* Where the image bytes came from, which decides whether load may write. */
enum nk_image_kind {
    NK_IMAGE_BORROWED = 0, /* caller's buffer or flash: never written */
    NK_IMAGE_MAPPED = 1,   /* private file mapping: writes copy pages */
    NK_IMAGE_OWNED = 2     /* read into the arena: ours to write */
};

/* A model record's life: only READY models may be used. The record stays
 * in the arena after unload, so calls can still read this and refuse. */
enum nk_model_state {
    NK_MODEL_UNLOADED = 0, /* nk_model_unload ran (or not loaded yet) */
    NK_MODEL_SIZING = 1,   /* nk_model_arena_size's scratch: never handed out */
    NK_MODEL_READY = 2     /* loaded */
};

/* Bytes requested per category during load, for inspect's breakdown. */
typedef struct nk_load_stats {
    uint64_t structs;        /* model, tensor, op and context records */
    uint64_t copied_weights; /* arena copies made to fold batch-norm */
    uint64_t packed_weights; /* weights packed for the host kernels */
    uint64_t file_copy;      /* the image itself (copied into the arena) */
    uint64_t arena_bytes;    /* the load's arena peak from its first allocation */
    uint64_t model_bytes;    /* from there up to the activation block: the persistent records */
    size_t records_end;      /* arena->used where the records end (load's own bookkeeping) */
    uint32_t folded_bn;      /* batch-norm ops folded at load */
    /* load-time scratch: the most one phase took, from a 16-aligned start
     * (32 bits beside folded_bn: no growth of the model record on 64-bit;
     * a plan's offsets are 32-bit too) */
    uint32_t work_peak;
#if NETKIT_BACKEND
    uint64_t backend_heap;   /* host heap the backend's per-op state holds (outside the arena) */
#endif
} nk_load_stats;

struct nk_context_t {
    const nk_model_t *model;
    void **data; /* per tensor id */
    uint8_t *activations;
    void *workspace;
};

/* What of an op the load decides, the one per-op record in RAM: the rest
 * (type, counts, name, tensor ids, params) is the image's OPS record, read
 * in place into an nk_op_rt view when the op runs (nk_model_op_next).
 * A firmware keeps 4 B per op here and the plan's in_place byte per op
 * (nk_model_t.in_place: staged ops carry their band and slots in it). The
 * op's workspace is a load-time figure, not kept. */
typedef struct nk_op_state {
    const nk_op_def *def;        /* the op table entry chosen at load */
#if NETKIT_LOAD_FOLD_BN
    const uint32_t *in;          /* a folded conv's inputs with the bias added, else NULL */
#endif
#if NETKIT_BACKEND
    const struct nk_op_impl *impl; /* the backend's implementation, NULL: def->eval */
    void *impl_state;
#endif
#if NETKIT_HOST_KERNELS
    const void *host_packed;     /* weights packed for the host kernels, or NULL */
#endif
} nk_op_state;

#if NETKIT_HOST_KERNELS
/* A batch tile (batch_tile.c): ops first..last of a batch model, which
 * treat samples independently, run `chunks` times per invoke, each time on
 * the next batch / chunks samples. */
enum { NK_TILE_OUTSIDE = 0, NK_TILE_OWN = 1, NK_TILE_EDGE_IN = 2, NK_TILE_EDGE_OUT = 3 };
typedef struct nk_batch_tile {
    uint32_t first, last;
    uint32_t chunks;
    uint8_t *role;         /* per tensor: NK_TILE_OWN (made and read only in the tile), an
                            * edge (alive in it, made before it / read after it), or outside */
    nk_tensor_rt *tensors; /* the model's records, the tile's tensors at one chunk: what its ops see */
} nk_batch_tile;
#endif

struct nk_model_t {
    nk_image img;
    const nk_tensor_rt *tensors; /* the image's records (format 1.1) or an arena copy (1.0) */
    nk_op_state *ops;            /* per op, n_ops */
    uint8_t *in_place;           /* per op: nk_op_rt.in_place as the plan set it */
    uint32_t n_tensors;
    uint32_t n_ops;
    uint32_t kind;  /* nk_image_kind */
    uint32_t state; /* nk_model_state */
    nk_plan_stats plan;
    size_t workspace;         /* max over ops */
    int32_t workspace_op;     /* op asking for the most, or -1 */
    nk_context_t *ctx;        /* the default context */
    void *mapping;            /* NK_IMAGE_MAPPED: released by nk_model_unload */
    size_t mapping_len;
    nk_load_stats stats;
#if NETKIT_HOST_KERNELS
    const struct nk_host_kernels *host; /* chosen at load; NULL: portable kernels */
    const nk_batch_tile *tile;          /* NULL: every op runs over the whole batch */
#endif
};

/* The view of op k whose OPS record is at `rec`, with its load state;
 * returns the next op's record. Walking the ops in order from
 * nk_format_ops_begin costs nothing per op but these copies (inline: in
 * invoke they are the op loop's own instructions). */
static inline const uint8_t *nk_model_op_next(const nk_model_t *m, const uint8_t *rec, uint32_t k,
                                              nk_op_rt *op) {
    const nk_op_state *st = &m->ops[k];
    rec = nk_format_op_read(&m->img, rec, op);
    op->def = st->def;
    op->in_place = m->in_place[k];
    op->workspace = 0;
#if NETKIT_LOAD_FOLD_BN
    if (st->in != NULL) { /* out and params stay the record's */
        op->in = st->in;
        op->n_in = 3;
    }
#endif
#if NETKIT_BACKEND
    op->impl = st->impl;
    op->impl_state = st->impl_state;
#endif
#if NETKIT_HOST_KERNELS
    op->host_packed = st->host_packed;
#endif
    return rec;
}

/* The view of op k by index: a walk from the first record (messages,
 * inspect; invoke walks in order). Returns op. */
NK_HIDDEN const nk_op_rt *nk_model_op_at(const nk_model_t *m, uint32_t k, nk_op_rt *op);
/* Scratch bytes op (a view of this model's op) runs with: its kernel's,
 * the backend's or the host kernels' ask. */
NK_HIDDEN size_t nk_model_op_workspace(const nk_model_t *m, const nk_op_rt *op);
/* A view of the op walked at k (plan.h's nk_op_seq for a loading model):
 * nk_model_op_next with the op's workspace filled in. */
NK_HIDDEN const uint8_t *nk_model_plan_view(const nk_model_t *m, const uint8_t *rec, uint32_t k,
                                            nk_op_rt *op);

/* Runtime tensor id's offset in the activation block (model.c: the
 * default context's data table holds it). */
NK_HIDDEN uint32_t nk_model_act_offset(const nk_model_t *m, uint32_t id);
/* The activation-block bytes the invoke lends op as workspace (model.c). */
NK_HIDDEN size_t nk_context_room(const nk_context_t *c, const nk_op_rt *op);

#if NETKIT_HOST_KERNELS
/* batch_tile.c: finds m's batch tile, if any, before planning (m->tile,
 * from `a`; off with NETKIT_BATCH_TILES=0), and
 * after planning gives the ops' view of its edges their chunk's shape. */
NK_HIDDEN nk_status nk_batch_tile_find(nk_model_t *m, nk_arena_t *a, nk_error_t *err);
NK_HIDDEN void nk_batch_tile_planned(const nk_model_t *m);
/* Moves c's data slots of the tile's edges by `chunks` chunks' slices
 * (invoke moves them forward chunk by chunk, then back to the start). */
NK_HIDDEN void nk_batch_tile_slide(nk_context_t *c, const nk_batch_tile *tile, int32_t chunks);
#endif

#if defined(NETKIT_OP_MARKERS) && NETKIT_OP_MARKERS
/* The bench runner's build only (model.c): nk_model_invoke with a call to
 * nk_op_marker_begin(k) before and nk_op_marker_end(k) after each op k.
 * The program defines the two markers (cmake/cross/bench_runner.c). */
void nk_op_marker_begin(uint32_t k);
void nk_op_marker_end(uint32_t k);
NK_HIDDEN nk_status nk_context_invoke_op_markers(nk_context_t *c, nk_error_t *err);
NK_HIDDEN nk_status nk_model_invoke_op_markers(nk_model_t *m, nk_error_t *err);
#endif

#endif /* NK_MODEL_H */

/*
 * inspect_test.c — nk_inspect_model's figures: the exactness contract
 * (an arena of arena_after_load bytes loads and runs, one byte less fails
 * with correct figures), the breakdown adding up, and hand-computed values
 * for mlp.nk and tiny_relu.nk; nk_model_arena_size's exactness for every
 * load mode and every committed model. Every arena here is an exact-size
 * heap block, so an overrun is an ASan report.
 *
 * The overlap check (check_overlap): every model is loaded with overlap
 * planning on and off; each plan is simulated byte by byte (an owner per
 * activation byte; for each op, in its kernels' write order, no byte of a
 * tensor still to be read is overwritten), and both plans' outputs are
 * compared byte for byte on the same random inputs. Extra model
 * directories may be given as arguments (scripts/int8-cross.sh's models).
 */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ops/ops_common.h" /* window params of the ops the overlap check walks */
#if NETKIT_HOST_KERNELS
#include "kernels/host/host.h"
#endif
#include "testutil.h"

static uint8_t *model_bytes(const char *name, size_t *len) {
    char path[512];
    uint8_t *b;
    snprintf(path, sizeof path, "%s/%s.nk", NK_MODELS_DIR, name);
    b = nkt_read_file(path, len);
    if (b == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return b;
}

#if !(defined(NETKIT_BACKEND) && NETKIT_BACKEND)
/* What inspect must name for a float op without a backend: the host ISA
 * set the load picks (NETKIT_HOST_ISA when ctest forces one; else the best
 * this CPU has), or "portable". The test models are all float. */
static const char *nkt_expected_impl(void) {
#if defined(NETKIT_HOST_KERNELS) && NETKIT_HOST_KERNELS
    const char *isa = getenv("NETKIT_HOST_ISA");
    if (isa != NULL && isa[0] != '\0') return isa;
#if defined(__aarch64__)
    return "neon";
#else
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) return "avx2";
    return __builtin_cpu_supports("avx512vnni") ? "avx512vnni" : "avx512";
#endif
#else
    return "portable";
#endif
}
#endif

static void check_model(const char *name, int sequential) {
    size_t len;
    uint8_t *img = model_bytes(name, &len), *mem;
    nk_report_t rep;
    nk_op_info_t rows[64];
    nk_error_t err;
    nk_arena_t arena;
    nk_model_t *m;
    uint64_t sum, need;
    int32_t k, overlaps;

    NKT_CHECK(nk_inspect_model(img, len, &rep, rows, 64, &err) == NK_OK, "%s: %s", name, err.message);
    need = rep.arena_after_load;
    fprintf(stderr,
            "%s: arena %llu B (model %llu + context %llu), activations %llu (LB %llu, ping-pong %llu), "
            "workspace %llu, flash %llu, structs %llu, io %llu, padding %llu, copied %llu\n",
            name, (unsigned long long)need, (unsigned long long)rep.model_bytes,
            (unsigned long long)rep.context_bytes, (unsigned long long)rep.peak_activations,
            (unsigned long long)rep.activation_lower_bound, (unsigned long long)rep.pingpong_bytes,
            (unsigned long long)rep.workspace, (unsigned long long)rep.flash_payload,
            (unsigned long long)rep.bytes_structs, (unsigned long long)rep.bytes_io,
            (unsigned long long)rep.bytes_padding, (unsigned long long)rep.bytes_copied_weights);
    sum = rep.bytes_structs + rep.bytes_activations + rep.bytes_io + rep.bytes_workspace +
          rep.bytes_copied_weights + rep.bytes_padding;
    NKT_CHECK(sum == need, "%s: breakdown sums to %llu, not %llu", name, (unsigned long long)sum,
              (unsigned long long)need);
    NKT_CHECK(rep.arena_after_forward == need, "%s: invoke grew the arena", name);
    /* the planner's scratch is rewound before the context is made; on a
     * tiny model it can reach higher than the context does, and the gap is
     * counted in bytes_padding */
    NKT_CHECK(rep.model_bytes + rep.context_bytes <= need &&
                  need - (rep.model_bytes + rep.context_bytes) <= rep.bytes_padding,
              "%s: model + context vs total", name);
    NKT_CHECK(rep.bytes_activations + rep.bytes_io == rep.peak_activations, "%s: activation split", name);
    overlaps = 0;
    for (k = 0; k < rep.num_ops && k < 64; k++) overlaps += rows[k].in_place >= 2; /* 3: staged rows */
    /* only an output over its dying input goes below the bound */
    NKT_CHECK(rep.peak_activations >= rep.activation_lower_bound || overlaps > 0,
              "%s: below the lower bound?", name);
    if (sequential) {
        NKT_CHECK(rep.peak_activations == rep.activation_lower_bound || overlaps > 0,
                  "%s: sequential model misses LB", name);
        NKT_CHECK(rep.peak_activations <= rep.pingpong_bytes, "%s: above ping-pong", name);
    }
    NKT_CHECK(rep.file_bytes == len, "%s: file bytes", name);
    NKT_CHECK(rep.bytes_workspace == rep.workspace, "%s: workspace", name);
    /* what runs each op: netkit's kernels, or the build's backend (csrc/backend.h) */
    for (k = 0; k < rep.num_ops && k < 64; k++) {
#if defined(NETKIT_BACKEND) && NETKIT_BACKEND
        NKT_CHECK(rows[k].impl[0] != '\0', "%s: op %d names no implementation", name, (int)k);
#else
        NKT_CHECK(strcmp(rows[k].impl, nkt_expected_impl()) == 0, "%s: op %d runs on \"%s\", expected \"%s\"",
                  name, (int)k, rows[k].impl, nkt_expected_impl());
        NKT_CHECK(rep.backend_heap_bytes == 0, "%s: backend heap without a backend", name);
#endif
    }

    /* exactly the reported size: loads and runs */
    mem = nkt_alloc_aligned((size_t)need);
    nk_arena_init(&arena, mem, (size_t)need);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s: exact size: %s", name,
              err.message);
    if (m != NULL) {
        NKT_CHECK(nk_model_invoke(m, &err) == NK_OK, "%s: invoke: %s", name, err.message);
        NKT_CHECK(nk_arena_high_water(&arena) == need, "%s: high water", name);
        /* every record the loader keeps (no folded op in these models lacks a bias,
         * so no extra input lists) */
        /* tensor records: none for a format 1.1 file (read in place), a
         * copy for 1.0; a word per tensor and per op for the batch-norm fold's index */
        uint32_t k, has_bn = 0;
        for (k = 0; k < m->n_ops; k++) has_bn |= m->ops[k].def->type == NK_OP_BATCH_NORM;
        NKT_CHECK(rep.bytes_structs == sizeof(nk_model_t) +
                                           (nk_format_tensors_in_place(&m->img) ? 0 : m->n_tensors * sizeof(nk_tensor_rt)) +
                                           m->n_tensors * sizeof(void *) +
                                           (NETKIT_LOAD_FOLD_BN && has_bn ? (m->n_tensors + m->n_ops) * 4u : 0u) +
                                           m->n_ops * (sizeof(nk_op_state) + 1u) + sizeof(nk_context_t),
                  "%s: structs %llu", name, (unsigned long long)rep.bytes_structs);
    }
    free(mem);
    /* one byte less: fails, and says how much was missing */
    mem = nkt_alloc_aligned((size_t)need - 1);
    nk_arena_init(&arena, mem, (size_t)need - 1);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_ERR_ARENA_OVERFLOW,
              "%s: size-1 must fail", name);
    NKT_CHECK(err.capacity == need - 1 && err.requested > err.free_bytes &&
                  strncmp(err.message, "arena overflow: ", 16) == 0,
              "%s: figures %s", name, err.message);
    /* the last allocation misses by exactly one byte */
    NKT_CHECK(err.requested == err.free_bytes + 1, "%s: short by %llu B, expected 1: %s", name,
              (unsigned long long)(err.requested - err.free_bytes), err.message);
    free(mem);

    /* per-op rows */
    NKT_CHECK(rep.num_ops > 0 && rep.num_ops <= 64, "%s: ops", name);
    {
        uint64_t macs = 0, params = 0;
        for (k = 0; k < rep.num_ops; k++) {
            NKT_CHECK(rows[k].index == k && rows[k].op[0] != '\0', "%s: row %d", name, k);
            NKT_CHECK(rows[k].act_offset + rows[k].act_bytes <= rep.peak_activations, "%s: row %d slot", name, k);
            macs += rows[k].macs;
            params += rows[k].param_bytes;
        }
        NKT_CHECK(macs == rep.macs && params == rep.param_bytes, "%s: totals", name);
    }
    /* a misaligned caller buffer still inspects (inspect copies) */
    {
        uint8_t *mis = nkt_alloc_aligned(len + 1);
        nk_report_t rep2;
        memcpy(mis + 1, img, len);
        NKT_CHECK(nk_inspect_model(mis + 1, len, &rep2, NULL, 0, &err) == NK_OK &&
                      rep2.arena_after_load == need,
                  "%s: misaligned inspect", name);
        free(mis);
    }
    free(img);
}

/* Loads `path` in `mode` (NK_LOAD_*) into `arena`. */
static nk_status load_mode(nk_model_t **m, uint32_t mode, const char *path, const uint8_t *img,
                           size_t len, nk_arena_t *arena, nk_error_t *err) {
    if (mode == NK_LOAD_BUFFER) return nk_model_load_buffer(m, img, len, arena, err);
    return nk_model_load_file_ex(m, path, mode, arena, err);
}

/* nk_model_arena_size, for every load mode: an arena of exactly that many
 * bytes loads and runs, one byte less fails by exactly one byte; sizing in
 * a caller's arena (the firmware way) gives the same figure, rewinds it and
 * never reaches higher; the image is never written. */
static void check_arena_size(const char *path) {
    size_t len, need, need2;
    uint8_t *img = nkt_read_file(path, &len), *orig, *mem;
    uint32_t mode;
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    nk_report_t rep;
    if (img == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        nkt_failures++;
        return;
    }
    orig = nkt_dup_aligned(img, len);
    for (mode = NK_LOAD_BUFFER; mode <= NK_LOAD_COPY; mode++) {
        need = need2 = 0;
        NKT_CHECK(nk_model_arena_size(img, len, mode, NULL, &need, &err) == NK_OK, "%s mode %u: %s", path,
                  mode, err.message);
        if (need == 0) continue;
        mem = nkt_alloc_aligned(need);
        nk_arena_init(&arena, mem, need);
        NKT_CHECK(nk_model_arena_size(img, len, mode, &arena, &need2, &err) == NK_OK && need2 == need,
                  "%s mode %u: sized in the arena: %zu vs %zu: %s", path, mode, need2, need, err.message);
        NKT_CHECK(nk_arena_used(&arena) == 0 && nk_arena_high_water(&arena) <= need,
                  "%s mode %u: sizing left %zu B, reached %zu", path, mode, nk_arena_used(&arena),
                  nk_arena_high_water(&arena));
        NKT_CHECK(load_mode(&m, mode, path, img, len, &arena, &err) == NK_OK, "%s mode %u: exact %zu B: %s",
                  path, mode, need, err.message);
        if (m != NULL) {
            NKT_CHECK(nk_arena_high_water(&arena) == need, "%s mode %u: high water %zu of %zu", path, mode,
                      nk_arena_high_water(&arena), need);
            NKT_CHECK(nk_model_report(m, &rep, NULL, 0) == NK_OK && rep.arena_after_load == need,
                      "%s mode %u: report says %llu", path, mode, (unsigned long long)rep.arena_after_load);
            NKT_CHECK(nk_model_invoke(m, &err) == NK_OK, "%s mode %u: invoke: %s", path, mode, err.message);
            nk_model_unload(m);
        }
        free(mem);
        mem = nkt_alloc_aligned(need - 1);
        nk_arena_init(&arena, mem, need - 1);
        NKT_CHECK(load_mode(&m, mode, path, img, len, &arena, &err) == NK_ERR_ARENA_OVERFLOW &&
                      err.requested == err.free_bytes + 1 && nk_arena_used(&arena) == 0,
                  "%s mode %u: %zu B must fail by one byte: %s", path, mode, need - 1, err.message);
        free(mem);
    }
    NKT_CHECK(memcmp(img, orig, len) == 0, "%s: sizing wrote into the image", path);
    NKT_CHECK(nk_model_arena_size(img, len, 3, NULL, &need, &err) == NK_ERR_ARG, "unknown mode");
    free(orig);
    free(img);
}

/* Bytes the host kernels pack mlp.nk's two dense layers into: panels of
 * as many output features as the ISA's vector has floats, zero-padded, by
 * the input features (csrc/kernels/host/host_dense.c). */
static uint64_t mlp_packed_bytes(const nk_op_info_t *rows) {
#if NETKIT_HOST_KERNELS
    const struct nk_host_kernels *h = NULL;
    nk_error_t err;
    uint64_t vl;
    if (nk_host_select(&h, &err) != NK_OK || h == NULL) return 0;
    if (strcmp(rows[0].impl, h->name) != 0) return 0; /* a backend runs the dense layers */
    vl = strncmp(h->name, "avx512", 6) == 0 ? 16 : strcmp(h->name, "avx2") == 0 ? 8 : 4;
    return 4u * vl * (64u * ((32u + vl - 1) / vl) + 32u * ((10u + vl - 1) / vl));
#else
    (void)rows;
    return 0;
#endif
}

/* mlp.nk: input [1,64] -> fc1 [32] -> fc2 [10] -> softmax [10]. */
static void test_mlp_hand(void) {
    size_t len;
    uint8_t *img = model_bytes("mlp", &len);
    nk_report_t rep;
    nk_op_info_t rows[3];
    nk_error_t err;
    NKT_CHECK(nk_inspect_model(img, len, &rep, rows, 3, &err) == NK_OK, "%s", err.message);
    /* live at op 0: input 256 B + fc1 128 B; op 1: 128 + 48; op 2: 48 + 48 */
    NKT_CHECK(rep.activation_lower_bound == 384 && rep.peak_activations == 384, "LB %llu peak %llu",
              (unsigned long long)rep.activation_lower_bound, (unsigned long long)rep.peak_activations);
    NKT_CHECK(rep.pingpong_bytes == 512, "ping-pong 2 x 256");
    /* I/O: input 256 + softmax 48 (16-rounded 40), less any overlap: the
     * input is dead when softmax writes, so its slot may be reused */
    NKT_CHECK(rep.bytes_io >= 256 && rep.bytes_io <= 304 && rep.bytes_activations == 384 - rep.bytes_io,
              "io %llu act %llu", (unsigned long long)rep.bytes_io,
              (unsigned long long)rep.bytes_activations);
    NKT_CHECK(rep.bytes_padding < 16u * 8u, "mlp: padding %llu is only alignment",
              (unsigned long long)rep.bytes_padding);
    NKT_CHECK(rep.param_bytes == 4u * (32u * 64u + 32u + 10u * 32u + 10u), "params %llu",
              (unsigned long long)rep.param_bytes);
    NKT_CHECK(rep.flash_payload == rep.param_bytes && rep.bytes_copied_weights == mlp_packed_bytes(rows),
              "all in place, but for %llu B packed for the host kernels",
              (unsigned long long)rep.bytes_copied_weights);
    NKT_CHECK(rows[0].macs == 32u * 64u && rows[1].macs == 10u * 32u, "dense MACs %llu %llu",
              (unsigned long long)rows[0].macs, (unsigned long long)rows[1].macs);
    NKT_CHECK(strcmp(rows[0].op, "dense") == 0 && strcmp(rows[0].name, "fc1") == 0, "row 0 names");
    NKT_CHECK(rows[0].out_rank == 2 && rows[0].out_dims[1] == 32 && rows[0].in_dims[1] == 64, "row 0 dims");
    NKT_CHECK(rows[1].act_bytes == 40 && rows[2].act_bytes == 40, "act bytes");
    NKT_CHECK(rep.num_tensors == 8 && rep.num_inputs == 1 && rep.num_outputs == 1, "counts");
    free(img);
}

/* tiny_relu.nk: relu over the graph input runs in place: one 64 B slot. */
static void test_tiny_relu_hand(void) {
    size_t len;
    uint8_t *img = model_bytes("tiny_relu", &len);
    nk_report_t rep;
    nk_op_info_t row;
    nk_error_t err;
    NKT_CHECK(nk_inspect_model(img, len, &rep, &row, 1, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(row.in_place == 1 && rep.peak_activations == 64 && rep.bytes_io == 64 &&
                  rep.bytes_activations == 0,
              "relu in place: peak %llu", (unsigned long long)rep.peak_activations);
    free(img);
}

/* ---- overlap: a byte-by-byte simulation of the plan ---- */

typedef struct sim {
    const nk_model_t *m;
    nk_op_rt *ops;    /* views of the ops (records and the load's marks) */
    uint32_t *owner;  /* per activation byte: storage group, NK_NONE when free */
    uint32_t *group;  /* per tensor: its storage group (aliases and in-place share one) */
    uint32_t *death;  /* per group: last op reading it (n_ops for graph outputs) */
    const char *path;
    int bad;          /* failures reported for this model (capped) */
    uint32_t n_staged; /* ops simulated with staged rows */
} sim;

static int sim_runtime(const sim *s, uint32_t id) {
    return id != NK_NONE && id < s->m->n_tensors && !s->m->tensors[id].is_const;
}

static void sim_fail(sim *s, uint32_t k, const char *what, uint64_t byte) {
    if (s->bad++ < 5)
        NKT_CHECK(0, "%s: op %u (%s): %s at activation byte %llu", s->path, k,
                  s->ops[k].def ? s->ops[k].def->name : "?", what, (unsigned long long)byte);
    else
        nkt_failures++;
}

/* A read of tensor id's bytes [from, to): each must still hold id's group. */
static void sim_read(sim *s, uint32_t k, uint32_t id, uint64_t from, uint64_t to) {
    const uint64_t base = nk_model_act_offset(s->m, id);
    uint64_t b;
    for (b = from; b < to; b++)
        if (s->owner[base + b] != s->group[id]) {
            sim_fail(s, k, "reads a byte overwritten before its last read", base + b);
            return;
        }
}

/* Op k writes tensor id's bytes [from, to): none may belong to a group read
 * later, nor to one of op k's inputs other than `streamed` (whose order
 * sim_read checks). */
static void sim_write(sim *s, uint32_t k, uint32_t id, uint64_t from, uint64_t to, uint32_t streamed) {
    const nk_op_rt *op = &s->ops[k];
    const uint64_t base = nk_model_act_offset(s->m, id);
    uint64_t b;
    uint32_t j;
    for (b = from; b < to; b++) {
        const uint32_t o = s->owner[base + b];
        if (o != NK_NONE && o != s->group[id]) {
            if (s->death[o] > k) {
                sim_fail(s, k, "overwrites a live tensor", base + b);
                return;
            }
            for (j = 0; j < op->n_in; j++)
                if (sim_runtime(s, op->in[j]) && s->group[op->in[j]] == o && o != streamed) {
                    sim_fail(s, k, "overwrites an input it reads", base + b);
                    return;
                }
        }
        s->owner[base + b] = s->group[id];
    }
}

/* Output pixels a kernel may write ahead of the first pixel it still reads
 * (the op's NK_OVERLAP_BLOCK_*), and its window. */
static int32_t sim_block(const nk_op_rt *op, const nk_tensor_rt *t, nk_ops_window *win) {
    switch (op->type) {
    case NK_OP_CONV2D: nk_ops_conv_window(op, &t[op->in[1]], win); return NK_OVERLAP_BLOCK_CONV_F32;
    case NK_OP_DEPTHWISE_CONV2D: nk_ops_conv_window(op, &t[op->in[1]], win); return NK_OVERLAP_BLOCK_DW_F32;
    case NK_OP_CONV2D_I8: nk_ops_conv_window(op, &t[op->in[1]], win); return NK_OVERLAP_BLOCK_CONV_I8;
    case NK_OP_DEPTHWISE_CONV2D_I8: nk_ops_conv_window(op, &t[op->in[1]], win); return NK_OVERLAP_BLOCK_DW_I8;
    case NK_OP_MAX_POOL2D: case NK_OP_AVG_POOL2D: case NK_OP_MAX_POOL2D_I8: case NK_OP_AVG_POOL2D_I8:
        nk_ops_pool_window(op, win);
        return NK_OVERLAP_BLOCK_POOL;
    default: return 0;
    }
}

/* Reads every tap of output pixel (b, oy, ox) of op k (whole pixels). */
static void sim_read_window(sim *s, uint32_t k, const nk_ops_window *win, int64_t b, int64_t oy,
                            int64_t ox) {
    const nk_op_rt *op = &s->ops[k];
    const nk_tensor_rt *in = &s->m->tensors[op->in[0]];
    const uint64_t in_px = nk_tensor_bytes(in) / ((uint64_t)in->dims[0] * in->dims[1] * in->dims[2]);
    int64_t ky, kx;
    for (ky = 0; ky < win->k_h; ky++)
        for (kx = 0; kx < win->k_w; kx++) {
            const int64_t iy = oy * win->stride_h - win->pad_top + ky * win->dil_h;
            const int64_t ix = ox * win->stride_w - win->pad_left + kx * win->dil_w;
            uint64_t at;
            if (iy < 0 || iy >= in->dims[1] || ix < 0 || ix >= in->dims[2]) continue;
            at = (((uint64_t)b * in->dims[1] + (uint64_t)iy) * in->dims[2] + (uint64_t)ix) * in_px;
            sim_read(s, k, op->in[0], at, at + in_px);
        }
}

/* An op whose output overlaps input 0: raster order over the output
 * pixels; while pixel q's window is read, pixels up to q + block - 1 may
 * be written already (all their channels, the worst case for any order
 * inside a block). Every tap pixel read is read whole (all channels). */
static void sim_streamed(sim *s, uint32_t k) {
    const nk_op_rt *op = &s->ops[k];
    const nk_tensor_rt *t = s->m->tensors, *in = &t[op->in[0]], *out = &t[op->out[0]];
    nk_ops_window win;
    const int32_t block = sim_block(op, t, &win);
    const uint64_t out_px = nk_tensor_bytes(out) / ((uint64_t)out->dims[0] * out->dims[1] * out->dims[2]);
    const uint64_t n = (uint64_t)out->dims[0] * out->dims[1] * out->dims[2];
    uint64_t q, written = 0;
    NKT_CHECK(block > 0 && in->rank == 4 && out->rank == 4, "%s: op %u overlaps but has no raster order",
              s->path, k);
    if (block <= 0) return;
    for (q = 0; q < n; q++) {
        const uint64_t upto = q + (uint64_t)block < n ? q + (uint64_t)block : n;
        const int64_t b = (int64_t)(q / ((uint64_t)out->dims[1] * out->dims[2]));
        const int64_t oy = (int64_t)(q / (uint64_t)out->dims[2] % (uint64_t)out->dims[1]);
        const int64_t ox = (int64_t)(q % (uint64_t)out->dims[2]);
        if (upto > written) {
            sim_write(s, k, op->out[0], written * out_px, upto * out_px, s->group[op->in[0]]);
            written = upto;
        }
        sim_read_window(s, k, &win, b, oy, ox);
    }
}

/* An op staging its output rows (in_place 3; nk_i8_conv_stage gives the
 * bands and slots, this order is written independently of conv_i8.c's
 * loop): before band j's windows are read, band j - slots is written whole
 * to its place; the last bands after every read. */
static void sim_staged(sim *s, uint32_t k) {
    const nk_op_rt *op = &s->ops[k];
    const nk_tensor_rt *out = &s->m->tensors[op->out[0]];
    const uint64_t out_row = nk_tensor_bytes(out) / ((uint64_t)out->dims[0] * out->dims[1]);
    nk_ops_window win;
    nk_ref_conv_geom g;
    nk_i8_stage st;
    int64_t per_img, n, j, r, ox;
    sim_block(op, s->m->tensors, &win);
    nk_ops_conv_geom(op, s->m->tensors, &g);
    if (!nk_i8_conv_stage(&g, op->type == NK_OP_DEPTHWISE_CONV2D_I8, &st)) {
        NKT_CHECK(0, "%s: op %u marked staged cannot stage", s->path, k);
        return;
    }
    /* what the eval runs: the band and slots the load recorded */
    NKT_CHECK(nk_i8_stage_in_place_band(op->in_place) == st.band &&
                  nk_i8_stage_in_place_slots(op->in_place) == st.slots,
              "%s: op %u in_place 0x%x records band %d, %d slots; nk_i8_conv_stage says %d, %d", s->path, k,
              op->in_place, nk_i8_stage_in_place_band(op->in_place), nk_i8_stage_in_place_slots(op->in_place),
              st.band, st.slots);
    NKT_CHECK(s->m->workspace >= st.staging + op->workspace,
              "%s: op %u stages %zu B of rows ahead of its %u B, workspace %zu", s->path, k, st.staging,
              op->workspace, s->m->workspace);
    per_img = (g.out_h + st.band - 1) / st.band;
    n = (int64_t)g.batch * per_img;
    for (j = 0; j <= n + st.slots; j++) {
        const int64_t done = j - st.slots; /* the band leaving its slot */
        if (done >= 0 && done < n) {
            const int64_t img = done / per_img, r0 = (done % per_img) * st.band;
            const int64_t rows = g.out_h - r0 < st.band ? g.out_h - r0 : st.band;
            sim_write(s, k, op->out[0], (uint64_t)(img * g.out_h + r0) * out_row,
                      (uint64_t)(img * g.out_h + r0 + rows) * out_row, s->group[op->in[0]]);
        }
        if (j < n) {
            const int64_t img = j / per_img, r0 = (j % per_img) * st.band;
            for (r = r0; r < r0 + st.band && r < g.out_h; r++)
                for (ox = 0; ox < g.out_w; ox++) sim_read_window(s, k, &win, img, r, ox);
        }
    }
    s->n_staged++;
}

/* Returns the ops simulated with staged rows. */
static uint32_t sim_plan(const nk_model_t *m, const char *path) {
    sim s;
    uint32_t i, j, k;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.path = path;
    s.owner = (uint32_t *)malloc((size_t)(m->plan.peak + 1u) * sizeof *s.owner);
    s.group = (uint32_t *)malloc((size_t)m->n_tensors * sizeof *s.group);
    s.death = (uint32_t *)calloc((size_t)m->n_tensors, sizeof *s.death);
    /* views of the ops: the image's records with the load's marks */
    s.ops = (nk_op_rt *)calloc((size_t)m->n_ops + 1u, sizeof *s.ops);
    for (k = 0; k < m->n_ops; k++) nk_model_op_at(m, k, &s.ops[k]);
    for (i = 0; i < m->plan.peak; i++) s.owner[i] = NK_NONE;
    for (i = 0; i < m->n_tensors; i++) s.group[i] = i;
    for (k = 0; k < m->n_ops; k++)
        if (NK_IN_PLACE_KIND(s.ops[k].in_place) == 1) {
            NKT_CHECK(nk_model_act_offset(m, s.ops[k].out[0]) == nk_model_act_offset(m, s.ops[k].in[0]),
                      "%s: op %u in place at another offset", path, k);
            s.group[s.ops[k].out[0]] = s.group[s.ops[k].in[0]];
        }
    for (k = 0; k < m->n_ops; k++)
        for (j = 0; j < s.ops[k].n_in; j++)
            if (sim_runtime(&s, s.ops[k].in[j]) && s.death[s.group[s.ops[k].in[j]]] < k)
                s.death[s.group[s.ops[k].in[j]]] = k;
    for (i = 0; i < m->n_tensors; i++) {
        if (m->tensors[i].is_const) continue;
        NKT_CHECK(nk_model_act_offset(m, i) + (uint64_t)nk_tensor_bytes(&m->tensors[i]) <= m->plan.peak ||
                      nk_tensor_bytes(&m->tensors[i]) == 0,
                  "%s: tensor %u ends past the block", path, i);
        if (nk_format_io_flags(&m->img, i) & 2) s.death[s.group[i]] = m->n_ops;
        if (nk_format_io_flags(&m->img, i) & 1) sim_write(&s, 0, i, 0, nk_tensor_bytes(&m->tensors[i]), NK_NONE);
    }
    for (k = 0; k < m->n_ops && s.bad == 0; k++) {
        const nk_op_rt *op = &s.ops[k];
        for (j = 0; j < op->n_in; j++)
            if (sim_runtime(&s, op->in[j]) && (NK_IN_PLACE_KIND(op->in_place) < 2 || j > 0))
                sim_read(&s, k, op->in[j], 0, nk_tensor_bytes(&m->tensors[op->in[j]]));
        if (NK_IN_PLACE_KIND(op->in_place) == 2) {
            sim_streamed(&s, k);
            continue;
        }
        if (NK_IN_PLACE_KIND(op->in_place) == 3) {
            sim_staged(&s, k);
            continue;
        }
        for (j = 0; j < op->n_out; j++)
            if (NK_IN_PLACE_KIND(op->in_place) != 1 || j > 0)
                sim_write(&s, k, op->out[j], 0, nk_tensor_bytes(&m->tensors[op->out[j]]), NK_NONE);
    }
    for (i = 0; i < m->n_tensors && s.bad == 0; i++)
        if ((nk_format_io_flags(&m->img, i) & 2) && !m->tensors[i].is_const)
            sim_read(&s, m->n_ops - 1u, i, 0, nk_tensor_bytes(&m->tensors[i]));
    free(s.owner);
    free(s.group);
    free(s.death);
    free(s.ops);
    return s.n_staged;
}

/* Loads `path` into a heap arena of the exact size, overlap on or off. */
static nk_model_t *load_overlap(const char *path, uint32_t flags, uint8_t **mem) {
    nk_model_t *m = NULL;
    nk_arena_t arena;
    nk_error_t err;
    size_t len, need = 0;
    uint8_t *img = nkt_read_file(path, &len);
    *mem = NULL;
    if (img == NULL) return NULL;
    NKT_CHECK(nk_model_arena_size(img, len, NK_LOAD_COPY | flags, NULL, &need, &err) == NK_OK, "%s: %s",
              path, err.message);
    free(img);
    *mem = nkt_alloc_aligned(need);
    nk_arena_init(&arena, *mem, need);
    NKT_CHECK(nk_model_load_file_ex(&m, path, NK_LOAD_COPY | flags, &arena, &err) == NK_OK, "%s: %s", path,
              err.message);
    return m;
}

/* The room check: before each op, the bytes the invoke lends it below the
 * workspace (nk_context_room) are filled with 0xA5, from the timed
 * invoke's clock (called before and after each op). A room over a tensor
 * still to be read changes the outputs. */
typedef struct room_poison {
    nk_context_t *c;
    uint32_t calls, ops_poisoned;
} room_poison;

static uint32_t room_ops; /* ops whose room the check poisoned */

static uint64_t room_poison_clock(void *user) {
    room_poison *p = (room_poison *)user;
    const uint32_t k = p->calls++ / 2u;
    if (p->calls % 2u == 1u && k < p->c->model->n_ops) { /* before op k */
        nk_op_rt view;
        const size_t room = nk_context_room(p->c, nk_model_op_at(p->c->model, k, &view));
        memset((uint8_t *)p->c->workspace - room, 0xA5, room);
        p->ops_poisoned += room != 0;
    }
    return 0;
}

/* Overlap on and off: both plans simulate clean, the overlap plan is never
 * taller, and the outputs agree byte for byte on random inputs. Returns
 * the activation block with overlap (0 on a load failure). */
static uint64_t check_overlap(const char *path) {
    uint8_t *mem_on, *mem_off;
    nk_model_t *on = load_overlap(path, 0, &mem_on), *off = load_overlap(path, NK_LOAD_NO_OVERLAP, &mem_off);
    nkt_rng rng = {0x6f7665726c6170ull};
    uint64_t peak = 0;
    nk_error_t err;
    int32_t i;
    if (on != NULL && off != NULL) {
        uint32_t staged;
        peak = on->plan.peak;
        staged = sim_plan(on, path);
        sim_plan(off, path);
        NKT_CHECK(off->plan.n_overlap == 0,
                  "%s: overlap off still overlaps", path);
        NKT_CHECK(on->plan.peak <= off->plan.peak,
                  "%s: overlap %llu vs classic %llu", path, (unsigned long long)on->plan.peak,
                  (unsigned long long)off->plan.peak);
        nkt_fill_inputs(on, &rng);
        rng.s = 0x6f7665726c6170ull;
        nkt_fill_inputs(off, &rng);
        NKT_CHECK(nk_model_invoke(on, &err) == NK_OK, "%s: invoke: %s", path, err.message);
        NKT_CHECK(nk_model_invoke(off, &err) == NK_OK, "%s: invoke: %s", path, err.message);
        for (i = 0; i < nk_model_num_outputs(on); i++) {
            nk_tensor_t a, b;
            nk_model_output(on, i, &a);
            nk_model_output(off, i, &b);
            NKT_CHECK(a.bytes == b.bytes && memcmp(a.data, b.data, (size_t)a.bytes) == 0,
                      "%s: output %d differs with overlap planning", path, (int)i);
        }
#if NETKIT_HOST_KERNELS
        if (on->tile == NULL) /* a batch tile's ops run per chunk: other clock calls */
#endif
        {
            room_poison p = {0, 0, 0};
            uint64_t *ticks = calloc(on->n_ops + 1u, sizeof *ticks);
            p.c = on->ctx;
            rng.s = 0x6f7665726c6170ull;
            nkt_fill_inputs(on, &rng);
            NKT_CHECK(ticks != NULL && nk_context_invoke_timed(on->ctx, room_poison_clock, &p, ticks,
                                                               (int32_t)on->n_ops, &err) == NK_OK,
                      "%s: timed invoke: %s", path, err.message);
            for (i = 0; i < nk_model_num_outputs(on); i++) {
                nk_tensor_t a, b;
                nk_model_output(on, i, &a);
                nk_model_output(off, i, &b);
                NKT_CHECK(a.bytes == b.bytes && memcmp(a.data, b.data, (size_t)a.bytes) == 0,
                          "%s: output %d differs with each op's room poisoned (%u ops)", path, (int)i,
                          p.ops_poisoned);
            }
            room_ops += p.ops_poisoned;
            free(ticks);
        }
        fprintf(stderr,
                "%s: activations %llu B with overlap (%u ops, %u staged), workspace %zu B (%zu classic), "
                "%llu classic, lower bound %llu\n",
                path, (unsigned long long)on->plan.peak, on->plan.n_overlap, staged, on->workspace,
                off->workspace, (unsigned long long)off->plan.peak, (unsigned long long)on->plan.lower_bound);
    }
    if (on != NULL) nk_model_unload(on);
    if (off != NULL) nk_model_unload(off);
    free(mem_on);
    free(mem_off);
    return peak;
}

/* check_overlap over every .nk file of a directory; returns how many. */
static int check_overlap_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char path[1024];
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".nk") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_overlap(path);
        n++;
    }
    if (d != NULL) closedir(d);
    NKT_CHECK(d != NULL, "cannot open %s", dir);
    return n;
}

int main(int argc, char **argv) {
    int a;
    if (argc > 1) { /* extra model directories: the overlap check only */
        for (a = 1; a < argc; a++) check_overlap_dir(argv[a]);
        if (nkt_failures) fprintf(stderr, "inspect_test: %d failures\n", nkt_failures);
        return nkt_failures ? 1 : 0;
    }
    check_model("mlp", 1);
    check_model("tiny_relu", 1);
    check_model("cnn", 0);
    check_model("branch", 0);
    test_mlp_hand();
    test_tiny_relu_hand();
    {
        static const char *const models[] = {"models/mlp", "models/tiny_relu", "models/cnn",
                                             "models/branch", "fashion/mlp", "fashion/cnn_bn",
                                             "fashion/cnn_dw"};
        size_t i;
        for (i = 0; i < sizeof models / sizeof models[0]; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/../%s.nk", NK_MODELS_DIR, models[i]);
            check_arena_size(path);
            check_overlap(path);
        }
    }
    { /* the int8 models, converted from TFLite */
        DIR *d = opendir(NK_MODELS_DIR "/../models_i8");
        struct dirent *e;
        int n = 0;
        while (d != NULL && (e = readdir(d)) != NULL) {
            char path[512];
            size_t l = strlen(e->d_name);
            if (l < 4 || strcmp(e->d_name + l - 3, ".nk") != 0) continue;
            snprintf(path, sizeof path, "%s/../models_i8/%s", NK_MODELS_DIR, e->d_name);
            check_arena_size(path);
            check_overlap(path);
            n++;
        }
        if (d != NULL) closedir(d);
        fprintf(stderr, "arena size exact for %d int8 models\n", n);
    }
    NKT_CHECK(room_ops > 0, "no op had room to poison");
    fprintf(stderr, "room poisoned before %u ops, outputs unchanged\n", room_ops);
    if (nkt_failures) fprintf(stderr, "inspect_test: %d failures\n", nkt_failures);
    return nkt_failures ? 1 : 0;
}

/*
 * model_test.c — loading and running the committed test models
 * (testdata/models, built by the Go writer, expected outputs from
 * PyTorch): outputs, buffer and file loading, extra contexts, multi-input
 * runs, batch-norm folding at load (cnn.nk carries an unfolded BN), error
 * reports, metadata and the "invoke never allocates" rule; every call on
 * an unloaded model, failed file reads, and NK_LOAD_COPY surviving changes
 * to the file.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../cmake/cross/npy.h"
#include "model.h"
#include "testutil.h"

#define ARENA_BYTES (1u << 20)

typedef struct npy_file {
    uint8_t *bytes;
    nk_npy a;
} npy_file;

static int npy_load(const char *path, npy_file *f) {
    size_t len = 0;
    f->bytes = nkt_read_file(path, &len);
    if (f->bytes == NULL || nk_npy_parse(f->bytes, len, &f->a) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return 0;
}

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

/* Compares n floats against PyTorch's; returns the largest abs error. */
static float compare(const float *got, const nk_npy *want, size_t first, size_t n, const char *what) {
    size_t i;
    float worst = 0;
    for (i = 0; i < n; i++) {
        float w = nk_npy_f32(want, first + i), d = got[i] - w;
        if (d < 0) d = -d;
        if (d > worst) worst = d;
        NKT_CHECK(d <= 1e-4f + 1e-4f * (w < 0 ? -w : w), "%s[%zu]: got %g, PyTorch %g", what, i,
                  (double)got[i], (double)w);
        if (d > 1e-4f + 1e-4f * (w < 0 ? -w : w)) break;
    }
    return worst;
}

/* Runs every sample of a one-input, one-output model through nk_model_run. */
static void run_samples(nk_model_t *m, const char *name, const char *how) {
    char path[512];
    npy_file in, out;
    nk_tensor_t ti, to;
    size_t s, n_samples, in_n, out_n;
    float *buf, worst = 0;
    snprintf(path, sizeof path, "%s/%s.input.npy", NK_MODELS_DIR, name);
    npy_load(path, &in);
    snprintf(path, sizeof path, "%s/%s.expected.npy", NK_MODELS_DIR, name);
    npy_load(path, &out);
    NKT_CHECK(nk_model_input(m, 0, &ti) == NK_OK && nk_model_output(m, 0, &to) == NK_OK, "views");
    in_n = (size_t)ti.bytes / 4u;
    out_n = (size_t)to.bytes / 4u;
    n_samples = in.a.shape[0];
    NKT_CHECK(in.a.count == n_samples * in_n && out.a.count == n_samples * out_n,
              "%s: vector sizes match the model's tensors", name);
    buf = (float *)malloc(out_n * sizeof(float));
    for (s = 0; s < n_samples; s++) {
        nk_error_t err;
        char what[128];
        NKT_CHECK(nk_model_run(m, in.a.data + s * in_n * 4u, in_n * 4u, buf, out_n * 4u, &err) == NK_OK,
                  "%s run: %s", name, err.message);
        snprintf(what, sizeof what, "%s (%s) sample %zu", name, how, s);
        {
            float e = compare(buf, &out.a, s * out_n, out_n, what);
            if (e > worst) worst = e;
        }
    }
    fprintf(stderr, "%s (%s): %zu samples, max |error| vs PyTorch %.3g\n", name, how, n_samples,
            (double)worst);
    free(buf);
    free(in.bytes);
    free(out.bytes);
}

static void test_outputs(const char *name) {
    size_t len, used;
    uint8_t *img = model_bytes(name, &len), *orig = nkt_dup_aligned(img, len);
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    char path[512];

    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s: %s", name, err.message);
    if (m == NULL) return;
    used = nk_arena_used(&arena);
    NKT_CHECK(nk_arena_high_water(&arena) >= used, "high water");
    run_samples(m, name, "buffer");
    NKT_CHECK(nk_arena_used(&arena) == used, "%s: invoke allocated from the arena", name);
    NKT_CHECK(memcmp(img, orig, len) == 0, "%s: load or invoke wrote into the caller's image", name);
    NKT_CHECK(nk_model_num_ops(m) > 0 && nk_model_num_inputs(m) == 1 && nk_model_num_outputs(m) == 1,
              "counts");
    nk_model_unload(m);
    nk_arena_reset(&arena);

    snprintf(path, sizeof path, "%s/%s.nk", NK_MODELS_DIR, name);
    NKT_CHECK(nk_model_load_file(&m, path, &arena, &err) == NK_OK, "%s file: %s", name, err.message);
    if (m != NULL) {
        run_samples(m, name, NETKIT_MMAP ? "mmap" : "fread");
        nk_model_unload(m);
    }
    /* the file itself never changes, folding or not */
    {
        size_t len2;
        uint8_t *again = model_bytes(name, &len2);
        NKT_CHECK(len2 == len && memcmp(again, orig, len) == 0, "%s: file changed on disk", name);
        free(again);
    }
    nk_arena_free_heap(&arena);
    free(img);
    free(orig);
}

static uint8_t *op_record(uint8_t *img, size_t len, uint32_t k);

/* Runs sample 0 of cnn through `img`; returns the folded-BN count. */
static uint32_t cnn_run(uint8_t *img, size_t len, float *out, const char *what) {
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    npy_file in;
    uint32_t folded = 0;
    npy_load(NK_MODELS_DIR "/cnn.input.npy", &in);
    nkt_fix_crc(img, len);
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s: %s", what, err.message);
    if (m != NULL) {
        folded = m->stats.folded_bn;
        NKT_CHECK(nk_model_run(m, in.a.data, 16u * 16u * 3u * 4u, out, 40, &err) == NK_OK, "%s: %s", what,
                  err.message);
    }
    nk_arena_free_heap(&arena);
    free(in.bytes);
    return folded;
}

/* Folding against the batch-norm kernel: a finite act_max of 3e38 on the dw
 * conv changes no value but forbids folding, so the BN op runs. Both must
 * agree, with the dw bias and without it (then beta becomes the bias). */
static void test_bn_fold_vs_kernel(void) {
    size_t len;
    uint8_t *img = model_bytes("cnn", &len);
    float folded[10], kernel[10];
    uint32_t k, i;
    int bias;
    for (k = 0; k < 12 && op_record(img, len, k)[0] != 3; k++) {}
    for (bias = 1; bias >= 0; bias--) {
        uint8_t *a = nkt_dup_aligned(img, len), *b = nkt_dup_aligned(img, len);
        uint8_t *ra = op_record(a, len, k), *rb = op_record(b, len, k);
        float big = 3e38f;
        uint32_t bits;
        if (!bias) {
            nkt_wr32(ra + 12 + 8, 0xFFFFFFFFu);
            nkt_wr32(rb + 12 + 8, 0xFFFFFFFFu);
        }
        memcpy(&bits, &big, 4);
        nkt_wr32(rb + 12 + 4u * ((uint32_t)rb[2] + rb[3]) + 4u * 10u, bits);
        NKT_CHECK(cnn_run(a, len, folded, "fold") == NETKIT_LOAD_FOLD_BN, "dw -> bn folds (bias %d)", bias);
        NKT_CHECK(cnn_run(b, len, kernel, "kernel") == 0, "finite act_max keeps the BN op");
        for (i = 0; i < 10; i++)
            NKT_CHECK(folded[i] - kernel[i] <= 1e-5f * kernel[i] && kernel[i] - folded[i] <= 1e-5f * kernel[i],
                      "bias %d: folded %g vs BN kernel %g at %u", bias, (double)folded[i],
                      (double)kernel[i], i);
        if (getenv("NK_TEST_VERBOSE"))
            for (i = 0; i < 10; i++) fprintf(stderr, "bias %d [%u] %.9g %.9g\n", bias, i, (double)folded[i], (double)kernel[i]);
        free(a);
        free(b);
    }
    free(img);
}

#if !NETKIT_LOAD_FOLD_BN
/* Built without load-time folding: cnn.nk's BN runs as its op (its outputs
 * were checked against PyTorch by test_outputs), no weight is copied. */
static void test_bn_folding(void) {
    size_t len;
    uint8_t *img = model_bytes("cnn", &len);
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    uint32_t k, bn = 0;
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(m->stats.folded_bn == 0 && m->stats.copied_weights == 0, "nothing folded or copied");
    for (k = 0; k < m->n_ops; k++)
        if (m->ops[k].def->type == NK_OP_BATCH_NORM) bn = k;
    NKT_CHECK(bn > 0 && m->ops[bn].def->eval != NULL, "the BN op runs its kernel");
    nk_arena_free_heap(&arena);
    free(img);
}
#else
/* cnn.nk keeps dw -> bn unfolded: the loader folds it (arena copy for a
 * buffer, in the private image for a file) and the outputs above matched
 * PyTorch's unfolded graph. */
static void test_bn_folding(void) {
    size_t len;
    uint8_t *img = model_bytes("cnn", &len);
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    uint32_t k, bn = 0;
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(m->stats.folded_bn == 1, "one BN folded, got %u", m->stats.folded_bn);
    for (k = 0; k < m->n_ops; k++)
        if (m->ops[k].def->type == NK_OP_BATCH_NORM) bn = k;
    NKT_CHECK(bn > 0 && m->ops[bn].def->eval == NULL, "the BN op is folded (runs nothing)");
    {
        nk_op_rt bv;
        const nk_op_rt *b = nk_model_op_at(m, bn, &bv);
        NKT_CHECK(b->type == NK_OP_BATCH_NORM && NK_IN_PLACE_KIND(b->in_place) == 1, "op %u is the batch-norm, a view of the dw output", bn);
        NKT_CHECK(nk_model_act_offset(m, b->out[0]) == nk_model_act_offset(m, b->in[0]),
                  "folded BN is a view of the dw output: same slot");
    }
    /* copies: dw weights [1,3,3,8] = 288 B + bias 32 B */
    NKT_CHECK(m->stats.copied_weights > 0, "buffer load folds into arena copies");
    {
        nk_op_rt dv, bv;
        const nk_op_rt *dw = nk_model_op_at(m, bn - 1, &dv), *b = nk_model_op_at(m, bn, &bv);
        const uint8_t *w = (const uint8_t *)m->ctx->data[dw->in[1]];
        NKT_CHECK(w < img || w >= img + len, "folded weights live in the arena");
        NKT_CHECK(m->stats.copied_weights == nk_tensor_bytes(&m->tensors[dw->in[1]]) + 4u * (uint64_t)m->tensors[b->in[0]].dims[3],
                  "copied %llu B", (unsigned long long)m->stats.copied_weights);
    }
    nk_model_unload(m);
    nk_arena_reset(&arena);
#if NETKIT_MMAP
    NKT_CHECK(nk_model_load_file(&m, NK_MODELS_DIR "/cnn.nk", &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(m->stats.folded_bn == 1 && m->stats.copied_weights == 0, "mmap folds in place");
    nk_model_unload(m);
#endif
    nk_arena_free_heap(&arena);
    free(img);
}
#endif

/* branch.nk: 2 inputs, 2 outputs; through nk_context_run on two contexts. */
static void test_branch_contexts(void) {
    size_t len, before, expect_ctx;
    uint8_t *img = model_bytes("branch", &len);
    nk_arena_t arena, arena2;
    nk_model_t *m;
    nk_context_t *c1, *c2;
    nk_error_t err;
    npy_file in0, in1, ex0, ex1;
    nk_tensor_t v0, v1, o0, o1;
    float *out0, *out1;
    size_t s;

    npy_load(NK_MODELS_DIR "/branch.input0.npy", &in0);
    npy_load(NK_MODELS_DIR "/branch.input1.npy", &in1);
    npy_load(NK_MODELS_DIR "/branch.expected0.npy", &ex0);
    npy_load(NK_MODELS_DIR "/branch.expected1.npy", &ex1);
    nk_arena_init_heap(&arena, ARENA_BYTES);
    nk_arena_init_heap(&arena2, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(nk_model_num_inputs(m) == 2 && nk_model_num_outputs(m) == 2, "2 in, 2 out");
    NKT_CHECK(nk_model_input(m, 2, &v0) == NK_ERR_ARG && nk_model_input(m, -1, &v0) == NK_ERR_ARG,
              "index range");
    before = nk_arena_used(&arena);
    expect_ctx = nk_context_size(m);
    NKT_CHECK(nk_context_create(&c1, m, &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(nk_arena_used(&arena) - before == expect_ctx, "context took %zu B, nk_context_size says %zu",
              nk_arena_used(&arena) - before, expect_ctx);
    NKT_CHECK(nk_context_create(&c2, m, &arena2, &err) == NK_OK, "%s", err.message);
    nk_context_input(c1, 0, &v0);
    nk_context_input(c1, 1, &v1);
    nk_context_output(c1, 0, &o0);
    nk_context_output(c1, 1, &o1);
    NKT_CHECK(v0.rank == 4 && v0.dims[1] == 8 && v0.dims[2] == 8 && v0.dims[3] == 4 && v0.dtype == NK_F32,
              "input 0 is [1,8,8,4] f32");
    NKT_CHECK(o1.bytes == 4u * 64u, "output 1 is [1,4,4,4]");
    out0 = (float *)malloc(o0.bytes);
    out1 = (float *)malloc(o1.bytes);
    for (s = 0; s < (size_t)in0.a.shape[0]; s++) {
        const void *ins[2] = {in0.a.data + s * v0.bytes, in1.a.data + s * v1.bytes};
        size_t in_b[2] = {(size_t)v0.bytes, (size_t)v1.bytes};
        void *outs[2] = {out0, out1};
        size_t out_b[2] = {(size_t)o0.bytes, (size_t)o1.bytes};
        nk_context_t *c = (s & 1) ? c2 : c1;
        NKT_CHECK(nk_context_run(c, ins, in_b, outs, out_b, &err) == NK_OK, "%s", err.message);
        compare(out0, &ex0.a, s * (o0.bytes / 4u), o0.bytes / 4u, "branch out0");
        compare(out1, &ex1.a, s * (o1.bytes / 4u), o1.bytes / 4u, "branch out1");
        out_b[1] -= 4;
        NKT_CHECK(nk_context_run(c, ins, in_b, outs, out_b, &err) == NK_ERR_SHAPE, "short output buffer");
    }
    free(out0);
    free(out1);
    free(in0.bytes);
    free(in1.bytes);
    free(ex0.bytes);
    free(ex1.bytes);
    nk_arena_free_heap(&arena);
    nk_arena_free_heap(&arena2);
    free(img);
}

/* empty_io.nk: an empty input no op reads and an empty output no op makes.
 * Their views have 0 bytes, a run takes NULL (or any pointer) with 0 bytes
 * for them, and the other output is PyTorch's. */
static void test_empty_io(void) {
    size_t len;
    uint8_t *img = model_bytes("empty_io", &len);
    nk_arena_t arena;
    nk_model_t *m;
    nk_context_t *c;
    nk_error_t err;
    npy_file in0, ex0;
    nk_tensor_t x, e, y, z;
    float out[16], junk[4];
    size_t s;

    npy_load(NK_MODELS_DIR "/empty_io.input0.npy", &in0);
    npy_load(NK_MODELS_DIR "/empty_io.expected0.npy", &ex0);
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    if (m != NULL && nk_context_create(&c, m, &arena, &err) == NK_OK) {
        nk_context_input(c, 0, &x);
        nk_context_input(c, 1, &e);
        nk_context_output(c, 0, &y);
        nk_context_output(c, 1, &z);
        NKT_CHECK(e.rank == 2 && e.dims[0] == 4 && e.dims[1] == 0 && e.bytes == 0, "e is [4,0], 0 B");
        NKT_CHECK(z.rank == 2 && z.dims[0] == 2 && z.dims[1] == 0 && z.bytes == 0, "z is [2,0], 0 B");
        NKT_CHECK(x.bytes == sizeof out && y.bytes == sizeof out, "x and y are [1,16] f32");
        for (s = 0; s < (size_t)in0.a.shape[0]; s++) {
            const void *ins[2] = {in0.a.data + s * sizeof out, (s & 1) ? junk : NULL};
            size_t in_b[2] = {sizeof out, 0};
            void *outs[2] = {out, (s & 1) ? NULL : junk};
            size_t out_b[2] = {sizeof out, 0};
            NKT_CHECK(nk_context_run(c, ins, in_b, outs, out_b, &err) == NK_OK, "%s", err.message);
            compare(out, &ex0.a, s * 16u, 16u, "empty_io y");
            in_b[1] = 4;
            NKT_CHECK(nk_context_run(c, ins, in_b, outs, out_b, &err) == NK_ERR_SHAPE,
                      "4 B for the empty input");
        }
    }
    nk_model_unload(m);
    free(in0.bytes);
    free(ex0.bytes);
    nk_arena_free_heap(&arena);
    free(img);
}

/* Finds op k's record in an image (trusted: a committed model). */
static uint8_t *op_record(uint8_t *img, size_t len, uint32_t k) {
    uint32_t off, size, pos, i;
    nkt_find_section(img, len, 2, &off, &size);
    pos = off + 8;
    for (i = 0; i < k; i++) {
        uint8_t *r = img + pos;
        pos += 12u + 4u * ((uint32_t)r[2] + r[3] + (uint32_t)(r[8] | r[9] << 8));
    }
    return img + pos;
}

static uint8_t *tensor_record(uint8_t *img, size_t len, uint32_t id) {
    uint32_t off, size;
    nkt_find_section(img, len, 1, &off, &size);
    return img + off + 8u + 48u * id;
}

static void test_errors(void) {
    size_t len;
    uint8_t *img = model_bytes("mlp", &len), *bad;
    static uint8_t small[512] __attribute__((aligned(16)));
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    float in[64], out[10];
    uint8_t *r;

    /* unknown op type at op 1 */
    bad = nkt_dup_aligned(img, len);
    r = op_record(bad, len, 1);
    r[0] = 99;
    r[1] = 0;
    nkt_fix_crc(bad, len);
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, bad, len, &arena, &err) == NK_ERR_UNSUPPORTED, "unknown op");
    NKT_CHECK(err.op_index == 1 && strstr(err.message, "op 1 (type 99") != NULL, "names the op: %s",
              err.message);
    NKT_CHECK(nk_arena_used(&arena) == 0, "a failed load gives the arena back");
    free(bad);

    /* a shape the op's validate rejects: op 0's output gets a wrong dim */
    bad = nkt_dup_aligned(img, len);
    r = op_record(bad, len, 0);
    {
        uint32_t out_id = nkt_rd32(r + 12 + 4u * r[2]);
        uint8_t *t = tensor_record(bad, len, out_id);
        uint32_t rank = t[5], d = nkt_rd32(t + 8 + 4 * (rank - 1));
        nkt_wr32(t + 8 + 4 * (rank - 1), d + 1);
        /* and its element count (format 1.1), so the record itself is consistent */
        nkt_wr32(t + 44, nkt_rd32(t + 44) / d * (d + 1));
    }
    nkt_fix_crc(bad, len);
    NKT_CHECK(nk_model_load_buffer(&m, bad, len, &arena, &err) == NK_ERR_SHAPE, "bad shape: %s",
              err.message);
    NKT_CHECK(err.op_index == 0 && strncmp(err.message, "op 0 (dense", 11) == 0, "names op 0: %s",
              err.message);
    free(bad);

    /* misaligned image */
    bad = nkt_alloc_aligned(len + 4);
    memcpy(bad + 4, img, len);
    NKT_CHECK(nk_model_load_buffer(&m, bad + 4, len, &arena, &err) == NK_ERR_ALIGN, "misaligned");
    free(bad);

    /* arena overflow: what, how big, how much free */
    nk_arena_free_heap(&arena);
    nk_arena_init(&arena, small, sizeof small);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_ERR_ARENA_OVERFLOW, "overflow");
    NKT_CHECK(strncmp(err.message, "arena overflow: ", 16) == 0 && strstr(err.message, " B free") != NULL,
              "message: %s", err.message);
    NKT_CHECK(err.capacity == sizeof small && err.requested > err.free_bytes &&
                  err.free_bytes <= sizeof small,
              "figures: requested %llu free %llu", (unsigned long long)err.requested,
              (unsigned long long)err.free_bytes);
    NKT_CHECK(nk_arena_used(&arena) == 0, "rewound");

    /* wrong buffer sizes to run */
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    memset(in, 0, sizeof in);
    NKT_CHECK(nk_model_run(m, in, sizeof in - 4, out, sizeof out, &err) == NK_ERR_SHAPE, "short input");
    NKT_CHECK(nk_model_run(m, in, sizeof in, out, sizeof out + 4, &err) == NK_ERR_SHAPE, "long output");
    NKT_CHECK(nk_model_run(m, in, sizeof in, out, sizeof out, &err) == NK_OK, "right sizes");
    NKT_CHECK(nk_model_run(m, NULL, sizeof in, out, sizeof out, &err) == NK_ERR_ARG, "NULL input");
    NKT_CHECK(nk_model_load_buffer(NULL, img, len, &arena, &err) == NK_ERR_ARG, "NULL out");
    NKT_CHECK(nk_model_load_file(&m, "/nonexistent/x.nk", &arena, &err) == NK_ERR_IO &&
                  strstr(err.message, "/nonexistent/x.nk") != NULL,
              "missing file: %s", err.message);
    nk_arena_free_heap(&arena);
    free(img);
}

static void test_meta_version(void) {
    size_t len;
    uint8_t *img = model_bytes("cnn", &len);
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    nk_tensor_t t;
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(nk_model_meta(m, "producer") != NULL && strcmp(nk_model_meta(m, "producer"), "netkit testmodels") == 0,
              "producer meta");
    NKT_CHECK(nk_model_meta(m, "no such key") == NULL && nk_model_meta(m, NULL) == NULL, "absent key");
    NKT_CHECK(nk_model_input(m, 0, &t) == NK_OK && t.rank == 4 && t.dims[0] == 1 && t.dims[1] == 16 &&
                  t.dims[2] == 16 && t.dims[3] == 3 && t.bytes == 16u * 16u * 3u * 4u,
              "cnn input is [1,16,16,3]");
    NKT_CHECK(nk_abi_version() == NK_ABI_VERSION && strcmp(nk_version(), NK_VERSION_STRING) == 0, "version");
    NKT_CHECK(strcmp(nk_status_str(NK_ERR_ARENA_OVERFLOW), "arena overflow") == 0, "status name");
    NKT_CHECK(nk_dtype_size(NK_F32) == 4 && nk_dtype_size(NK_I16) == 2 && nk_dtype_size(NK_U8) == 1 &&
                  nk_dtype_size(NK_F16) == 2 && nk_dtype_size(NK_U64) == 8 && nk_dtype_size(NK_F64) == 8 &&
                  nk_dtype_size((nk_dtype)12) == 0 && strcmp(nk_dtype_str(NK_F16), "f16") == 0,
              "dtype sizes");
    nk_arena_free_heap(&arena);
    free(img);
}

/* After nk_model_unload every call on the model and on its contexts says
 * NK_ERR_STATE (or 0 / NULL where it returns a count or a pointer); a
 * mapped model's weights are gone, so before this an invoke crashed. */
static void check_unloaded(nk_model_t *m, nk_context_t *c, const char *how) {
    nk_tensor_t t;
    nk_error_t err;
    float in[64], out[10];
    const void *ins[1] = {in};
    void *outs[1] = {out};
    size_t in_b[1] = {sizeof in}, out_b[1] = {sizeof out};
    nk_context_t *c2 = NULL;
    nk_arena_t other;
    memset(in, 0, sizeof in);
    nk_arena_init_heap(&other, ARENA_BYTES);
    NKT_CHECK(nk_model_num_inputs(m) == 0 && nk_model_num_outputs(m) == 0 && nk_model_num_ops(m) == 0,
              "%s: counts of an unloaded model", how);
    NKT_CHECK(nk_model_meta(m, "producer") == NULL, "%s: meta", how);
    NKT_CHECK(nk_model_input(m, 0, &t) == NK_ERR_STATE && nk_model_output(m, 0, &t) == NK_ERR_STATE,
              "%s: views", how);
    memset(&err, 0, sizeof err);
    NKT_CHECK(nk_model_invoke(m, &err) == NK_ERR_STATE && err.status == NK_ERR_STATE &&
                  strstr(err.message, "unloaded") != NULL,
              "%s: invoke: %s", how, err.message);
    memset(&err, 0, sizeof err);
    NKT_CHECK(nk_model_run(m, in, sizeof in, out, sizeof out, &err) == NK_ERR_STATE &&
                  strstr(err.message, "unloaded") != NULL,
              "%s: run: %s", how, err.message);
    NKT_CHECK(nk_context_size(m) == 0, "%s: context size", how);
    NKT_CHECK(nk_context_create(&c2, m, &other, &err) == NK_ERR_STATE && c2 == NULL &&
                  nk_arena_used(&other) == 0,
              "%s: context_create: %s", how, err.message);
    NKT_CHECK(nk_context_input(c, 0, &t) == NK_ERR_STATE && nk_context_output(c, 0, &t) == NK_ERR_STATE,
              "%s: context views", how);
    memset(&err, 0, sizeof err);
    NKT_CHECK(nk_context_invoke(c, &err) == NK_ERR_STATE && strstr(err.message, "unloaded") != NULL,
              "%s: context invoke: %s", how, err.message);
    NKT_CHECK(nk_context_run(c, ins, in_b, outs, out_b, &err) == NK_ERR_STATE, "%s: context run", how);
    {
        nk_report_t rep;
        NKT_CHECK(nk_model_report(m, &rep, NULL, 0) == NK_ERR_STATE, "%s: report", how);
    }
    nk_model_unload(m); /* a second unload is a no-op */
    nk_arena_free_heap(&other);
}

static void test_unloaded(void) {
    size_t len;
    uint8_t *img = model_bytes("mlp", &len);
    nk_arena_t arena;
    nk_model_t *m;
    nk_context_t *c;
    nk_error_t err;
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(nk_context_create(&c, m, &arena, &err) == NK_OK, "%s", err.message);
    nk_model_unload(m);
    check_unloaded(m, c, "buffer");
    nk_arena_reset(&arena);
    NKT_CHECK(nk_model_load_file(&m, NK_MODELS_DIR "/mlp.nk", &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(nk_context_create(&c, m, &arena, &err) == NK_OK, "%s", err.message);
    nk_model_unload(m);
    check_unloaded(m, c, NETKIT_MMAP ? "mapped file" : "read file");
    nk_arena_free_heap(&arena);
    free(img);
}

/* A file that reads short: sysfs reports 4096 B and gives a few. The
 * failed read leaves the arena exactly as it was, in both load modes. */
static void test_failed_read_rewinds(void) {
    const char *path = "/sys/devices/system/cpu/online";
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    struct stat st;
    size_t used;
    uint32_t mode;
    if (stat(path, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "test_failed_read_rewinds: no %s, skipped\n", path);
        return;
    }
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_arena_alloc(&arena, 5, 1) != NULL, "a caller's allocation before the load");
    used = nk_arena_used(&arena);
    for (mode = NK_LOAD_FILE; mode <= NK_LOAD_COPY; mode++) {
        nk_status s = nk_model_load_file_ex(&m, path, mode, &arena, &err);
        NKT_CHECK(s != NK_OK && m == NULL, "mode %u: a short file loads?", mode);
        NKT_CHECK(nk_arena_used(&arena) == used, "mode %u: failed load left %zu B allocated: %s", mode,
                  nk_arena_used(&arena) - used, err.message);
    }
    /* the copy read the file and came up short */
    NKT_CHECK(nk_model_load_file_ex(&m, path, NK_LOAD_COPY, &arena, &err) == NK_ERR_IO &&
                  strstr(err.message, "short read from") != NULL,
              "short read: %s", err.message);
    NKT_CHECK(nk_model_load_file_ex(&m, path, NK_LOAD_BUFFER, &arena, &err) == NK_ERR_ARG, "buffer mode");
    nk_arena_free_heap(&arena);
}

/* NK_LOAD_COPY: the model keeps nothing of the file. Truncated, then
 * rewritten at the same size with other bytes, it runs as before (a
 * mapped model would die of SIGBUS or compute with the new bytes). cnn.nk
 * folds a batch-norm into its copied image. */
static void test_copy_survives_file_changes(void) {
    size_t len;
    uint8_t *img = model_bytes("cnn", &len);
    char path[] = "/tmp/nk_model_test_XXXXXX";
    int fd = mkstemp(path);
    FILE *f;
    nk_arena_t arena;
    nk_model_t *m;
    nk_error_t err;
    nk_report_t rep;
    size_t need = 0, i;
    NKT_CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    close(fd);
    f = fopen(path, "wb");
    NKT_CHECK(f != NULL && fwrite(img, 1, len, f) == len, "write %s", path);
    fclose(f);
    NKT_CHECK(nk_model_arena_size(img, len, NK_LOAD_COPY, NULL, &need, &err) == NK_OK, "%s", err.message);
    nk_arena_init_heap(&arena, need);
    NKT_CHECK(nk_model_load_file_ex(&m, path, NK_LOAD_COPY, &arena, &err) == NK_OK, "%s", err.message);
    if (m == NULL) return;
    NKT_CHECK(nk_model_report(m, &rep, NULL, 0) == NK_OK && rep.flash_payload == 0 &&
                  rep.bytes_copied_weights == len + m->stats.packed_weights &&
                  rep.arena_after_load == need,
              "copied image: flash %llu, copied %llu of %zu, arena %llu of %zu",
              (unsigned long long)rep.flash_payload, (unsigned long long)rep.bytes_copied_weights, len,
              (unsigned long long)rep.arena_after_load, need);
    NKT_CHECK(m->stats.folded_bn == NETKIT_LOAD_FOLD_BN && m->stats.copied_weights == 0,
              "folded in the copy, not into more copies");
    run_samples(m, "cnn", "copy");
    f = fopen(path, "wb"); /* truncated to 0 */
    fclose(f);
    run_samples(m, "cnn", "copy, file truncated");
    f = fopen(path, "wb");
    for (i = 0; i < len; i++) fputc((int)(i * 131u + 7u) & 0xFF, f);
    fclose(f);
    run_samples(m, "cnn", "copy, file rewritten");
    nk_model_unload(m);
    nk_arena_free_heap(&arena);
    remove(path);
    free(img);
}

/* A clock that advances 7 ticks per read: each op then takes exactly 7. */
static uint64_t counting_clock(void *user) {
    uint64_t *t = (uint64_t *)user;
    return *t += 7u;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* nk_context_invoke_timed / nk_model_profile: one time per op from the
 * caller's clock, outputs identical to a plain invoke, bad arguments refused. */
static void test_timed_invoke(void) {
    size_t len, k;
    uint8_t *img = model_bytes("cnn", &len);
    nk_arena_t arena;
    nk_model_t *m;
    nk_context_t *c;
    nk_error_t err;
    nk_tensor_t vi, vo, ci, co;
    uint64_t ticks[64], clock_state = 0, t0, t1, sum = 0;
    int32_t n;
    float *want;
    nk_arena_init_heap(&arena, ARENA_BYTES);
    NKT_CHECK(nk_model_load_buffer(&m, img, len, &arena, &err) == NK_OK, "%s", err.message);
    NKT_CHECK(nk_context_create(&c, m, &arena, &err) == NK_OK, "%s", err.message);
    n = nk_model_num_ops(m);
    NKT_CHECK(n > 2 && n < 64, "cnn has %d ops", (int)n);
    nk_model_input(m, 0, &vi);
    nk_model_output(m, 0, &vo);
    nk_context_input(c, 0, &ci);
    nk_context_output(c, 0, &co);
    for (k = 0; k < vi.bytes / 4u; k++) ((float *)vi.data)[k] = ((float *)ci.data)[k] = (float)(k % 13) * 0.1f;
    NKT_CHECK(nk_model_invoke(m, &err) == NK_OK, "%s", err.message);
    want = (float *)malloc(vo.bytes);
    memcpy(want, vo.data, vo.bytes);

    for (k = 0; k < 64; k++) ticks[k] = 99;
    NKT_CHECK(nk_context_invoke_timed(c, counting_clock, &clock_state, ticks, n, &err) == NK_OK, "%s",
              err.message);
    for (k = 0; k < (size_t)n; k++) NKT_CHECK(ticks[k] == 7u, "op %zu: %llu ticks, want 7", k, (unsigned long long)ticks[k]);
    NKT_CHECK(ticks[n] == 99u, "nothing written past the op count");
    NKT_CHECK(clock_state == 14u * (uint64_t)n, "two clock reads per op");
    NKT_CHECK(memcmp(co.data, want, vo.bytes) == 0, "timed invoke gives the plain invoke's outputs");

    NKT_CHECK(nk_context_invoke_timed(c, counting_clock, &clock_state, ticks, n - 1, &err) == NK_ERR_ARG &&
                  strstr(err.message, "room for") != NULL,
              "short op_ticks: %s", err.message);
    NKT_CHECK(nk_context_invoke_timed(c, NULL, NULL, ticks, n, &err) == NK_ERR_ARG, "NULL clock");
    NKT_CHECK(nk_context_profile(c, NULL, n, &err) == NK_ERR_ARG, "NULL op_ns");
    NKT_CHECK(nk_model_profile(NULL, ticks, n, &err) == NK_ERR_ARG, "NULL model");

    /* the host clock: every op's ns within the call's own wall time (an
     * input's contents do not survive an invoke: fill it again) */
    for (k = 0; k < vi.bytes / 4u; k++) ((float *)vi.data)[k] = (float)(k % 13) * 0.1f;
    t0 = now_ns();
    NKT_CHECK(nk_model_profile(m, ticks, n, &err) == NK_OK, "%s", err.message);
    t1 = now_ns();
    for (k = 0; k < (size_t)n; k++) sum += ticks[k];
    NKT_CHECK(sum > 0 && sum <= t1 - t0, "ops took %llu ns in a call of %llu ns", (unsigned long long)sum,
              (unsigned long long)(t1 - t0));
    NKT_CHECK(memcmp(vo.data, want, vo.bytes) == 0, "profile gives the plain invoke's outputs");
    nk_model_unload(m);
    NKT_CHECK(nk_model_profile(m, ticks, n, &err) == NK_ERR_STATE, "unloaded");
    free(want);
    nk_arena_free_heap(&arena);
    free(img);
}

/* Two MLPerf Tiny int8 models (AD and KWS) run one after another over one
 * shared activation block: each output must be the one the model gives
 * loaded on its own, whichever ran last; the arena is their records plus
 * the larger block, exactly (one byte less fails). */
static uint8_t *i8_model_bytes(const char *name, size_t *len) {
    char path[512];
    uint8_t *b;
    snprintf(path, sizeof path, "%s/%s.nk", NK_MODELS_I8_DIR, name);
    b = nkt_read_file(path, len);
    if (b == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return b;
}

/* Runs m on the input bytes `in` (its input 0 size) into out (output 0). */
static nk_status run_i8(nk_model_t *m, const uint8_t *in, uint8_t *out, nk_error_t *err) {
    nk_tensor_t ti, to;
    if (nk_model_input(m, 0, &ti) != NK_OK || nk_model_output(m, 0, &to) != NK_OK) return NK_ERR_STATE;
    return nk_model_run(m, in, ti.bytes, out, to.bytes, err);
}

/* Loads both shared into an arena of `cap` bytes and runs them; returns the
 * arena bytes used, or 0 when something did not fit. */
static size_t shared_pair(uint8_t *const img[2], const size_t len[2], uint8_t *const in[2],
                          uint8_t *const want[2], size_t cap, size_t *records, size_t *block_bytes) {
    nk_arena_t arena;
    nk_model_t *m[2];
    nk_error_t err;
    uint8_t *mem = nkt_alloc_aligned(cap), got[1024];
    void *block;
    size_t n = 0, used;
    int i, round;
    nk_arena_init(&arena, mem, cap);
    for (i = 0; i < 2; i++) {
        if (nk_model_load_buffer_shared(&m[i], img[i], len[i], &arena, &err) != NK_OK) {
            free(mem);
            return 0;
        }
        if (nk_model_activation_size(m[i]) > n) n = nk_model_activation_size(m[i]);
    }
    *records = nk_arena_used(&arena);
    *block_bytes = n;
    NKT_CHECK(run_i8(m[0], in[0], got, &err) == NK_ERR_STATE, "run before bind: %s", err.message);
    block = nk_arena_alloc(&arena, n, 16);
    if (block == NULL) {
        free(mem);
        return 0;
    }
    for (i = 0; i < 2; i++) {
        NKT_CHECK(nk_model_bind_activations(m[i], block, nk_model_activation_size(m[i]) - 1, &err) ==
                          NK_ERR_ARENA_OVERFLOW && strstr(err.message, "activation block") != NULL,
                  "a block one byte short is refused: %s", err.message);
        NKT_CHECK(nk_model_bind_activations(m[i], (uint8_t *)block + 1, n - 1, &err) == NK_ERR_ALIGN,
                  "a misaligned block is refused");
        NKT_CHECK(nk_model_bind_activations(m[i], block, n, &err) == NK_OK, "bind: %s", err.message);
    }
    /* A, B, A, B: each run overwrites the other's activations */
    for (round = 0; round < 4; round++) {
        nk_tensor_t to;
        i = round & 1;
        NKT_CHECK(run_i8(m[i], in[i], got, &err) == NK_OK, "shared run %d: %s", round, err.message);
        nk_model_output(m[i], 0, &to);
        NKT_CHECK(memcmp(got, want[i], to.bytes) == 0, "shared run %d: model %d's output differs", round, i);
    }
    used = nk_arena_used(&arena);
    for (i = 0; i < 2; i++) nk_model_unload(m[i]);
    free(mem);
    return used;
}

static void test_shared_activations(void) {
    static const char *const names[2] = {"mlperf_ad01_int8", "mlperf_kws_ref_model"};
    uint8_t *img[2], *in[2], *want[2];
    size_t len[2], alone[2], records = 0, block = 0, need, k;
    nkt_rng rng = {12345};
    int i;
    for (i = 0; i < 2; i++) {
        nk_arena_t arena;
        nk_model_t *m;
        nk_error_t err;
        nk_tensor_t ti, to;
        uint8_t *mem;
        img[i] = i8_model_bytes(names[i], &len[i]);
        NKT_CHECK(nk_model_arena_size(img[i], len[i], NK_LOAD_BUFFER, NULL, &alone[i], &err) == NK_OK,
                  "%s: arena_size: %s", names[i], err.message);
        mem = nkt_alloc_aligned(alone[i]);
        nk_arena_init(&arena, mem, alone[i]);
        NKT_CHECK(nk_model_load_buffer(&m, img[i], len[i], &arena, &err) == NK_OK, "%s: %s", names[i],
                  err.message);
        nk_model_input(m, 0, &ti);
        nk_model_output(m, 0, &to);
        NKT_CHECK(to.bytes <= 1024, "output fits the test's buffer");
        in[i] = (uint8_t *)malloc(ti.bytes);
        want[i] = (uint8_t *)malloc(to.bytes);
        for (k = 0; k < ti.bytes; k++) in[i][k] = (uint8_t)nkt_rand(&rng);
        NKT_CHECK(run_i8(m, in[i], want[i], &err) == NK_OK, "%s alone: %s", names[i], err.message);
        nk_model_unload(m);
        free(mem);
    }
    /* measure in a roomy arena, then the exact figure and one byte less */
    need = shared_pair(img, len, in, want, alone[0] + alone[1], &records, &block);
    /* plus the block's 16-byte alignment after the records (a 32-bit ABI's
     * records need not end on 16) */
    NKT_CHECK(need >= records + block && need < records + block + 16,
              "the arena holds the records and one block: %zu = %zu + %zu (+ alignment)", need,
              records, block);
    NKT_CHECK(shared_pair(img, len, in, want, need, &records, &block) == need, "exactly %zu B loads", need);
    NKT_CHECK(shared_pair(img, len, in, want, need - 1, &records, &block) == 0, "%zu B does not", need - 1);
    NKT_CHECK(need < alone[0] + alone[1], "shared %zu B < %zu + %zu B alone", need, alone[0], alone[1]);
    fprintf(stderr, "shared activations (AD + KWS): %zu B (records %zu + block %zu); alone %zu + %zu B\n",
            need, records, block, alone[0], alone[1]);
    for (i = 0; i < 2; i++) {
        free(img[i]);
        free(in[i]);
        free(want[i]);
    }
}

/* A load over two arenas (records in one, the activation block in the
 * other) of exactly the region figures runs as the model alone; one byte
 * less in either region fails, naming it, and leaves both as they were.
 * The figures sized in a caller's scratch arena (as firmware does) equal
 * inspect's, and the two regions together never take more than one arena.
 * Hello world is small enough that the load's scratch, not the activation
 * block, sets the activations region; AD's scratch (the planner's, over
 * its 11 run-time tensors, not its 47) fits in its 768 B block, so with
 * any kernels the block is the region (NETKIT_HOST_ISA=portable: no
 * workspace) and the one-arena load peaks at what stays in use. */
static void test_regions(const char *name) {
    nk_report_t rep;
    nk_error_t err;
    size_t len, k, rec_need = 0, act_need = 0, pair[4];
    uint8_t *img = i8_model_bytes(name, &len), *in, *want, *got, *smem;
    nk_arena_t alone_arena, scratch;
    nk_model_t *m;
    nk_tensor_t ti, to;
    size_t alone;
    int variant;
    nkt_rng rng = {777};
    NKT_CHECK(nk_inspect_model(img, len, &rep, NULL, 0, &err) == NK_OK, "inspect: %s", err.message);
    NKT_CHECK(rep.region_records > 0 && rep.region_activations > 0, "region figures");
    NKT_CHECK(nk_model_arena_size(img, len, NK_LOAD_BUFFER, NULL, &alone, &err) == NK_OK, "size");
    smem = nkt_alloc_aligned(alone);
    nk_arena_init(&scratch, smem, alone);
    NKT_CHECK(nk_model_region_sizes(img, len, &scratch, &rec_need, &act_need, &pair[2], &pair[3], &err) ==
                  NK_OK,
              "region sizes in a scratch arena of the one-arena need: %s", err.message);
    pair[0] = rec_need;
    pair[1] = act_need;
    NKT_CHECK(rec_need == rep.region_records && act_need == rep.region_activations,
              "scratch-sized regions %zu + %zu B equal inspect's", rec_need, act_need);
    NKT_CHECK(nk_arena_used(&scratch) == 0, "sizing rewinds its scratch");
    NKT_CHECK(rec_need + act_need <= alone, "two regions take no more than one arena");
    if (strcmp(name, "mlperf_ad01_int8") == 0)
        NKT_CHECK(act_need == (size_t)(rep.peak_activations + 15u) / 16u * 16u + (size_t)rep.workspace &&
                      alone == (rec_need + 15u) / 16u * 16u + act_need,
                  "AD: the load's scratch fits in the block (%zu B of activations region, "
                  "%zu + %zu = %zu B in one arena)", act_need, rec_need, act_need, alone);
    free(smem);
    {
        uint8_t *mem = nkt_alloc_aligned(alone);
        nk_arena_init(&alone_arena, mem, alone);
        NKT_CHECK(nk_model_load_buffer(&m, img, len, &alone_arena, &err) == NK_OK, "%s", err.message);
        nk_model_input(m, 0, &ti);
        nk_model_output(m, 0, &to);
        in = (uint8_t *)malloc(ti.bytes);
        want = (uint8_t *)malloc(to.bytes);
        got = (uint8_t *)malloc(to.bytes);
        for (k = 0; k < ti.bytes; k++) in[k] = (uint8_t)nkt_rand(&rng);
        NKT_CHECK(run_i8(m, in, want, &err) == NK_OK, "alone: %s", err.message);
        nk_model_unload(m);
        free(mem);
    }
    NKT_CHECK(pair[3] == (size_t)(rep.peak_activations + 15u) / 16u * 16u + (size_t)rep.workspace &&
                  pair[2] >= rec_need && act_need >= pair[3],
              "the second pair: %zu B of records with the scratch, the block of %zu B", pair[2], pair[3]);
    /* 0: exact; 1: records one byte short; 2: activations one byte short;
     * 3-5 the same with the scratch in the records region (the second pair) */
    for (variant = 0; variant < 6; variant++) {
        const size_t *p = variant < 3 ? pair : pair + 2;
        size_t rec = p[0] - (variant % 3 == 1), act = p[1] - (variant % 3 == 2);
        uint8_t *rmem = nkt_alloc_aligned(rec), *amem = nkt_alloc_aligned(act);
        nk_arena_t records, activations;
        nk_status s;
        nk_arena_init(&records, rmem, rec);
        nk_arena_init(&activations, amem, act);
        s = nk_model_load_buffer_regions(&m, img, len, &records, &activations, &err);
        if (variant % 3 == 0) {
            NKT_CHECK(s == NK_OK, "regions of %zu + %zu B: %s", rec, act, err.message);
            NKT_CHECK(s == NK_OK && run_i8(m, in, got, &err) == NK_OK && memcmp(got, want, to.bytes) == 0,
                      "regions: the output is the model's alone");
            NKT_CHECK(nk_arena_used(&activations) == nk_model_activation_size(m) &&
                          nk_arena_high_water(&activations) == act && nk_arena_high_water(&records) == rec,
                      "the activations region holds the block, the records region the records");
            if (s == NK_OK) nk_model_unload(m);
        } else {
            NKT_CHECK(s == NK_ERR_ARENA_OVERFLOW, "variant %d: one byte short fails", variant);
            /* the second pair's records one short: the fast region lacked
             * room for the scratch, and that is what is said */
            NKT_CHECK(strstr(err.message, variant == 4 && p[0] > rec_need ? "region: arena overflow"
                                          : variant % 3 == 1                ? "records region: arena overflow"
                                                                            : "activations region: arena overflow") != NULL,
                      "the message names the region: %s", err.message);
            NKT_CHECK(nk_arena_used(&records) == 0 && nk_arena_used(&activations) == 0,
                      "a failed load leaves both arenas as they were");
        }
        free(rmem);
        free(amem);
    }
    {
        nk_arena_t one;
        memset(&one, 0, sizeof one);
        NKT_CHECK(nk_model_load_buffer_regions(&m, img, len, &one, &one, &err) == NK_ERR_ARG,
                  "one arena as both regions is refused");
    }
    fprintf(stderr, "regions (%s): records %zu B + activations %zu B, or %zu + %zu B (the block); one arena %zu B\n",
            name, rec_need, act_need, pair[2], pair[3], alone);
    free(img);
    free(in);
    free(want);
    free(got);
}

int main(void) {
    test_outputs("mlp");
    test_outputs("cnn");
    test_outputs("tiny_relu");
    /* the GRU keyword spotter vs PyTorch (testdata/pytorch, beside the models dir) */
    test_outputs("../pytorch/kws_gru");
    test_bn_folding();
    test_bn_fold_vs_kernel();
    test_branch_contexts();
    test_empty_io();
    test_errors();
    test_meta_version();
    test_unloaded();
    test_failed_read_rewinds();
    test_copy_survives_file_changes();
    test_timed_invoke();
    test_shared_activations();
    test_regions("mlperf_kws_ref_model");
    test_regions("mlperf_ad01_int8");
    test_regions("tflm_hello_world_int8");
    if (nkt_failures) fprintf(stderr, "model_test: %d failures\n", nkt_failures);
    return nkt_failures ? 1 : 0;
}

/*
 * inspect_test.c — nk_inspect_model's figures: the exactness contract
 * (an arena of arena_after_load bytes loads and runs, one byte less fails
 * with correct figures), the breakdown adding up, and hand-computed values
 * for mlp.nk and tiny_relu.nk; nk_model_arena_size's exactness for every
 * load mode and every committed model. Every arena here is an exact-size
 * heap block, so an overrun is an ASan report.
 */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
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
    int32_t k;

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
    NKT_CHECK(rep.peak_activations >= rep.activation_lower_bound, "%s: below the lower bound?", name);
    if (sequential) {
        NKT_CHECK(rep.peak_activations == rep.activation_lower_bound, "%s: sequential model misses LB", name);
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
        NKT_CHECK(rep.bytes_structs == sizeof(nk_model_t) +
                                           m->n_tensors * (sizeof(nk_tensor_rt) + sizeof(void *)) +
                                           m->n_ops * sizeof(nk_op_rt) + sizeof(nk_context_t),
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

int main(void) {
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
            n++;
        }
        if (d != NULL) closedir(d);
        fprintf(stderr, "arena size exact for %d int8 models\n", n);
    }
    if (nkt_failures) fprintf(stderr, "inspect_test: %d failures\n", nkt_failures);
    return nkt_failures ? 1 : 0;
}

/*
 * bounded_test.c — loading is bounded work on hostile files: no path the
 * loader takes is quadratic in a count the file sets (docs/NK_FORMAT.md,
 * "Limits"). Each case builds an image of 10^5-scale counts shaped to hit
 * the worst case of a once-quadratic path (minutes of CPU before; well
 * under a second now) and loads it in a child process under a CPU-time
 * limit of 10 s: a child killed by SIGXCPU fails the case. No wall-clock
 * timing: the limit counts this process's CPU only, and is 10x to 100x
 * above what the bounded code needs even under ASan.
 *
 * The cases also check the figures of each load by hand: the planner's
 * peak on the hostile graphs, the folds done, the overlap still found.
 */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model.h"
#include "testutil.h"

#define CPU_LIMIT_S 10

/* ---- a minimal .nk writer (docs/NK_FORMAT.md), independent of the core ---- */

typedef struct nkb {
    uint8_t *tensors; /* 48 B records, data_offset relative to DATA until nkb_image */
    uint32_t n_tensors, cap_tensors;
    uint8_t *ops;
    size_t ops_len, ops_cap;
    uint32_t n_ops;
    uint32_t io[2][16], n_io[2];
    uint32_t data_len;
} nkb;

static void *grow(void *p, size_t n) {
    p = realloc(p, n);
    if (p == NULL) {
        fprintf(stderr, "bounded_test: out of memory\n");
        exit(1);
    }
    return p;
}

/* An f32 tensor of shape [n]; a constant gets a zeroed payload at
 * `data_rel` bytes into DATA (16-aligned). */
static uint32_t nkb_tensor(nkb *b, uint32_t n, int is_const, uint32_t data_rel) {
    uint8_t *r;
    if (b->n_tensors == b->cap_tensors) {
        b->cap_tensors = b->cap_tensors ? 2 * b->cap_tensors : 1024;
        b->tensors = grow(b->tensors, (size_t)b->cap_tensors * 48);
    }
    r = b->tensors + (size_t)b->n_tensors * 48;
    memset(r, 0, 48);
    nkt_wr32(r, 0xFFFFFFFFu); /* no name */
    r[4] = 1;                 /* f32 */
    r[5] = 1;
    nkt_wr32(r + 8, n);
    nkt_wr32(r + 32, 0xFFFFFFFFu);
    nkt_wr32(r + 40, 0xFFFFFFFFu);
    if (is_const) {
        r[6] = 1;
        nkt_wr32(r + 32, data_rel);
        nkt_wr32(r + 36, 4 * n);
        if (data_rel + 4 * n > b->data_len) b->data_len = (data_rel + 4 * n + 15) & ~15u;
    }
    return b->n_tensors++;
}

static void nkb_io(nkb *b, int is_output, uint32_t id) { b->io[is_output][b->n_io[is_output]++] = id; }

static void nkb_put32(nkb *b, uint32_t v) {
    if (b->ops_len + 4 > b->ops_cap) {
        b->ops_cap = b->ops_cap ? 2 * b->ops_cap : 4096;
        b->ops = grow(b->ops, b->ops_cap);
    }
    nkt_wr32(b->ops + b->ops_len, v);
    b->ops_len += 4;
}

/* One op, one output; params are f32. */
static void nkb_op(nkb *b, uint16_t type, uint32_t n_in, const uint32_t *in, uint32_t out,
                   uint32_t n_params, const float *params) {
    uint32_t j, w;
    nkb_put32(b, type | n_in << 16 | 1u << 24);
    nkb_put32(b, 0xFFFFFFFFu);
    nkb_put32(b, n_params);
    for (j = 0; j < n_in; j++) nkb_put32(b, in[j]);
    nkb_put32(b, out);
    for (j = 0; j < n_params; j++) {
        memcpy(&w, &params[j], 4);
        nkb_put32(b, w);
    }
    b->n_ops++;
}

/* The image: header, table, TENSORS, OPS, GRAPH, STRINGS, DATA. */
static uint8_t *nkb_image(nkb *b, size_t *len) {
    size_t t_off = 32 + 5 * 16, t_size = 8 + (size_t)b->n_tensors * 48;
    size_t o_off = t_off + t_size, o_size = 8 + b->ops_len;
    size_t g_off = o_off + o_size, g_size = 8 + 8 * (size_t)(b->n_io[0] + b->n_io[1]);
    size_t s_off = g_off + g_size, s_size = 4;
    size_t d_off = (s_off + s_size + 15) & ~(size_t)15, total = d_off + b->data_len;
    size_t kinds[5][3] = {{1, t_off, t_size}, {2, o_off, o_size}, {3, g_off, g_size},
                          {4, s_off, s_size}, {7, d_off, b->data_len}};
    uint8_t *img = nkt_alloc_aligned(total);
    uint32_t i, k;
    memset(img, 0, total);
    memcpy(img, "NKIT", 4);
    img[4] = 1;
    nkt_wr32(img + 12, (uint32_t)total);
    nkt_wr32(img + 16, 5);
    for (i = 0; i < 5; i++) {
        nkt_wr32(img + 32 + 16 * i, (uint32_t)kinds[i][0]);
        nkt_wr32(img + 36 + 16 * i, (uint32_t)kinds[i][1]);
        nkt_wr32(img + 40 + 16 * i, (uint32_t)kinds[i][2]);
    }
    nkt_wr32(img + t_off, b->n_tensors);
    memcpy(img + t_off + 8, b->tensors, (size_t)b->n_tensors * 48);
    for (i = 0; i < b->n_tensors; i++) {
        uint8_t *r = img + t_off + 8 + (size_t)i * 48;
        if (r[6]) nkt_wr32(r + 32, nkt_rd32(r + 32) + (uint32_t)d_off);
    }
    nkt_wr32(img + o_off, b->n_ops);
    memcpy(img + o_off + 8, b->ops, b->ops_len);
    nkt_wr32(img + g_off, b->n_io[0]);
    nkt_wr32(img + g_off + 4, b->n_io[1]);
    for (k = 0, i = 0; k < 2; k++) {
        uint32_t j;
        for (j = 0; j < b->n_io[k]; j++, i++) nkt_wr32(img + g_off + 8 + 8 * i, b->io[k][j]);
    }
    nkt_fix_crc(img, total);
    free(b->tensors);
    free(b->ops);
    memset(b, 0, sizeof *b);
    *len = total;
    return img;
}

static const float act_none[2] = {-INFINITY, INFINITY};

/* ---- running a case under the CPU limit ---- */

/* Loads the image into a heap arena; the model is the caller's to check.
 * Exits the child on failure. */
static nk_model_t *load(const uint8_t *img, size_t len, nk_arena_t *arena, nk_status want,
                        nk_error_t *err) {
    nk_model_t *m = NULL;
    nk_status s;
    if (nk_arena_init_heap(arena, (size_t)1 << 28) != NK_OK) {
        fprintf(stderr, "bounded_test: no 256 MiB arena\n");
        exit(1);
    }
    s = nk_model_load_buffer(&m, img, len, arena, err);
    NKT_CHECK(s == want, "load: %s (%s), want %s", nk_status_str(s), err->message,
              nk_status_str(want));
    return m;
}

/* Runs fn in a child limited to CPU_LIMIT_S seconds of CPU. */
static void run_bounded(const char *name, void (*fn)(void)) {
    pid_t pid;
    int status = 0;
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        struct rlimit lim = {CPU_LIMIT_S, CPU_LIMIT_S + 5};
        setrlimit(RLIMIT_CPU, &lim);
        fn();
        _exit(nkt_failures ? 1 : 0);
    }
    if (waitpid(pid, &status, 0) != pid) {
        perror("waitpid");
        exit(1);
    }
    if (WIFSIGNALED(status)) {
        NKT_CHECK(0, "%s: killed by signal %d%s", name, WTERMSIG(status),
                  WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL
                      ? ": over the CPU limit, unbounded work"
                      : "");
    } else {
        NKT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: failed (exit %d)", name,
                  WEXITSTATUS(status));
    }
}

/* ---- the cases ---- */

#define N_CONST 300000u

/* Payload-overlap check: 3*10^5 constants whose payloads lie in reverse
 * order (no writer does that; the old check then compared all pairs). */
static uint8_t *reversed_payloads(size_t *len, uint32_t overlap_a, uint32_t overlap_b) {
    nkb b;
    uint32_t i, x, y;
    memset(&b, 0, sizeof b);
    x = nkb_tensor(&b, 4, 0, 0);
    y = nkb_tensor(&b, 4, 0, 0);
    for (i = 0; i < N_CONST; i++) {
        uint32_t slot = i == overlap_b ? N_CONST - 1 - overlap_a : N_CONST - 1 - i;
        nkb_tensor(&b, 4, 1, 16 * slot);
    }
    nkb_io(&b, 0, x);
    nkb_io(&b, 1, y);
    nkb_op(&b, NK_OP_RELU, 1, &x, y, 0, NULL);
    return nkb_image(&b, len);
}

static void case_payloads(void) {
    nk_arena_t arena;
    nk_error_t err;
    size_t len;
    uint8_t *img = reversed_payloads(&len, 0, 0);
    NKT_CHECK(load(img, len, &arena, NK_OK, &err) != NULL, "reversed payloads load");
    nk_arena_free_heap(&arena);
    free(img);

    /* constants 7 and 150000 (tensors 9 and 150002) share a payload: still found */
    img = reversed_payloads(&len, 7, 150000);
    load(img, len, &arena, NK_ERR_FORMAT, &err);
    NKT_CHECK(strstr(err.message, "payloads of tensors 9 and 150002 overlap") != NULL, "message: %s",
              err.message);
    nk_arena_free_heap(&arena);
    free(img);
}

#define N_CHAIN 200000u

/* Planner: x -> relu -> t1 -> relu -> ... -> tN, then
 * acc = add(tN, tN-1), add(acc, tN-2), ..., add(acc, x): every t is
 * alive at op N-1, so first-fit meets every placed buffer each time, and
 * both ends of the two-ended layout fill up (the old pair check compared
 * every bottom buffer with every top one). */
static void case_planner(void) {
    nkb b;
    nk_arena_t arena;
    nk_error_t err;
    nk_model_t *m;
    uint32_t *t = malloc((N_CHAIN + 1) * sizeof *t), acc, i, in[2];
    uint8_t *img, *seen;
    size_t len;
    if (t == NULL) exit(1);
    memset(&b, 0, sizeof b);
    t[0] = nkb_tensor(&b, 4, 0, 0);
    nkb_io(&b, 0, t[0]);
    for (i = 1; i <= N_CHAIN; i++) {
        t[i] = nkb_tensor(&b, 4, 0, 0);
        nkb_op(&b, NK_OP_RELU, 1, &t[i - 1], t[i], 0, NULL);
    }
    acc = t[N_CHAIN];
    for (i = N_CHAIN; i-- > 0;) {
        in[0] = acc;
        in[1] = t[i];
        acc = nkb_tensor(&b, 4, 0, 0);
        nkb_op(&b, NK_OP_ADD, 2, in, acc, 2, act_none);
    }
    nkb_io(&b, 1, acc);
    img = nkb_image(&b, &len);
    m = load(img, len, &arena, NK_OK, &err);
    if (m != NULL) {
        /* N + 1 buffers of 16 B alive at op N-1; each add runs in place */
        NKT_CHECK(m->plan.lower_bound == 16u * (N_CHAIN + 1) && m->plan.peak == m->plan.lower_bound,
                  "lower bound %llu, peak %llu", (unsigned long long)m->plan.lower_bound,
                  (unsigned long long)m->plan.peak);
        NKT_CHECK(m->plan.n_buffers == N_CHAIN + 1 && m->plan.n_in_place == N_CHAIN, "%u buffers, %u in place",
                  m->plan.n_buffers, m->plan.n_in_place);
        /* alive together, so all apart: the offsets are 0, 16, ... in some order */
        seen = calloc(N_CHAIN + 1, 1);
        for (i = 0; i <= N_CHAIN && seen != NULL; i++) {
            uint32_t slot = nk_model_act_offset(m, t[i]) / 16u;
            NKT_CHECK(nk_model_act_offset(m, t[i]) % 16u == 0 && slot <= N_CHAIN && !seen[slot],
                      "tensor %u at %u", t[i], nk_model_act_offset(m, t[i]));
            if (slot <= N_CHAIN) seen[slot] = 1;
            if (nkt_failures) break;
        }
        free(seen);
    }
    nk_arena_free_heap(&arena);
    free(img);
    free(t);
}

#define N_BN 50000u

/* Batch-norm folding: N_BN layers of dense -> batch_norm. Each fold
 * counted the readers of three tensors over every op (O(ops^2)). The
 * chain also needs the two-ended layout to drop dead buffers: its first-
 * fit would meet every earlier buffer otherwise. */
static void case_bn_fold(void) {
    nkb b;
    nk_arena_t arena;
    nk_error_t err;
    nk_model_t *m;
    uint32_t x, i, in[5];
    float eps = 1e-5f;
    uint32_t data = 0;
    uint8_t *img;
    size_t len;
    memset(&b, 0, sizeof b);
    x = nkb_tensor(&b, 4, 0, 0);
    nkb_io(&b, 0, x);
    for (i = 0; i < N_BN; i++) {
        uint32_t w, y, z, j;
        /* W [4, 4] */
        w = nkb_tensor(&b, 16, 1, data);
        b.tensors[(size_t)w * 48 + 5] = 2;
        nkt_wr32(b.tensors + (size_t)w * 48 + 8, 4);
        nkt_wr32(b.tensors + (size_t)w * 48 + 12, 4);
        data += 64;
        in[0] = x;
        in[1] = w;
        in[2] = nkb_tensor(&b, 4, 1, data);
        data += 16;
        y = nkb_tensor(&b, 4, 0, 0);
        nkb_op(&b, NK_OP_DENSE, 3, in, y, 2, act_none);
        in[0] = y;
        for (j = 1; j < 5; j++) {
            in[j] = nkb_tensor(&b, 4, 1, data);
            data += 16;
        }
        z = nkb_tensor(&b, 4, 0, 0);
        nkb_op(&b, NK_OP_BATCH_NORM, 5, in, z, 1, &eps);
        x = z;
    }
    nkb_io(&b, 1, x);
    img = nkb_image(&b, &len);
    m = load(img, len, &arena, NK_OK, &err);
#if NETKIT_LOAD_FOLD_BN
    NKT_CHECK(m == NULL || m->stats.folded_bn == N_BN, "folded %u of %u", m ? m->stats.folded_bn : 0, N_BN);
    /* a chain of 16 B buffers (each batch-norm a view): two at a time */
    NKT_CHECK(m == NULL || (m->plan.two_ended_peak == 32 && m->plan.peak == 32),
              "two-ended %llu, peak %llu", m ? (unsigned long long)m->plan.two_ended_peak : 0ull,
              m ? (unsigned long long)m->plan.peak : 0ull);
#endif
    nk_arena_free_heap(&arena);
    free(img);
}

int main(void) {
    run_bounded("payload overlap check", case_payloads);
    run_bounded("planner", case_planner);
    run_bounded("batch-norm folding", case_bn_fold);
    if (nkt_failures) fprintf(stderr, "bounded_test: %d failures\n", nkt_failures);
    return nkt_failures ? 1 : 0;
}

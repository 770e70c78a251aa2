/* i8_edges_test.c — every int8 op at the edges of what the validators
 * accept: multipliers 0, 2^30 and 2^31-1, shifts at the validator's
 * minimum and maximum, zero points -128 and 127, biases INT32_MIN and
 * INT32_MAX, accumulation depths and pool windows at their load limits,
 * inputs -128 and 127. Each case is a one-op .nk image built here, loaded
 * by the real loader and invoked; outputs are checked against int64
 * formulas written in this file (or libm for the nonlinear ops), never
 * against the kernels' own helpers. The ASan+UBSan build
 * (NETKIT_SANITIZE, -fno-sanitize-recover) turns any signed overflow or
 * out-of-range shift into a failure. CMake also builds this file with
 * NETKIT_SINGLE_ROUNDING=1 against its own copy of the kernels. */
#include "op_test.h"
#include "netkit.h"

#if defined(NETKIT_SINGLE_ROUNDING) && NETKIT_SINGLE_ROUNDING
#define NKE_SINGLE 1
#else
#define NKE_SINGLE 0
#endif

/* ---- a minimal .nk writer (docs/NK_FORMAT.md) ---- */

/* One tensor of the op: rank < 0 is an absent optional input; data NULL
 * makes a runtime tensor (a graph input, or the op's output). */
typedef struct nke_tensor {
    uint8_t dtype;
    int32_t rank;
    int32_t dims[4];
    const void *data;
} nke_tensor;

static uint32_t nke_crc32(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

static void nke_w32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static size_t nke_bytes(const nke_tensor *t) {
    size_t n = t->dtype == NK_I32 ? 4u : 1u;
    int32_t d;
    for (d = 0; d < t->rank; d++)
        n *= (size_t)t->dims[d];
    return n;
}

static size_t nke_up(size_t v, size_t a) { return (v + a - 1u) / a * a; }

/* The image of one op over ts[0..n_in) (inputs) and ts[n_in] (output):
 * sections TENSORS, OPS, GRAPH, STRINGS, DATA. 16-byte aligned inside the
 * heap block *block (free that). */
static uint8_t *nke_image(uint16_t op, const nke_tensor *ts, int n_in, const int32_t *params,
                          int n_params, size_t *len, void **block) {
    uint32_t id[NK_OP_MAX_IN + 1], n_t = 0, n_gin = 0;
    size_t off_t, off_o, off_g, off_s, off_d, end, data_at, sz_o;
    uint8_t *img, *p;
    int i, k;
    for (i = 0; i <= n_in; i++) {
        id[i] = ts[i].rank < 0 ? NK_NONE : n_t++;
        if (i < n_in && ts[i].rank >= 0 && ts[i].data == NULL)
            n_gin++;
    }
    sz_o = 8u + 12u + 4u * (size_t)(n_in + 1 + n_params);
    off_t = 32u + 5u * 16u;
    off_o = off_t + 8u + 48u * n_t;
    off_g = off_o + sz_o;
    off_s = off_g + 8u + 8u * (n_gin + 1u);
    off_d = nke_up(off_s + 4u, 16u);
    end = off_d;
    for (i = 0; i < n_in; i++)
        if (ts[i].rank >= 0 && ts[i].data != NULL)
            end = nke_up(end + nke_bytes(&ts[i]), 16u);
    *block = malloc(end + 15u);
    if (*block == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    img = (uint8_t *)*block + ((16u - (uintptr_t)*block % 16u) % 16u);
    memset(img, 0, end);
    memcpy(img, "NKIT", 4);
    img[4] = 1; /* version 1.0 */
    nke_w32(img + 12, (uint32_t)end);
    nke_w32(img + 16, 5);
    {
        const size_t secs[5][3] = {{1, off_t, off_o - off_t},
                                   {2, off_o, sz_o},
                                   {3, off_g, off_s - off_g},
                                   {4, off_s, 4},
                                   {7, off_d, end - off_d}};
        for (k = 0; k < 5; k++)
            for (i = 0; i < 3; i++)
                nke_w32(img + 32 + 16 * k + 4 * i, (uint32_t)secs[k][i]);
    }
    /* TENSORS */
    nke_w32(img + off_t, n_t);
    data_at = off_d;
    for (i = 0; i <= n_in; i++) {
        const nke_tensor *t = &ts[i];
        if (t->rank < 0)
            continue;
        p = img + off_t + 8u + 48u * id[i];
        nke_w32(p, NK_NONE);
        p[4] = t->dtype;
        p[5] = (uint8_t)t->rank;
        for (k = 0; k < t->rank; k++)
            nke_w32(p + 8 + 4 * k, (uint32_t)t->dims[k]);
        nke_w32(p + 32, NK_NONE);
        nke_w32(p + 40, NK_NONE);
        if (i < n_in && t->data != NULL) {
            p[6] = 1; /* CONST */
            nke_w32(p + 32, (uint32_t)data_at);
            nke_w32(p + 36, (uint32_t)nke_bytes(t));
            memcpy(img + data_at, t->data, nke_bytes(t));
            data_at = nke_up(data_at + nke_bytes(t), 16u);
        }
    }
    /* OPS: one record */
    p = img + off_o;
    nke_w32(p, 1);
    p += 8;
    p[0] = (uint8_t)op;
    p[1] = (uint8_t)(op >> 8);
    p[2] = (uint8_t)n_in;
    p[3] = 1;
    nke_w32(p + 4, NK_NONE);
    p[8] = (uint8_t)n_params;
    p += 12;
    for (i = 0; i <= n_in; i++, p += 4)
        nke_w32(p, id[i]);
    for (i = 0; i < n_params; i++, p += 4)
        nke_w32(p, (uint32_t)params[i]);
    /* GRAPH: the runtime inputs in order, the output */
    p = img + off_g;
    nke_w32(p, n_gin);
    nke_w32(p + 4, 1);
    p += 8;
    for (i = 0; i < n_in; i++)
        if (ts[i].rank >= 0 && ts[i].data == NULL) {
            nke_w32(p, id[i]);
            p += 8;
        }
    nke_w32(p, id[n_in]);
    nke_w32(img + 8, nke_crc32(img + 12, end - 12u));
    *len = end;
    return img;
}

/* Builds, loads and invokes the one-op model on the runtime inputs in[]
 * (in graph order); copies the output to out (out_n bytes). Returns the
 * load status; a failed load is reported with its message. */
static nk_status nke_run(const char *what, uint16_t op, const nke_tensor *ts, int n_in,
                         const int32_t *params, int n_params, const int8_t *const *in,
                         int8_t *out, size_t out_n) {
    size_t len, act = nke_bytes(&ts[n_in]);
    nk_arena_t arena;
    nk_model_t *m = NULL;
    nk_error_t err;
    nk_tensor_t t;
    nk_status s;
    int i, k = 0;
    void *block;
    uint8_t *img = nke_image(op, ts, n_in, params, n_params, &len, &block);
    for (i = 0; i < n_in; i++)
        if (ts[i].rank >= 0 && ts[i].data == NULL)
            act += nke_bytes(&ts[i]);
    memset(&err, 0, sizeof err);
    if (nk_arena_init_heap(&arena, 2u * act + (1u << 20)) != NK_OK) {
        fprintf(stderr, "no heap arena\n");
        exit(2);
    }
    s = nk_model_load_buffer(&m, img, len, &arena, &err);
    NKT_CHECK(s == NK_OK, "%s: load: %s", what, err.message);
    if (s == NK_OK) {
        for (i = 0; i < n_in; i++) {
            if (ts[i].rank < 0 || ts[i].data != NULL)
                continue;
            NKT_CHECK(nk_model_input(m, k, &t) == NK_OK && t.bytes == nke_bytes(&ts[i]),
                      "%s: input %d", what, k);
            memcpy(t.data, in[k++], nke_bytes(&ts[i]));
        }
        NKT_CHECK(nk_model_invoke(m, &err) == NK_OK, "%s: invoke: %s", what, err.message);
        NKT_CHECK(nk_model_output(m, 0, &t) == NK_OK && t.bytes == out_n, "%s: output", what);
        memcpy(out, t.data, out_n);
        nk_model_unload(m);
    }
    nk_arena_free_heap(&arena);
    free(block);
    return s;
}

/* ---- the int64 reference (TFLite's arithmetic on a two's complement
 * target: int32 sums and the requantization's left shift wrap) ---- */

static int32_t nke_wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* floor(n / 2^e), e in [0, 62], by division */
static int64_t nke_floor_pow2(int64_t n, int e) {
    const int64_t d = (int64_t)1 << e;
    const int64_t q = n / d;
    return n % d != 0 && n < 0 ? q - 1 : q;
}

#if !NKE_SINGLE
/* SRDHM for b >= 0: floor((a*b + 2^30) / 2^31) */
static int32_t nke_srdhm(int32_t a, int32_t b) {
    return (int32_t)nke_floor_pow2((int64_t)a * b + ((int64_t)1 << 30), 31);
}
#endif

/* x * m * 2^(shift-31) in the build's rounding mode, m >= 0. */
static int32_t nke_requant(int32_t x, int32_t m, int32_t shift) {
#if NKE_SINGLE
    const int total = 31 - shift;
    return nke_wrap(nke_floor_pow2((int64_t)x * m + ((int64_t)1 << (total - 1)), total));
#else
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const int64_t h = nke_srdhm(nke_wrap((int64_t)x * ((int64_t)1 << left)), m);
    const int64_t d = (int64_t)1 << right, q = h / d, r = h % d;
    /* to nearest, ties away from zero */
    return (int32_t)(d > 1 && 2 * (r < 0 ? -r : r) >= d ? q + (h < 0 ? -1 : 1) : q);
#endif
}

/* The epilogue: requantize, add the zero point, clamp, all in int64. */
static int8_t nke_out(int64_t acc, int32_t m, int32_t shift, int32_t zp, int32_t lo, int32_t hi) {
    const int64_t v = (int64_t)nke_requant(nke_wrap(acc), m, shift) + zp;
    return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* ---- 1. the reviewer's case: QUANTIZE i8 -> i8, M = 2^31-1, shift 30,
 * in_zp 0, out_zp -128. With in_zp 0 the value is x, and x * 2^30 wraps
 * modulo 2^32 by x mod 4:
 *   double rounding: SRDHM(x * 2^30, M) is 0, 2^30, -2^31+1 or -2^30+1
 *     for x mod 4 = 0, 1, 2, 3 (the third is -2147483647: plus -128 it
 *     overflowed an int32 before the epilogue was widened). Output: 127
 *     for x mod 4 = 1, else -128.
 *   single rounding: floor((x*M + 1) / 2) = x * 2^30 + floor((1 - x) / 2),
 *     wrapped: x mod 4 = 0 gives the small value floor((1-x)/2) - 128
 *     (clamped); 1 gives about +2^30 (127); 2 gives about 2^31, which
 *     stays positive when x > 0 (127) and wraps to -2^31 + small when
 *     x < 0 (-128, the same overflow); 3 gives about -2^30 (-128). ---- */
static int8_t nke_reviewer_want(int32_t x) {
    const int32_t r = ((x % 4) + 4) % 4;
#if NKE_SINGLE
    int32_t v;
    if (r == 0) {
        v = (int32_t)nke_floor_pow2(1 - x, 1) - 128;
        return (int8_t)(v < -128 ? -128 : v);
    }
    return r == 1 || (r == 2 && x > 0) ? 127 : -128;
#else
    return r == 1 ? 127 : -128;
#endif
}

static void nke_reviewer_case(void) {
    static const int32_t p[4] = {0x7fffffff, 30, 0, -128};
    int8_t x[256], y[256];
    const int8_t *in[1] = {x};
    nke_tensor ts[2];
    int32_t i;
    for (i = 0; i < 256; i++)
        x[i] = (int8_t)(i - 128);
    memset(ts, 0, sizeof ts);
    ts[0].dtype = ts[1].dtype = NK_I8;
    ts[0].rank = ts[1].rank = 1;
    ts[0].dims[0] = ts[1].dims[0] = 256;
    if (nke_run("reviewer quantize", NK_OP_QUANTIZE, ts, 1, p, 4, in, y, 256) != NK_OK)
        return;
    for (i = 0; i < 256; i++)
        NKT_CHECK(y[i] == nke_reviewer_want(x[i]), "reviewer quantize x=%d: %d, want %d", x[i],
                  y[i], nke_reviewer_want(x[i]));
    /* the hand rule agrees with the int64 formula */
    for (i = 0; i < 256; i++)
        NKT_CHECK(nke_reviewer_want(x[i]) == nke_out(x[i], 0x7fffffff, 30, -128, -128, 127),
                  "hand rule vs formula at x=%d", x[i]);
}

int main(void) {
    nke_reviewer_case();
    return nkt_finish(NKE_SINGLE ? "i8_edges (single rounding)" : "i8_edges");
}

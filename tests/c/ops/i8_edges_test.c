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
 * NETKIT_SINGLE_ROUNDING=1 and through the Arm DSP kernels
 * (NETKIT_EMULATE_DSP=1, both roundings), each against its own copy of the
 * kernels. */
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

/* malloc or stop: a missing block must not turn into writes through NULL
 * (address 0 is RAM on the Cortex-M test boards). */
static void *nke_alloc(size_t n) {
    void *p = malloc(n);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%lu B)\n", (unsigned long)n);
        exit(2);
    }
    return p;
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
    *block = nke_alloc(end + 15u);
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
    void *block, *arena_mem;
    uint8_t *img = nke_image(op, ts, n_in, params, n_params, &len, &block);
    for (i = 0; i < n_in; i++)
        if (ts[i].rank >= 0 && ts[i].data == NULL)
            act += nke_bytes(&ts[i]);
    memset(&err, 0, sizeof err);
    /* malloc and nk_arena_init, not the heap arena: MCU builds run this too */
    arena_mem = nke_alloc(2u * act + (64u << 10));
    nk_arena_init(&arena, arena_mem, 2u * act + (64u << 10));
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
    free(arena_mem);
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

/* SRDHM for b >= 0: floor((a*b + 2^30) / 2^31) */
static int32_t nke_srdhm(int32_t a, int32_t b) {
    return (int32_t)nke_floor_pow2((int64_t)a * b + ((int64_t)1 << 30), 31);
}

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

/* ---- 2. the sweep ---- */

/* The multiplier/shift edges (the validators take shifts -31..30), as
 * six (M, shift) pairs; zero points; the extreme inputs. */
#define NKE_PAIRS 6
static const int32_t nke_mult[NKE_PAIRS] = {0, 0, 1 << 30, 1 << 30, 0x7fffffff, 0x7fffffff};
static const int32_t nke_shift[NKE_PAIRS] = {-31, 30, -31, 30, -31, 30};
static const int32_t nke_zp[2] = {-128, 127};
static const int8_t nke_x[2] = {-128, 127};

static nke_tensor nke_t(uint8_t dtype, int32_t rank, int32_t d0, int32_t d1, int32_t d2,
                        int32_t d3, const void *data) {
    nke_tensor t;
    t.dtype = dtype;
    t.rank = rank;
    t.dims[0] = d0;
    t.dims[1] = d1;
    t.dims[2] = d2;
    t.dims[3] = d3;
    t.data = data;
    return t;
}

/* Per-channel weights, biases and multipliers of the conv/dense cases:
 * channel c has every weight w[c] (-128 or 127 alternating) and the
 * (M, shift) pair c; the bias is none, INT32_MIN or INT32_MAX. */
#define NKE_OC NKE_PAIRS
static const int32_t nke_bias_v[3] = {0, INT32_MIN, INT32_MAX};

static int8_t nke_w_of(int32_t c) { return c % 2 ? 127 : -128; }

static int8_t *nke_weights(size_t per_out, int channels_last) {
    int8_t *w = (int8_t *)nke_alloc(per_out * NKE_OC);
    size_t i;
    for (i = 0; i < per_out * NKE_OC; i++)
        w[i] = nke_w_of((int32_t)(channels_last ? i % NKE_OC : i / per_out));
    return w;
}

/* DENSE_I8 over K = 1 and K = 2^16 (the depth limit): sum = K (x - in_zp) w
 * reaches +-2139095040, then the bias wraps it like TFLite's int32 add. */
static void nke_dense_sweep(void) {
    static const int32_t ks[2] = {1, 1 << 16};
    int ki, b, xi, zi, oi;
    int32_t c, bias[NKE_OC];
    for (ki = 0; ki < 2; ki++) {
        const int32_t k = ks[ki];
        int8_t *w = nke_weights((size_t)k, 0), *x = (int8_t *)nke_alloc((size_t)k);
        for (b = 0; b < 3; b++)
            for (xi = 0; xi < 2; xi++)
                for (zi = 0; zi < 2; zi++)
                    for (oi = 0; oi < 2; oi++) {
                        const int32_t p[4] = {nke_zp[zi], nke_zp[oi], -128, 127};
                        const int8_t *in[1] = {x};
                        nke_tensor ts[6];
                        int8_t y[NKE_OC];
                        char what[96];
                        for (c = 0; c < NKE_OC; c++)
                            bias[c] = nke_bias_v[b];
                        memset(x, nke_x[xi], (size_t)k);
                        ts[0] = nke_t(NK_I8, 2, 1, k, 0, 0, NULL);
                        ts[1] = nke_t(NK_I8, 2, NKE_OC, k, 0, 0, w);
                        ts[2] = nke_t(NK_I32, b ? 1 : -1, NKE_OC, 0, 0, 0, bias);
                        ts[3] = nke_t(NK_I32, 1, NKE_OC, 0, 0, 0, nke_mult);
                        ts[4] = nke_t(NK_I32, 1, NKE_OC, 0, 0, 0, nke_shift);
                        ts[5] = nke_t(NK_I8, 2, 1, NKE_OC, 0, 0, NULL);
                        snprintf(what, sizeof what, "dense K=%d bias %d x=%d zp %d/%d", k,
                                 nke_bias_v[b], nke_x[xi], nke_zp[zi], nke_zp[oi]);
                        if (nke_run(what, NK_OP_DENSE_I8, ts, 5, p, 4, in, y, NKE_OC) != NK_OK)
                            continue;
                        for (c = 0; c < NKE_OC; c++) {
                            const int64_t acc = (int64_t)k * (nke_x[xi] - nke_zp[zi]) *
                                                    nke_w_of(c) + (b ? bias[c] : 0);
                            const int8_t want =
                                nke_out(acc, nke_mult[c], nke_shift[c], nke_zp[oi], -128, 127);
                            NKT_CHECK(y[c] == want, "%s ch %d: %d, want %d", what, c, y[c], want);
                        }
                    }
        free(w);
        free(x);
    }
}

/* CONV2D_I8 (16x16 kernel over 256 channels: depth 2^16) and
 * DEPTHWISE_CONV2D_I8 (256x256 kernel: depth 2^16, multipliers 1 and 2),
 * padded one row above and one column right so the 2x2 output has one
 * window inside the input (the weight-sum path) and three at the border. */
static void nke_conv_sweep(void) {
    int kind, b, xi, zi, oi;
    for (kind = 0; kind < 3; kind++) {
        /* 0: conv; 1: depthwise multiplier 1; 2: depthwise multiplier 2 */
        const int32_t k = kind ? 256 : 16, in_c = kind == 0 ? 256 : kind == 1 ? NKE_OC : NKE_OC / 2;
        const size_t per_out = (size_t)k * (size_t)k * (size_t)(kind ? 1 : in_c);
        const size_t xn = (size_t)k * (size_t)k * (size_t)in_c;
        int8_t *w = nke_weights(per_out, kind != 0), *x = (int8_t *)nke_alloc(xn);
        int32_t bias[NKE_OC], c;
        for (b = 0; b < 3; b++)
            for (xi = 0; xi < 2; xi++)
                for (zi = 0; zi < 2; zi++)
                    for (oi = 0; oi < 2; oi++) {
                        const int32_t p[13] = {1, 1, 1, 1, 1, 0, 0, 1, kind ? kind : 1,
                                               nke_zp[zi], nke_zp[oi], -128, 127};
                        const int8_t *in[1] = {x};
                        nke_tensor ts[6];
                        int8_t y[4 * NKE_OC];
                        char what[112];
                        int32_t pos;
                        for (c = 0; c < NKE_OC; c++)
                            bias[c] = nke_bias_v[b];
                        memset(x, nke_x[xi], xn);
                        ts[0] = nke_t(NK_I8, 4, 1, k, k, in_c, NULL);
                        if (kind)
                            ts[1] = nke_t(NK_I8, 4, 1, k, k, NKE_OC, w);
                        else
                            ts[1] = nke_t(NK_I8, 4, NKE_OC, k, k, in_c, w);
                        ts[2] = nke_t(NK_I32, b ? 1 : -1, NKE_OC, 0, 0, 0, bias);
                        ts[3] = nke_t(NK_I32, 1, NKE_OC, 0, 0, 0, nke_mult);
                        ts[4] = nke_t(NK_I32, 1, NKE_OC, 0, 0, 0, nke_shift);
                        ts[5] = nke_t(NK_I8, 4, 1, 2, 2, NKE_OC, NULL);
                        snprintf(what, sizeof what, "%s bias %d x=%d zp %d/%d",
                                 kind == 0 ? "conv" : kind == 1 ? "depthwise m1" : "depthwise m2",
                                 nke_bias_v[b], nke_x[xi], nke_zp[zi], nke_zp[oi]);
                        if (nke_run(what, kind ? NK_OP_DEPTHWISE_CONV2D_I8 : NK_OP_CONV2D_I8, ts,
                                    5, p, 13, in, y, sizeof y) != NK_OK)
                            continue;
                        for (pos = 0; pos < 4; pos++) {
                            /* row 0 loses the padded row, column 1 the padded column */
                            const int64_t taps = (int64_t)(pos / 2 ? k : k - 1) *
                                                 (pos % 2 ? k - 1 : k) * (kind ? 1 : in_c);
                            for (c = 0; c < NKE_OC; c++) {
                                const int64_t acc = taps * (nke_x[xi] - nke_zp[zi]) *
                                                        nke_w_of(c) + (b ? bias[c] : 0);
                                const int8_t want = nke_out(acc, nke_mult[c], nke_shift[c],
                                                            nke_zp[oi], -128, 127);
                                NKT_CHECK(y[pos * NKE_OC + c] == want, "%s pos %d ch %d: %d, want %d",
                                          what, pos, c, y[pos * NKE_OC + c], want);
                            }
                        }
                    }
        free(w);
        free(x);
    }
}

/* ADD_I8 over all 256 x 256 input pairs' diagonal and anti-diagonal, left
 * shift 0 and 23, every (M, shift) pair for each input and the output. */
static void nke_add_sweep(void) {
    static const int32_t zps[2][3] = {{-128, 127, -128}, {127, -128, 127}};
    int8_t a[256], bv[256], y[256];
    const int8_t *in[2] = {a, bv};
    int li, i1, i2, io, z, i;
    for (i = 0; i < 256; i++) {
        a[i] = (int8_t)(i - 128);
        bv[i] = (int8_t)(127 - i);
    }
    for (li = 0; li < 2; li++)
        for (z = 0; z < 2; z++)
            for (i1 = 0; i1 < NKE_PAIRS; i1++)
                for (i2 = 0; i2 < NKE_PAIRS; i2++)
                    for (io = 0; io < NKE_PAIRS; io++) {
                        const int32_t ls = li ? 23 : 0;
                        const int32_t p[12] = {zps[z][0], zps[z][1], zps[z][2], ls,
                                               nke_mult[i1], nke_shift[i1], nke_mult[i2],
                                               nke_shift[i2], nke_mult[io], nke_shift[io],
                                               -128, 127};
                        nke_tensor ts[3];
                        char what[96];
                        ts[0] = ts[1] = ts[2] = nke_t(NK_I8, 1, 256, 0, 0, 0, NULL);
                        snprintf(what, sizeof what, "add ls %d zp %d pairs %d/%d/%d", ls, z, i1,
                                 i2, io);
                        if (nke_run(what, NK_OP_ADD_I8, ts, 2, p, 12, in, y, 256) != NK_OK)
                            continue;
                        for (i = 0; i < 256; i++) {
                            const int32_t r1 = nke_requant(
                                (int32_t)(((int64_t)a[i] - p[0]) * ((int64_t)1 << ls)), p[4], p[5]);
                            const int32_t r2 = nke_requant(
                                (int32_t)(((int64_t)bv[i] - p[1]) * ((int64_t)1 << ls)), p[6], p[7]);
                            const int8_t want = nke_out((int64_t)r1 + r2, p[8], p[9], p[2], -128, 127);
                            NKT_CHECK(y[i] == want, "%s [%d]: %d, want %d", what, i, y[i], want);
                        }
                    }
}

/* MUL_I8 and QUANTIZE i8 -> i8: every input against -128 and 127, every
 * zero point edge and (M, shift) pair. */
static void nke_mul_quantize_sweep(void) {
    int8_t a[512], bv[512], y[512];
    const int8_t *in[2] = {a, bv};
    int pi, z1, z2, zo, i;
    for (i = 0; i < 512; i++) {
        a[i] = (int8_t)(i % 256 - 128);
        bv[i] = nke_x[i / 256];
    }
    for (pi = 0; pi < NKE_PAIRS; pi++)
        for (z1 = 0; z1 < 2; z1++)
            for (zo = 0; zo < 2; zo++) {
                const int32_t q[4] = {nke_mult[pi], nke_shift[pi], nke_zp[z1], nke_zp[zo]};
                nke_tensor ts[3];
                char what[96];
                for (z2 = 0; z2 < 2; z2++) {
                    const int32_t p[7] = {nke_zp[z1], nke_zp[z2], nke_zp[zo], nke_mult[pi],
                                          nke_shift[pi], -128, 127};
                    ts[0] = ts[1] = ts[2] = nke_t(NK_I8, 1, 512, 0, 0, 0, NULL);
                    snprintf(what, sizeof what, "mul pair %d zp %d/%d/%d", pi, p[0], p[1], p[2]);
                    if (nke_run(what, NK_OP_MUL_I8, ts, 2, p, 7, in, y, 512) != NK_OK)
                        continue;
                    for (i = 0; i < 512; i++) {
                        const int8_t want = nke_out(((int64_t)a[i] - p[0]) * (bv[i] - p[1]), p[3],
                                                    p[4], p[2], -128, 127);
                        NKT_CHECK(y[i] == want, "%s [%d]: %d, want %d", what, i, y[i], want);
                    }
                }
                ts[0] = ts[1] = nke_t(NK_I8, 1, 256, 0, 0, 0, NULL);
                snprintf(what, sizeof what, "quantize pair %d zp %d/%d", pi, q[2], q[3]);
                if (nke_run(what, NK_OP_QUANTIZE, ts, 1, q, 4, in, y, 256) != NK_OK)
                    continue;
                for (i = 0; i < 256; i++) {
                    const int8_t want = nke_out((int64_t)a[i] - q[2], q[0], q[1], q[3], -128, 127);
                    NKT_CHECK(y[i] == want, "%s [%d]: %d, want %d", what, i, y[i], want);
                }
            }
}

/* Pools over 2^24 taps (the load limit): 4096x4096 of -128 sums to
 * INT32_MIN exactly; the average is the input, then the clamp. One case
 * pads a row so the windows hold 4095 x 4096 taps. */
static void nke_pool_sweep(void) {
#if defined(NETKIT_MCU) && NETKIT_MCU
    /* 16 MiB of input and twice that of arena: the hosted builds run it */
    printf("i8_edges: pool sweep skipped on this MCU build\n");
#else
    static const struct {
        uint16_t op;
        int8_t x;
        int32_t pad_top, lo, hi;
    } cases[6] = {{NK_OP_AVG_POOL2D_I8, -128, 0, -128, 127}, {NK_OP_AVG_POOL2D_I8, 127, 0, -128, 127},
                  {NK_OP_AVG_POOL2D_I8, -128, 0, -100, 100}, {NK_OP_AVG_POOL2D_I8, -128, 1, -128, 127},
                  {NK_OP_MAX_POOL2D_I8, -128, 0, -128, 127}, {NK_OP_MAX_POOL2D_I8, 127, 0, -128, 100}};
    const size_t n = (size_t)4096 * 4096;
    int8_t *x = (int8_t *)malloc(n), y[2];
    const int8_t *in[1];
    int i, k;
    NKT_CHECK(x != NULL, "pool sweep: no 16 MiB for its input");
    if (x == NULL)
        return;
    in[0] = x;
    for (i = 0; i < 6; i++) {
        const int32_t p[10] = {4096, 4096, 1, 1, cases[i].pad_top, 0, 0, 0, cases[i].lo,
                               cases[i].hi};
        const int32_t out_h = cases[i].pad_top ? 2 : 1;
        const int32_t want = cases[i].x < cases[i].lo ? cases[i].lo
                             : cases[i].x > cases[i].hi ? cases[i].hi
                                                        : cases[i].x;
        nke_tensor ts[2];
        char what[64];
        memset(x, cases[i].x, n);
        ts[0] = nke_t(NK_I8, 4, 1, 4096, 4096, 1, NULL);
        ts[1] = nke_t(NK_I8, 4, 1, out_h, 1, 1, NULL);
        snprintf(what, sizeof what, "%s pool case %d", cases[i].op == NK_OP_AVG_POOL2D_I8 ? "avg" : "max", i);
        if (nke_run(what, cases[i].op, ts, 1, p, 10, in, y, (size_t)out_h) != NK_OK)
            continue;
        for (k = 0; k < out_h; k++)
            NKT_CHECK(y[k] == want, "%s [%d]: %d, want %d", what, k, y[k], want);
    }
    free(x);
#endif
}

/* A libm value v that the int8 ops round to an integer: the expected
 * integer, or 1000 when v lies within 0.02 of a rounding tie (the
 * fixed-point result may then go either way; such points are counted,
 * not checked). */
static int nke_ties = 0;
static int32_t nke_round_clear(double v) {
    const double f = v - floor(v);
    if (fabs(f - 0.5) < 0.02) {
        nke_ties++;
        return 1000;
    }
    return (int32_t)round(v);
}

/* SOFTMAX_I8: rows of n equal values (n up to 8192, where TFLite's Q12.19
 * sum of exps wraps) and rows of {127, -128, 0} at the parameter edges
 * (M, shift 0 and 31, diff_min 0 and INT32_MIN). Output scale 1/256,
 * zero point -128: round(256 * exp(s_i) / sum exp(s_j)) - 128, with s the
 * scaled difference SRDHM((x - max) * 2^shift, M) in Q5.26. */
static void nke_softmax_sweep(void) {
    static const int32_t ns[5] = {1, 2, 4095, 4096, 8192};
    static const int32_t mults[3] = {0, 1 << 30, 0x7fffffff};
    static const int32_t shifts[2] = {0, 31};
    static const int32_t diff_mins[2] = {0, INT32_MIN};
    static const int8_t mixed[6] = {127, -128, 0, -128, 0, 127};
    int8_t *x = (int8_t *)nke_alloc(8192), *y = (int8_t *)nke_alloc(8192);
    const int8_t *in[1] = {x};
    int ni, xi, mi, si, di, i;
    for (mi = 0; mi < 3; mi++)
        for (si = 0; si < 2; si++)
            for (di = 0; di < 2; di++) {
                const int32_t p[3] = {mults[mi], shifts[si], diff_mins[di]};
                nke_tensor ts[2];
                char what[96];
                for (ni = 0; ni < 5; ni++)
                    for (xi = 0; xi < 2; xi++) {
                        const int32_t n = ns[ni];
                        const int32_t want = nke_round_clear(256.0 / n) - 128;
                        memset(x, nke_x[xi], (size_t)n);
                        ts[0] = ts[1] = nke_t(NK_I8, 2, 1, n, 0, 0, NULL);
                        snprintf(what, sizeof what, "softmax n=%d x=%d params %d/%d/%d", n,
                                 nke_x[xi], p[0], p[1], p[2]);
                        if (nke_run(what, NK_OP_SOFTMAX_I8, ts, 1, p, 3, in, y, (size_t)n) != NK_OK)
                            continue;
                        for (i = 0; i < n; i++)
                            NKT_CHECK(y[i] == (want > 127 ? 127 : want), "%s [%d]: %d, want %d",
                                      what, i, y[i], want);
                    }
                /* two rows of three: {127, -128, 0}, {-128, 0, 127} */
                memcpy(x, mixed, 6);
                ts[0] = ts[1] = nke_t(NK_I8, 2, 2, 3, 0, 0, NULL);
                snprintf(what, sizeof what, "softmax mixed params %d/%d/%d", p[0], p[1], p[2]);
                if (nke_run(what, NK_OP_SOFTMAX_I8, ts, 1, p, 3, in, y, 6) != NK_OK)
                    continue;
                for (i = 0; i < 6; i++) {
                    const int r = i / 3;
                    double e[3], sum = 0.0;
                    int32_t want = -128, j;
                    for (j = 0; j < 3; j++) {
                        const int32_t d = (int32_t)mixed[3 * r + j] - 127;
                        const int32_t s = nke_srdhm(nke_wrap((int64_t)d * ((int64_t)1 << p[1])), p[0]);
                        e[j] = d >= p[2] ? exp(s / 67108864.0) : 0.0;
                        sum += e[j];
                    }
                    if (e[i % 3] > 0.0)
                        want = nke_round_clear(256.0 * e[i % 3] / sum) - 128;
                    if (want > 127 && want < 1000)
                        want = 127;
                    if (want < 1000)
                        NKT_CHECK(y[i] == want, "%s [%d]: %d, want %d", what, i, y[i], want);
                }
            }
    free(x);
    free(y);
}

/* LOGISTIC_I8 and TANH_I8 over all 256 inputs: in = x - in_zp; outside
 * the radius the output saturates; inside, r = requantize(in) is a Q4.27
 * value and the output is round(256 * logistic(r)) - 128 or
 * round(128 * tanh(r)), clamped. */
static void nke_actfn_sweep(void) {
    static const int32_t radii[3] = {0, 1, INT32_MAX};
    int8_t x[256], y[256];
    const int8_t *in[1] = {x};
    int is_tanh, zi, pi, ri, i;
    for (i = 0; i < 256; i++)
        x[i] = (int8_t)(i - 128);
    for (is_tanh = 0; is_tanh < 2; is_tanh++)
        for (zi = 0; zi < 2; zi++)
            for (pi = 0; pi < NKE_PAIRS; pi++)
                for (ri = 0; ri < 3; ri++) {
                    const int32_t p[4] = {nke_zp[zi], nke_mult[pi], nke_shift[pi], radii[ri]};
                    nke_tensor ts[2];
                    char what[96];
                    ts[0] = ts[1] = nke_t(NK_I8, 1, 256, 0, 0, 0, NULL);
                    snprintf(what, sizeof what, "%s zp %d pair %d radius %d",
                             is_tanh ? "tanh" : "logistic", p[0], pi, p[3]);
                    if (nke_run(what, is_tanh ? NK_OP_TANH_I8 : NK_OP_LOGISTIC_I8, ts, 1, p, 4, in,
                                y, 256) != NK_OK)
                        continue;
                    for (i = 0; i < 256; i++) {
                        const int32_t v = (int32_t)x[i] - p[0];
                        int32_t want;
                        if (v <= -p[3]) {
                            want = -128;
                        } else if (v >= p[3]) {
                            want = 127;
                        } else {
                            const double r = nke_requant(v, p[1], p[2]) / 134217728.0;
                            want = is_tanh ? nke_round_clear(128.0 * tanh(r))
                                           : nke_round_clear(256.0 / (1.0 + exp(-r))) - 128;
                            if (want >= 1000 - 128)
                                continue;
                            want = want < -128 ? -128 : want > 127 ? 127 : want;
                        }
                        NKT_CHECK(y[i] == want, "%s x=%d: %d, want %d", what, x[i], y[i], want);
                    }
                }
}

int main(void) {
    nke_reviewer_case();
    nke_dense_sweep();
    nke_conv_sweep();
    nke_add_sweep();
    nke_mul_quantize_sweep();
    nke_pool_sweep();
    nke_softmax_sweep();
    nke_actfn_sweep();
    /* near-ties are skipped: there must be few of them */
    NKT_CHECK(nke_ties < 20, "%d libm values near a rounding tie", nke_ties);
    printf("i8_edges: %d libm values near a rounding tie not checked\n", nke_ties);
#if defined(NETKIT_EMULATE_DSP) && NETKIT_EMULATE_DSP
    return nkt_finish(NKE_SINGLE ? "i8_edges (DSP kernels, single rounding)" : "i8_edges (DSP kernels)");
#else
    return nkt_finish(NKE_SINGLE ? "i8_edges (single rounding)" : "i8_edges");
#endif
}

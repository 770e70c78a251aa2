/* fast_i8_test.c — the build's fast int8 kernels (kernels/fast_i8.h: the
 * Helium/MVE set on Cortex-M55, the DSP set on M4F/M7/M33) against the
 * portable kernels on random one-op cases: conv2d (pointwise, small
 * windows, general with strides, dilations and arbitrary pads), depthwise
 * (multiplier 1 and above, with and without the weight sums), dense and,
 * where the set has them, average and max pools,
 * with random zero points, clamps, biases (or none) and requantization
 * pairs per tensor or per channel, including pairs the fast epilogues
 * hand to the portable one (shift >= 0, multiplier 0). The portable
 * kernels are the oracle (bit-exact with TFLite, checked elsewhere); every
 * output byte must match, bytes past the output must stay untouched, and
 * each kernel must take some cases, so the test cannot pass by refusing.
 *
 * The kernels are compiled into this program (not taken from the library),
 * so the build's NETKIT_SINGLE_ROUNDING picks the rounding mode: the MCU
 * tests build it in both (cmake/cross/netkit-mcu-tests.cmake). Builds
 * without a fast set exit 77 (skipped). */
#include "kernels/ref/qmath.c"
#include "kernels/ref/ref_i8.c"
#include "kernels/ref/ref_shape.c"
#include "kernels/ref/ref_i8_conv.c"
#include "kernels/armv7em/dsp_i8.c"
#include "kernels/armv7em/dsp_depthwise.c"
#include "kernels/mve/mve_i8.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if NK_FAST_I8_MVE
#define NKF_SET_NAME "Helium/MVE"
#else
#define NKF_SET_NAME "Arm DSP"
#endif

#ifndef NKF_CASES
#define NKF_CASES 150 /* per kernel */
#endif
#define NKF_BUF 16384
#define NKF_GUARD 32

#if NK_FAST_I8
static int8_t nkf_x[NKF_BUF], nkf_w[NKF_BUF];
static int8_t nkf_y_ref[NKF_BUF + NKF_GUARD], nkf_y_fast[NKF_BUF + NKF_GUARD];
static int32_t nkf_bias[256], nkf_mult[256], nkf_shift[256], nkf_wsum[256];
static int nkf_failures;

static uint32_t nkf_rng = 0x6d766531u;
static uint32_t nkf_next(void) { /* xorshift32 */
    nkf_rng ^= nkf_rng << 13;
    nkf_rng ^= nkf_rng >> 17;
    nkf_rng ^= nkf_rng << 5;
    return nkf_rng;
}
static int32_t nkf_between(int32_t lo, int32_t hi) {
    return lo + (int32_t)(nkf_next() % (uint32_t)(hi - lo + 1));
}
static int nkf_chance(int percent) { return nkf_between(1, 100) <= percent; }

#if NK_FAST_I8_ARMV7EM
static int nkf_oct, nkf_rows; /* cases whose rows ran eight / six or four at a time */
static int nkf_vpair[4]; /* depthwise cases the vertical tap pairs took, by placement */

/* The bytes a conv or dense call may use: what the op asked for at load
 * (asked), or half the time a model's larger workspace, enough for the
 * DSP set's eight-pixel windows of k taps, or for six or four but not
 * eight, or neither */
static size_t nkf_ws_bytes(size_t asked, int32_t k) {
    const size_t kk = (size_t)(k > 0 ? k : 0), oct = 16u * kk;
    const size_t fewer = nkf_chance(50) ? 12u * kk : 8u * kk;
    if (nkf_chance(50))
        return asked;
    if (nkf_chance(40) && oct > asked)
        return oct + (size_t)nkf_between(0, 64);
    if (nkf_chance(70) && fewer > asked)
        return fewer + (size_t)nkf_between(0, (int)(oct - fewer) - 1);
    return asked + 64u;
}

/* Counts the rows of k taps that run eight at a time with ws_bytes, or
 * six or four (a dense: by_rows 1) */
static void nkf_count_oct(size_t rows, int32_t k, size_t ws_bytes, const int32_t *bias,
                          const nk_ref_i8_quant *q, int32_t out_c, int by_rows) {
    const nk_dsp_epi e = nk_dsp_epi_make(q, out_c);
    const int oct = nk_dsp_oct_takes(rows, k, ws_bytes, bias, &e);
    nkf_oct += oct;
    nkf_rows += by_rows && !oct && nk_dsp_rows_p(rows, k, ws_bytes, bias, &e) != 0;
}
#endif

static void nkf_fill(int8_t *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (int8_t)nkf_between(-128, 127);
}

static int32_t nkf_zp(void) {
    if (nkf_chance(10))
        return -128;
    if (nkf_chance(10))
        return 127;
    return nkf_between(-128, 127);
}

/* Quantization for out_c channels: multipliers in [2^30, 2^31), shifts
 * that keep most outputs inside the clamp, and now and then the pairs the
 * vector epilogues do not take. */
static void nkf_quant(nk_ref_i8_quant *q, int32_t out_c, int32_t depth) {
    const int32_t n = nkf_chance(50) ? out_c : 1;
    const int odd = nkf_chance(10);
    int32_t base = -6, c, span;
    for (span = 1; span < depth; span *= 4)
        base--; /* deeper sums, larger accumulators */
    for (c = 0; c < n; c++) {
        nkf_mult[c] = (int32_t)(0x40000000u + (nkf_next() & 0x3FFFFFFFu));
        nkf_shift[c] = nkf_between(base - 3, base + 3);
        if (nkf_shift[c] > -1)
            nkf_shift[c] = -1;
        if (nkf_chance(3))
            nkf_shift[c] = -31;
        if (odd && nkf_chance(30)) {
            nkf_shift[c] = nkf_between(0, 2);
            if (nkf_chance(30))
                nkf_mult[c] = 0;
        }
    }
    q->in_zp = nkf_zp();
    q->out_zp = nkf_zp();
    q->act_min = nkf_chance(50) ? -128 : nkf_between(-128, 0);
    q->act_max = nkf_chance(50) ? 127 : nkf_between(q->act_min, 127);
    q->mult = nkf_mult;
    q->shift = nkf_shift;
    q->per_channel = n > 1;
    /* found once by the op's eval, or left to the kernel */
    q->rq_right = nkf_chance(50) ? nk_i8_rq_right(q, n) : 0;
}

static const int32_t *nkf_make_bias(int32_t out_c) {
    int32_t c;
    if (nkf_chance(10))
        return NULL;
    for (c = 0; c < out_c; c++) {
        nkf_bias[c] = nkf_between(-70000, 70000);
        if (nkf_chance(2))
            nkf_bias[c] = nkf_chance(50) ? INT32_MAX : INT32_MIN;
    }
    return nkf_bias;
}

/* Pads and output size of one axis: 0 when the window does not fit. */
static int32_t nkf_axis(int32_t in, int32_t k, int32_t s, int32_t d, int32_t *pad_lo) {
    const int32_t eff = d * (k - 1) + 1;
    const int32_t lo = nkf_between(0, k), hi = nkf_between(0, k);
    *pad_lo = lo;
    if (in + lo + hi < eff)
        return 0;
    return (in + lo + hi - eff) / s + 1;
}

static void nkf_compare(const char *what, int n_case, size_t n, const nk_ref_conv_geom *g,
                        const nk_ref_i8_quant *q) {
    size_t i;
    for (i = 0; i < n + NKF_GUARD; i++)
        if (nkf_y_ref[i] != nkf_y_fast[i]) {
            nkf_failures++;
            fprintf(stderr,
                    "%s case %d: byte %u of %u: portable %d, fast %d (in %dx%dx%dx%d out_c %d k "
                    "%dx%d s %d,%d d %d,%d pad %d,%d mult %d; zp %d/%d clamp %d..%d per_channel "
                    "%d)\n",
                    what, n_case, (unsigned)i, (unsigned)n, nkf_y_ref[i], nkf_y_fast[i],
                    (int)g->batch, (int)g->in_h, (int)g->in_w, (int)g->in_c, (int)g->out_c,
                    (int)g->k_h, (int)g->k_w, (int)g->stride_h, (int)g->stride_w, (int)g->dil_h,
                    (int)g->dil_w, (int)g->pad_top, (int)g->pad_left, (int)g->multiplier,
                    (int)q->in_zp, (int)q->out_zp, (int)q->act_min, (int)q->act_max,
                    (int)q->per_channel);
            return;
        }
}

static void nkf_clear(size_t n) {
    memset(nkf_y_ref, 0x5A, n + NKF_GUARD);
    memset(nkf_y_fast, 0x5A, n + NKF_GUARD);
}

#if NK_FAST_I8_ARMV7EM
/* The first n bytes of p in a heap block of exactly n bytes. */
static int8_t *nkf_exact_copy(const int8_t *p, size_t n) {
    int8_t *c = (int8_t *)malloc(n);
    if (!c) {
        fprintf(stderr, "fast_i8_test: out of memory\n");
        exit(1);
    }
    memcpy(c, p, n);
    return c;
}
#endif

#if NK_FAST_I8_ARMV7EM
/* The lowest output start relative to the input that the direct overlap
 * rule allows a depthwise (nk_ops_raster_shift with a block of one output
 * row, or 3 pixels): min over output pixels q of the lowest input byte a
 * pixel from q on reads, less the bytes of the pixels up to q + block. */
static long nkf_dw_shift(const nk_ref_conv_geom *g) {
    const long n = (long)g->batch * g->out_h * g->out_w, block = g->out_w > 3 ? g->out_w : 3;
    long q, best = 0, sufmin = 0;
    int have = 0;
    for (q = n - 1; q >= 0; q--) {
        const long b = q / ((long)g->out_h * g->out_w), oy = q / g->out_w % g->out_h;
        const long ox = q % g->out_w;
        long iy = oy * g->stride_h - g->pad_top, ix = ox * g->stride_w - g->pad_left, v;
        iy = iy < 0 ? 0 : iy > g->in_h ? g->in_h : iy;
        ix = ix < 0 ? 0 : ix > g->in_w ? g->in_w : ix;
        v = (b * g->in_h * g->in_w + iy * g->in_w + ix) * g->in_c;
        sufmin = q == n - 1 || v < sufmin ? v : sufmin;
        v = sufmin - (q + block < n ? q + block : n) * g->out_c;
        best = !have || v < best ? v : best;
        have = 1;
    }
    return best;
}

/* Vertical tap pairs with the output apart from the input (place 0), at
 * the direct rule's lowest start (1), on the input (2) or m whole pixels
 * below it (3), in room for `cols` output columns a chunk and `pairs` row
 * pairs a band (the copy of a row or the saved one, 24 weight words, 16
 * words a staged column, 8 an output column and pair: dsp_depthwise.c);
 * exactly those bytes, so ASan sees an overrun. Leaves the output in
 * nkf_y_fast. */
static int nkf_vpair_run(const nk_ref_conv_geom *g, const nk_ref_i8_quant *q, const int32_t *bias,
                         size_t nx, size_t ny, int place, int m, int cols, int pairs) {
    const size_t s = (size_t)g->stride_w, row = (size_t)g->in_w * (size_t)g->in_c;
    /* on or below the input, a band saves its last row when its writes
     * reach it */
    const int saves = place >= 2 && m < g->pad_top * g->in_w;
    const size_t keep = place == 1 ? (row + 3u) / 4u : saves ? (size_t)g->in_w : 0u;
    const size_t n_ws = 4u * (keep + 24u + 16u * ((size_t)(cols - 1) * s + 3u) +
                              8u * (size_t)cols * (size_t)pairs);
    int32_t *ws = (int32_t *)malloc(n_ws);
    int took;
    if (place == 0) {
        took = nk_fast_depthwise_vpair_i8(nkf_x, nkf_w, bias, nkf_y_fast, g, q, ws, n_ws);
    } else {
        const long off = place == 1 ? nkf_dw_shift(g) : -(long)m * g->in_c;
        const size_t lead = off < 0 ? (size_t)-off : 0;
        const size_t size = lead + nx + ny + (size_t)(off > 0 ? off : 0);
        int8_t *buf = (int8_t *)malloc(size), *xp = buf + lead, *yp = xp + off;
        memcpy(xp, nkf_x, nx);
        took = nk_fast_depthwise_vpair_i8(xp, nkf_w, bias, yp, g, q, ws, n_ws);
        if (took)
            memcpy(nkf_y_fast, yp, ny);
        free(buf);
    }
    free(ws);
    return took;
}
#endif

/* A random conv (depthwise when dw); returns 1 when the fast kernel took it. */
static int nkf_conv(int dw, int n_case) {
    nk_ref_conv_geom g;
    nk_ref_i8_quant q;
    const int32_t *bias;
    const int32_t *wsum = NULL;
    size_t nx, nw, ny;
    int took;
    memset(&g, 0, sizeof g);
    for (;;) {
        g.batch = nkf_between(1, 2);
        g.in_h = nkf_between(1, 9);
        g.in_w = nkf_between(1, 12);
        g.k_h = nkf_chance(40) ? 3 : nkf_between(1, 5);
        g.k_w = nkf_chance(40) ? 3 : nkf_between(1, 5);
        g.stride_h = nkf_between(1, 3);
        g.stride_w = nkf_between(1, 3);
        g.dil_h = nkf_chance(20) ? 2 : 1;
        g.dil_w = nkf_chance(20) ? 2 : 1;
        g.groups = 1;
        g.multiplier = 1;
        if (dw) {
            g.in_c = nkf_chance(50) ? 4 * nkf_between(1, 6) : nkf_between(1, 21);
            g.multiplier = nkf_chance(70) ? 1 : nkf_between(2, 3);
            if (nkf_chance(15)) { /* the DSP set's multipliers of 4 and 8 (micro speech: 1 -> 8) */
                g.multiplier = 4 * nkf_between(1, 2);
                if (nkf_chance(50))
                    g.in_c = 1;
            }
            if (nkf_chance(25)) { /* the Helium set's padded 3x3 windows */
                g.k_h = g.k_w = 3;
                g.dil_h = g.dil_w = 1;
                g.stride_w = nkf_between(1, 2);
                g.in_c = nkf_between(8, 21);
                g.multiplier = 1;
            }
            g.out_c = g.in_c * g.multiplier;
        } else {
            g.in_c = nkf_chance(30) ? nkf_between(1, 3) : nkf_between(4, 40);
            /* more than a few channel pairs: blocks that read their tail
             * word whole, and the last pair that must not */
            g.out_c = nkf_chance(30) ? nkf_between(10, 24) : nkf_between(1, 9);
        }
        if (dw && nkf_chance(40)) {
            /* the DSP set's 3x3 groups of three windows (stride_w 1 or 2),
             * padded ones included, with wider channel counts */
            g.k_h = g.k_w = 3;
            g.dil_w = 1;
            g.stride_w = nkf_between(1, 2);
            g.multiplier = 1;
            g.in_c = g.out_c = nkf_chance(50) ? 4 * nkf_between(1, 16) : nkf_between(1, 70);
            if (nkf_chance(30)) /* staged rows longer than the usual draws */
                g.in_w = nkf_between(17, 40);
        }
        if (!dw && nkf_chance(15)) {
            /* a first layer's 3x3 over 1..3 channels with few outputs (VWW's
             * stem: 27 taps, 8 channels): small windows of 4 to 7 words */
            g.k_h = g.k_w = 3;
            g.in_c = nkf_between(2, 3);
            g.out_c = nkf_between(1, 9);
            g.dil_w = 1;
        }
        if (!dw && nkf_chance(15)) {
            /* 3x3 over words of channels with eight pixels or more (IC's
             * convs): the DSP set's eight-pixel windows, padded ones too */
            g.k_h = g.k_w = 3;
            g.in_c = 4 * nkf_between(1, 4);
            g.in_h = nkf_between(3, 9);
            g.in_w = nkf_between(4, 12);
            g.dil_w = 1;
        }
        if (!dw && nkf_chance(20)) { /* pointwise */
            if (nkf_chance(50)) /* whole pairs of words: the DSP set's eight-pixel blocks */
                g.in_c = 8 * nkf_between(1, 6);
            g.k_h = g.k_w = g.stride_h = g.stride_w = g.dil_h = g.dil_w = 1;
            g.out_h = g.in_h;
            g.out_w = g.in_w;
            g.pad_top = g.pad_left = 0;
        } else {
            g.out_h = nkf_axis(g.in_h, g.k_h, g.stride_h, g.dil_h, &g.pad_top);
            g.out_w = nkf_axis(g.in_w, g.k_w, g.stride_w, g.dil_w, &g.pad_left);
        }
        if (dw && g.k_w == 3 && g.stride_w == 1 && g.dil_w == 1 && g.multiplier == 1 &&
            nkf_chance(25)) {
            /* the DSP set's narrow rows padded by one column at each end
             * (KWS's 5 pixels, VWW's 3) */
            g.in_w = g.out_w = nkf_chance(50) ? 5 : 3;
            g.pad_left = 1;
            if (nkf_chance(60)) {
                /* KWS's layers whole: words of channels and 'same' rows, so
                 * the first and last rows see two kernel rows (the fused
                 * narrow groups over two rows) */
                g.in_c = g.out_c = 4 * nkf_between(1, 8);
                g.k_h = 3;
                g.stride_h = g.dil_h = 1;
                g.pad_top = 1;
                g.out_h = g.in_h;
            }
        }
        nx = (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)g.in_c;
        nw = (size_t)g.k_h * (size_t)g.k_w * (size_t)(dw ? g.out_c : g.in_c * g.out_c);
        ny = (size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w * (size_t)g.out_c;
        if (g.out_h > 0 && g.out_w > 0 && nx <= NKF_BUF && nw <= NKF_BUF && ny <= NKF_BUF)
            break;
    }
    nkf_fill(nkf_x, nx);
    nkf_fill(nkf_w, nw);
    nkf_quant(&q, g.out_c, g.k_h * g.k_w * (dw ? 1 : g.in_c));
    bias = nkf_make_bias(g.out_c);
    nkf_clear(ny);
    if (dw) {
        if (nkf_chance(80)) {
            nk_ref_depthwise_wsum_i8(nkf_w, g.k_h * g.k_w, g.out_c, nkf_wsum);
            wsum = nkf_wsum;
        }
        nk_ref_depthwise_conv2d_i8(nkf_x, nkf_w, bias, nkf_y_ref, &g, &q, wsum);
#if NK_FAST_I8_ARMV7EM
        {
            /* exactly the staging bytes the op asks for at load */
            const size_t n_ws = nk_fast_depthwise_i8_workspace(&g);
            int32_t *ws = n_ws ? (int32_t *)malloc(n_ws) : NULL;
            took = nk_fast_depthwise_conv2d_i8_ws(nkf_x, nkf_w, bias, nkf_y_fast, &g, &q, wsum,
                                                  ws);
            free(ws);
        }
#else
        took = nk_fast_depthwise_conv2d_i8(nkf_x, nkf_w, bias, nkf_y_fast, &g, &q, wsum);
#endif
    } else {
        nk_ref_conv2d_i8(nkf_x, nkf_w, bias, nkf_y_ref, &g, &q, NULL);
#if NK_FAST_I8_ARMV7EM
        {
            /* exactly the bytes the call may use (what the op asks for at
             * load, or more), and the weights alone in a block of their
             * size (ASan sees an overrun) */
            const int32_t k = g.k_h * g.k_w * g.in_c;
            const size_t asked = nk_fast_conv2d_i8_workspace(&g);
            const size_t n_ws = asked ? nkf_ws_bytes(asked, k) : 0;
            int32_t *ws = n_ws ? (int32_t *)malloc(n_ws) : NULL;
            int8_t *w = nkf_exact_copy(nkf_w, nw);
            took = nk_fast_conv2d_i8_ws(nkf_x, w, bias, nkf_y_fast, &g, &q, ws, n_ws, 0);
            /* the pointwise convs' dense rows, and other convs' gathered
             * windows over whole words of channels */
            if (took && (nk_fast_conv2d_i8_is_dense(&g) ||
                         (!nk_fast_conv2d_i8_small(&g) && !(g.in_c & 3))))
                nkf_count_oct((size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w, k, n_ws, bias,
                              &q, g.out_c, 0);
            free(w);
            free(ws);
        }
#else
        took = nk_fast_conv2d_i8(nkf_x, nkf_w, bias, nkf_y_fast, &g, &q);
#endif
    }
    if (took)
        nkf_compare(dw ? "depthwise" : "conv2d", n_case, ny, &g, &q);
    return took;
}

/* A random small-window conv (a stem: up to 32 taps, three channels
 * often) by column patches (nk_dsp_conv_patch) in exactly the bytes it
 * needs (ASan sees an overrun), whole or as two bands of rows the way a
 * staged op runs (the second call keeps the first's widened weights);
 * returns 1 when the kernel took it. */
static int nkf_patch_case(int n_case) {
#if NK_FAST_I8_ARMV7EM
    nk_ref_conv_geom g, band;
    nk_ref_i8_quant q;
    const int32_t *bias;
    nk_dsp_epi e;
    size_t nx, ny, need;
    int took = 0;
    memset(&g, 0, sizeof g);
    do {
        g.batch = nkf_between(1, 2);
        g.in_h = nkf_between(1, 12);
        g.in_w = nkf_between(1, 20);
        g.in_c = nkf_chance(50) ? 3 : nkf_between(1, 4);
        g.k_h = nkf_between(1, 3);
        g.k_w = nkf_between(1, 3);
        g.stride_h = nkf_between(1, 2);
        g.stride_w = nkf_between(1, 2);
        g.dil_h = g.dil_w = g.groups = g.multiplier = 1;
        g.out_c = nkf_between(1, 12);
        g.out_h = nkf_axis(g.in_h, g.k_h, g.stride_h, 1, &g.pad_top);
        g.out_w = nkf_axis(g.in_w, g.k_w, g.stride_w, 1, &g.pad_left);
        nx = (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)g.in_c;
        ny = (size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w * (size_t)g.out_c;
    } while (g.out_h <= 0 || g.out_w <= 0 || (g.stride_w * g.k_h * g.in_c) % 2 != 0 ||
             !nk_fast_conv2d_i8_small(&g));
    nkf_fill(nkf_x, nx);
    nkf_fill(nkf_w, (size_t)g.k_h * (size_t)g.k_w * (size_t)g.in_c * (size_t)g.out_c);
    nkf_quant(&q, g.out_c, g.k_h * g.k_w * g.in_c);
    bias = nkf_make_bias(g.out_c);
    nkf_clear(ny);
    nk_ref_conv2d_i8(nkf_x, nkf_w, bias, nkf_y_ref, &g, &q, NULL);
    e = nk_dsp_epi_make(&q, g.out_c);
    /* each channel's weight pairs, bias, m2, a and a pad word, the patch,
     * and a last block's outputs, as the section's comment counts them */
    need = (size_t)g.out_c * 4u * (2u * (size_t)((g.k_h * g.k_w * g.in_c + 3) / 4) + 4u) +
           2u * nk_dsp_patch_lanes(&g) + (g.out_w % 4 != 0 ? 4u * (size_t)g.out_c : 0u);
    if (nk_dsp_patch_fits(&g, &e, need) && !nk_dsp_patch_fits(&g, &e, need - 1u)) {
        int32_t *ws = (int32_t *)malloc(need);
        const int32_t rows = g.batch == 1 && g.out_h > 1 && nkf_chance(50) ? nkf_between(1, g.out_h - 1) : 0;
        if (rows == 0) {
            took = nk_fast_conv2d_i8_ws(nkf_x, nkf_w, bias, nkf_y_fast, &g, &q, ws, need, 0);
        } else { /* rows [0, rows) then the rest, each band's input rows only */
            int32_t j;
            for (j = 0; j < 2; j++) {
                const int32_t r0 = j ? rows : 0, top = r0 * g.stride_h - g.pad_top;
                const int32_t a = top > 0 ? top : 0;
                int32_t end;
                band = g;
                band.out_h = j ? g.out_h - rows : rows;
                end = top + (band.out_h - 1) * g.stride_h + g.k_h;
                if (end > g.in_h) end = g.in_h;
                if (end <= a) { /* a band over the padding alone: not staged (plan.c) */
                    took = 0;
                    break;
                }
                band.in_h = end - a;
                band.pad_top = a - top;
                took = nk_fast_conv2d_i8_ws(nkf_x + (size_t)a * (size_t)g.in_w * (size_t)g.in_c, nkf_w, bias,
                                            nkf_y_fast + (size_t)r0 * (size_t)g.out_w * (size_t)g.out_c,
                                            &band, &q, ws, need, j);
            }
        }
        free(ws);
    }
    if (took)
        nkf_compare("conv2d by patches", n_case, ny, &g, &q);
    return took;
#else
    (void)n_case;
    return 0;
#endif
}

/* A random 3x3 depthwise at stride_h 1 over whole words of channels by
 * vertical tap pairs, with the output apart from, over, on or whole
 * pixels below its input; returns 1 when the kernel took it. */
static int nkf_vpair_case(int n_case) {
#if NK_FAST_I8_ARMV7EM
    nk_ref_conv_geom g;
    nk_ref_i8_quant q;
    const int32_t *bias;
    size_t nx, ny;
    const int place = nkf_between(0, 3);
    int took, m = 0;
    memset(&g, 0, sizeof g);
    do {
        g.batch = nkf_between(1, 2);
        g.in_h = nkf_between(1, 12);
        g.in_w = nkf_between(1, 14);
        g.in_c = g.out_c = 4 * nkf_between(1, 12);
        g.k_h = g.k_w = 3;
        g.stride_h = g.dil_h = g.dil_w = g.groups = g.multiplier = 1;
        g.stride_w = nkf_between(1, 2);
        if (place >= 2 || nkf_chance(50)) {
            /* 'same' or 'valid' rows at stride 1 (on or below the input:
             * the only ones it takes) */
            g.stride_w = 1;
            g.pad_top = nkf_between(0, 1);
            g.pad_left = 1;
            g.out_h = g.pad_top ? g.in_h : g.in_h - 2;
            g.out_w = g.in_w;
        } else {
            g.out_h = nkf_axis(g.in_h, 3, 1, 1, &g.pad_top);
            g.out_w = nkf_axis(g.in_w, 3, g.stride_w, 1, &g.pad_left);
        }
        if (place == 3) {
            /* 1 to 2 rows' pixels below, one image or rows as many */
            m = nkf_between(1, 2 * g.in_w);
            if (g.out_h != g.in_h)
                g.batch = 1;
        }
        nx = (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)g.in_c;
        ny = (size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w * (size_t)g.out_c;
    } while (g.out_h <= 0 || g.out_w <= 0 || nx > NKF_BUF || ny > NKF_BUF);
    nkf_fill(nkf_x, nx);
    nkf_fill(nkf_w, (size_t)9 * (size_t)g.out_c);
    nkf_quant(&q, g.out_c, 9);
    bias = nkf_make_bias(g.out_c);
    nkf_clear(ny);
    nk_ref_depthwise_conv2d_i8(nkf_x, nkf_w, bias, nkf_y_ref, &g, &q, NULL);
    took = nkf_vpair_run(&g, &q, bias, nx, ny, place, m, nkf_between(2, 14), nkf_between(1, 3));
    nkf_vpair[place] += took;
    if (took)
        nkf_compare("vertical tap pairs", n_case, ny, &g, &q);
    return took;
#else
    (void)n_case;
    return 0;
#endif
}

static int nkf_dense(int n_case, int rows_p) {
    nk_ref_conv_geom g; /* for the failure message */
    nk_ref_i8_quant q;
    const int32_t *bias;
    /* up to two blocks of eight rows and some left over, of whole pairs of
     * words half the time; rows_p (6 or 4): a workspace for that many
     * rows' windows at a time and not two more, and rows for it */
    const size_t rows = (size_t)(rows_p      ? nkf_between(rows_p, 21)
                                 : nkf_chance(50) ? nkf_between(1, 5)
                                                  : nkf_between(6, 21));
    const int32_t in_f = rows_p || nkf_chance(50) ? 8 * nkf_between(1, 10) : nkf_between(1, 80);
    const int32_t out_f = nkf_between(1, 13);
    const size_t ny = rows * (size_t)out_f;
    memset(&g, 0, sizeof g);
    g.batch = (int32_t)rows;
    g.in_c = in_f;
    g.out_c = out_f;
    nkf_fill(nkf_x, rows * (size_t)in_f);
    nkf_fill(nkf_w, (size_t)in_f * (size_t)out_f);
    nkf_quant(&q, out_f, in_f);
    bias = nkf_make_bias(out_f);
    nkf_clear(ny);
    nk_ref_dense_i8(nkf_x, nkf_w, bias, nkf_y_ref, rows, in_f, out_f, &q);
#if NK_FAST_I8_ARMV7EM
    {
        const size_t asked = nk_fast_dense_i8_workspace(rows, in_f);
        const size_t n_ws = rows_p ? (size_t)(2 * rows_p * in_f + nkf_between(0, 4 * in_f - 1))
                            : asked ? nkf_ws_bytes(asked, in_f)
                                    : 0;
        int32_t *ws = n_ws ? (int32_t *)malloc(n_ws) : NULL;
        int8_t *w = nkf_exact_copy(nkf_w, (size_t)in_f * (size_t)out_f);
        const int took = nk_fast_dense_i8_ws(nkf_x, w, bias, nkf_y_fast, rows, in_f, out_f,
                                             &q, ws, n_ws);
        if (took)
            nkf_count_oct(rows, in_f, n_ws, bias, &q, out_f, rows > 1);
        free(w);
        free(ws);
        if (!took)
            return 0;
    }
#else
    if (!nk_fast_dense_i8(nkf_x, nkf_w, bias, nkf_y_fast, rows, in_f, out_f, &q))
        return 0;
#endif
    nkf_compare("dense", n_case, ny, &g, &q);
    return 1;
}

/* A pointwise conv of equal channels run on its own input (a staged op
 * whose plan put its output there), odd pixel counts too, in room for
 * two to eight rows' windows; returns 1 when the kernel took it. */
static int nkf_pointwise_in_place(int n_case) {
#if NK_FAST_I8_ARMV7EM
    nk_ref_conv_geom g;
    nk_ref_i8_quant q;
    const int32_t *bias;
    size_t n, ws_bytes;
    int32_t *ws;
    int took;
    memset(&g, 0, sizeof g);
    g.batch = nkf_between(1, 2);
    g.in_h = g.out_h = nkf_between(1, 5);
    g.in_w = g.out_w = nkf_between(1, 7);
    g.in_c = g.out_c = nkf_chance(70) ? 8 * nkf_between(1, 8) : nkf_between(1, 40);
    g.k_h = g.k_w = g.stride_h = g.stride_w = g.dil_h = g.dil_w = g.groups = g.multiplier = 1;
    n = (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)g.in_c;
    nkf_fill(nkf_x, n);
    nkf_fill(nkf_w, (size_t)g.in_c * (size_t)g.out_c);
    nkf_quant(&q, g.out_c, g.in_c);
    bias = nkf_make_bias(g.out_c);
    nkf_clear(n);
    nk_ref_conv2d_i8(nkf_x, nkf_w, bias, nkf_y_ref, &g, &q, NULL);
    memcpy(nkf_y_fast, nkf_x, n);
    ws_bytes = 4u * NK_DSP_WIN_TAPS(g.in_c) * (size_t)nkf_between(1, 4);
    ws = (int32_t *)malloc(ws_bytes);
    took = nk_fast_pointwise_i8_in_place(nkf_y_fast, nkf_w, bias, &g, &q, ws, ws_bytes);
    free(ws);
    if (took)
        nkf_compare("pointwise in place", n_case, n, &g, &q);
    else
        memcpy(nkf_y_fast, nkf_y_ref, n); /* nothing to compare */
    return took;
#else
    (void)n_case;
    return 0;
#endif
}

/* A random average or max pool; returns 1 when the fast kernel took it. */
static int nkf_pool(int n_case) {
#if NK_FAST_I8_POOL
    nk_ref_conv_geom g;
    nk_ref_i8_quant q; /* for the failure message */
    const int is_max = nkf_chance(50);
    int32_t act_min, act_max;
    int big;
    size_t nx, ny, i;
    memset(&g, 0, sizeof g);
    memset(&q, 0, sizeof q);
    for (;;) {
        g.batch = nkf_between(1, 2);
        g.in_h = nkf_between(1, 9);
        g.in_w = nkf_between(1, 12);
        g.in_c = g.out_c = nkf_chance(50) ? 16 * nkf_between(1, 3) : nkf_between(1, 40);
        g.k_h = nkf_between(1, 4);
        g.k_w = nkf_between(1, 4);
        g.stride_h = nkf_between(1, 3);
        g.stride_w = nkf_between(1, 3);
        g.dil_h = g.dil_w = 1;
        /* pads below the kernel: every window holds an input pixel */
        g.pad_top = nkf_between(0, g.k_h - 1);
        g.pad_left = nkf_between(0, g.k_w - 1);
        big = nkf_chance(10) ? (nkf_chance(50) ? 1 : -1) : 0;
        if (big) {
            /* a global pool of 256 to 400 taps (KWS's is 125, IC's 64):
             * more than the 255 an int16 lane sums without a carry */
            g.batch = 1;
            g.in_h = g.k_h = nkf_between(16, 20);
            g.in_w = g.k_w = nkf_between(16, 20);
            g.in_c = g.out_c = nkf_between(4, 40);
            g.pad_top = g.pad_left = 0;
        }
        g.out_h = (g.in_h + 2 * g.pad_top - g.k_h) / g.stride_h + 1;
        g.out_w = (g.in_w + 2 * g.pad_left - g.k_w) / g.stride_w + 1;
        nx = (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)g.in_c;
        ny = (size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w * (size_t)g.out_c;
        if (g.in_h + 2 * g.pad_top >= g.k_h && g.in_w + 2 * g.pad_left >= g.k_w &&
            nx <= NKF_BUF && ny <= NKF_BUF)
            break;
    }
    act_min = nkf_chance(50) ? -128 : nkf_between(-128, 0);
    act_max = nkf_chance(50) ? 127 : nkf_between(act_min, 127);
    q.act_min = act_min;
    q.act_max = act_max;
    nkf_fill(nkf_x, nx);
    if (big) /* one sign throughout: the sums the int16 lanes must not wrap */
        for (i = 0; i < nx; i++)
            nkf_x[i] = (int8_t)(big > 0 ? 127 - (nkf_x[i] & 3) : -128 + (nkf_x[i] & 3));
    nkf_clear(ny);
    if (is_max)
        nk_ref_max_pool2d_i8(nkf_x, nkf_y_ref, &g, act_min, act_max);
    else
        nk_ref_avg_pool2d_i8(nkf_x, nkf_y_ref, &g, act_min, act_max);
    if (!nk_fast_pool2d_i8(nkf_x, nkf_y_fast, &g, act_min, act_max, is_max))
        return 0;
    nkf_compare(is_max ? "max pool" : "average pool", n_case, ny, &g, &q);
    return 1;
#else
    (void)n_case;
    return 0;
#endif
}

/* A random add (the DSP and MVE sets'; elsewhere none): returns 1 when
 * the fast kernel took it. TFLite's parameters: left shift 20, input
 * multipliers at most 1/2, the output's below 1; sometimes a shift the
 * fast kernel refuses, or in place; a quarter with no left shift and an
 * output scale near 1/2, where the rescaled inputs' last bits show. A
 * third of the MVE cases are short (1 to 40 elements: the tail
 * predicate); the DSP set leaves those to the portable kernel. */
static int nkf_add(int n_case) {
#if NK_FAST_I8_ARMV7EM || NK_FAST_I8_MVE
    nk_ref_conv_geom g; /* for the failure message */
    nk_ref_i8_quant q;
    nk_ref_add_i8_params p;
    const size_t n = (size_t)(NK_FAST_I8_MVE && nkf_chance(33) ? nkf_between(1, 40)
                                                               : nkf_between(1000, 4000));
    const int in_place = nkf_chance(20);
    static int8_t b[NKF_BUF];
    size_t n_ws;
    int32_t *ws;
    int took;
    memset(&g, 0, sizeof g);
    memset(&q, 0, sizeof q);
    p.in1_zp = nkf_between(-128, 127);
    p.in2_zp = nkf_between(-128, 127);
    p.out_zp = nkf_between(-128, 127);
    p.left_shift = nkf_chance(80) ? 20 : nkf_between(0, 23);
    p.m1 = nkf_between(1 << 30, INT32_MAX);
    p.m2 = nkf_between(1 << 30, INT32_MAX);
    p.m_out = nkf_between(1 << 30, INT32_MAX);
    p.shift1 = nkf_between(-8, 0);
    p.shift2 = nkf_between(-8, 0);
    p.shift_out = nkf_chance(10) ? nkf_between(0, 2) : nkf_between(-31, -1);
    if (nkf_chance(25)) {
        /* no left shift and an output scale near 1/2: a one-unit error
         * in either rescaled input moves output bytes */
        p.left_shift = 0;
        p.shift_out = -1;
    }
    p.act_min = nkf_between(-128, 0);
    p.act_max = nkf_between(p.act_min, 127);
    q.in_zp = p.in1_zp;
    q.out_zp = p.out_zp;
    q.act_min = p.act_min;
    q.act_max = p.act_max;
    g.batch = (int32_t)n;
    nkf_fill(nkf_x, n);
    nkf_fill(b, n);
    nkf_clear(n);
    nk_ref_add_i8(nkf_x, b, nkf_y_ref, n, &p);
    n_ws = nk_fast_add_i8_workspace(n);
    ws = n_ws ? (int32_t *)malloc(n_ws) : NULL;
    if (in_place) { /* y = a */
        memcpy(nkf_y_fast, nkf_x, n);
        took = nk_fast_add_i8_ws(nkf_y_fast, b, nkf_y_fast, n, &p, ws);
    } else {
        took = nk_fast_add_i8_ws(nkf_x, b, nkf_y_fast, n, &p, ws);
    }
    free(ws);
    if (took)
        nkf_compare("add", n_case, n, &g, &q);
    return took;
#else
    (void)n_case;
    return 0;
#endif
}

int main(void) {
    int i, took_conv = 0, took_dw = 0, took_dense = 0, took_pool = 0, took_add = 0;
    int took_in_place = 0, took_patch = 0;
    for (i = 0; i < NKF_CASES; i++) {
        took_conv += nkf_conv(0, i);
        took_dw += nkf_conv(1, i);
        nkf_vpair_case(i);
        took_patch += nkf_patch_case(i);
        took_in_place += nkf_pointwise_in_place(i);
        took_dense += nkf_dense(i, 0);
        nkf_dense(i, 4 + 2 * (i & 1)); /* six or four rows at a time */
        took_pool += nkf_pool(i);
        took_add += nkf_add(i);
    }
    printf("fast_i8_test (%s, %s rounding): fast kernels took conv2d %d, depthwise %d, dense %d, "
           "pools %d, add %d of %d cases each; %d failures\n",
           NKF_SET_NAME, NETKIT_SINGLE_ROUNDING ? "single" : "double", took_conv, took_dw,
           took_dense, took_pool, took_add, NKF_CASES, nkf_failures);
    if (took_conv == 0 || took_dw == 0 || took_dense == 0 || (NK_FAST_I8_POOL && took_pool == 0) ||
        ((NK_FAST_I8_ARMV7EM || NK_FAST_I8_MVE) && took_add == 0)) {
        fprintf(stderr, "a fast kernel took no case\n");
        return 1;
    }
#if NK_FAST_I8_ARMV7EM
    printf("fast_i8_test: rows ran eight at a time in %d conv2d and dense cases, six or four "
           "in %d\n",
           nkf_oct, nkf_rows);
    if (nkf_oct == 0 || nkf_rows == 0) {
        fprintf(stderr, "no case ran rows eight (or six or four) at a time\n");
        return 1;
    }
    printf("fast_i8_test: small-window convs ran by column patches in %d cases\n", took_patch);
    if (took_patch == 0) {
        fprintf(stderr, "no conv ran by column patches\n");
        return 1;
    }
    printf("fast_i8_test: pointwise convs ran on their own input in %d cases\n", took_in_place);
    if (took_in_place == 0) {
        fprintf(stderr, "no pointwise conv ran on its own input\n");
        return 1;
    }
    printf("fast_i8_test: vertical tap pairs took %d depthwise cases apart from the input, %d "
           "over it, %d on it, %d whole pixels below it\n",
           nkf_vpair[0], nkf_vpair[1], nkf_vpair[2], nkf_vpair[3]);
    if (nkf_vpair[0] == 0 || nkf_vpair[1] == 0 || nkf_vpair[2] == 0 || nkf_vpair[3] == 0) {
        fprintf(stderr, "some placement ran no depthwise case by vertical tap pairs\n");
        return 1;
    }
#endif
    return nkf_failures ? 1 : 0;
}
#else
int main(void) {
    printf("fast_i8_test: no fast int8 set in this build (skipped)\n");
    return 77;
}
#endif

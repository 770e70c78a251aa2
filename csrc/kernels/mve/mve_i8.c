/* mve_i8.c — int8 conv, dense and depthwise on Armv8.1-M Helium (MVE,
 * Cortex-M55; kernels/fast_i8.h says when they are built), through the
 * arm_mve.h intrinsics.
 *
 * Conv and dense: VMLADAVA.S8 adds sixteen int8 products x * w into a
 * scalar. The input offset -in_zp is not added to x (it would not fit
 * int8): TFLite's sum over the valid taps of (x + off) * w is
 * sum(x * w) + off * sum(w), and VADDVA.S8 sums the same weight vectors
 * alongside, so only the taps inside the input count (padding adds
 * nothing) and no weight sums need storing; both sums wrap modulo 2^32
 * like the portable kernel's. Blocks of two output channels by two output
 * pixels (or rows): two input and two weight vectors feed four
 * VMLADAVAs; the last 1..15 bytes of a run go through the same code with
 * a tail predicate (VCTP), whose inactive lanes load as 0. With one
 * group, a kernel row's valid taps (no horizontal dilation) are one run
 * of bytes in x and in w. Small windows (at most NK_MVE_WIN_MAX taps: a
 * first layer over one to three input channels) are gathered per pixel
 * into a buffer on the stack, padding filled with in_zp (x + off = 0
 * there), so every pixel is one run.
 *
 * Depthwise: NHWC keeps channels contiguous, so four channels are the
 * four int32 lanes of VLDRB.S32 / VMUL / VADD (MVE's VMLA takes a scalar
 * only); channel multipliers above one
 * gather the input bytes. Windows inside the input start the
 * accumulators at bias + off * wsum (the weight sums the op computes for
 * the portable kernel) and skip the per-tap offset.
 *
 * Epilogue: four outputs at once in int32 lanes. With every shift
 * negative (or multiplier 0; dsp.h's condition) the requantization is
 * exact in both rounding modes:
 *   double: x = VQRDMULH(v, m) is TFLite's SaturatingRoundingDoublingHighMul;
 *     the rounding divide by 2^e (ties away from zero) is VRSHL by -e of
 *     x - [x < 0] (qmath.h derives it; e = 0 only for m = 0, x = 0);
 *   single: floor((v*m + 2^(30+e)) / 2^(31+e)) is VRSHL by -e of
 *     VQDMULH(v, m) = floor(v*m / 2^31).
 * Then the zero point and both clamps, and a narrowing (scatter) store.
 * Other pairs take the portable epilogue per output.
 *
 * Loop order (for placements of the output over the input): every kernel
 * writes its output front to back, pixel by pixel (dense: row by row),
 * all channels of a pixel (or pair of pixels) before the next. */
#include "../fast_i8.h"

#if NK_FAST_I8_MVE
#include <arm_mve.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define NK_MVE_NOINLINE __attribute__((noinline))
#define NK_MVE_INLINE static inline __attribute__((always_inline))
#else
#define NK_MVE_NOINLINE
#define NK_MVE_INLINE static inline
#endif

/* taps per pixel gathered into the window buffer (two pixels: 128 bytes) */
#define NK_MVE_WIN_MAX 64

/* The epilogue's parameters, read once per kernel call. */
typedef struct nk_mve_epi {
    const nk_ref_i8_quant *q;
    int32_t cmask; /* channel c's pair is at c & cmask (-1, or 0 per tensor) */
    int32_t fast;  /* every pair suits nk_mve_rq */
} nk_mve_epi;

static nk_mve_epi nk_mve_epi_make(const nk_ref_i8_quant *q, int32_t out_c) {
    const int32_t n = q->per_channel ? out_c : 1;
    nk_mve_epi e;
    int32_t c;
    e.q = q;
    e.cmask = q->per_channel ? -1 : 0;
    e.fast = 1;
    for (c = 0; c < n; c++)
        if ((q->shift[c] >= 0) != (q->mult[c] == 0))
            e.fast = 0;
    return e;
}

/* Four accumulators (bias included) requantized by lane multipliers m and
 * shifts s (each s < 0, or m = 0), plus the zero point, clamped. */
NK_MVE_INLINE int32x4_t nk_mve_rq(int32x4_t v, int32x4_t m, int32x4_t s,
                                  const nk_ref_i8_quant *q) {
    const int32x4_t right = vminq_s32(s, vdupq_n_s32(0));
#if NETKIT_SINGLE_ROUNDING
    v = vqdmulhq_s32(v, m);
#else
    v = vqrdmulhq_s32(v, m);
    v = vaddq_s32(v, vshrq_n_s32(v, 31));
#endif
    v = vrshlq_s32(v, right);
    v = vaddq_n_s32(v, q->out_zp);
    v = vmaxq_s32(v, vdupq_n_s32(q->act_min));
    return vminq_s32(v, vdupq_n_s32(q->act_max));
}

/* Lanes i < n of v, channel ch[i], through the portable epilogue to y[off[i]]. */
static NK_MVE_NOINLINE void nk_mve_finish_any(int32x4_t v, const int32_t *ch, const size_t *off,
                                              int n, int8_t *y, const nk_ref_i8_quant *q) {
    int32_t a[4];
    int i;
    vst1q_s32(a, v);
    for (i = 0; i < n; i++) {
        const nk_q_rq r = nk_i8_rq(q, ch[i]);
        y[off[i]] = nk_i8_finish_rq(a[i], 0, &r, q);
    }
}

/* Channels o, o+1 (nw = 2, or o alone) of pixels at y and y + y1 (np = 2,
 * or y alone); lanes of v: (o, p0), (o+1, p0), (o, p1), (o+1, p1). */
static NK_MVE_NOINLINE void nk_mve_finish22(int32x4_t v, int nw, int np, int32_t o, int8_t *y,
                                            size_t y1, const nk_mve_epi *e) {
    const int32_t k0 = o & e->cmask, k1 = (o + (nw - 1)) & e->cmask;
    const mve_pred16_t p = (mve_pred16_t)((np == 2 ? 0xFFFFu : 0x00FFu) &
                                          (nw == 2 ? 0xFFFFu : 0x0F0Fu));
    uint32x4_t offs = vdupq_n_u32(0);
    offs = vsetq_lane_u32(1, offs, 1);
    offs = vsetq_lane_u32((uint32_t)y1, offs, 2);
    offs = vsetq_lane_u32((uint32_t)y1 + 1u, offs, 3);
    if (e->fast) {
        int32x4_t m = vdupq_n_s32(e->q->mult[k0]), s = vdupq_n_s32(e->q->shift[k0]);
        m = vsetq_lane_s32(e->q->mult[k1], m, 1);
        m = vsetq_lane_s32(e->q->mult[k1], m, 3);
        s = vsetq_lane_s32(e->q->shift[k1], s, 1);
        s = vsetq_lane_s32(e->q->shift[k1], s, 3);
        vstrbq_scatter_offset_p_s32(y + o, offs, nk_mve_rq(v, m, s, e->q), p);
    } else {
        const int32_t ch[4] = {o, o + 1, o, o + 1};
        const size_t off[4] = {0, 1, y1, y1 + 1};
        int32_t a[4];
        int i;
        vst1q_s32(a, v);
        for (i = 0; i < 4; i++)
            if ((i & 1) < nw && (i >> 1) < np) {
                const nk_q_rq r = nk_i8_rq(e->q, ch[i]);
                y[(size_t)o + off[i]] = nk_i8_finish_rq(a[i], 0, &r, e->q);
            }
    }
}

/* The taps of one output pixel: n_rows x n_cols runs of len bytes, x_row
 * and x_col apart in the input, w_row and w_col in each channel's weights. */
typedef struct nk_mve_runs {
    int32_t len, n_rows, n_cols;
    size_t x_row, x_col, w_row, w_col;
} nk_mve_runs;

/* r[0..3] = sum over the runs of x_j * w_i for j < np pixels (x, x + x1)
 * and the two channels w, w + w1, in lane order (i, j) = (0,0), (1,0),
 * (0,1), (1,1); r[4], r[5] the sums of each channel's weights. np = 1
 * leaves r[2], r[3] unset. */
NK_MVE_INLINE void nk_mve_dot(const int8_t *x, size_t x1, const int8_t *w, size_t w1,
                              const nk_mve_runs *u, const int np, int32_t *r) {
    int32_t a00 = 0, a10 = 0, a01 = 0, a11 = 0, s0 = 0, s1 = 0, i, j;
    for (i = 0; i < u->n_rows; i++) {
        const int8_t *xr = x + (size_t)i * u->x_row, *wr = w + (size_t)i * u->w_row;
        for (j = 0; j < u->n_cols; j++, xr += u->x_col, wr += u->w_col) {
            const int8_t *xa = xr, *wa = wr;
            int32_t k = u->len;
            for (; k >= 16; k -= 16, xa += 16, wa += 16) {
                const int8x16_t xv0 = vldrbq_s8(xa), wv0 = vldrbq_s8(wa), wv1 = vldrbq_s8(wa + w1);
                a00 = vmladavaq_s8(a00, xv0, wv0);
                a10 = vmladavaq_s8(a10, xv0, wv1);
                if (np == 2) {
                    const int8x16_t xv1 = vldrbq_s8(xa + x1);
                    a01 = vmladavaq_s8(a01, xv1, wv0);
                    a11 = vmladavaq_s8(a11, xv1, wv1);
                }
                s0 = vaddvaq_s8(s0, wv0);
                s1 = vaddvaq_s8(s1, wv1);
            }
            if (k > 0) { /* inactive lanes load as 0 */
                const mve_pred16_t p = vctp8q((uint32_t)k);
                const int8x16_t xv0 = vldrbq_z_s8(xa, p), wv0 = vldrbq_z_s8(wa, p),
                                wv1 = vldrbq_z_s8(wa + w1, p);
                a00 = vmladavaq_s8(a00, xv0, wv0);
                a10 = vmladavaq_s8(a10, xv0, wv1);
                if (np == 2) {
                    const int8x16_t xv1 = vldrbq_z_s8(xa + x1, p);
                    a01 = vmladavaq_s8(a01, xv1, wv0);
                    a11 = vmladavaq_s8(a11, xv1, wv1);
                }
                s0 = vaddvaq_s8(s0, wv0);
                s1 = vaddvaq_s8(s1, wv1);
            }
        }
    }
    r[0] = a00;
    r[1] = a10;
    r[2] = a01;
    r[3] = a11;
    r[4] = s0;
    r[5] = s1;
}

static NK_MVE_NOINLINE void nk_mve_dot21(const int8_t *x, const int8_t *w, size_t w1,
                                         const nk_mve_runs *u, int32_t *r) {
    nk_mve_dot(x, 0, w, w1, u, 1, r);
}
static NK_MVE_NOINLINE void nk_mve_dot22(const int8_t *x, size_t x1, const int8_t *w, size_t w1,
                                         const nk_mve_runs *u, int32_t *r) {
    nk_mve_dot(x, x1, w, w1, u, 2, r);
}

/* Every output channel of np pixels (x, x + x1 their first valid taps;
 * outputs at y, y + y1), w at the first valid tap of channel 0. */
static void nk_mve_block(const int8_t *x, size_t x1, int np, const int8_t *w, size_t w_per_out,
                         const nk_mve_runs *u, const int32_t *bias, int32_t off, int8_t *y,
                         size_t y1, int32_t out_c, const nk_mve_epi *e) {
    int32_t o;
    for (o = 0; o < out_c; o += 2) {
        const int nw = o + 1 < out_c ? 2 : 1;
        const uint32_t b0 = bias ? (uint32_t)bias[o] : 0u;
        const uint32_t b1 = bias && nw == 2 ? (uint32_t)bias[o + 1] : 0u;
        int32_t r[6];
        uint32_t t0, t1;
        int32x4_t v;
        if (np == 2)
            nk_mve_dot22(x, x1, w + (size_t)o * w_per_out, nw == 2 ? w_per_out : 0, u, r);
        else
            nk_mve_dot21(x, w + (size_t)o * w_per_out, nw == 2 ? w_per_out : 0, u, r);
        /* bias + sum(x*w) + off*sum(w), wrapping like the portable sums */
        t0 = b0 + (uint32_t)off * (uint32_t)r[4];
        t1 = b1 + (uint32_t)off * (uint32_t)r[5];
        v = vdupq_n_s32((int32_t)(t0 + (uint32_t)r[0]));
        v = vsetq_lane_s32((int32_t)(t1 + (uint32_t)r[1]), v, 1);
        if (np == 2) {
            v = vsetq_lane_s32((int32_t)(t0 + (uint32_t)r[2]), v, 2);
            v = vsetq_lane_s32((int32_t)(t1 + (uint32_t)r[3]), v, 3);
        }
        nk_mve_finish22(v, nw, np, o, y, y1, e);
    }
}

/* Pixel p's window (p counts pixels over batch, rows, columns) to win,
 * k_h * k_w * in_c bytes in the weights' order, in_zp where it is padding. */
static NK_MVE_NOINLINE void nk_mve_window(const int8_t *x, const nk_ref_conv_geom *g, int32_t p,
                                          int32_t in_zp, int8_t *win) {
    const int32_t hw = g->out_h * g->out_w, b = p / hw, oy = (p - b * hw) / g->out_w;
    const int32_t ox = p - b * hw - oy * g->out_w;
    const int32_t iy0 = oy * g->stride_h - g->pad_top, ix0 = ox * g->stride_w - g->pad_left;
    const size_t in_c = (size_t)g->in_c;
    const int8_t *xb = x + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * in_c;
    int32_t ky, kx;
    for (ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = iy0 + ky * g->dil_h;
        for (kx = 0; kx < g->k_w; kx++, win += in_c) {
            const int32_t ix = ix0 + kx * g->dil_w;
            if (iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w)
                memcpy(win, xb + ((size_t)iy * (size_t)g->in_w + (size_t)ix) * in_c, in_c);
            else
                memset(win, in_zp, in_c);
        }
    }
}

/* The whole conv by windows: k = k_h * k_w * in_c <= NK_MVE_WIN_MAX taps. */
static NK_MVE_NOINLINE void nk_mve_conv_win(const int8_t *x, const int8_t *w, const int32_t *bias,
                                            int8_t *y, const nk_ref_conv_geom *g,
                                            const nk_mve_epi *e, int32_t k) {
    int8_t win[2 * NK_MVE_WIN_MAX];
    const int32_t out_c = g->out_c, n_pix = g->batch * g->out_h * g->out_w;
    nk_mve_runs u;
    int32_t p;
    u.len = k;
    u.n_rows = u.n_cols = 1;
    u.x_row = u.x_col = u.w_row = u.w_col = 0;
    for (p = 0; p < n_pix; p += 2) {
        const int np = p + 1 < n_pix ? 2 : 1;
        nk_mve_window(x, g, p, e->q->in_zp, win);
        if (np == 2)
            nk_mve_window(x, g, p + 1, e->q->in_zp, win + NK_MVE_WIN_MAX);
        nk_mve_block(win, NK_MVE_WIN_MAX, np, w, (size_t)k, &u, bias, -e->q->in_zp,
                     y + (size_t)p * (size_t)out_c, (size_t)out_c, out_c, e);
    }
}

/* One group; anything else takes the portable kernel. */
int nk_fast_conv2d_i8(const int8_t *NK_RESTRICT x, const int8_t *NK_RESTRICT w,
                      const int32_t *NK_RESTRICT bias, int8_t *NK_RESTRICT y,
                      const nk_ref_conv_geom *g, const nk_ref_i8_quant *q) {
    const size_t in_c = (size_t)g->in_c, out_c = (size_t)g->out_c;
    const size_t row_stride = (size_t)g->in_w * in_c;
    const size_t w_row = (size_t)g->k_w * in_c;
    const size_t w_per_out = (size_t)g->k_h * w_row;
    const int32_t k = g->k_h * g->k_w * g->in_c;
    nk_mve_epi e;
    int32_t b, oy, ox, np;
    if (g->groups != 1)
        return 0;
    /* a pointwise conv is a dense layer over all pixels */
    if (g->k_h == 1 && g->k_w == 1 && g->stride_h == 1 && g->stride_w == 1 &&
        g->pad_top == 0 && g->pad_left == 0 && g->out_h == g->in_h && g->out_w == g->in_w)
        return nk_fast_dense_i8(x, w, bias, y,
                                (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w, g->in_c,
                                g->out_c, q);
    e = nk_mve_epi_make(q, g->out_c);
    if (k <= NK_MVE_WIN_MAX) {
        nk_mve_conv_win(x, w, bias, y, g, &e, k);
        return 1;
    }
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int8_t *yrow = y + ((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w * out_c;
            int32_t ky_lo, ky_hi;
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox += np) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int8_t *yp = yrow + (size_t)ox * out_c;
                int32_t kx_lo, kx_hi, lo2 = -1, hi2 = -1;
                nk_mve_runs u;
                nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                if (ox + 1 < g->out_w)
                    nk_i8_tap_range(ix0 + g->stride_w, g->dil_w, g->k_w, g->in_w, &lo2, &hi2);
                /* two pixels at once when they share the valid taps */
                np = lo2 == kx_lo && hi2 == kx_hi ? 2 : 1;
                if (ky_lo >= ky_hi || kx_lo >= kx_hi) {
                    /* no valid tap: the bias alone */
                    int32_t o, j;
                    for (j = 0; j < np; j++)
                        for (o = 0; o < g->out_c; o++)
                            yp[(size_t)j * out_c + (size_t)o] = nk_i8_finish(0, bias, o, q);
                    continue;
                }
                u.n_rows = ky_hi - ky_lo;
                u.x_row = (size_t)g->dil_h * row_stride;
                u.w_row = w_row;
                if (g->dil_w == 1) { /* a kernel row's valid taps: one run */
                    u.len = (kx_hi - kx_lo) * g->in_c;
                    u.n_cols = 1;
                } else {
                    u.len = g->in_c;
                    u.n_cols = kx_hi - kx_lo;
                }
                u.x_col = (size_t)g->dil_w * in_c;
                u.w_col = in_c;
                nk_mve_block(xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride +
                                 (size_t)(ix0 + kx_lo * g->dil_w) * in_c,
                             (size_t)g->stride_w * in_c, np,
                             w + (size_t)ky_lo * w_row + (size_t)kx_lo * in_c, w_per_out, &u,
                             bias, -q->in_zp, yp, out_c, g->out_c, &e);
            }
        }
    }
    return 1;
}

int nk_fast_dense_i8(const int8_t *NK_RESTRICT x, const int8_t *NK_RESTRICT w,
                     const int32_t *NK_RESTRICT bias, int8_t *NK_RESTRICT y, size_t rows,
                     int32_t in_features, int32_t out_features, const nk_ref_i8_quant *q) {
    const size_t k_n = (size_t)in_features, n_out = (size_t)out_features;
    const nk_mve_epi e = nk_mve_epi_make(q, out_features);
    nk_mve_runs u;
    size_t r;
    u.len = in_features;
    u.n_rows = u.n_cols = 1;
    u.x_row = u.x_col = u.w_row = u.w_col = 0;
    for (r = 0; r < rows; r += 2)
        nk_mve_block(x + r * k_n, k_n, r + 1 < rows ? 2 : 1, w, k_n, &u, bias, -q->in_zp,
                     y + r * n_out, n_out, out_features, &e);
    return 1;
}

/* Channels o..o+3 (lanes active in p) of one depthwise output pixel at y. */
NK_MVE_INLINE void nk_mve_finish4(int32x4_t v, int32_t o, mve_pred16_t p, int8_t *y,
                                  const nk_mve_epi *e) {
    if (e->fast) {
        const int32x4_t m = e->cmask ? vldrwq_z_s32(e->q->mult + o, p) : vdupq_n_s32(e->q->mult[0]);
        const int32x4_t s =
            e->cmask ? vldrwq_z_s32(e->q->shift + o, p) : vdupq_n_s32(e->q->shift[0]);
        vstrbq_p_s32(y + o, nk_mve_rq(v, m, s, e->q), p);
    } else {
        const int32_t ch[4] = {o, o + 1, o + 2, o + 3};
        const size_t off[4] = {0, 1, 2, 3};
        int n = 0;
        while (n < 4 && (p >> (4 * n) & 1))
            n++;
        nk_mve_finish_any(v, ch, off, n, y + o, e->q);
    }
}

/* One depthwise output pixel: taps ky in [ky_lo, ky_hi) by kx in
 * [kx_lo, kx_hi) (xt: the input pixel of tap (0, 0), possibly outside);
 * `inside` when that is the whole window and wsum is given. */
static NK_MVE_NOINLINE void nk_mve_dw_pixel(const int8_t *xb, int32_t iy0, int32_t ix0,
                                            const int8_t *w, const int32_t *bias,
                                            const int32_t *wsum, int8_t *y,
                                            const nk_ref_conv_geom *g, int32_t ky_lo,
                                            int32_t ky_hi, int32_t kx_lo, int32_t kx_hi,
                                            int inside, const nk_mve_epi *e) {
    const int32_t oc = g->out_c, mult = g->multiplier, off = -e->q->in_zp;
    const size_t in_c = (size_t)g->in_c;
    int32_t o, ky, kx;
    for (o = 0; o < oc; o += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(oc - o));
        int32x4_t acc = bias ? vldrwq_z_s32(bias + o, p) : vdupq_n_s32(0);
        uint32x4_t xoffs = vdupq_n_u32(0);
        if (mult != 1) { /* output channel o + i reads input channel (o + i) / mult */
            uint32_t ic[4];
            int i;
            for (i = 0; i < 4; i++)
                ic[i] = (uint32_t)((o + i < oc ? o + i : o) / mult);
            xoffs = vld1q_u32(ic);
        }
        if (inside)
            acc = vmlaq_n_s32(acc, vldrwq_z_s32(wsum + o, p), off);
        for (ky = ky_lo; ky < ky_hi; ky++) {
            const int8_t *xr = xb + ((size_t)(iy0 + ky * g->dil_h) * (size_t)g->in_w) * in_c;
            const int8_t *wr = w + (size_t)ky * (size_t)g->k_w * (size_t)oc + (size_t)o;
            for (kx = kx_lo; kx < kx_hi; kx++) {
                const int8_t *xt = xr + (size_t)(ix0 + kx * g->dil_w) * in_c;
                int32x4_t xv = mult == 1 ? vldrbq_z_s32(xt + o, p)
                                         : vldrbq_gather_offset_z_s32(xt, xoffs, p);
                const int32x4_t wv = vldrbq_z_s32(wr + (size_t)kx * (size_t)oc, p);
                if (!inside)
                    xv = vaddq_n_s32(xv, off);
                acc = vaddq_s32(acc, vmulq_s32(xv, wv));
            }
        }
        nk_mve_finish4(acc, o, p, y, e);
    }
}

int nk_fast_depthwise_conv2d_i8(const int8_t *NK_RESTRICT x, const int8_t *NK_RESTRICT w,
                                const int32_t *NK_RESTRICT bias, int8_t *NK_RESTRICT y,
                                const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                const int32_t *NK_RESTRICT wsum) {
    const size_t in_c = (size_t)g->in_c, oc = (size_t)g->out_c;
    const size_t plane = (size_t)g->in_h * (size_t)g->in_w * in_c;
    const nk_mve_epi e = nk_mve_epi_make(q, g->out_c);
    int32_t b, oy, ox;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * plane;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int8_t *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                  (size_t)ox) * oc;
                int32_t kx_lo, kx_hi;
                nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                nk_mve_dw_pixel(xb, iy0, ix0, w, bias, wsum, yp, g, ky_lo, ky_hi, kx_lo, kx_hi,
                                wsum != NULL && ky_lo == 0 && ky_hi == g->k_h && kx_lo == 0 &&
                                    kx_hi == g->k_w,
                                &e);
            }
        }
    }
    return 1;
}

#else
/* ISO C wants a declaration in every translation unit. */
typedef int nk_mve_i8_not_built;
#endif

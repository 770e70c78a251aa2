/* mve_i8.c — int8 conv, dense, depthwise, pools and add on Armv8.1-M Helium (MVE,
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
 * Narrow rows (dense rows and pointwise pixels of at most 32 taps,
 * gathered windows of at most 16): x + off fits int16 lanes, so
 * VMLADAVA.S16 sums (x + off) * w with no weight sums, eight output
 * channels a pass into the even / odd lanes of two vectors that take the
 * depthwise epilogue below (two pixels a pass when at most 8 taps).
 *
 * Depthwise: NHWC keeps channels contiguous, so eight channels are the
 * int16 lanes of VLDRB.S16, widened to int32 products by VMULLB / VMULLT
 * (MVE's VMLA takes a scalar only); channel multipliers above one gather
 * the input bytes. Windows inside the input start the accumulators at
 * bias + off * wsum (the weight sums the op computes for the portable
 * kernel) and skip the per-tap offset; inside a row's interior columns a
 * 3x3 window is nine unrolled taps with no range checks or predicates.
 * 3x3 windows of multiplier one (stride at most 2, no dilation) take a
 * padded copy instead (nk_mve_dw3_row), which makes every window,
 * edges included, such an interior one.
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
 * Depthwise and the narrow rows narrow eight such results to int16 lanes
 * with saturation first (VQMOVNB / VQMOVNT), then add the zero point
 * (saturating) and clamp there: a saturated value stays outside the int8
 * clamp on its side, so the bytes are the same. Other pairs take the
 * portable epilogue per output.
 *
 * Loop order (for placements of the output over the input): every kernel
 * writes its output rows front to back. Conv and dense: pixel by pixel
 * (dense: row by row), all channels of a pixel (or pair of pixels) before
 * the next (narrow rows: pixel by pixel, or pairs). Depthwise: within an
 * output row, eight channels at a time over the whole row, then the next
 * eight (the padded 3x3 copy reads up to NK_MVE_DW3_SEG windows of the
 * eight before it writes their outputs: reads only move earlier). */
#include "../fast_i8.h"

#if NK_FAST_I8_MVE
#include <arm_mve.h>

#if defined(__GNUC__) || defined(__clang__)
#define NK_MVE_NOINLINE __attribute__((noinline))
#define NK_MVE_INLINE static inline __attribute__((always_inline))
#define NK_MVE_TAP_BARRIER(a, b) __asm__ volatile("" : "+w"(a), "+w"(b)::"memory")
#define NK_MVE_OPAQUE(p, q) __asm__ volatile("" : "+l"(p), "+l"(q)) /* r0-r7: widening loads take no others */
#else
#define NK_MVE_NOINLINE
#define NK_MVE_INLINE static inline
#define NK_MVE_TAP_BARRIER(a, b) ((void)0)
#define NK_MVE_OPAQUE(p, q) ((void)0)
#endif

/* taps per pixel gathered into the window buffer (two pixels: 128 bytes) */
#define NK_MVE_WIN_MAX 64
/* dense rows and pointwise pixels of at most this many taps take
 * nk_mve_narrow_rows */
#define NK_MVE_NARROW_MAX 32
/* the same for gathered windows (measured on M55: at 27 taps, VWW's and
 * IC's first convs, nk_mve_block's VMLADAVA.S8 pairs win) */
#define NK_MVE_NARROW_WIN_MAX 16

/* The epilogue's parameters, read once per kernel call. */
typedef struct nk_mve_epi {
    const nk_ref_i8_quant *q;
    const int32_t *bias; /* or NULL */
    int32_t cmask;       /* channel c's pair is at c & cmask (-1, or 0 per tensor) */
    int32_t fast;        /* every pair suits nk_mve_rq */
    int32_t off;         /* the input offset -in_zp */
    /* q's epilogue fields, copied: kernels keep a local copy of the whole
     * struct, which their int8 stores cannot alias, so nothing is reloaded */
    const int32_t *mult, *shift;
    int32_t out_zp, act_min, act_max;
} nk_mve_epi;

static nk_mve_epi nk_mve_epi_make(const nk_ref_i8_quant *q, const int32_t *bias, int32_t out_c) {
    const int32_t n = q->per_channel ? out_c : 1;
    nk_mve_epi e;
    uint32x4_t suits = vdupq_n_u32(1);
    int32_t c;
    e.q = q;
    e.bias = bias;
    e.cmask = q->per_channel ? -1 : 0;
    e.fast = 1;
    e.off = -q->in_zp;
    e.mult = q->mult;
    e.shift = q->shift;
    e.out_zp = q->out_zp;
    e.act_min = q->act_min;
    e.act_max = q->act_max;
    /* Four pairs a step: a staged conv calls the kernel once per band of
     * rows, so this scan runs per band (a scalar loop over 64 channels
     * cost KWS 4% of its instructions). A pair suits when (shift < 0) xor
     * (mult == 0) is 1: sign bit xor CLZ(mult) / 32 (GCC 12 fails on
     * predicate arithmetic here). Lanes past n load as 0, 0: suits. */
#define NK_MVE_SUITS(s, m) veorq_u32(vshrq_n_u32(s, 31), vshrq_n_u32(vclzq_u32(m), 5))
    for (c = 0; c + 4 <= n; c += 4)
        suits = vandq_u32(suits, NK_MVE_SUITS(vldrwq_u32((const uint32_t *)q->shift + c),
                                              vldrwq_u32((const uint32_t *)q->mult + c)));
    if (c < n) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - c));
        suits = vandq_u32(suits, NK_MVE_SUITS(vldrwq_z_u32((const uint32_t *)q->shift + c, p),
                                              vldrwq_z_u32((const uint32_t *)q->mult + c, p)));
    }
#undef NK_MVE_SUITS
    if (vminvq_u32(1u, suits) == 0)
        e.fast = 0;
    return e;
}

/* Four accumulators (bias included) requantized by lane multipliers m and
 * right shifts -right (each shift < 0, or m = 0 and right = 0), plus the
 * zero point, clamped. */
NK_MVE_INLINE int32x4_t nk_mve_scale(int32x4_t v, int32x4_t m, int32x4_t right) {
#if NETKIT_SINGLE_ROUNDING
    v = vqdmulhq_s32(v, m);
#else
    v = vqrdmulhq_s32(v, m);
    v = vaddq_s32(v, vshrq_n_s32(v, 31));
#endif
    return vrshlq_s32(v, right);
}
NK_MVE_INLINE int32x4_t nk_mve_rq_right(int32x4_t v, int32x4_t m, int32x4_t right,
                                        const nk_mve_epi *e) {
    v = vaddq_n_s32(nk_mve_scale(v, m, right), e->out_zp);
    v = vmaxq_s32(v, vdupq_n_s32(e->act_min));
    return vminq_s32(v, vdupq_n_s32(e->act_max));
}
/* Eight outputs at once: even channels' accumulators ve to the bottom
 * int16 lanes, odd ones' vo to the top, scaled as above, then narrowed
 * with saturation, the zero point added with saturation and clamped in
 * int16 lanes: the same bytes as clamping in int32 (a saturated value
 * stays beyond the int8 clamp bounds on its side). */
NK_MVE_INLINE int16x8_t nk_mve_rq8(int32x4_t ve, int32x4_t m_e, int32x4_t r_e, int32x4_t vo,
                                   int32x4_t m_o, int32x4_t r_o, const nk_mve_epi *e) {
    const int32x4_t so = nk_mve_scale(vo, m_o, r_o);
    /* the bottom lanes of so's reinterpretation are overwritten first */
    int16x8_t r = vqmovnbq_s32(vreinterpretq_s16_s32(so), nk_mve_scale(ve, m_e, r_e));
    r = vqmovntq_s32(r, so);
    r = vqaddq_n_s16(r, (int16_t)e->out_zp);
    r = vmaxq_s16(r, vdupq_n_s16((int16_t)e->act_min));
    return vminq_s16(r, vdupq_n_s16((int16_t)e->act_max));
}
/* The same with the shifts s as they come (right: their negative part). */
NK_MVE_INLINE int32x4_t nk_mve_rq(int32x4_t v, int32x4_t m, int32x4_t s,
                                  const nk_mve_epi *e) {
    return nk_mve_rq_right(v, m, vminq_s32(s, vdupq_n_s32(0)), e);
}

/* (a, b, a, b) and (a, b, c, d) as vectors */
NK_MVE_INLINE int32x4_t nk_mve_ab(int32_t a, int32_t b) {
    int32x4_t v = vdupq_n_s32(a);
    v = vsetq_lane_s32(b, v, 1);
    return vsetq_lane_s32(b, v, 3);
}
NK_MVE_INLINE int32x4_t nk_mve_abcd(int32_t a, int32_t b, int32_t c, int32_t d) {
    int32x4_t v = vdupq_n_s32(a);
    v = vsetq_lane_s32(b, v, 1);
    v = vsetq_lane_s32(c, v, 2);
    return vsetq_lane_s32(d, v, 3);
}
NK_MVE_INLINE uint32x4_t nk_mve_u4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    uint32x4_t v = vdupq_n_u32(a);
    v = vsetq_lane_u32(b, v, 1);
    v = vsetq_lane_u32(c, v, 2);
    return vsetq_lane_u32(d, v, 3);
}

/* The epilogue of channels o..o+7 (of oc) as even and odd int32 lanes
 * (channel o + 2i in lane i of the even vectors, o + 2i + 1 of the odd):
 * bias, multipliers and right shifts (those only when e->fast). */
typedef struct nk_mve_epi8 {
    int32x4_t b_e, b_o, m_e, m_o, r_e, r_o;
    uint32x4_t ce, co;
    mve_pred16_t p, pe, po; /* int16 lanes to store; even, odd int32 lanes */
} nk_mve_epi8;

NK_MVE_INLINE void nk_mve_epi8_load(nk_mve_epi8 *c, int32_t o, int32_t oc, const nk_mve_epi *e) {
    const int32x4_t zero = vdupq_n_s32(0);
    c->p = vctp16q((uint32_t)(oc - o));
    c->pe = vctp32q((uint32_t)(oc - o + 1) / 2u);
    c->po = vctp32q((uint32_t)(oc - o) / 2u);
    c->ce = nk_mve_u4((uint32_t)o, (uint32_t)o + 2u, (uint32_t)o + 4u, (uint32_t)o + 6u);
    c->co = vaddq_n_u32(c->ce, 1u);
    c->b_e = c->b_o = c->m_e = c->m_o = c->r_e = c->r_o = zero;
    if (e->bias) {
        c->b_e = vldrwq_gather_shifted_offset_z_s32(e->bias, c->ce, c->pe);
        c->b_o = vldrwq_gather_shifted_offset_z_s32(e->bias, c->co, c->po);
    }
    if (e->fast) {
        const uint32x4_t cm = vdupq_n_u32((uint32_t)e->cmask);
        const uint32x4_t ke = vandq_u32(c->ce, cm), ko = vandq_u32(c->co, cm);
        c->m_e = vldrwq_gather_shifted_offset_z_s32(e->mult, ke, c->pe);
        c->m_o = vldrwq_gather_shifted_offset_z_s32(e->mult, ko, c->po);
        c->r_e = vminq_s32(vldrwq_gather_shifted_offset_z_s32(e->shift, ke, c->pe), zero);
        c->r_o = vminq_s32(vldrwq_gather_shifted_offset_z_s32(e->shift, ko, c->po), zero);
    }
}

/* Lanes of v active in p (4 predicate bits a lane), channel o + ch[i],
 * through the portable epilogue to y[yo[i]] (bias already in v). */
static NK_MVE_NOINLINE void nk_mve_finish_any(int32x4_t v, mve_pred16_t p, int32_t o,
                                              uint32x4_t ch, uint32x4_t yo, int8_t *y,
                                              const nk_ref_i8_quant *q) {
    int32_t a[4];
    uint32_t c[4], off[4];
    int i;
    vst1q_s32(a, v);
    vst1q_u32(c, ch);
    vst1q_u32(off, yo);
    for (i = 0; i < 4; i++)
        if (p >> (4 * i) & 1) {
            const nk_q_rq r = nk_i8_rq(q, o + (int32_t)c[i]);
            y[off[i]] = nk_i8_finish_rq(a[i], 0, &r, q);
        }
}

/* Channels o..o+7 of one pixel from their even and odd accumulators
 * (bias included) to y[0..7]. */
NK_MVE_INLINE void nk_mve_store8(int32x4_t ve, int32x4_t vo, const nk_mve_epi8 *c, int32_t o,
                                 int8_t *y, const nk_mve_epi *e) {
    if (e->fast) {
        vstrbq_p_s16(y, nk_mve_rq8(ve, c->m_e, c->r_e, vo, c->m_o, c->r_o, e), c->p);
    } else {
        const uint32x4_t even = nk_mve_u4(0, 2, 4, 6), odd = vaddq_n_u32(even, 1u);
        nk_mve_finish_any(ve, c->pe, o, even, even, y, e->q);
        nk_mve_finish_any(vo, c->po, o, odd, odd, y, e->q);
    }
}

/* The outputs of channels o + ch[i] (lanes active in p) from their sums
 * v of x * w and ws of the weights: bias + v + off * ws, requantized, to
 * y[yo[i]]. */
NK_MVE_INLINE void nk_mve_out(int32x4_t v, int32x4_t ws, mve_pred16_t p, int32_t o,
                              uint32x4_t ch, uint32x4_t yo, int8_t *y, const nk_mve_epi *e) {
    const uint32x4_t c = vaddq_n_u32(ch, (uint32_t)o);
    v = vmlaq_n_s32(v, ws, e->off);
    if (e->bias)
        v = vaddq_s32(v, vldrwq_gather_shifted_offset_z_s32(e->bias, c, p));
    if (e->fast) {
        const uint32x4_t k = vandq_u32(c, vdupq_n_u32((uint32_t)e->cmask));
        const int32x4_t m = vldrwq_gather_shifted_offset_z_s32(e->mult, k, p);
        const int32x4_t s = vldrwq_gather_shifted_offset_z_s32(e->shift, k, p);
        vstrbq_scatter_offset_p_s32(y, yo, nk_mve_rq(v, m, s, e), p);
    } else {
        nk_mve_finish_any(v, p, o, ch, yo, y, e->q);
    }
}

/* The taps of one output pixel: n_rows x n_cols runs of len bytes, x_row
 * and x_col apart in the input, w_row and w_col in each channel's weights. */
typedef struct nk_mve_runs {
    int32_t len, n_rows, n_cols;
    size_t x_row, x_col, w_row, w_col;
} nk_mve_runs;

/* One run of len bytes: a00 += x * w, a10 += x * w1, and for np = 2 the
 * same for the second pixel x1 (a01, a11); s0, s1 += the weights. */
#define NK_MVE_RUN(xa, x1, wa, w1, len, np)                                                       \
    do {                                                                                          \
        const int8_t *xp_ = (xa), *wp_ = (wa);                                                    \
        int32_t k_ = (len);                                                                       \
        for (; k_ >= 16; k_ -= 16, xp_ += 16, wp_ += 16) {                                        \
            const int8x16_t xv0 = vldrbq_s8(xp_), wv0 = vldrbq_s8(wp_),                           \
                            wv1 = vldrbq_s8(wp_ + (w1));                                          \
            a00 = vmladavaq_s8(a00, xv0, wv0);                                                    \
            a10 = vmladavaq_s8(a10, xv0, wv1);                                                    \
            if ((np) == 2) {                                                                      \
                const int8x16_t xv1 = vldrbq_s8(xp_ + (x1));                                      \
                a01 = vmladavaq_s8(a01, xv1, wv0);                                                \
                a11 = vmladavaq_s8(a11, xv1, wv1);                                                \
            }                                                                                     \
            s0 = vaddvaq_s8(s0, wv0);                                                             \
            s1 = vaddvaq_s8(s1, wv1);                                                             \
        }                                                                                         \
        if (k_ > 0) { /* inactive lanes load as 0 */                                              \
            const mve_pred16_t p_ = vctp8q((uint32_t)k_);                                         \
            const int8x16_t xv0 = vldrbq_z_s8(xp_, p_), wv0 = vldrbq_z_s8(wp_, p_),               \
                            wv1 = vldrbq_z_s8(wp_ + (w1), p_);                                    \
            a00 = vmladavaq_s8(a00, xv0, wv0);                                                    \
            a10 = vmladavaq_s8(a10, xv0, wv1);                                                    \
            if ((np) == 2) {                                                                      \
                const int8x16_t xv1 = vldrbq_z_s8(xp_ + (x1), p_);                                \
                a01 = vmladavaq_s8(a01, xv1, wv0);                                                \
                a11 = vmladavaq_s8(a11, xv1, wv1);                                                \
            }                                                                                     \
            s0 = vaddvaq_s8(s0, wv0);                                                             \
            s1 = vaddvaq_s8(s1, wv1);                                                             \
        }                                                                                         \
    } while (0)

/* Every output channel of np pixels (x, x + x1 their first valid taps;
 * outputs at y, y + y1), w at the first valid tap of channel 0, w_per_out
 * bytes a channel; channel pairs (the last channel alone when out_c is
 * odd, its second weight run a repeat of the first). */
NK_MVE_INLINE void nk_mve_block_np(const int8_t *x, size_t x1, const int np, const int8_t *w,
                                   size_t w_per_out, const nk_mve_runs *u, const int single,
                                   int8_t *y, size_t y1, int32_t out_c, const nk_mve_epi *e) {
    const uint32x4_t ch = nk_mve_u4(0, 1, 0, 1);
    const uint32x4_t yo = nk_mve_u4(0, 1, (uint32_t)y1, (uint32_t)y1 + 1u);
    const int32_t len = u->len;
    int32_t o;
    for (o = 0; o < out_c; o += 2) {
        const int nw = o + 1 < out_c ? 2 : 1;
        const size_t w1 = nw == 2 ? w_per_out : 0;
        const int8_t *wo = w + (size_t)o * w_per_out;
        const mve_pred16_t p = (mve_pred16_t)((np == 2 ? 0xFFFFu : 0x00FFu) &
                                              (nw == 2 ? 0xFFFFu : 0x0F0Fu));
        int32_t a00 = 0, a10 = 0, a01 = 0, a11 = 0, s0 = 0, s1 = 0;
        if (single) {
            NK_MVE_RUN(x, x1, wo, w1, len, np);
        } else {
            int32_t i, j;
            for (i = 0; i < u->n_rows; i++) {
                const int8_t *xr = x + (size_t)i * u->x_row, *wr = wo + (size_t)i * u->w_row;
                for (j = 0; j < u->n_cols; j++, xr += u->x_col, wr += u->w_col)
                    NK_MVE_RUN(xr, x1, wr, w1, len, np);
            }
        }
        nk_mve_out(nk_mve_abcd(a00, a10, a01, a11), nk_mve_ab(s0, s1), p, o, ch, yo, y + o, e);
    }
}

static NK_MVE_NOINLINE void nk_mve_block(const int8_t *x, size_t x1, int np, const int8_t *w,
                                         size_t w_per_out, const nk_mve_runs *u, int8_t *y,
                                         size_t y1, int32_t out_c, const nk_mve_epi *e_in) {
    /* a local copy: see nk_mve_epi */
    const nk_mve_epi el = *e_in, *const e = &el;
    /* one copy of the loops per case, constants folded: one run (dense,
     * pointwise, windows) or several, two pixels or one */
    if (u->n_rows == 1 && u->n_cols == 1) {
        if (np == 2)
            nk_mve_block_np(x, x1, 2, w, w_per_out, u, 1, y, y1, out_c, e);
        else
            nk_mve_block_np(x, 0, 1, w, w_per_out, u, 1, y, 0, out_c, e);
    } else if (np == 2) {
        nk_mve_block_np(x, x1, 2, w, w_per_out, u, 0, y, y1, out_c, e);
    } else {
        nk_mve_block_np(x, 0, 1, w, w_per_out, u, 0, y, 0, out_c, e);
    }
}

/* The eight sums of channels o..o+7 over one row x0..x3 (int16 lanes,
 * nv of them), even channels to *ve, odd ones to *vo (lane j / 2):
 * channel j's weights at w + j * k, or at w_last for a channel past
 * out_c (its lane is not stored). Only the last tap vector is predicated
 * (pl), unless k is a multiple of 8 (whole). */
NK_MVE_INLINE void nk_mve_narrow_sums(int16x8_t x0, int16x8_t x1, int16x8_t x2, int16x8_t x3,
                                      const int nv, const int whole, mve_pred16_t pl,
                                      const int8_t *w, size_t k, int32_t n_ch,
                                      const int8_t *w_last, int32x4_t *ve, int32x4_t *vo) {
    int32x4_t e = vdupq_n_s32(0), d = e;
#define NK_MVE_TAPS(wp, i) (nv == (i) + 1 && !whole ? vldrbq_z_s16((wp) + 8 * (i), pl)          \
                                                    : vldrbq_s16((wp) + 8 * (i)))
#define NK_MVE_NARROW_CH(j)                                                                       \
    do {                                                                                          \
        const int8_t *wc_ = (j) < n_ch ? w + (j) * k : w_last;                                    \
        int32_t s_ = vmladavq_s16(x0, NK_MVE_TAPS(wc_, 0));                                       \
        if (nv >= 2)                                                                              \
            s_ = vmladavaq_s16(s_, x1, NK_MVE_TAPS(wc_, 1));                                      \
        if (nv >= 3)                                                                              \
            s_ = vmladavaq_s16(s_, x2, NK_MVE_TAPS(wc_, 2));                                      \
        if (nv >= 4)                                                                              \
            s_ = vmladavaq_s16(s_, x3, NK_MVE_TAPS(wc_, 3));                                      \
        if ((j) & 1)                                                                              \
            d = vsetq_lane_s32(s_, d, (j) / 2);                                                   \
        else                                                                                      \
            e = vsetq_lane_s32(s_, e, (j) / 2);                                                   \
    } while (0)
    NK_MVE_NARROW_CH(0);
    NK_MVE_NARROW_CH(1);
    NK_MVE_NARROW_CH(2);
    NK_MVE_NARROW_CH(3);
    NK_MVE_NARROW_CH(4);
    NK_MVE_NARROW_CH(5);
    NK_MVE_NARROW_CH(6);
    NK_MVE_NARROW_CH(7);
#undef NK_MVE_NARROW_CH
#undef NK_MVE_TAPS
    *ve = e;
    *vo = d;
}

/* Two rows xa, xb of at most 8 taps (one int16 vector each; 8 whole,
 * else pl), channels o..o+7: each weight load feeds both rows, and one
 * epilogue set-up serves both pixels. Outputs to ya and yb. */
NK_MVE_INLINE void nk_mve_narrow_px2(const int8_t *xa, const int8_t *xb, const int whole,
                                     const int8_t *w, int32_t k, int8_t *ya, int8_t *yb,
                                     int32_t out_c, const nk_mve_epi *e) {
    const mve_pred16_t pl = vctp16q((uint32_t)k);
    const int16_t off = (int16_t)e->off;
    const size_t ks = (size_t)k;
    const int16x8_t x0 = vaddq_n_s16(whole ? vldrbq_s16(xa) : vldrbq_z_s16(xa, pl), off);
    const int16x8_t x1 = vaddq_n_s16(whole ? vldrbq_s16(xb) : vldrbq_z_s16(xb, pl), off);
    int32_t o;
    for (o = 0; o < out_c; o += 8) {
        const int8_t *wo = w + (size_t)o * ks;
        const int32_t n_ch = out_c - o;
        int32x4_t ae = vdupq_n_s32(0), ao = ae, be = ae, bo = ae;
        nk_mve_epi8 c;
#define NK_MVE_NARROW_CH2(j)                                                                      \
    do {                                                                                          \
        const int8_t *wc_ = (j) < n_ch ? wo + (j) * ks : wo;                                      \
        const int16x8_t wv_ = whole ? vldrbq_s16(wc_) : vldrbq_z_s16(wc_, pl);                    \
        if ((j) & 1) {                                                                            \
            ao = vsetq_lane_s32(vmladavq_s16(x0, wv_), ao, (j) / 2);                              \
            bo = vsetq_lane_s32(vmladavq_s16(x1, wv_), bo, (j) / 2);                              \
        } else {                                                                                  \
            ae = vsetq_lane_s32(vmladavq_s16(x0, wv_), ae, (j) / 2);                              \
            be = vsetq_lane_s32(vmladavq_s16(x1, wv_), be, (j) / 2);                              \
        }                                                                                         \
    } while (0)
        NK_MVE_NARROW_CH2(0);
        NK_MVE_NARROW_CH2(1);
        NK_MVE_NARROW_CH2(2);
        NK_MVE_NARROW_CH2(3);
        NK_MVE_NARROW_CH2(4);
        NK_MVE_NARROW_CH2(5);
        NK_MVE_NARROW_CH2(6);
        NK_MVE_NARROW_CH2(7);
#undef NK_MVE_NARROW_CH2
        nk_mve_epi8_load(&c, o, out_c, e);
        nk_mve_store8(vaddq_s32(ae, c.b_e), vaddq_s32(ao, c.b_o), &c, o, ya + o, e);
        nk_mve_store8(vaddq_s32(be, c.b_e), vaddq_s32(bo, c.b_o), &c, o, yb + o, e);
    }
}

/* One row of at most 8 * nv taps (nv 1 to 4: a dense row, a pointwise
 * pixel, a gathered window) to every output channel (w_per_out = k bytes
 * a channel). Few taps leave VMLADAVA.S8's lanes empty and make the
 * epilogue the cost, so here x + off (at most 255 in magnitude) sits in
 * int16 lanes, loaded once for all channels, and VMLADAVA.S16 sums
 * (x + off) * w directly (no weight sums); eight channels' sums then take
 * one epilogue (nk_mve_store8). Tap lanes past k load weights of 0. */
NK_MVE_INLINE void nk_mve_narrow_px(const int8_t *x, const int nv, const int whole,
                                    const int8_t *w, int32_t k, int8_t *y, int32_t out_c,
                                    const nk_mve_epi *e) {
    const mve_pred16_t pl = vctp16q((uint32_t)(k - 8 * (nv - 1)));
    const int16_t off = (int16_t)e->off;
    const size_t ks = (size_t)k;
    int16x8_t x0, x1 = vdupq_n_s16(0), x2 = x1, x3 = x1;
    int32_t o;
#define NK_MVE_ROW(i) vaddq_n_s16(nv == (i) + 1 && !whole ? vldrbq_z_s16(x + 8 * (i), pl)       \
                                                          : vldrbq_s16(x + 8 * (i)), off)
    x0 = NK_MVE_ROW(0);
    if (nv >= 2)
        x1 = NK_MVE_ROW(1);
    if (nv >= 3)
        x2 = NK_MVE_ROW(2);
    if (nv >= 4)
        x3 = NK_MVE_ROW(3);
#undef NK_MVE_ROW
    for (o = 0; o < out_c; o += 8) {
        const int8_t *wo = w + (size_t)o * ks;
        nk_mve_epi8 c;
        int32x4_t ve, vo;
        if (out_c - o >= 8)
            nk_mve_narrow_sums(x0, x1, x2, x3, nv, whole, pl, wo, ks, 8, wo, &ve, &vo);
        else
            nk_mve_narrow_sums(x0, x1, x2, x3, nv, whole, pl, wo, ks, out_c - o, wo, &ve, &vo);
        nk_mve_epi8_load(&c, o, out_c, e);
        nk_mve_store8(vaddq_s32(ve, c.b_e), vaddq_s32(vo, c.b_o), &c, o, y + o, e);
    }
}

/* n rows at x (row_stride apart) of k <= NK_MVE_NARROW_MAX taps to y
 * (out_c apart), one after another */
static NK_MVE_NOINLINE void nk_mve_narrow_rows(const int8_t *x, size_t row_stride, size_t n,
                                               const int8_t *w, int32_t k, int8_t *y,
                                               int32_t out_c, const nk_mve_epi *e_in) {
    /* a local copy: see nk_mve_epi */
    const nk_mve_epi el = *e_in, *const e = &el;
    const size_t oc = (size_t)out_c;
    size_t r = 0;
    if (k <= 8) /* pixel pairs (the conv's overlap block is two pixels) */
        for (; r + 1 < n; r += 2, x += 2 * row_stride, y += 2 * oc) {
            if (k == 8)
                nk_mve_narrow_px2(x, x + row_stride, 1, w, k, y, y + oc, out_c, e);
            else
                nk_mve_narrow_px2(x, x + row_stride, 0, w, k, y, y + oc, out_c, e);
        }
    for (; r < n; r++, x += row_stride, y += oc) {
        if (k == 8)
            nk_mve_narrow_px(x, 1, 1, w, k, y, out_c, e);
        else if (k == 16)
            nk_mve_narrow_px(x, 2, 1, w, k, y, out_c, e);
        else if (k == 32)
            nk_mve_narrow_px(x, 4, 1, w, k, y, out_c, e);
        else if (k <= 8)
            nk_mve_narrow_px(x, 1, 0, w, k, y, out_c, e);
        else if (k <= 16)
            nk_mve_narrow_px(x, 2, 0, w, k, y, out_c, e);
        else if (k <= 24)
            nk_mve_narrow_px(x, 3, 0, w, k, y, out_c, e);
        else
            nk_mve_narrow_px(x, 4, 0, w, k, y, out_c, e);
    }
}

/* n bytes from src to dst, and n copies of v to dst, sixteen a vector
 * with a tail predicate: windows are runs of a few bytes, where the C
 * library's memcpy and memset cost more than the copy. */
NK_MVE_INLINE void nk_mve_copy(int8_t *dst, const int8_t *src, size_t n) {
    for (;;) {
        const mve_pred16_t p = vctp8q((uint32_t)n);
        vstrbq_p_s8(dst, vldrbq_z_s8(src, p), p);
        if (n <= 16)
            return;
        n -= 16;
        dst += 16;
        src += 16;
    }
}
NK_MVE_INLINE void nk_mve_fill(int8_t *dst, int8x16_t v, size_t n) {
    for (;;) {
        vstrbq_p_s8(dst, v, vctp8q((uint32_t)n));
        if (n <= 16)
            return;
        n -= 16;
        dst += 16;
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
    const size_t run = (size_t)g->k_w * in_c;
    const int8x16_t zp = vdupq_n_s8((int8_t)in_zp);
    int32_t ky, kx, kx_lo, kx_hi;
    nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
    if (kx_hi < kx_lo)
        kx_hi = kx_lo;
    for (ky = 0; ky < g->k_h; ky++, win += run) {
        const int32_t iy = iy0 + ky * g->dil_h;
        const int8_t *xr;
        if (iy < 0 || iy >= g->in_h || kx_lo == kx_hi) {
            nk_mve_fill(win, zp, run);
            continue;
        }
        xr = xb + (size_t)iy * (size_t)g->in_w * in_c;
        if (g->dil_w == 1) { /* the valid taps of the row: one run */
            const size_t lo = (size_t)kx_lo * in_c, hi = (size_t)kx_hi * in_c;
            if (lo)
                nk_mve_fill(win, zp, lo);
            nk_mve_copy(win + lo, xr + (size_t)(ix0 + kx_lo) * in_c, hi - lo);
            if (hi < run)
                nk_mve_fill(win + hi, zp, run - hi);
            continue;
        }
        for (kx = 0; kx < g->k_w; kx++) {
            int8_t *t = win + (size_t)kx * in_c;
            if (kx >= kx_lo && kx < kx_hi)
                nk_mve_copy(t, xr + (size_t)(ix0 + kx * g->dil_w) * in_c, in_c);
            else
                nk_mve_fill(t, zp, in_c);
        }
    }
}

/* The whole conv by windows: k = k_h * k_w * in_c <= NK_MVE_WIN_MAX taps. */
static NK_MVE_NOINLINE void nk_mve_conv_win(const int8_t *x, const int8_t *w, int8_t *y, const nk_ref_conv_geom *g,
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
        if (k <= NK_MVE_NARROW_WIN_MAX)
            nk_mve_narrow_rows(win, NK_MVE_WIN_MAX, (size_t)np, w, k,
                               y + (size_t)p * (size_t)out_c, out_c, e);
        else
            nk_mve_block(win, NK_MVE_WIN_MAX, np, w, (size_t)k, &u,
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
    e = nk_mve_epi_make(q, bias, g->out_c);
    if (k <= NK_MVE_WIN_MAX) {
        nk_mve_conv_win(x, w, y, g, &e, k);
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
                             yp, out_c, g->out_c, &e);
            }
        }
    }
    return 1;
}

int nk_fast_dense_i8(const int8_t *NK_RESTRICT x, const int8_t *NK_RESTRICT w,
                     const int32_t *NK_RESTRICT bias, int8_t *NK_RESTRICT y, size_t rows,
                     int32_t in_features, int32_t out_features, const nk_ref_i8_quant *q) {
    const size_t k_n = (size_t)in_features, n_out = (size_t)out_features;
    const nk_mve_epi e = nk_mve_epi_make(q, bias, out_features);
    nk_mve_runs u;
    size_t r;
    if (in_features <= NK_MVE_NARROW_MAX) {
        nk_mve_narrow_rows(x, k_n, rows, w, in_features, y, out_features, &e);
        return 1;
    }
    u.len = in_features;
    u.n_rows = u.n_cols = 1;
    u.x_row = u.x_col = u.w_row = u.w_col = 0;
    for (r = 0; r < rows; r += 2)
        nk_mve_block(x + r * k_n, k_n, r + 1 < rows ? 2 : 1, w, k_n, &u, y + r * n_out, n_out,
                     out_features, &e);
    return 1;
}

/* acc_e, acc_o += the products of n_rows x n_cols taps of channels
 * o..o+7 (even channels to acc_e, odd to acc_o): xr the first tap's input
 * pixel, wr its weights (channel o on). Constants at each call: full (all
 * eight lanes, no predicate), gather (multiplier above one: input bytes
 * at xoffs) and offset (add off to every x). */
NK_MVE_INLINE void nk_mve_dw_taps(const int8_t *xr, const int8_t *wr, int32_t n_rows,
                                  int32_t n_cols, size_t x_row, size_t x_col, size_t w_row,
                                  size_t ocs, int32_t o, uint16x8_t xoffs, mve_pred16_t p,
                                  int16_t off, const int full, const int gather,
                                  const int offset, int32x4_t *acc_e, int32x4_t *acc_o) {
    int32x4_t ae = *acc_e, ao = *acc_o;
    int32_t i, j;
#define NK_MVE_DW_TAP(xt, wt)                                                                     \
    do {                                                                                          \
        int16x8_t xv_, wv_;                                                                       \
        if (full && !gather) {                                                                    \
            xv_ = vldrbq_s16((xt) + o);                                                           \
            wv_ = vldrbq_s16(wt);                                                                 \
        } else {                                                                                  \
            xv_ = gather ? vldrbq_gather_offset_z_s16((xt), xoffs, p) : vldrbq_z_s16((xt) + o, p); \
            wv_ = vldrbq_z_s16((wt), p);                                                          \
        }                                                                                         \
        if (offset)                                                                               \
            xv_ = vaddq_n_s16(xv_, off);                                                          \
        ae = vaddq_s32(ae, vmullbq_int_s16(xv_, wv_));                                            \
        ao = vaddq_s32(ao, vmulltq_int_s16(xv_, wv_));                                            \
    } while (0)
    /* (unrolling the columns makes GCC 12 spill vector registers) */
    for (i = 0; i < n_rows; i++, xr += x_row, wr += w_row) {
        const int8_t *xt = xr, *wt = wr;
        for (j = 0; j < n_cols; j++, xt += x_col, wt += ocs)
            NK_MVE_DW_TAP(xt, wt);
    }
#undef NK_MVE_DW_TAP
    *acc_e = ae;
    *acc_o = ao;
}

/* The nine taps of a 3x3 window inside the input, channels o..o+7 of
 * multiplier one: x and w at the first tap's channel o (input rows x_row
 * apart, columns x_col; weights tap after tap, ocs apart). Unrolled, no
 * offset, no predicate. */
NK_MVE_INLINE void nk_mve_dw_3x3(const int8_t *x, const int8_t *w, size_t x_row, size_t x_col,
                                 size_t ocs, int32x4_t *acc_e, int32x4_t *acc_o) {
    int32x4_t ae = *acc_e, ao = *acc_o;
    const size_t x_col2 = 2 * x_col;
    /* a compiler barrier after each tap, holding the sums in registers:
     * GCC 12 otherwise hoists every load of the unrolled window, defers
     * the additions and spills the products */
#define NK_MVE_DW_TAP3(xt)                                                                        \
    do {                                                                                          \
        const int16x8_t xv_ = vldrbq_s16(xt), wv_ = vldrbq_s16(w);                                \
        ae = vaddq_s32(ae, vmullbq_int_s16(xv_, wv_));                                            \
        ao = vaddq_s32(ao, vmulltq_int_s16(xv_, wv_));                                            \
        w += ocs;                                                                                 \
        NK_MVE_TAP_BARRIER(ae, ao);                                                               \
    } while (0)
#define NK_MVE_DW_ROW3()                                                                          \
    do {                                                                                          \
        NK_MVE_DW_TAP3(x);                                                                        \
        NK_MVE_DW_TAP3(x + x_col);                                                                \
        NK_MVE_DW_TAP3(x + x_col2);                                                               \
        x += x_row;                                                                               \
    } while (0)
    NK_MVE_DW_ROW3();
    NK_MVE_DW_ROW3();
    NK_MVE_DW_ROW3();
#undef NK_MVE_DW_ROW3
#undef NK_MVE_DW_TAP3
    *acc_e = ae;
    *acc_o = ao;
}

/* Channels o..o+7 of one output row of a depthwise conv (ky_lo, n_rows:
 * the row's valid kernel rows), as int16 lanes: VMULLB / VMULLT widen the
 * products of the even and the odd channels to int32 lanes (exact:
 * |x + off| <= 255, |w| <= 128). The block's bias, bias + off * wsum
 * (for windows inside the input, which then skip the per-tap offset),
 * multipliers and shifts are set up once for the row. */
NK_MVE_INLINE void nk_mve_dw_block(const int8_t *xb, int32_t iy0, int32_t ky_lo, int32_t n_rows,
                                   const int8_t *w, const int32_t *wsum, int8_t *yrow, int32_t o,
                                   const nk_ref_conv_geom *g, const nk_mve_epi *e,
                                   int32_t in_lo, int32_t in_hi) {
    const int32_t oc = g->out_c, mult = g->multiplier;
    const size_t in_c = (size_t)g->in_c, ocs = (size_t)oc;
    const size_t row_stride = (size_t)g->in_w * in_c, x_row = (size_t)g->dil_h * row_stride;
    const size_t x_col = (size_t)g->dil_w * in_c, w_row = (size_t)g->k_w * ocs;
    const int16_t off = (int16_t)e->off;
    nk_mve_epi8 c;
    const int8_t *xr0 = n_rows ? xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride : xb;
    const int8_t *wr0 = w + (size_t)ky_lo * w_row + (size_t)o;
    int32x4_t in_e, in_o;
    uint16x8_t xoffs = vdupq_n_u16(0);
    const int full = oc - o >= 8;
    mve_pred16_t p;
    int32_t ox, ox_lo, ox_hi;
    nk_mve_epi8_load(&c, o, oc, e);
    p = c.p;
    in_e = c.b_e;
    in_o = c.b_o;
    if (wsum) {
        in_e = vmlaq_n_s32(c.b_e, vldrwq_gather_shifted_offset_z_s32(wsum, c.ce, c.pe), e->off);
        in_o = vmlaq_n_s32(c.b_o, vldrwq_gather_shifted_offset_z_s32(wsum, c.co, c.po), e->off);
    }
    if (mult != 1) { /* output channel c reads input channel c / mult */
        uint16_t ic[8];
        int l;
        for (l = 0; l < 8; l++)
            ic[l] = (uint16_t)((o + l < oc ? o + l : o) / mult);
        xoffs = vld1q_u16(ic);
    }
    /* the row's interior (in_lo..in_hi - 1: every tap valid) */
    ox_lo = ox_hi = -1;
    if (e->fast && full && mult == 1 && wsum != NULL && n_rows == g->k_h) {
        ox_lo = in_lo;
        ox_hi = in_hi;
    }
    ox = 0;
    while (ox < g->out_w) {
        const int32_t ix0 = ox * g->stride_w - g->pad_left;
        int8_t *yp = yrow + (size_t)ox * ocs + (size_t)o;
        int32_t kx_lo, kx_hi, n_cols;
        int inside;
        int32x4_t acc_e, acc_o;
        if (ox == ox_lo && ox_hi > ox_lo) {
            const int8_t *xr = xr0 + (size_t)ix0 * in_c + (size_t)o;
            const size_t x_step = (size_t)g->stride_w * in_c;
            const int is3x3 = g->k_h == 3 && g->k_w == 3;
            for (; ox < ox_hi; ox++, xr += x_step, yp += ocs) {
                acc_e = in_e;
                acc_o = in_o;
                if (is3x3)
                    nk_mve_dw_3x3(xr, wr0, x_row, x_col, ocs, &acc_e, &acc_o);
                else
                    nk_mve_dw_taps(xr - o, wr0, n_rows, g->k_w, x_row, x_col, w_row, ocs, o,
                                   xoffs, p, off, 1, 0, 0, &acc_e, &acc_o);
                vstrbq_s16(yp, nk_mve_rq8(acc_e, c.m_e, c.r_e, acc_o, c.m_o, c.r_o, e));
            }
            continue;
        }
        nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
        n_cols = n_rows && kx_hi > kx_lo ? kx_hi - kx_lo : 0;
        inside = wsum != NULL && n_rows == g->k_h && n_cols == g->k_w;
        acc_e = inside ? in_e : c.b_e;
        acc_o = inside ? in_o : c.b_o;
        if (n_cols) {
            const int8_t *xr = xr0 + (size_t)(ix0 + kx_lo * g->dil_w) * in_c;
            const int8_t *wr = wr0 + (size_t)kx_lo * ocs;
            if (mult != 1)
                nk_mve_dw_taps(xr, wr, n_rows, n_cols, x_row, x_col, w_row, ocs, o, xoffs, p, off,
                               0, 1, !inside, &acc_e, &acc_o);
            else if (full && inside)
                nk_mve_dw_taps(xr, wr, n_rows, n_cols, x_row, x_col, w_row, ocs, o, xoffs, p, off,
                               1, 0, 0, &acc_e, &acc_o);
            else if (full)
                nk_mve_dw_taps(xr, wr, n_rows, n_cols, x_row, x_col, w_row, ocs, o, xoffs, p, off,
                               1, 0, 1, &acc_e, &acc_o);
            else
                nk_mve_dw_taps(xr, wr, n_rows, n_cols, x_row, x_col, w_row, ocs, o, xoffs, p, off,
                               0, 0, !inside, &acc_e, &acc_o);
        }
        nk_mve_store8(acc_e, acc_o, &c, o, yp, e);
        ox++;
    }
}

/* 3x3 windows (dilation 1, multiplier 1) through a padded copy: for
 * up to NK_MVE_DW3_SEG output columns at a time, the input columns
 * their windows span, eight channels each, go to a stack buffer column
 * by column (the three window rows of a column together), with in_zp
 * where a tap falls in the padding: there x + off = 0, so every window,
 * at the edges too, starts at bias + off * wsum and takes its nine taps
 * with no offset, range check or predicate, all at small fixed offsets
 * from one pointer into the buffer and one into the block's nine weight
 * vectors (copied once a row). At most a stride of NK_MVE_DW3_MAX_STRIDE
 * columns; 488 B of buffers on the stack. A staged depthwise (one-row bands, each a
 * call) spends most of its time at the edges of KWS's five-column rows:
 * through the general taps there, KWS's depthwise took 2.75
 * instructions per MAC, with the copy 2.1. */
#define NK_MVE_DW3_SEG 8
#define NK_MVE_DW3_MAX_STRIDE 2
#define NK_MVE_DW3_COLS ((NK_MVE_DW3_SEG - 1) * NK_MVE_DW3_MAX_STRIDE + 3)
static int nk_mve_dw3_fits(const nk_ref_conv_geom *g, const nk_mve_epi *e, const int32_t *wsum) {
    return e->fast && wsum != NULL && g->multiplier == 1 && g->k_h == 3 && g->k_w == 3 &&
           g->dil_h == 1 && g->dil_w == 1 && g->stride_w <= NK_MVE_DW3_MAX_STRIDE;
}

/* Channels 0..o_end - 1 (whole blocks of eight) of one output row whose
 * windows start at input row iy0 (rows outside the input: padding). */
static NK_MVE_NOINLINE void nk_mve_dw3_row(const int8_t *xb, int32_t iy0, const int8_t *w,
                                           const int32_t *wsum, int8_t *yrow, int32_t o_end,
                                           const nk_ref_conv_geom *g, const nk_mve_epi *e) {
    /* column j: window rows 0..2 of input column ix0 + j, 8 bytes each */
    int8_t win[NK_MVE_DW3_COLS * 24] __attribute__((aligned(8)));
    /* tap (ky, kx) at wk + 24 * kx + 8 * ky, as its input in win */
    int8_t wk[72] __attribute__((aligned(8)));
    int8_t zp8[8] __attribute__((aligned(8)));
    const size_t in_c = (size_t)g->in_c, oc = (size_t)g->out_c;
    const size_t x_step = (size_t)g->stride_w * 24u;
    const int16x8_t zp = vdupq_n_s16((int16_t)-e->off);
    const int8_t *rows[3];
    int32_t o, r;
    vstrbq_s16(zp8, zp);
    for (r = 0; r < 3; r++) {
        const int32_t iy = iy0 + r;
        rows[r] = iy >= 0 && iy < g->in_h ? xb + (size_t)iy * (size_t)g->in_w * in_c : NULL;
    }
    for (o = 0; o < o_end; o += 8) {
        const int8_t *wt = w + (size_t)o;
        int8_t *yb = yrow + (size_t)o;
        nk_mve_epi8 c;
        int32x4_t in_e, in_o;
        int32_t ox0;
        nk_mve_epi8_load(&c, o, g->out_c, e);
        in_e = vmlaq_n_s32(c.b_e, vldrwq_gather_shifted_offset_z_s32(wsum, c.ce, c.pe), e->off);
        in_o = vmlaq_n_s32(c.b_o, vldrwq_gather_shifted_offset_z_s32(wsum, c.co, c.po), e->off);
        for (r = 0; r < 3; r++, wt += 3 * oc) { /* kernel row r */
            vstrbq_s16(wk + 8 * r, vldrbq_s16(wt));
            vstrbq_s16(wk + 24 + 8 * r, vldrbq_s16(wt + oc));
            vstrbq_s16(wk + 48 + 8 * r, vldrbq_s16(wt + 2 * oc));
        }
        for (ox0 = 0; ox0 < g->out_w; ox0 += NK_MVE_DW3_SEG) {
            const int32_t n = g->out_w - ox0 < NK_MVE_DW3_SEG ? g->out_w - ox0 : NK_MVE_DW3_SEG;
            const int32_t ix0 = ox0 * g->stride_w - g->pad_left, cols = (n - 1) * g->stride_w + 3;
            /* the columns inside the input: lo..hi - 1 */
            const int32_t lo = ix0 < 0 ? -ix0 : 0;
            const int32_t hi = g->in_w - ix0 < cols ? g->in_w - ix0 : cols;
            const int8_t *xp = win, *s0, *s1, *s2;
            size_t t0, t1, t2;
            int8_t *d = win, *yp = yb + (size_t)ox0 * oc;
            int32_t j, p;
            /* a row in the padding reads zp8 in place (step 0) */
#define NK_MVE_DW3_SRC(r, s, t)                                                                   \
    do {                                                                                          \
        const int in_ = rows[r] != NULL && lo < hi;                                               \
        s = in_ ? rows[r] + (size_t)(ix0 + lo) * in_c + (size_t)o : zp8;                          \
        t = in_ ? in_c : 0;                                                                       \
    } while (0)
            NK_MVE_DW3_SRC(0, s0, t0);
            NK_MVE_DW3_SRC(1, s1, t1);
            NK_MVE_DW3_SRC(2, s2, t2);
#undef NK_MVE_DW3_SRC
            for (j = 0; j < lo; j++, d += 24) {
                vstrbq_s16(d, zp);
                vstrbq_s16(d + 8, zp);
                vstrbq_s16(d + 16, zp);
            }
            for (; j < hi; j++, d += 24, s0 += t0, s1 += t1, s2 += t2) {
                vstrbq_s16(d, vldrbq_s16(s0));
                vstrbq_s16(d + 8, vldrbq_s16(s1));
                vstrbq_s16(d + 16, vldrbq_s16(s2));
            }
            for (; j < cols; j++, d += 24) {
                vstrbq_s16(d, zp);
                vstrbq_s16(d + 8, zp);
                vstrbq_s16(d + 16, zp);
            }
            for (p = 0; p < n; p++, xp += x_step, yp += oc) {
                int32x4_t ae = in_e, ao = in_o;
                /* both pointers step 8 bytes a tap, opaque to the compiler
                 * so that it loads with post-increment (GCC 12 otherwise
                 * keeps nine weight addresses, spilled, and adds each x
                 * offset apart); a compiler barrier after each tap, as in
                 * nk_mve_dw_3x3 */
                const int8_t *xq = xp, *wq = wk;
#define NK_MVE_DW3_TAP()                                                                          \
    do {                                                                                          \
        const int16x8_t xv_ = vldrbq_s16(xq), wv_ = vldrbq_s16(wq);                               \
        xq += 8;                                                                                  \
        wq += 8;                                                                                  \
        NK_MVE_OPAQUE(xq, wq);                                                                    \
        ae = vaddq_s32(ae, vmullbq_int_s16(xv_, wv_));                                            \
        ao = vaddq_s32(ao, vmulltq_int_s16(xv_, wv_));                                            \
        NK_MVE_TAP_BARRIER(ae, ao);                                                               \
    } while (0)
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
                NK_MVE_DW3_TAP();
#undef NK_MVE_DW3_TAP
                vstrbq_s16(yp, nk_mve_rq8(ae, c.m_e, c.r_e, ao, c.m_o, c.r_o, e));
            }
        }
    }
}

/* One output row, eight channels at a time; in_lo..in_hi - 1 the
 * columns whose windows lie inside the input's width. */
static NK_MVE_NOINLINE void nk_mve_dw_row(const int8_t *xb, int32_t iy0, int32_t ky_lo,
                                          int32_t n_rows, const int8_t *w, const int32_t *wsum,
                                          int8_t *yrow, const nk_ref_conv_geom *g,
                                          const nk_mve_epi *e_in, int32_t in_lo, int32_t in_hi) {
    /* a local copy: see nk_mve_epi */
    const nk_mve_epi el = *e_in;
    int32_t o = 0;
    if (nk_mve_dw3_fits(g, &el, wsum)) {
        o = g->out_c & ~7;
        nk_mve_dw3_row(xb, iy0, w, wsum, yrow, o, g, &el);
    }
    for (; o < g->out_c; o += 8)
        nk_mve_dw_block(xb, iy0, ky_lo, n_rows, w, wsum, yrow, o, g, &el, in_lo, in_hi);
}

int nk_fast_depthwise_conv2d_i8(const int8_t *NK_RESTRICT x, const int8_t *NK_RESTRICT w,
                                const int32_t *NK_RESTRICT bias, int8_t *NK_RESTRICT y,
                                const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                const int32_t *NK_RESTRICT wsum) {
    const size_t oc = (size_t)g->out_c;
    const size_t plane = (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    const nk_mve_epi e = nk_mve_epi_make(q, bias, g->out_c);
    const int32_t last = g->in_w - 1 - (g->k_w - 1) * g->dil_w + g->pad_left;
    int32_t b, oy, in_lo, in_hi;
    if (oc > 65535) /* int16 gather offsets */
        return 0;
    /* the output columns whose windows lie inside the input's width */
    in_lo = (g->pad_left + g->stride_w - 1) / g->stride_w;
    in_hi = last >= 0 ? last / g->stride_w + 1 : 0;
    if (in_hi > g->out_w)
        in_hi = g->out_w;
    if (in_hi < in_lo)
        in_hi = in_lo;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * plane;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int8_t *yrow = y + ((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w * oc;
            int32_t ky_lo, ky_hi;
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            nk_mve_dw_row(xb, iy0, ky_hi > ky_lo ? ky_lo : 0, ky_hi > ky_lo ? ky_hi - ky_lo : 0, w,
                          wsum, yrow, g, &e, in_lo, in_hi);
        }
    }
    return 1;
}

/* Average and max pools (dilation 1, the valid taps only, then the
 * clamp), as the portable nk_i8_pool: max over sixteen channels a vector
 * (VMAX.S8), averages summed four channels a vector in int32 lanes and
 * divided per output with the portable rounding (nk_q_round_div). Output
 * pixel by pixel, front to back. */
int nk_fast_pool2d_i8(const int8_t *NK_RESTRICT x, int8_t *NK_RESTRICT y,
                      const nk_ref_conv_geom *g, int32_t act_min, int32_t act_max, int is_max) {
    const size_t c_n = (size_t)g->in_c;
    const size_t row_stride = (size_t)g->in_w * c_n;
    const int8x16_t lo8 = vdupq_n_s8((int8_t)act_min), hi8 = vdupq_n_s8((int8_t)act_max);
    int32_t b, oy, ox, ky, kx;
    size_t c;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_pool_range(iy0, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int8_t *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                  (size_t)ox) * c_n;
                int32_t kx_lo, kx_hi, count;
                nk_ref_pool_range(ix0, g->k_w, g->in_w, &kx_lo, &kx_hi);
                count = (ky_hi - ky_lo) * (kx_hi - kx_lo);
                if (is_max) {
                    for (c = 0; c < c_n; c += 16) {
                        const mve_pred16_t p = vctp8q((uint32_t)(c_n - c));
                        int8x16_t acc = vdupq_n_s8(-128);
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *xp = xb + (size_t)(iy0 + ky) * row_stride +
                                               (size_t)(ix0 + kx_lo) * c_n + c;
                            for (kx = kx_lo; kx < kx_hi; kx++, xp += c_n)
                                acc = vmaxq_s8(acc, vldrbq_z_s8(xp, p));
                        }
                        acc = vminq_s8(vmaxq_s8(acc, lo8), hi8);
                        vstrbq_p_s8(yp + c, acc, p);
                    }
                    continue;
                }
                for (c = 0; c < c_n; c += 4) {
                    const mve_pred16_t p = vctp32q((uint32_t)(c_n - c));
                    int32x4_t acc = vdupq_n_s32(0);
                    int32_t a[4];
                    size_t i;
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xp = xb + (size_t)(iy0 + ky) * row_stride +
                                           (size_t)(ix0 + kx_lo) * c_n + c;
                        for (kx = kx_lo; kx < kx_hi; kx++, xp += c_n)
                            acc = vaddq_s32(acc, vldrbq_z_s32(xp, p));
                    }
                    vst1q_s32(a, acc);
                    for (i = 0; i < 4 && c + i < c_n; i++)
                        yp[c + i] = (int8_t)nk_q_clamp(nk_q_round_div(a[i], count), act_min,
                                                       act_max);
                }
            }
        }
    }
    return 1;
}

/* Add: four elements a step in int32 lanes, each input offset, shifted
 * left (VSHL by a register) and rescaled, the two summed (wrapping, as
 * TFLite), rescaled again, the zero point added and clamped, narrowed to
 * bytes by the store; the last n % 4 under a predicate. A rescale
 * by a right shift e > 0 is nk_mve_scale's (here with the multiplier and
 * shift in core registers: the eight vector registers then hold the
 * loop); by shift 0 (the input of the larger scale: TFLite's multiplier
 * 1/2 is 2^30 with shift 0) it is VQRDMULH alone, which is TFLite's
 * SaturatingRoundingDoublingHighMul and also its single-rounding
 * (v * m + 2^30) >> 31. Other shifts (a left shift, or an output shift
 * of 0, which TFLite's output multipliers never have) return 0 for the
 * portable kernel. No workspace (ws: the DSP set's tables, counted on
 * every build). y may equal a or b: each step reads its four elements
 * before it stores them. */
NK_MVE_INLINE int32x4_t nk_mve_add_scale(int32x4_t v, int32_t m, int32_t shift,
                                         const int shift0) {
    if (shift0)
        return vqrdmulhq_n_s32(v, m);
#if NETKIT_SINGLE_ROUNDING
    v = vqdmulhq_n_s32(v, m);
#else
    v = vqrdmulhq_n_s32(v, m);
    v = vaddq_s32(v, vshrq_n_s32(v, 31));
#endif
    return vrshlq_n_s32(v, shift);
}
/* Four elements of x and z (int8 in int32 lanes) added: each offset and
 * shifted left as (x << ls) + c, c = -zp << ls; s1, s2 (whether shift1,
 * shift2 are 0) are constants at the calls, so each copy of the loop
 * below has no test in it. */
#define NK_MVE_ADD_STEP(x, z)                                                                      \
    vaddq_n_s32(                                                                                   \
        nk_mve_add_scale(                                                                          \
            vaddq_s32(nk_mve_add_scale(vaddq_s32(vshlq_r_s32(x, ls), c1), m1, e1, s1),             \
                      nk_mve_add_scale(vaddq_s32(vshlq_r_s32(z, ls), c2), m2, e2, s2)),            \
            mo, eo, 0),                                                                            \
        zo)
NK_MVE_INLINE void nk_mve_add_run(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                                  const nk_ref_add_i8_params *p, const int s1, const int s2) {
    /* |x - zp| <= 255 and left_shift <= 23: no overflow */
    const int32_t ls = p->left_shift, zo = p->out_zp;
    const int32_t m1 = p->m1, m2 = p->m2, mo = p->m_out;
    const int32_t e1 = p->shift1, e2 = p->shift2, eo = p->shift_out;
    const int32x4_t c1 = vdupq_n_s32((int32_t)((uint32_t)-p->in1_zp << ls));
    const int32x4_t c2 = vdupq_n_s32((int32_t)((uint32_t)-p->in2_zp << ls));
    const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
    const int8_t *const a_end = a + (n & ~(size_t)3);
    /* |requantized sum| < 2^31 - 128: the zero point cannot wrap */
    for (; a != a_end; a += 4, b += 4, y += 4) {
        const int32x4_t v = NK_MVE_ADD_STEP(vldrbq_s32(a), vldrbq_s32(b));
        vstrbq_s32(y, vminq_s32(vmaxq_s32(v, lo), hi));
    }
    if (n & 3) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n & 3));
        const int32x4_t v = NK_MVE_ADD_STEP(vldrbq_z_s32(a, pr), vldrbq_z_s32(b, pr));
        vstrbq_p_s32(y, vminq_s32(vmaxq_s32(v, lo), hi), pr);
    }
}
#undef NK_MVE_ADD_STEP
int nk_fast_add_i8_ws(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                      const nk_ref_add_i8_params *p, int32_t *NK_RESTRICT ws) {
    (void)ws;
    if (p->shift1 > 0 || p->shift2 > 0 || p->shift_out >= 0)
        return 0;
    /* the input of the larger scale has shift 0, the other's is negative */
    if (p->shift1 == 0 && p->shift2 < 0)
        nk_mve_add_run(a, b, y, n, p, 1, 0);
    else if (p->shift1 < 0 && p->shift2 == 0)
        nk_mve_add_run(a, b, y, n, p, 0, 1);
    else if (p->shift1 < 0 && p->shift2 < 0)
        nk_mve_add_run(a, b, y, n, p, 0, 0);
    else
        nk_mve_add_run(a, b, y, n, p, 1, 1);
    return 1;
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int nk_mve_i8_not_built;
#endif

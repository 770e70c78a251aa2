/* dsp_depthwise.c — int8 depthwise conv (multiplier 1 with no horizontal
 * dilation, or a multiple of 4: "channel multipliers" at the end) on the
 * Armv7E-M DSP extension (kernels/fast_i8.h says when it is built); other
 * depthwise convs return 0 for the portable kernel.
 *
 * NHWC puts four consecutive channels in one word at every tap, but the
 * channels never mix, so SMLAD (which adds two lanes) has nothing to pair
 * without transposing. Each word is instead split into two int16 lane
 * pairs: channels (c, c+2) by SXTB16 and (c+1, c+3) by SXTB16 ROR 8, and
 * each lane is one SMLABB / SMLATT.
 *
 * First choice, for 3x3 at stride_h 1 where the model's workspace holds
 * a band (conv_i8.c calls it before the rest): vertical tap pairs (the
 * section of that name), two taps of one channel down a window's column
 * staged as int16 lanes, so SMLAD does pair them (about 3.6 instructions
 * a MAC on KWS against 4.5 by lanes).
 *
 * 3x3 at stride_w 1 or 2 with rows of NK_DSP_DW3_MIN_W pixels or more
 * and a workspace for it: the staged-rows path ("over staged rows"
 * below), every window of a row in groups of three with in_zp in the
 * padding. Otherwise:
 *
 * 3x3 windows inside the input (the MobileNet / DS-CNN layers): three
 * output pixels of a row at once at stride 1 or 2, one lane pair per
 * pass. Each weight word is loaded and widened once for the three pixels
 * and each input column once for every pixel that covers it (five input
 * loads for 27 taps at stride 1), the input is not offset (the
 * accumulators start at -in_zp * sum(w), from the weight sums the op
 * computes for the portable kernel anyway), and the code is straight-line
 * with six accumulators: about 2.2 instructions per MAC.
 *
 * Narrow rows at stride 1 (KWS's 5 pixels, VWW's 3): the same passes over
 * groups of three or two windows with a padding column at either end, in_zp
 * in both int16 lanes, which the accumulators' start takes back ("narrow
 * 3x3 rows" below for KWS's rows, nk_dw_block for VWW's).
 *
 * Every other window (borders, the odd pixels of a row, other kernel
 * sizes): one pixel, four lanes, the input offset added by SXTAB16
 * (x - in_zp fits int16), only the valid taps (padding contributes
 * nothing, as in TFLite), which with no horizontal dilation are n_rows
 * runs of n_cols taps: straight-line code for 2 or 3 by 2 or 3, a loop
 * otherwise. The last in_c % 4 channels: plain C.
 *
 * The epilogue is nk_dsp_rq_half's on int16 / int8 lanes when every
 * requantization pair suits it, else the portable one (nk_i8_finish);
 * both rounding modes are exact. */
#include "../fast_i8.h"

#if NK_FAST_I8_ARMV7EM
#include "dsp.h"
#if defined(__GNUC__) && !defined(__clang__)
/* GCC's scheduling before register allocation hoists the straight-line
 * kernels' loads and spills (VWW: 120 K instructions an invoke) */
#pragma GCC push_options
#pragma GCC optimize("no-schedule-insns")
#endif

#if defined(__GNUC__) || defined(__clang__)
#define NK_DW_NOINLINE __attribute__((noinline))
/* the lane functions take constant parameters that must fold */
#define NK_DW_INLINE static inline __attribute__((always_inline))
#else
#define NK_DW_NOINLINE
#define NK_DW_INLINE static inline
#endif

/* Lane widening: weights (bytes 0,2 or, with odd, 1,3) and inputs with
 * the offset added to each lane. `odd` and `offp` must be in scope. */
#define NK_DW_WW(v) (odd ? nk_dsp_sxtb16_ror8(v) : nk_dsp_sxtb16(v))
#define NK_DW_WX(v) (odd ? nk_dsp_sxtab16_ror8(offp, v) : nk_dsp_sxtab16(offp, v))
/* acc pair (lo, hi) += both lanes of xl times both lanes of wl */
#define NK_DW_MAC2(lo, hi, xl, wl)                                                                \
    do {                                                                                          \
        lo = nk_dsp_smlabb(xl, wl, lo);                                                           \
        hi = nk_dsp_smlatt(xl, wl, hi);                                                           \
    } while (0)

/* The common case: a 3x3 window inside the input, one lane pair (odd 0:
 * channels c, c+2; odd 1: c+1, c+3) of np (1 or 3) pixels s (1 or 2)
 * taps apart. The input is not offset: the accumulators start at
 * off * sum(w) (init_lo, init_hi; TFLite's sum of (x + off) * w, since
 * both sums wrap alike). Each kernel row loads and widens its three
 * weight words once, then each input column the pixels cover once (five
 * loads for nine taps at stride 1, seven at stride 2), applied to every
 * pixel that uses it. The rows are unrolled: six accumulators, three
 * weights, one input word, two pointers and two strides are the whole
 * register file. acc[2k], acc[2k+1] get pixel k's two lanes; x and w
 * point at channel c of the window's first tap. np, s and odd are
 * constants at every call. */
NK_DW_INLINE void nk_dw_3x3(const int8_t *x, const int8_t *w, size_t x_row, size_t step,
                            int32_t init_lo, int32_t init_hi, int32_t zpp, const int np,
                            const int s, const int odd, const int padl, const int padr,
                            const int nr, int32_t *acc) {
    int32_t a0 = init_lo, a1 = init_hi, a2 = init_lo, a3 = init_hi, a4 = init_lo,
            a5 = init_hi;
    int32_t w0, w1, w2, xl;
    /* pixel k += input column xl times weight column kx */
#define NK_DW_MAC(k, kx)                                                                          \
    do {                                                                                          \
        const int32_t wk = (kx) == 0 ? w0 : (kx) == 1 ? w1 : w2;                                  \
        if ((k) == 0)                                                                             \
            NK_DW_MAC2(a0, a1, xl, wk);                                                           \
        else if ((k) == 1)                                                                        \
            NK_DW_MAC2(a2, a3, xl, wk);                                                           \
        else                                                                                      \
            NK_DW_MAC2(a4, a5, xl, wk);                                                           \
    } while (0)
    /* input column j is weight column j - k*s of pixel k */
#define NK_DW_COL(j)                                                                              \
    do {                                                                                          \
        if ((j) <= (np - 1) * s + 2) {                                                            \
            if ((padl && (j) == 0) || (padr && (j) == (np - 1) * s + 2)) {                        \
                xl = zpp;                                                                         \
            } else {                                                                              \
                const int32_t xv = nk_dsp_load4(x + (size_t)((j)-padl) * step);                   \
                xl = NK_DW_WW(xv);                                                                \
            }                                                                                     \
            if ((j) <= 2)                                                                         \
                NK_DW_MAC(0, (j));                                                                \
            if (np >= 2 && (j) >= s && (j) - s <= 2)                                              \
                NK_DW_MAC(1, (j) - s);                                                            \
            if (np == 3 && (j) >= 2 * s && (j) - 2 * s <= 2)                                      \
                NK_DW_MAC(2, (j) - 2 * s);                                                        \
        }                                                                                         \
    } while (0)
#define NK_DW_ROW()                                                                               \
    do {                                                                                          \
        int32_t v = nk_dsp_load4(w);                                                              \
        w0 = NK_DW_WW(v);                                                                         \
        v = nk_dsp_load4(w + step);                                                               \
        w1 = NK_DW_WW(v);                                                                         \
        v = nk_dsp_load4(w + 2 * step);                                                           \
        w2 = NK_DW_WW(v);                                                                         \
        NK_DW_COL(0);                                                                             \
        NK_DW_COL(1);                                                                             \
        NK_DW_COL(2);                                                                             \
        NK_DW_COL(3);                                                                             \
        NK_DW_COL(4);                                                                             \
        NK_DW_COL(5);                                                                             \
        NK_DW_COL(6);                                                                             \
    } while (0)
    NK_DW_ROW();
    x += x_row;
    w += 3 * step;
    NK_DW_ROW();
    if (nr == 3) {
        x += x_row;
        w += 3 * step;
        NK_DW_ROW();
    }
#undef NK_DW_ROW
#undef NK_DW_COL
#undef NK_DW_MAC
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
    acc[4] = a4;
    acc[5] = a5;
}

/* One out-of-line copy per constant set: inlined into the channel loop,
 * GCC hoists the nine address offsets out of it and spills them. */
#define NK_DW_3X3_FN(name, np, s, odd, padl, padr)                                                \
    static NK_DW_NOINLINE void name(const int8_t *x, const int8_t *w, size_t x_row,               \
                                    size_t step, int32_t init_lo, int32_t init_hi, int32_t zpp,   \
                                    int32_t *acc) {                                               \
        nk_dw_3x3(x, w, x_row, step, init_lo, init_hi, zpp, np, s, odd, padl, padr, 3, acc);     \
    }
NK_DW_3X3_FN(nk_dw_3x3_p3s1_even, 3, 1, 0, 0, 0)
NK_DW_3X3_FN(nk_dw_3x3_p3s1_odd, 3, 1, 1, 0, 0)
NK_DW_3X3_FN(nk_dw_3x3_p3s2_even, 3, 2, 0, 0, 0)
NK_DW_3X3_FN(nk_dw_3x3_p3s2_odd, 3, 2, 1, 0, 0)
/* Rows of three windows at stride 1 with a padding column at both ends
 * (VWW's 3-pixel rows), where the staged rows do not pay; a padding
 * column is in_zp (zpp), which the accumulators' start takes back. KWS's
 * 5-pixel rows inline the passes into nk_dw_group3l / nk_dw_group2r. */
NK_DW_3X3_FN(nk_dw_3x3_p3s1lr_even, 3, 1, 0, 1, 1)
NK_DW_3X3_FN(nk_dw_3x3_p3s1lr_odd, 3, 1, 1, 1, 1)
#undef NK_DW_3X3_FN

/* One pixel whose valid taps are R runs of C taps (R, C constants, 2 or
 * 3: the borders and the odd pixels of 3x3 layers), four lanes, the input
 * offset by SXTAB16, straight-line: acc[0], acc[1] get channels c, c+2,
 * acc[2], acc[3] channels c+1, c+3. */
NK_DW_INLINE void nk_dw_small(const int8_t *x, const int8_t *w, size_t x_row, size_t w_row,
                              size_t step, int32_t offp, int32_t *acc, const int R,
                              const int C) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#define NK_DW_TAP(k)                                                                              \
    do {                                                                                          \
        const int32_t wv = nk_dsp_load4(w + (k)*step), xv = nk_dsp_load4(x + (k)*step);           \
        const int32_t w02 = nk_dsp_sxtb16(wv), w13 = nk_dsp_sxtb16_ror8(wv);                      \
        const int32_t x02 = nk_dsp_sxtab16(offp, xv), x13 = nk_dsp_sxtab16_ror8(offp, xv);        \
        NK_DW_MAC2(a0, a1, x02, w02);                                                             \
        NK_DW_MAC2(a2, a3, x13, w13);                                                             \
    } while (0)
#define NK_DW_ROW()                                                                               \
    do {                                                                                          \
        NK_DW_TAP(0);                                                                             \
        NK_DW_TAP(1);                                                                             \
        if (C == 3)                                                                               \
            NK_DW_TAP(2);                                                                         \
    } while (0)
    NK_DW_ROW();
    x += x_row;
    w += w_row;
    NK_DW_ROW();
    if (R == 3) {
        x += x_row;
        w += w_row;
        NK_DW_ROW();
    }
#undef NK_DW_ROW
#undef NK_DW_TAP
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}
#define NK_DW_SMALL_FN(name, R, C)                                                                \
    static NK_DW_NOINLINE void name(const int8_t *x, const int8_t *w, size_t x_row,               \
                                    size_t w_row, size_t step, int32_t offp, int32_t *acc) {      \
        nk_dw_small(x, w, x_row, w_row, step, offp, acc, R, C);                                   \
    }
NK_DW_SMALL_FN(nk_dw_small33, 3, 3)
NK_DW_SMALL_FN(nk_dw_small32, 3, 2)
NK_DW_SMALL_FN(nk_dw_small23, 2, 3)
NK_DW_SMALL_FN(nk_dw_small22, 2, 2)
#undef NK_DW_SMALL_FN

/* Any valid tap range, one pixel, four lanes: acc[0], acc[1] get channels
 * c, c+2 and acc[2], acc[3] channels c+1, c+3, summed over n_rows >= 1
 * runs of n_cols >= 1 taps (w_row / x_row apart). */
NK_DW_INLINE void nk_dw_any(const int8_t *x, const int8_t *w, int32_t n_rows, int32_t n_cols,
                            size_t x_row, size_t w_row, size_t step, int32_t offp,
                            int32_t *acc) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const size_t run = (size_t)n_cols * step;
    const int8_t *w_end = w + (size_t)n_rows * w_row;
    do {
        const int8_t *xp = x, *wp = w, *we = w + run;
        do {
            const int32_t wv = nk_dsp_load4(wp), xv = nk_dsp_load4(xp);
            const int32_t w02 = nk_dsp_sxtb16(wv), w13 = nk_dsp_sxtb16_ror8(wv);
            const int32_t x02 = nk_dsp_sxtab16(offp, xv), x13 = nk_dsp_sxtab16_ror8(offp, xv);
            NK_DW_MAC2(a0, a1, x02, w02);
            NK_DW_MAC2(a2, a3, x13, w13);
            xp += step;
            wp += step;
        } while (wp != we);
        x += x_row;
        w += w_row;
    } while (w != w_end);
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}
#undef NK_DW_MAC2

/* Whether the activation clamp does anything: not when the range is all
 * of int8 (no activation, or ReLU with zero point -128). Read once per
 * call. */
static inline int nk_dw_clamps(const nk_dsp_epi *e) {
    return e->lo4 != (int32_t)0x80808080u || e->hi4 != 0x7F7F7F7F;
}

/* Channels c..c+3 of one pixel at y from s (nk_dsp_rq_half of channels
 * c, c+2, c+1, c+3): the last halving, zero point and int8 saturation on
 * int16 lanes, the activation clamp on int8 lanes, one word store. */
static inline void nk_dw_store4(int32_t s02_0, int32_t s02_2, int32_t s13_1, int32_t s13_3,
                                int8_t *y, int clamp, const nk_dsp_epi *e) {
    uint32_t v = (uint32_t)nk_dsp_zip8(nk_dsp_half_zp(s02_0, s02_2, e->zp1),
                                       nk_dsp_half_zp(s13_1, s13_3, e->zp1));
    if (clamp)
        v = (uint32_t)nk_dsp_min8(nk_dsp_max8((int32_t)v, e->lo4), e->hi4);
    nk_dsp_store4(y, v);
}

/* The DSP epilogue of np (2 or 3) pixels' channels c..c+3 as the 3x3
 * lane passes leave them (acc[2k], acc[2k+1]: channels c, c+2 of pixel k;
 * acc[6 + 2k], acc[7 + 2k]: c+1, c+3; bias included), ep their (m2, a)
 * pairs in the same order, y at channel c of the first pixel, the next
 * y_pair bytes on. By lane pair first, then by pixel: each pair of ep is
 * read once a call (by pixel, GCC reloaded all eight for every pixel). */
NK_DW_INLINE void nk_dw_finish_lanes(const int32_t *acc, const int32_t *ep, int8_t *y,
                                  size_t y_pair, const nk_dsp_epi *e, const int np) {
    const int32_t zp1 = e->zp1;
    int32_t h0, h1, h2 = 0, g0, g1, g2 = 0;
    /* unrolled by hand: GCC keeps three-pass loops rolled, over a stack
     * array */
    {
        const int32_t m0 = ep[0], a0 = ep[1], m2 = ep[2], a2 = ep[3];
#define NK_DW_H(k)                                                                               \
    nk_dsp_half_zp(nk_dsp_rq_half(acc[2 * (k)], m0, a0), nk_dsp_rq_half(acc[2 * (k) + 1], m2, a2), \
                   zp1)
        h0 = NK_DW_H(0);
        h1 = NK_DW_H(1);
        if (np == 3)
            h2 = NK_DW_H(2);
#undef NK_DW_H
    }
    {
        const int32_t m1 = ep[4], a1 = ep[5], m3 = ep[6], a3 = ep[7];
#define NK_DW_G(k)                                                                               \
    nk_dsp_half_zp(nk_dsp_rq_half(acc[6 + 2 * (k)], m1, a1),                                      \
                   nk_dsp_rq_half(acc[7 + 2 * (k)], m3, a3), zp1)
        g0 = NK_DW_G(0);
        g1 = NK_DW_G(1);
        if (np == 3)
            g2 = NK_DW_G(2);
#undef NK_DW_G
    }
    h0 = nk_dsp_zip8(h0, g0);
    h1 = nk_dsp_zip8(h1, g1);
    if (np == 3)
        h2 = nk_dsp_zip8(h2, g2);
    if (nk_dw_clamps(e)) {
        h0 = nk_dsp_min8(nk_dsp_max8(h0, e->lo4), e->hi4);
        h1 = nk_dsp_min8(nk_dsp_max8(h1, e->lo4), e->hi4);
        if (np == 3)
            h2 = nk_dsp_min8(nk_dsp_max8(h2, e->lo4), e->hi4);
    }
    nk_dsp_store4(y, (uint32_t)h0);
    nk_dsp_store4(y + y_pair, (uint32_t)h1);
    if (np == 3)
        nk_dsp_store4(y + 2 * y_pair, (uint32_t)h2);
}
/* Channels c..c+3's (m2, a) requantization pairs in the lane passes'
 * order c, c+2, c+1, c+3. */
static inline void nk_dw_ep4(int32_t *ep, int32_t c, const nk_dsp_epi *e) {
    if (e->cmask) {
        const int32_t *m = e->mult + c, *sh = e->shift + c;
        ep[0] = (int32_t)((uint32_t)m[0] << 1);
        ep[1] = ~sh[0];
        ep[2] = (int32_t)((uint32_t)m[2] << 1);
        ep[3] = ~sh[2];
        ep[4] = (int32_t)((uint32_t)m[1] << 1);
        ep[5] = ~sh[1];
        ep[6] = (int32_t)((uint32_t)m[3] << 1);
        ep[7] = ~sh[3];
    } else {
        int i;
        for (i = 0; i < 8; i += 2) {
            ep[i] = (int32_t)((uint32_t)e->mult[0] << 1);
            ep[i + 1] = ~e->shift[0];
        }
    }
}

/* Channels c..c+3 of np (2 or 3) pixels y_pair bytes apart: acc[2k], acc[2k+1]
 * channels c, c+2 of pixel k, acc[6 + 2k], acc[7 + 2k] channels c+1, c+3
 * (the two passes of nk_dw_3x3), bias included. Out of line: the
 * epilogue is long and the MAC code needs every register. */
static NK_DW_NOINLINE void nk_dw_finish3x4(const int32_t *acc, int32_t c, int8_t *y,
                                           size_t y_pair, int np, const nk_dsp_epi *e) {
    if (e->fast) {
        int32_t ep[8];
        nk_dw_ep4(ep, c, e);
        if (np == 3)
            nk_dw_finish_lanes(acc, ep, y + c, y_pair, e, 3);
        else
            nk_dw_finish_lanes(acc, ep, y + c, y_pair, e, 2);
    } else {
        const nk_ref_i8_quant *q = e->q;
        int k, i;
        for (i = 0; i < 4; i++) {
            const nk_q_rq r = nk_i8_rq(q, c + i);
            const int32_t *a = acc + (i & 1) * 6 + (i >> 1);
            for (k = 0; k < np; k++)
                y[(size_t)k * y_pair + (size_t)c + (size_t)i] =
                    nk_i8_finish_rq(a[2 * k], 0, &r, q);
        }
    }
}

/* Stores channels c..c+3 of one pixel (acc as nk_dw_any leaves it, no
 * bias). Unrolled: a loop is 500 bytes smaller but 2% slower on the
 * models. */
static NK_DW_NOINLINE void nk_dw_finish4(const int32_t *acc, int32_t c, int8_t *y,
                                         const int32_t *bias, const nk_dsp_epi *e) {
    const nk_ref_i8_quant *q = e->q;
    if (e->fast) {
        int32_t s[4], i;
        for (i = 0; i < 4; i++) {
            /* acc order: c, c+2, c+1, c+3 */
            const int32_t ch = c + (i >> 1) + 2 * (i & 1);
            const int32_t v = (int32_t)((uint32_t)acc[i] + (uint32_t)(bias ? bias[ch] : 0));
            int32_t m2, a;
            nk_dsp_epi_pair(e, ch, &m2, &a);
            s[i] = nk_dsp_rq_half(v, m2, a);
        }
        nk_dw_store4(s[0], s[1], s[2], s[3], y + c, nk_dw_clamps(e), e);
        return;
    }
    y[c] = nk_i8_finish(acc[0], bias, c, q);
    y[c + 2] = nk_i8_finish(acc[1], bias, c + 2, q);
    y[c + 1] = nk_i8_finish(acc[2], bias, c + 1, q);
    y[c + 3] = nk_i8_finish(acc[3], bias, c + 3, q);
}

/* Every channel of np pixels whose valid taps are n_rows runs of n_cols
 * taps; x and w point at channel 0 of the first valid tap, y at the first
 * pixel's output. np is 1, or 3 for 3x3 windows inside the input at
 * stride 1 or 2 (pair = step or 2 * step), with wsum (the per-channel
 * weight sums); pads 3: a row of three windows at stride 1 whose first
 * and last input columns are padding. */
static NK_DW_NOINLINE void nk_dw_block(const int8_t *x, size_t pair, int np, int pads, const int8_t *w,
                                       int32_t n_rows, int32_t n_cols, size_t x_row,
                                       size_t w_row, int32_t ch_n, const int32_t *wsum,
                                       const int32_t *bias, const nk_dsp_epi *e, int8_t *y) {
    const nk_ref_i8_quant *q = e->q;
    const size_t step = (size_t)ch_n;
    const int32_t off = -q->in_zp, offp = nk_dsp_dup16(off), zpp = nk_dsp_dup16(q->in_zp);
    const int small = (n_rows == 2 || n_rows == 3) && (n_cols == 2 || n_cols == 3);
    int32_t acc[12];
    int32_t c, r, kx, k;
    /* with a left padding column, w is at the window's second column */
    const int8_t *wg = pads & 1 ? w - step : w;
    for (c = 0; c + 4 <= ch_n; c += 4) {
        const int8_t *xc = x + c, *wc = w + c;
        int odd;
        if (np == 1) {
            if (!small)
                nk_dw_any(xc, wc, n_rows, n_cols, x_row, w_row, step, offp, acc);
            else if (n_rows == 3 && n_cols == 3)
                nk_dw_small33(xc, wc, x_row, w_row, step, offp, acc);
            else if (n_rows == 3)
                nk_dw_small32(xc, wc, x_row, w_row, step, offp, acc);
            else if (n_cols == 3)
                nk_dw_small23(xc, wc, x_row, w_row, step, offp, acc);
            else
                nk_dw_small22(xc, wc, x_row, w_row, step, offp, acc);
            nk_dw_finish4(acc, c, y, bias, e);
            continue;
        }
        /* three pixels: two passes of two lanes, the bias in the start */
        for (odd = 0; odd < 2; odd++) {
            int32_t *a = acc + 6 * odd;
            const int32_t lo = (int32_t)((uint32_t)off * (uint32_t)wsum[c + odd] +
                                         (uint32_t)(bias ? bias[c + odd] : 0));
            const int32_t hi = (int32_t)((uint32_t)off * (uint32_t)wsum[c + odd + 2] +
                                         (uint32_t)(bias ? bias[c + odd + 2] : 0));
            wc = wg + c;
            if (pads) {
                if (odd)
                    nk_dw_3x3_p3s1lr_odd(xc, wc, x_row, step, lo, hi, zpp, a);
                else
                    nk_dw_3x3_p3s1lr_even(xc, wc, x_row, step, lo, hi, zpp, a);
            } else if (pair == step) {
                if (odd)
                    nk_dw_3x3_p3s1_odd(xc, wc, x_row, step, lo, hi, zpp, a);
                else
                    nk_dw_3x3_p3s1_even(xc, wc, x_row, step, lo, hi, zpp, a);
            } else if (odd) {
                nk_dw_3x3_p3s2_odd(xc, wc, x_row, step, lo, hi, zpp, a);
            } else {
                nk_dw_3x3_p3s2_even(xc, wc, x_row, step, lo, hi, zpp, a);
            }
        }
        nk_dw_finish3x4(acc, c, y, step, np, e);
    }
    /* the last one to three channels, one at a time: a word load there
     * could read past the end of x */
    for (; c < ch_n; c++) {
        for (k = 0; k < np; k++) {
            const int8_t *xk = x + (size_t)k * pair + c;
            int32_t a = 0;
            for (r = 0; r < n_rows; r++) {
                const int8_t *xp = xk + (size_t)r * x_row, *wp = w + (size_t)r * w_row + c;
                for (kx = 0; kx < n_cols; kx++, xp += step, wp += step)
                    a += (*xp + off) * *wp;
            }
            y[(size_t)k * step + (size_t)c] = nk_i8_finish(a, bias, c, q);
        }
    }
}
#undef NK_DW_WW
#undef NK_DW_WX

/* ---- 3x3 at stride_w 1 or 2 over staged rows ----
 *
 * For each output row and four channels, the three input rows its windows
 * cover are copied into the workspace column by column (column j: the
 * words of rows 0, 1, 2, channels c..c+3 each), with in_zp in the
 * padding: every window is then inside, so the rows run in groups of
 * three windows with no border case (the last group ends at the row's
 * end and may redo a pixel or two, the same bytes). An in_zp tap adds
 * in_zp * w, which the accumulators' start (-in_zp * sum(w)) takes back:
 * padding adds nothing, as in TFLite. The weights of the four channels
 * are widened once per row into lane pairs. Channel blocks take turns
 * within a row, so the kernel writes at most one output row ahead of the
 * windows it still reads (the block nk_conv_i8_out_shift allows). */

/* One lane pair (odd 0: channels c, c+2; odd 1: c+1, c+3) of three
 * windows s (1 or 2) columns apart: x at the staged column of the first
 * window's left tap, wq the nine widened weight words (kernel row by
 * row). acc[2k], acc[2k+1]: pixel k's two lanes. */
NK_DW_INLINE void nk_dw3_pass(const int32_t *x, const int32_t *wq, int32_t init_lo,
                              int32_t init_hi, int32_t *acc, const int np, const int s,
                              const int odd) {
    int32_t a0 = init_lo, a1 = init_hi, a2 = init_lo, a3 = init_hi, a4 = init_lo, a5 = init_hi;
    int32_t w0, w1, w2, xl;
    /* pixel k += staged column j (kernel column j - k*s) of kernel row r;
     * the macros unroll what GCC leaves rolled */
#define NK_DW3_MAC(k, kx)                                                                         \
    do {                                                                                          \
        const int32_t wk_ = (kx) == 0 ? w0 : (kx) == 1 ? w1 : w2;                                 \
        if ((k) == 0) {                                                                           \
            a0 = nk_dsp_smlabb(xl, wk_, a0);                                                      \
            a1 = nk_dsp_smlatt(xl, wk_, a1);                                                      \
        } else if ((k) == 1) {                                                                    \
            a2 = nk_dsp_smlabb(xl, wk_, a2);                                                      \
            a3 = nk_dsp_smlatt(xl, wk_, a3);                                                      \
        } else {                                                                                  \
            a4 = nk_dsp_smlabb(xl, wk_, a4);                                                      \
            a5 = nk_dsp_smlatt(xl, wk_, a5);                                                      \
        }                                                                                         \
    } while (0)
#define NK_DW3_COL(r, j)                                                                          \
    do {                                                                                          \
        if ((j) <= (np - 1) * s + 2) {                                                            \
            const int32_t xv_ = x[3 * (j) + (r)];                                                 \
            xl = odd ? nk_dsp_sxtb16_ror8(xv_) : nk_dsp_sxtb16(xv_);                              \
            if ((j) <= 2)                                                                         \
                NK_DW3_MAC(0, (j));                                                               \
            if ((j) >= s && (j) - s <= 2)                                                         \
                NK_DW3_MAC(1, (j) - s);                                                           \
            if (np == 3 && (j) >= 2 * s && (j) - 2 * s <= 2)                                      \
                NK_DW3_MAC(2, (j) - 2 * s);                                                       \
        }                                                                                         \
    } while (0)
#define NK_DW3_ROW(r)                                                                             \
    do {                                                                                          \
        w0 = wq[3 * (r)];                                                                         \
        w1 = wq[3 * (r) + 1];                                                                     \
        w2 = wq[3 * (r) + 2];                                                                     \
        NK_DW3_COL(r, 0);                                                                         \
        NK_DW3_COL(r, 1);                                                                         \
        NK_DW3_COL(r, 2);                                                                         \
        NK_DW3_COL(r, 3);                                                                         \
        NK_DW3_COL(r, 4);                                                                         \
        NK_DW3_COL(r, 5);                                                                         \
        NK_DW3_COL(r, 6);                                                                         \
    } while (0)
    NK_DW3_ROW(0);
    NK_DW3_ROW(1);
    NK_DW3_ROW(2);
#undef NK_DW3_ROW
#undef NK_DW3_COL
#undef NK_DW3_MAC
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
    if (np == 3) {
        acc[4] = a4;
        acc[5] = a5;
    }
}
#define NK_DW3_PASS_FN(name, np, s, odd)                                                          \
    static NK_DW_NOINLINE void name(const int32_t *x, const int32_t *wq, int32_t init_lo,        \
                                    int32_t init_hi, int32_t *acc) {                              \
        nk_dw3_pass(x, wq, init_lo, init_hi, acc, np, s, odd);                                    \
    }
NK_DW3_PASS_FN(nk_dw3_s1_even, 3, 1, 0)
NK_DW3_PASS_FN(nk_dw3_s1_odd, 3, 1, 1)
NK_DW3_PASS_FN(nk_dw3_s2_even, 3, 2, 0)
NK_DW3_PASS_FN(nk_dw3_s2_odd, 3, 2, 1)
/* the last two windows of rows whose width is not a multiple of 3 */
NK_DW3_PASS_FN(nk_dw3_p2s1_even, 2, 1, 0)
NK_DW3_PASS_FN(nk_dw3_p2s1_odd, 2, 1, 1)
NK_DW3_PASS_FN(nk_dw3_p2s2_even, 2, 2, 0)
NK_DW3_PASS_FN(nk_dw3_p2s2_odd, 2, 2, 1)
#undef NK_DW3_PASS_FN

/* The staged rows' epilogue for three or two pixels (nk_dw_finish_lanes). */
static NK_DW_NOINLINE void nk_dw3_finish3(const int32_t *acc, const int32_t *ep, int8_t *y,
                                          size_t y_pair, const nk_dsp_epi *e) {
    nk_dw_finish_lanes(acc, ep, y, y_pair, e, 3);
}
static NK_DW_NOINLINE void nk_dw3_finish2(const int32_t *acc, const int32_t *ep, int8_t *y,
                                          size_t y_pair, const nk_dsp_epi *e) {
    nk_dw_finish_lanes(acc, ep, y, y_pair, e, 2);
}

/* Channels c..c+3's accumulator starts (bias - in_zp * s, s their weight
 * sums over the taps that run) and (m2, a) requantization pairs, in the
 * lane passes' order c, c+2, c+1, c+3. Unrolled: a loop over the four
 * took about 150 instructions with its index arithmetic, once per row
 * and block. */
static inline void nk_dw_consts4(int32_t *init, int32_t *ep, int32_t c, int32_t s0, int32_t s1,
                                 int32_t s2, int32_t s3, int32_t off, const int32_t *bias,
                                 const nk_dsp_epi *e) {
    const uint32_t uo = (uint32_t)off;
    init[0] = (int32_t)(uo * (uint32_t)s0);
    init[1] = (int32_t)(uo * (uint32_t)s2);
    init[2] = (int32_t)(uo * (uint32_t)s1);
    init[3] = (int32_t)(uo * (uint32_t)s3);
    if (bias) {
        init[0] = (int32_t)((uint32_t)init[0] + (uint32_t)bias[c]);
        init[1] = (int32_t)((uint32_t)init[1] + (uint32_t)bias[c + 2]);
        init[2] = (int32_t)((uint32_t)init[2] + (uint32_t)bias[c + 1]);
        init[3] = (int32_t)((uint32_t)init[3] + (uint32_t)bias[c + 3]);
    }
    nk_dw_ep4(ep, c, e);
}

/* Four channels' constants for a row: the weights widened into lane
 * pairs (kernel row by row; channels c, c+2, then c+1, c+3), the
 * accumulators' starts bias - in_zp * sum(w) in the same order, and the
 * (m2, a) pairs of nk_dw3_finish. */
typedef struct nk_dw3_blk {
    int32_t wq[18];
    int32_t init[4];
    int32_t ep[8];
} nk_dw3_blk;

static NK_DW_NOINLINE void nk_dw3_blk_make(nk_dw3_blk *k, const int8_t *w, size_t step, int32_t c,
                                           const int32_t *wsum, const int32_t *bias, int32_t off,
                                           const nk_dsp_epi *e) {
    int32_t i;
    for (i = 0; i < 9; i++) {
        const int32_t v = nk_dsp_load4(w + (size_t)i * step + (size_t)c);
        k->wq[i] = nk_dsp_sxtb16(v);
        k->wq[9 + i] = nk_dsp_sxtb16_ror8(v);
    }
    nk_dw_consts4(k->init, k->ep, c, wsum[c], wsum[c + 1], wsum[c + 2], wsum[c + 3], off, bias, e);
}

/* Every group of three windows of a row for channels c..c+3 (y at
 * channel c of the row's first pixel), over the staged columns. */
static NK_DW_NOINLINE void nk_dw3_groups(const int32_t *stage, const nk_dw3_blk *k, int8_t *y,
                                         int32_t out_w, int32_t s, int32_t c, size_t step,
                                         const nk_dsp_epi *e) {
    int32_t acc[12];
    int32_t ox;
    for (ox = 0; ox + 3 <= out_w; ox += 3) {
        const int32_t *x = stage + 3 * ox * s;
        if (s == 1) {
            nk_dw3_s1_even(x, k->wq, k->init[0], k->init[1], acc);
            nk_dw3_s1_odd(x, k->wq + 9, k->init[2], k->init[3], acc + 6);
        } else {
            nk_dw3_s2_even(x, k->wq, k->init[0], k->init[1], acc);
            nk_dw3_s2_odd(x, k->wq + 9, k->init[2], k->init[3], acc + 6);
        }
        if (e->fast)
            nk_dw3_finish3(acc, k->ep, y + (size_t)ox * step, step, e);
        else
            nk_dw_finish3x4(acc, c, y + (size_t)ox * step - c, step, 3, e);
    }
    if (ox < out_w && !e->fast) {
        /* one or two windows left: the last three (redoing one or two, the
         * same bytes) */
        const int32_t *x = stage + 3 * (out_w - 3) * s;
        if (s == 1) {
            nk_dw3_s1_even(x, k->wq, k->init[0], k->init[1], acc);
            nk_dw3_s1_odd(x, k->wq + 9, k->init[2], k->init[3], acc + 6);
        } else {
            nk_dw3_s2_even(x, k->wq, k->init[0], k->init[1], acc);
            nk_dw3_s2_odd(x, k->wq + 9, k->init[2], k->init[3], acc + 6);
        }
        nk_dw_finish3x4(acc, c, y + (size_t)(out_w - 3) * step - c, step, 3, e);
    } else if (ox < out_w) {
        /* one or two windows left: the last two (the first may be redone,
         * the same bytes) */
        const int32_t o2 = out_w - 2;
        const int32_t *x = stage + 3 * o2 * s;
        if (s == 1) {
            nk_dw3_p2s1_even(x, k->wq, k->init[0], k->init[1], acc);
            nk_dw3_p2s1_odd(x, k->wq + 9, k->init[2], k->init[3], acc + 6);
        } else {
            nk_dw3_p2s2_even(x, k->wq, k->init[0], k->init[1], acc);
            nk_dw3_p2s2_odd(x, k->wq + 9, k->init[2], k->init[3], acc + 6);
        }
        nk_dw3_finish2(acc, k->ep, y + (size_t)o2 * step, step, e);
    }
}

/* Output row oy of image xb (all channels) to yrow over `stage`
 * (nk_fast_depthwise_i8_workspace bytes). */
static NK_DW_NOINLINE void nk_dw3_row(const int8_t *xb, const int8_t *w, const nk_ref_conv_geom *g,
                                      int32_t oy, const int32_t *wsum, const int32_t *bias,
                                      const nk_dsp_epi *e, int32_t *stage, int8_t *yrow) {
    const nk_ref_i8_quant *q = e->q;
    const int32_t ch_n = g->in_c, s = g->stride_w, out_w = g->out_w;
    const int32_t cols = (out_w - 1) * s + 3;
    const int32_t iy0 = oy * g->stride_h - g->pad_top, ix0 = -g->pad_left;
    const size_t step = (size_t)ch_n, row_stride = (size_t)g->in_w * step;
    const int32_t off = -q->in_zp, zp4 = nk_dsp_dup8(q->in_zp);
    /* the staged columns that hold input: j_lo <= j < j_hi */
    const int32_t j_lo = ix0 < 0 ? (-ix0 < cols ? -ix0 : cols) : 0;
    const int32_t j_hi = ix0 + cols > g->in_w ? (g->in_w - ix0 > j_lo ? g->in_w - ix0 : j_lo) : cols;
    const int8_t *xr[3];
    nk_dw3_blk k;
    int32_t c, r, j, ox;
    /* the padding columns and rows hold in_zp for every channel block */
    for (r = 0; r < 3; r++) {
        const int32_t iy = iy0 + r * g->dil_h;
        const int in = iy >= 0 && iy < g->in_h;
        xr[r] = in ? xb + (size_t)iy * row_stride + (size_t)(ix0 + j_lo) * step : NULL;
        /* a row in: only its padding columns (no test per column) */
        for (j = 0; j < (in ? j_lo : cols); j++)
            stage[3 * j + r] = zp4;
        for (j = in ? j_hi : cols; j < cols; j++)
            stage[3 * j + r] = zp4;
    }
    for (c = 0; c + 4 <= ch_n; c += 4) {
        if (xr[0] != NULL && xr[1] != NULL && xr[2] != NULL) {
            /* all three rows in (most output rows): a column's three
             * words in one pass, the rows at register offsets */
            const int8_t *xp = xr[0] + c;
            const size_t d1 = (size_t)(xr[1] - xr[0]), d2 = (size_t)(xr[2] - xr[0]);
            int32_t *d = stage + 3 * j_lo, *const d_end = stage + 3 * j_hi;
            for (; d != d_end; d += 3, xp += step) {
                d[0] = nk_dsp_load4(xp);
                d[1] = nk_dsp_load4(xp + d1);
                d[2] = nk_dsp_load4(xp + d2);
            }
        } else {
            for (r = 0; r < 3; r++) {
                const int8_t *xp = xr[r] + c;
                int32_t *d = stage + 3 * j_lo + r, *d_end = stage + 3 * j_hi + r;
                if (xr[r] == NULL)
                    continue;
                for (; d != d_end; d += 3, xp += step)
                    *d = nk_dsp_load4(xp);
            }
        }
        nk_dw3_blk_make(&k, w, step, c, wsum, bias, off, e);
        nk_dw3_groups(stage, &k, yrow + c, out_w, s, c, step, e);
    }
    /* the last in_c % 4 channels: plain C over the valid taps */
    for (; c < ch_n; c++) {
        for (ox = 0; ox < out_w; ox++) {
            int32_t a = 0;
            for (r = 0; r < 3; r++) {
                const int32_t iy = iy0 + r * g->dil_h;
                if (iy < 0 || iy >= g->in_h)
                    continue;
                for (j = 0; j < 3; j++) {
                    const int32_t ix = ix0 + ox * s + j;
                    if (ix >= 0 && ix < g->in_w)
                        a += (xb[(size_t)iy * row_stride + (size_t)ix * step + (size_t)c] + off) *
                             w[(size_t)(r * 3 + j) * step + (size_t)c];
                }
            }
            yrow[(size_t)ox * step + (size_t)c] = nk_i8_finish(a, bias, c, q);
        }
    }
}

/* ---- narrow 3x3 rows at stride 1 without staging ----
 *
 * Rows too narrow for the staged rows whose kernel rows inside the input
 * are all three or two (a padded layer's first and last rows), with an
 * epilogue that suits nk_dsp_rq_half, and that split into a group of
 * three windows with the left padding column and a group of two with the
 * right one (KWS's 5 pixels): each group's two lane passes and its
 * epilogue in one call over the four channels' constants (nk_dw_gctx,
 * prepared once per row): no arguments on the stack, no call per pass.
 * Other groupings (a row of one group, VWW's 3 pixels, measured 5% slower
 * this way) take nk_dw_block per group; only these fused copies (two
 * groupings by two row counts) are built, for flash. */
typedef struct nk_dw_gctx {
    size_t x_row, step;
    int32_t zpp;      /* in_zp in both int16 lanes */
    int32_t init[4];  /* bias - in_zp * sum(w) of c, c+2, c+1, c+3 */
    int32_t ep[8];    /* their (m2, a) pairs */
    const nk_dsp_epi *e;
} nk_dw_gctx;

NK_DW_INLINE void nk_dw_group(const int8_t *x, const int8_t *w, int8_t *y, const nk_dw_gctx *k,
                              const int np, const int padl, const int padr, const int nr) {
    int32_t acc[12];
    nk_dw_3x3(x, w, k->x_row, k->step, k->init[0], k->init[1], k->zpp, np, 1, 0, padl, padr, nr,
              acc);
    /* the second lane pass reloads its words: merged with the first's, GCC
     * spills (KWS: 14 K instructions a layer) */
    __asm__ volatile("" ::: "memory");
    nk_dw_3x3(x, w, k->x_row, k->step, k->init[2], k->init[3], k->zpp, np, 1, 1, padl, padr, nr,
              acc + 6);
    nk_dw_finish_lanes(acc, k->ep, y, k->step, k->e, np);
}
#define NK_DW_GROUP_FN(name, np, padl, padr, nr)                                                  \
    static NK_DW_NOINLINE void name(const int8_t *x, const int8_t *w, int8_t *y,                  \
                                    const nk_dw_gctx *k) {                                        \
        nk_dw_group(x, w, y, k, np, padl, padr, nr);                                              \
    }
NK_DW_GROUP_FN(nk_dw_group3l, 3, 1, 0, 3)
NK_DW_GROUP_FN(nk_dw_group2r, 2, 0, 1, 3)
/* the first and last rows of a padded layer: two kernel rows */
NK_DW_GROUP_FN(nk_dw_group3l_r2, 3, 1, 0, 2)
NK_DW_GROUP_FN(nk_dw_group2r_r2, 2, 0, 1, 2)
#undef NK_DW_GROUP_FN

/* The group of windows at output column ox (stride 1): np (3 or 2; 1 for
 * none) and *pads (bit 0: the left column is padding, bit 1: the right
 * one). np windows span input columns ix0 .. ix0 + np + 1. */
static int nk_dw_group_at(const nk_ref_conv_geom *g, int32_t ox, int *pads) {
    const int32_t ix0 = ox - g->pad_left;
    const int l = ix0 == -1;
    *pads = 0;
    if (ix0 >= 0 && ox + 3 <= g->out_w && ix0 + 5 <= g->in_w)
        return 3;
    if (l && ox + 3 <= g->out_w && ix0 + 4 <= g->in_w) {
        *pads = 1 | (ix0 + 4 == g->in_w) << 1;
        return 3;
    }
    if (ix0 >= 0 && ox + 2 <= g->out_w && ix0 + 3 == g->in_w) {
        *pads = 2;
        return 2;
    }
    return 1;
}

#define NK_DW_ROW_GROUPS 4
typedef struct nk_dw_grp {
    int32_t ox, np, pads;
} nk_dw_grp;

/* The row's groups into gr, or 0 when some window is left over or some
 * group has no fused copy (pads 1 with three windows and pads 2 with two
 * have). */
static int nk_dw_row_plan(const nk_ref_conv_geom *g, nk_dw_grp *gr) {
    int32_t ox = 0;
    int n = 0, pads;
    while (ox < g->out_w) {
        const int np = nk_dw_group_at(g, ox, &pads);
        if (np == 1 || n == NK_DW_ROW_GROUPS || (pads != 1 && pads != 2))
            return 0;
        gr[n].ox = ox;
        gr[n].np = np;
        gr[n].pads = pads;
        n++;
        ox += np;
    }
    return n;
}

/* Every channel of a narrow row (nk_dw_row_plan's n groups; in_c a
 * multiple of 4, e->fast) whose windows' kernel rows ky_lo <= ky < ky_hi
 * are inside the input (all three, or two: the first and last rows of a
 * padded layer, where the other row adds nothing and its weight sum
 * comes out of the accumulators' start): x at channel 0 of input column
 * 0 of the first of those rows, w at the kernel's first tap, y at the
 * row's first output pixel. */
static NK_DW_NOINLINE void nk_dw_row_grouped(const int8_t *x, const int8_t *w, size_t x_row,
                                             int32_t ky_lo, int32_t ky_hi,
                                             const nk_ref_conv_geom *g, const nk_dw_grp *gr,
                                             int n, const int32_t *wsum, const int32_t *bias,
                                             const nk_dsp_epi *e, int8_t *y) {
    const int32_t off = -e->q->in_zp;
    const int two = ky_hi - ky_lo == 2;
    /* the row left out when two: its three taps */
    const int8_t *wx = w + (size_t)(ky_lo == 1 ? 0 : 6) * (size_t)g->in_c;
    nk_dw_gctx k;
    int32_t c;
    int j;
    w += (size_t)(3 * ky_lo) * (size_t)g->in_c;
    k.x_row = x_row;
    k.step = (size_t)g->in_c;
    k.zpp = nk_dsp_dup16(e->q->in_zp);
    k.e = e;
    for (c = 0; c < g->in_c; c += 4) {
        int32_t s0 = wsum[c], s1 = wsum[c + 1], s2 = wsum[c + 2], s3 = wsum[c + 3];
        if (two) {
            const size_t st = k.step;
            const int8_t *t = wx + c;
            s0 -= t[0] + t[st] + t[2 * st];
            s1 -= t[1] + t[st + 1] + t[2 * st + 1];
            s2 -= t[2] + t[st + 2] + t[2 * st + 2];
            s3 -= t[3] + t[st + 3] + t[2 * st + 3];
        }
        nk_dw_consts4(k.init, k.ep, c, s0, s1, s2, s3, off, bias, e);
        for (j = 0; j < n; j++) {
            /* the first window's first input column inside the row */
            const int8_t *xc = x + (size_t)(gr[j].ox - g->pad_left + (gr[j].pads & 1)) * k.step + c;
            int8_t *yc = y + (size_t)gr[j].ox * k.step + c;
            if (two && gr[j].pads == 1)
                nk_dw_group3l_r2(xc, w + c, yc, &k);
            else if (two)
                nk_dw_group2r_r2(xc, w + c, yc, &k);
            else if (gr[j].pads == 1)
                nk_dw_group3l(xc, w + c, yc, &k);
            else
                nk_dw_group2r(xc, w + c, yc, &k);
        }
    }
}

/* ---- channel multipliers that are a multiple of 4 ----
 *
 * Output channel c*M + m reads input channel c alone (TFLM's micro speech:
 * one channel to 8 filters), so there is nothing to share between input
 * channels, but the M weights of a tap are consecutive bytes. Four
 * outputs at a time: the window's valid taps in pairs t, t' within a
 * kernel row, X = (x_t + off, x_t' + off) in int16 lanes, the two taps'
 * weight words split into lanes (m, m+2) and (m+1, m+3) by SXTB16 and
 * paired across the taps by PKHBT / PKHTB: one SMLAD per output and tap
 * pair. A row's odd last tap goes alone (SMLABB, and SMLATT with x in the
 * high lane). Padding taps are skipped, as in TFLite. */

/* acc[0..3] += outputs m, m+2, m+1, m+3 (nk_dw_finish4's order) over
 * n_rows runs of n_cols taps: x at input channel c of the first valid
 * tap, w at output c*M + m of it. */
static NK_DW_NOINLINE void nk_dwm_quad(const int8_t *x, const int8_t *w, int32_t n_rows,
                                       int32_t n_cols, size_t x_row, size_t x_step, size_t w_row,
                                       size_t w_step, int32_t off, int32_t *acc) {
    int32_t a0 = acc[0], a2 = acc[1], a1 = acc[2], a3 = acc[3];
    const int32_t offp = nk_dsp_dup16(off);
    int32_t r, k;
    for (r = 0; r < n_rows; r++, x += x_row, w += w_row) {
        const int8_t *xp = x, *wp = w;
        k = 0;
        if (x_step == 1) {
            /* one input channel: four taps a word, paired (t, t+2) and
             * (t+1, t+3) as SXTAB16 leaves them */
            for (; k + 4 <= n_cols; k += 4, xp += 4, wp += 4 * w_step) {
                const int32_t xv = nk_dsp_load4(xp);
                const int32_t x02 = nk_dsp_sxtab16(offp, xv), x13 = nk_dsp_sxtab16_ror8(offp, xv);
                int32_t A = nk_dsp_load4(wp), B = nk_dsp_load4(wp + 2 * w_step);
                int32_t ae = nk_dsp_sxtb16(A), be = nk_dsp_sxtb16(B);
                int32_t ao = nk_dsp_sxtb16_ror8(A), bo = nk_dsp_sxtb16_ror8(B);
                a0 = nk_dsp_smlad(x02, nk_dsp_pack16(ae, be), a0);
                a2 = nk_dsp_smlad(x02, nk_dsp_pack16_hi(ae, be), a2);
                a1 = nk_dsp_smlad(x02, nk_dsp_pack16(ao, bo), a1);
                a3 = nk_dsp_smlad(x02, nk_dsp_pack16_hi(ao, bo), a3);
                A = nk_dsp_load4(wp + w_step);
                B = nk_dsp_load4(wp + 3 * w_step);
                ae = nk_dsp_sxtb16(A);
                be = nk_dsp_sxtb16(B);
                ao = nk_dsp_sxtb16_ror8(A);
                bo = nk_dsp_sxtb16_ror8(B);
                a0 = nk_dsp_smlad(x13, nk_dsp_pack16(ae, be), a0);
                a2 = nk_dsp_smlad(x13, nk_dsp_pack16_hi(ae, be), a2);
                a1 = nk_dsp_smlad(x13, nk_dsp_pack16(ao, bo), a1);
                a3 = nk_dsp_smlad(x13, nk_dsp_pack16_hi(ao, bo), a3);
            }
        }
        for (; k + 2 <= n_cols; k += 2, xp += 2 * x_step, wp += 2 * w_step) {
            const int32_t xv = nk_dsp_pack16(xp[0] + off, xp[x_step] + off);
            const int32_t A = nk_dsp_load4(wp), B = nk_dsp_load4(wp + w_step);
            const int32_t a02 = nk_dsp_sxtb16(A), b02 = nk_dsp_sxtb16(B);
            const int32_t a13 = nk_dsp_sxtb16_ror8(A), b13 = nk_dsp_sxtb16_ror8(B);
            a0 = nk_dsp_smlad(xv, nk_dsp_pack16(a02, b02), a0);
            a2 = nk_dsp_smlad(xv, nk_dsp_pack16_hi(a02, b02), a2);
            a1 = nk_dsp_smlad(xv, nk_dsp_pack16(a13, b13), a1);
            a3 = nk_dsp_smlad(xv, nk_dsp_pack16_hi(a13, b13), a3);
        }
        if (k < n_cols) {
            const int32_t xv = xp[0] + off, A = nk_dsp_load4(wp);
            const int32_t a02 = nk_dsp_sxtb16(A), a13 = nk_dsp_sxtb16_ror8(A);
            a0 = nk_dsp_smlabb(xv, a02, a0);
            a1 = nk_dsp_smlabb(xv, a13, a1);
            /* outputs m+2, m+3 are the weights' high lanes: x there too */
            a2 = nk_dsp_smlatt(nk_dsp_pack16(0, xv), a02, a2);
            a3 = nk_dsp_smlatt(nk_dsp_pack16(0, xv), a13, a3);
        }
    }
    acc[0] = a0;
    acc[1] = a2;
    acc[2] = a1;
    acc[3] = a3;
}

/* Every output of a depthwise conv whose multiplier is a multiple of 4. */
static void nk_dwm_conv(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                        const nk_ref_conv_geom *g, const nk_dsp_epi *e) {
    const nk_ref_i8_quant *q = e->q;
    const int32_t M = g->multiplier, oc = g->out_c, off = -q->in_zp;
    const size_t row_stride = (size_t)g->in_w * (size_t)g->in_c;
    const size_t x_step = (size_t)g->dil_w * (size_t)g->in_c, w_step = (size_t)oc;
    const size_t x_row = (size_t)g->dil_h * row_stride, w_row = (size_t)g->k_w * (size_t)oc;
    int32_t b, oy, ox, c, m;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int8_t *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                  (size_t)ox) * (size_t)oc;
                int32_t kx_lo, kx_hi;
                nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                for (c = 0; c < g->in_c; c++) {
                    const int8_t *xc = ky_lo < ky_hi && kx_lo < kx_hi
                                           ? xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride +
                                                 (size_t)(ix0 + kx_lo * g->dil_w) * (size_t)g->in_c +
                                                 (size_t)c
                                           : NULL;
                    for (m = 0; m < M; m += 4) {
                        const int32_t o = c * M + m;
                        int32_t acc[4] = {0, 0, 0, 0};
                        if (xc != NULL)
                            nk_dwm_quad(xc,
                                        w + (size_t)ky_lo * w_row + (size_t)kx_lo * w_step +
                                            (size_t)o,
                                        ky_hi - ky_lo, kx_hi - kx_lo, x_row, x_step, w_row, w_step,
                                        off, acc);
                        nk_dw_finish4(acc, o, yp, bias, e);
                    }
                }
            }
        }
    }
}

/* ---- 3x3 at stride_h 1 by vertical tap pairs ----
 *
 * SMLAD wants two taps of one channel in a word, and a window's columns
 * hold them: output rows y and y+1 read input rows r0..r3 (y - pad_top
 * on), and the words A = (r0, r1), B = (r2, r3) of one channel and input
 * column serve both. Row y's column sum is SMLAD(A, (w0, w1)) + r2*w2
 * (SMLABT with B and (w1, w2)), row y+1's r1*w0 (SMLATB with A) +
 * SMLAD(B, (w1, w2)): four MAC instructions for six MACs, one LDRD.
 *
 * A band of R row pairs (1 to 3) of four channels reads 2R + 2 input
 * rows: they are staged column by column as R + 1 such words a channel,
 * x - in_zp (padding is 0, so the accumulators start from the bias), the
 * words of pair p being groups p and p + 1. Each channel then sweeps the
 * band's columns with its six weight words in registers (paired once per
 * block of four channels), and the epilogue finishes each output alone.
 *
 * Where the output sits:
 * - apart from the input, or on it, or m whole pixels below it with rows
 *   as long (a staged op whose plan put it on its input: the evals then
 *   call this instead of the band loop, in the whole workspace; VWW's
 *   6x6x128 layers, 13 pixels below): channel blocks run one after the
 *   other down the whole image, R pairs a band. On or below the input, a
 *   band overwrites only its own channels, of its own rows' pixels less
 *   m, which it has staged; with pad_top 1 and m under a row, that
 *   reaches the next band's r0, so the band first saves those channels
 *   of it (m a row or more, or pad_top 0: the next band reads nothing
 *   written); a later chunk of columns could read one the chunk before
 *   wrote, so whole rows only.
 * - over part of the input, placed by the direct rule (a block of one
 *   output row, nk_conv_i8_out_shift): out(y+1, x) may reach in(r0, x)
 *   and nothing above, and the later channel blocks still read r0, so the
 *   pairs run one after the other (R = 1), every block of a pair, and r0
 *   is copied whole when the pair starts. */

/* The workspace, in words: the copy of r0 (place 1) or the saved row of a
 * block (place 2, when it saves), the six paired weight words of each of
 * four channels, the staged columns of 16 words (channel k's group g at
 * 4k + g), and 8 accumulators an output column and pair (rows y, y+1 of
 * channel k at 2k, 2k + 1). */
typedef struct nk_dwv_plan {
    int32_t n;         /* output columns a chunk */
    int32_t r;         /* row pairs a band */
    size_t keep;       /* words of the copy or the save */
} nk_dwv_plan;

static size_t nk_dwv_words(const nk_ref_conv_geom *g, size_t keep, int32_t n, int32_t r) {
    return keep + 24u + 16u * ((size_t)(n - 1) * (size_t)g->stride_w + 3u) +
           8u * (size_t)n * (size_t)r;
}

/* The chunk of columns (at least 4, or the whole row when shorter; whole
 * rows on or below the input) and pairs a band that fit with the most
 * outputs a band, the wider on a tie: the band's set-up is shared by
 * more; 0 when nothing fits. */
static int nk_dwv_plan_for(const nk_ref_conv_geom *g, int place, int saves, size_t ws_words,
                           nk_dwv_plan *p) {
    const int32_t max_r = place == 1 ? 1 : (g->out_h + 1) / 2 < 3 ? (g->out_h + 1) / 2 : 3;
    const int32_t min_n = place == 2 ? g->out_w : g->out_w < 4 ? g->out_w : 4;
    int32_t n, r;
    p->keep = place == 1 ? ((size_t)g->in_w * (size_t)g->in_c + 3u) / 4u
              : saves    ? (size_t)g->in_w
                         : 0u;
    p->n = p->r = 0;
    for (n = g->out_w; n >= min_n; n--)
        for (r = max_r; r >= 1; r--)
            if (nk_dwv_words(g, p->keep, n, r) <= ws_words) {
                if (n * r > p->n * p->r) {
                    p->n = n;
                    p->r = r;
                }
                break;
            }
    return p->n > 0;
}

/* The six weight words of channels c..c+3 (w at channel c of tap (0, 0),
 * taps step bytes apart): channel k's (w0, w1) and (w1, w2) of kernel
 * column kx, down the rows, at wq[6k + 2kx], wq[6k + 2kx + 1]; the bytes of
 * four channels paired by PKHBT / PKHTB and widened. */
static NK_DW_NOINLINE void nk_dwv_weights(int32_t *wq, const int8_t *w, size_t step) {
    int32_t kx;
    for (kx = 0; kx < 3; kx++, wq += 2, w += step) {
        const int32_t v0 = nk_dsp_load4(w), v1 = nk_dsp_load4(w + 3 * step);
        const int32_t v2 = nk_dsp_load4(w + 6 * step);
        const int32_t lo01 = nk_dsp_pack16(v0, v1), hi01 = nk_dsp_pack16_hi(v0, v1);
        const int32_t lo12 = nk_dsp_pack16(v1, v2), hi12 = nk_dsp_pack16_hi(v1, v2);
        wq[0] = nk_dsp_sxtb16(lo01);
        wq[1] = nk_dsp_sxtb16(lo12);
        wq[6] = nk_dsp_sxtb16_ror8(lo01);
        wq[7] = nk_dsp_sxtb16_ror8(lo12);
        wq[12] = nk_dsp_sxtb16(hi01);
        wq[13] = nk_dsp_sxtb16(hi12);
        wq[18] = nk_dsp_sxtb16_ror8(hi01);
        wq[19] = nk_dsp_sxtb16_ror8(hi12);
    }
}

/* One group: rows a and b of channels c..c+3 as channel words (a, b) -
 * in_zp at st (+ 4k for channel k), for n staged columns 16 words apart.
 * Columns lo..hi-1 are in the image, from a and b (at column lo, the
 * next sa / step bytes on; NULL: a row outside the image, or one nothing
 * reads); the others are 0. */
NK_DW_INLINE void nk_dwv_stage2(int32_t *st, int32_t n, int32_t lo, int32_t hi, const int8_t *a,
                                size_t sa, const int8_t *b, size_t step, int32_t offp) {
    static const int8_t zero[4];
    /* a row outside the image has 0 bytes and no offset */
    const int32_t o = (a != NULL ? offp & 0xFFFF : 0) | (b != NULL ? offp & ~0xFFFF : 0);
    const size_t sb = b != NULL ? step : 0u;
    int32_t *d, *end;
    if (a == NULL) {
        a = zero;
        sa = 0;
    }
    if (b == NULL)
        b = zero;
    for (d = st, end = st + 16 * lo; d != end; d += 16)
        d[0] = d[4] = d[8] = d[12] = 0;
    for (end = st + 16 * hi; d != end; d += 16, a += sa, b += sb) {
        const int32_t va = nk_dsp_load4(a), vb = nk_dsp_load4(b);
        const int32_t l = nk_dsp_pack16(va, vb), h = nk_dsp_pack16_hi(va, vb);
        d[0] = nk_dsp_sxtab16(o, l);
        d[4] = nk_dsp_sxtab16_ror8(o, l);
        d[8] = nk_dsp_sxtab16(o, h);
        d[12] = nk_dsp_sxtab16_ror8(o, h);
    }
    for (end = st + 16 * n; d != end; d += 16)
        d[0] = d[4] = d[8] = d[12] = 0;
}

/* Channels c..c+3 over n output columns of r pairs: pair p's words at
 * st + p, output columns s staged columns apart; its accumulators from
 * acc + 8np (acc[8x + 2k], acc[8x + 2k + 1]), starting at the bias (at
 * channel c's, or NULL). A copy per stride (a constant): the loads walk
 * the columns by post-increment. */
#define NK_DWV_COLUMN(x, ap, d)                                                                   \
    do {                                                                                          \
        int32_t x0, x1, t, u;                                                                     \
        NK_DSP_LDRD(x, 128, x0, x1);                                                              \
        t = nk_dsp_smlad(x0, a2, b);                                                              \
        u = nk_dsp_smlatb(x0, a2, b);                                                             \
        t = nk_dsp_smlabt(x1, b2, t);                                                             \
        u = nk_dsp_smlad(x1, b2, u);                                                              \
        NK_DSP_LDRD(x, 64, x0, x1);                                                               \
        t = nk_dsp_smlad(x0, a1, t);                                                              \
        u = nk_dsp_smlatb(x0, a1, u);                                                             \
        t = nk_dsp_smlabt(x1, b1, t);                                                             \
        u = nk_dsp_smlad(x1, b1, u);                                                              \
        NK_DSP_LDRD_POST(x, d, x0, x1);                                                           \
        t = nk_dsp_smlad(x0, a0, t);                                                              \
        u = nk_dsp_smlatb(x0, a0, u);                                                             \
        t = nk_dsp_smlabt(x1, b0, t);                                                             \
        u = nk_dsp_smlad(x1, b0, u);                                                              \
        NK_DSP_STRD_POST(ap, 32, t, u);                                                           \
    } while (0)
#define NK_DWV_SWEEP_FN(name, d)                                                                  \
    static NK_DW_NOINLINE void name(const int32_t *st, int32_t *acc, const int32_t *wq,           \
                                    const int32_t *bias, int32_t n, int32_t r) {                  \
        int32_t k;                                                                                \
        for (k = 0; k < 4; k++, wq += 6) {                                                        \
            const int32_t a0 = wq[0], b0 = wq[1], a1 = wq[2], b1 = wq[3], a2 = wq[4], b2 = wq[5];  \
            const int32_t b = bias != NULL ? bias[k] : 0;                                         \
            /* the pairs' accumulators follow each other: one walk */                          \
            const int32_t *x = st + 4 * k, *xp;                                                   \
            int32_t *ap = acc + 2 * k, *const end = ap + 8 * n * r;                               \
            for (xp = x + 1; ap != end; x = xp++) {                                               \
                int32_t *const row_end = ap + 8 * n;                                              \
                while (ap != row_end)                                                             \
                    NK_DWV_COLUMN(x, ap, d);                                                      \
            }                                                                                     \
        }                                                                                         \
    }
NK_DWV_SWEEP_FN(nk_dwv_sweep1, 64)
NK_DWV_SWEEP_FN(nk_dwv_sweep2, 128)
#undef NK_DWV_SWEEP_FN
#undef NK_DWV_COLUMN

/* The accumulators at acc (as nk_dwv_sweep left them: n output columns
 * of (rows + 1) / 2 pairs) of `rows` output rows, y at channel c of the
 * first pixel, pixels y_px bytes apart, rows y_row. Channel by channel,
 * one byte an output: with its (m2, a) pair held, an output is five
 * instructions and a store (the int16-lane epilogue of the other kernels
 * takes more for the words' packing than it saves). The activation
 * clamp, when the range is not all of int8, is a pass over the words. */
static NK_DW_NOINLINE void nk_dwv_finish(const int32_t *acc, int32_t n, int32_t rows, int8_t *y,
                                         size_t y_px, size_t y_row, int32_t c,
                                         const nk_dsp_epi *e) {
    const int32_t zp1 = 2 * e->q->out_zp + 1, full = rows / 2;
    int32_t k, r;
    for (k = 0; k < 4; k++) {
        const int32_t *ap = acc + 2 * k, *const end = ap + 8 * n * full;
        int8_t *yp = y + k;
        int32_t m2, a, t, u;
        nk_dsp_epi_pair(e, c + k, &m2, &a);
        /* the pairs of two rows in one walk of the accumulators */
        while (ap != end) {
            const int32_t *const row_end = ap + 8 * n;
            int8_t *const next = yp + 2 * y_row;
            for (; ap != row_end; yp += y_px) {
                NK_DSP_LDRD_POST(ap, 32, t, u);
                yp[0] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(t, m2, a), zp1);
                yp[y_row] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(u, m2, a), zp1);
            }
            yp = next;
        }
        if (rows & 1) { /* the last pair's one row */
            const int32_t *const row_end = ap + 8 * n;
            for (; ap != row_end; yp += y_px, ap += 8)
                yp[0] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(ap[0], m2, a), zp1);
        }
    }
    if (nk_dw_clamps(e)) {
        for (r = 0; r < rows; r++, y += y_row) {
            int8_t *yp = y;
            for (k = 0; k < n; k++, yp += y_px)
                nk_dsp_store4(yp, (uint32_t)nk_dsp_min8(nk_dsp_max8(nk_dsp_load4(yp), e->lo4),
                                                        e->hi4));
        }
    }
}

/* What every band of a call shares. */
typedef struct nk_dwv_job {
    const nk_ref_conv_geom *g;
    const int8_t *x;           /* the image */
    int8_t *y;                 /* its output */
    const int8_t *w;
    const int32_t *bias;
    const nk_dsp_epi *e;
    int32_t *ws, *wq, *st, *acc;
    size_t step, row_stride, out_row;
    int32_t offp, place;
    int saves;                 /* place 2: a band saves its last row */
} nk_dwv_job;

/* Output rows y0.. (rows of them, 2 a pair) of channels c..c+3 and output
 * columns x0..x0+n-1: staged, swept and stored. With place 1, r0 is the
 * copy at ws; with place 2 when it saves, the saved row at ws unless
 * y0 is 0, and the band's last row is saved there before its writes. */
static NK_DW_NOINLINE void nk_dwv_band(const nk_dwv_job *jb, int32_t c, int32_t y0, int32_t rows,
                                       int32_t x0, int32_t n) {
    const nk_ref_conv_geom *g = jb->g;
    const size_t step = jb->step;
    const int32_t s = g->stride_w, pairs = (rows + 1) / 2;
    const int32_t cols = (n - 1) * s + 3, ix = x0 * s - g->pad_left;
    /* the staged columns in the image */
    const int32_t lo = ix < 0 ? (-ix < cols ? -ix : cols) : 0;
    const int32_t hi = g->in_w - ix < cols ? (g->in_w - ix > lo ? g->in_w - ix : lo) : cols;
    const int saved = jb->saves;
    const int8_t *row = jb->x + (size_t)(ix + lo) * step + (size_t)c;
    int32_t i, iy = y0 - g->pad_top;
    for (i = 0; i <= pairs; i++, iy += 2) {
        /* group i: rows 2i and 2i + 1 from r0, NULL outside the image */
        const int8_t *ra = iy >= 0 && iy < g->in_h ? row + (size_t)iy * jb->row_stride : NULL;
        const int8_t *rb =
            iy + 1 >= 0 && iy + 1 < g->in_h ? row + (size_t)(iy + 1) * jb->row_stride : NULL;
        size_t sa = step;
        if (i == 0 && ra != NULL && jb->place == 1) {
            ra = (const int8_t *)jb->ws + (size_t)(ix + lo) * step + (size_t)c;
        } else if (i == 0 && ra != NULL && saved) {
            ra = (const int8_t *)jb->ws + (size_t)(ix + lo) * 4u;
            sa = 4;
        }
        nk_dwv_stage2(jb->st + i, cols, lo, hi, ra, sa, rb, step, jb->offp);
    }
    if (saved && y0 + rows < g->out_h) {
        /* the band's last row, the next band's r0, before the writes */
        const int8_t *sp = jb->x + (size_t)(y0 + rows - 1) * jb->row_stride + (size_t)c;
        int32_t *d = jb->ws, *const end = d + g->in_w;
        for (; d != end; d++, sp += step)
            *d = nk_dsp_load4(sp);
    }
    /* direct calls: a call through a pointer leaves the stack bound to
     * every address-taken function (scripts/stack-depth.awk) */
    if (s == 1)
        nk_dwv_sweep1(jb->st, jb->acc, jb->wq, jb->bias != NULL ? jb->bias + c : NULL, n, pairs);
    else
        nk_dwv_sweep2(jb->st, jb->acc, jb->wq, jb->bias != NULL ? jb->bias + c : NULL, n, pairs);
    nk_dwv_finish(jb->acc, n, rows,
                  jb->y + (size_t)y0 * jb->out_row + (size_t)x0 * step + (size_t)c, step,
                  jb->out_row, c, jb->e);
}

int nk_fast_depthwise_vpair_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                               const int32_t *NK_RESTRICT bias, int8_t *y,
                               const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                               int32_t *NK_RESTRICT ws, size_t ws_bytes) {
    const size_t step = (size_t)g->in_c, row_stride = (size_t)g->in_w * step;
    const size_t out_row = (size_t)g->out_w * step, in_img = (size_t)g->in_h * row_stride;
    const int32_t s = g->stride_w;
    const uintptr_t xa = (uintptr_t)x, ya = (uintptr_t)y;
    int over, aligned, place;
    nk_dwv_plan pl;
    nk_dsp_epi e;
    nk_dwv_job jb;
    int32_t b, c, y0, x0;
    /* one output row (a staged band's) would leave half of every pair
     * unused: the lane passes take it */
    if (g->multiplier != 1 || g->k_h != 3 || g->k_w != 3 || g->stride_h != 1 || g->dil_h != 1 ||
        g->dil_w != 1 || (s != 1 && s != 2) || (g->in_c & 3) != 0 || g->out_h < 2 || ws == NULL)
        return 0;
    /* where the output sits: over part of the input, on it or m whole
     * pixels below it with rows as long (2), over part of it otherwise
     * (1), apart (0) */
    over = ya < xa + (uintptr_t)g->batch * in_img &&
           xa < ya + (uintptr_t)g->batch * (uintptr_t)g->out_h * out_row;
    aligned = over && ya <= xa && (xa - ya) % step == 0 && s == 1 && g->out_w == g->in_w &&
              g->pad_top <= 1 && (g->batch == 1 || g->out_h == g->in_h);
    place = aligned ? 2 : over ? 1 : 0;
    /* on the input otherwise is a staged plan's, which the direct rule's
     * order (place 1) does not hold */
    if (ya == xa && !aligned)
        return 0;
    e = nk_dsp_epi_make(q, g->out_c);
    if (!e.fast)
        return 0;
    if (ws_bytes == 0)
        ws_bytes = step * sizeof(int32_t) + nk_fast_depthwise_i8_workspace(g);
    /* below by m pixels, a band's writes reach the next band's r0 when
     * m < pad_top * in_w */
    jb.saves = place == 2 && (xa - ya) / step < (size_t)g->pad_top * (size_t)g->in_w;
    if (!nk_dwv_plan_for(g, place, jb.saves, ws_bytes / sizeof(int32_t), &pl))
        return 0;
    jb.g = g;
    jb.w = w;
    jb.bias = bias;
    jb.e = &e;
    jb.ws = ws;
    jb.wq = ws + pl.keep;
    jb.st = jb.wq + 24;
    jb.acc = jb.st + 16 * ((pl.n - 1) * s + 3);
    jb.step = step;
    jb.row_stride = row_stride;
    jb.out_row = out_row;
    jb.offp = nk_dsp_dup16(-q->in_zp);
    jb.place = place;
    for (b = 0; b < g->batch; b++) {
        jb.x = x + (size_t)b * in_img;
        jb.y = y + (size_t)b * (size_t)g->out_h * out_row;
        if (place == 1) {
            /* pair after pair, every block of channels of each */
            for (y0 = 0; y0 < g->out_h; y0 += 2) {
                const int32_t rows = g->out_h - y0 < 2 ? 1 : 2, iy = y0 - g->pad_top;
                /* r0 whole, before the pair's first write */
                if (iy >= 0 && iy < g->in_h)
                    memcpy(ws, jb.x + (size_t)iy * row_stride, row_stride);
                for (c = 0; c < g->in_c; c += 4) {
                    nk_dwv_weights(jb.wq, w + c, step);
                    for (x0 = 0; x0 < g->out_w; x0 += pl.n)
                        nk_dwv_band(&jb, c, y0, rows, x0,
                                    g->out_w - x0 < pl.n ? g->out_w - x0 : pl.n);
                }
            }
            continue;
        }
        /* block after block of channels, band after band of pairs */
        for (c = 0; c < g->in_c; c += 4) {
            nk_dwv_weights(jb.wq, w + c, step);
            for (y0 = 0; y0 < g->out_h; y0 += 2 * pl.r) {
                const int32_t rows = g->out_h - y0 < 2 * pl.r ? g->out_h - y0 : 2 * pl.r;
                for (x0 = 0; x0 < g->out_w; x0 += pl.n)
                    nk_dwv_band(&jb, c, y0, rows, x0, g->out_w - x0 < pl.n ? g->out_w - x0 : pl.n);
            }
        }
    }
    return 1;
}

/* Multiplier 1 with no horizontal dilation, or a multiple of 4; anything
 * else takes the portable kernel. wsum: the
 * portable kernel's per-channel weight sums (nk_ref_depthwise_wsum_i8),
 * or NULL, which leaves out the 3x3 paths; stage: the
 * nk_fast_depthwise_i8_workspace bytes (NULL when that is 0). */
int nk_fast_depthwise_conv2d_i8_ws(const int8_t *x, const int8_t *NK_RESTRICT w,
                                   const int32_t *NK_RESTRICT bias, int8_t *y,
                                   const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                   const int32_t *NK_RESTRICT wsum, int32_t *NK_RESTRICT stage) {
    const size_t ch = (size_t)g->in_c; /* = out_c with multiplier 1 */
    const size_t row_stride = (size_t)g->in_w * ch;
    const size_t pair = (size_t)g->stride_w * ch;
    const size_t w_row = (size_t)g->k_w * ch;
    const int k3 = wsum != NULL && g->k_h == 3 && g->k_w == 3;
    const int s12 = g->stride_w == 1 || g->stride_w == 2;
    int32_t b, oy, ox, np;
    int rows3, n_grp;
    nk_dw_grp grp[NK_DW_ROW_GROUPS];
    nk_dsp_epi e;
    e = nk_dsp_epi_make(q, g->out_c);
    if (g->multiplier > 1 && g->multiplier % 4 == 0) {
        nk_dwm_conv(x, w, bias, y, g, &e);
        return 1;
    }
    if (g->multiplier != 1 || g->dil_w != 1)
        return 0;
    rows3 = stage != NULL && wsum != NULL && nk_fast_dw3_takes(g);
    /* narrow rows in fused groups: whole words of channels, the DSP
     * epilogue, and two groups or more to share the row's set-up */
    n_grp = !rows3 && k3 && e.fast && g->stride_w == 1 && (g->in_c & 3) == 0 ? nk_dw_row_plan(g, grp)
                                                                            : 0;
    if (n_grp < 2)
        n_grp = 0;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int8_t *yrow = y + ((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w * ch;
            int32_t ky_lo, ky_hi;
            if (rows3) {
                nk_dw3_row(xb, w, g, oy, wsum, bias, &e, stage, yrow);
                continue;
            }
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            if (n_grp && ky_hi - ky_lo >= 2) {
                nk_dw_row_grouped(xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride, w,
                                  (size_t)g->dil_h * row_stride, ky_lo, ky_hi, g, grp, n_grp, wsum,
                                  bias, &e, yrow);
                continue;
            }
            for (ox = 0; ox < g->out_w; ox += np) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int8_t *yp = yrow + (size_t)ox * ch;
                int32_t kx_lo, kx_hi;
                int pads = 0;
                /* three 3x3 windows inside the input at once */
                np = k3 && s12 && ky_lo == 0 && ky_hi == 3 && ix0 >= 0 && ox + 2 < g->out_w &&
                             ix0 + 2 * g->stride_w + 3 <= g->in_w
                         ? 3
                         : 1;
                /* a row of exactly three windows at stride 1 with a padding
                 * column at both ends (VWW's 3x3 layers); its tail channels
                 * would need each window's own tap range, so whole words only */
                if (np == 1 && k3 && g->stride_w == 1 && ky_lo == 0 && ky_hi == 3 &&
                    (g->in_c & 3) == 0 && ox == 0 && g->out_w == 3 && ix0 == -1 && g->in_w == 3) {
                    np = 3;
                    pads = 3;
                }
                nk_i8_tap_range(ix0, 1, g->k_w, g->in_w, &kx_lo, &kx_hi);
                if (ky_lo >= ky_hi || kx_lo >= kx_hi) {
                    /* no valid tap: the bias alone */
                    int32_t c;
                    for (c = 0; c < g->out_c; c++)
                        yp[c] = nk_i8_finish(0, bias, c, q);
                    continue;
                }
                nk_dw_block(xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride +
                                (size_t)(ix0 + kx_lo) * ch,
                            pair, np, pads, w + (size_t)ky_lo * w_row + (size_t)kx_lo * ch,
                            ky_hi - ky_lo, kx_hi - kx_lo, (size_t)g->dil_h * row_stride, w_row,
                            g->in_c, wsum, bias, &e, yp);
            }
        }
    }
    return 1;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
#else
/* ISO C wants a declaration in every translation unit. */
typedef int nk_dsp_depthwise_not_built;
#endif

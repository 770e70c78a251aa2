/* dsp_i8.c — int8 conv, dense, add and max pool on the Armv7E-M DSP
 * extension (kernels/fast_i8.h says when they are built).
 *
 * Dual 16-bit MACs: four int8 of the weights become two int16 pairs with
 * SXTB16 (bytes 0,2) and SXTB16 ROR 8 (bytes 1,3); four int8 of the input
 * the same way with SXTAB16, which adds the input offset -in_zp to each
 * lane for free (x + off fits int16), so each SMLAD adds two products
 * (x + off) * w exactly as the portable kernels and TFLite sum them.
 * Conv and dense widen each output pixel's taps once into a window in the
 * workspace (padding as zero lanes, which add nothing, as TFLite skips
 * them), then every pair of output channels runs over it.
 *
 * Register blocking: two output channels by two output pixels (conv) or
 * two rows (dense), four accumulators, each weight word loaded and widened
 * once for four SMLADs; the accumulators start from the bias. Convs of
 * few taps (nk_fast_conv2d_i8_small) take one channel by four pixels
 * instead, over weights widened once per call (nk_dsp_conv_small); with
 * room in the model's workspace, one channel by eight pixels
 * (nk_dsp_oct_*), or by six or four (nk_dsp_rows_*).
 * The epilogue of a 2-channel block takes each channel's multiplier and
 * shift once, requantizes with SMMLAR/SMMLA (dsp.h, nk_dsp_rq_half; exact
 * in both rounding modes when every shift is negative, or multiplier 0
 * and shift not, else the portable nk_i8_finish_rq) and does the zero point and
 * both clamps on int16/int8 lanes. On the target the blocks of two
 * pixels run as one asm loop, MACs and epilogue (nk_dsp_pairs22), its
 * pointers in a struct rather than in GCC's spills. Depthwise is in
 * dsp_depthwise.c; add (by tables) and the pools are at the end. */
#include "../fast_i8.h"

#if NK_FAST_I8_ARMV7EM
#include "dsp.h"

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define NK_DSP_NOINLINE __attribute__((noinline))
#define NK_DSP_INLINE static inline __attribute__((always_inline))
#else
#define NK_DSP_NOINLINE
#define NK_DSP_INLINE static inline
#endif

/* The inline-asm MAC loops need 13 or 14 registers: Cortex-M, optimized
 * builds (at -O0 r7 is the frame pointer; the functions holding them use
 * no global, so no PIC base either). Elsewhere the C loops, which compute
 * the same sums. */
#if NK_DSP_NATIVE && defined(__OPTIMIZE__) && defined(__ARM_ARCH_PROFILE) && \
    __ARM_ARCH_PROFILE == 'M'
#define NK_DSP_ASM 1
#else
#define NK_DSP_ASM 0
#endif

/* acc[2*i + j] += sum over the n_rows runs r and k < n of
 * (xj[r*x_row + k] + off) * wi[r*w_row + k], for nw (1 or 2) weight runs
 * w0, w1 = w0 + w1_off and nx (1 or 2) input runs x0, x1 = x0 + x1_off.
 * nw and nx are constants at every call, so each use compiles to its own
 * loop; the sums stay in registers across the rows (short rows: a first
 * layer's few input channels). offp is off in both int16 lanes. */
static inline void nk_dsp_dot(const int8_t *w0, size_t w1_off, const int8_t *x0, size_t x1_off,
                              int32_t n, int32_t n_rows, size_t w_row, size_t x_row, int32_t off,
                              int32_t offp, const int nw, const int nx, int32_t *acc) {
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    int32_t r;
    for (r = 0; r < n_rows; r++, w0 += w_row, x0 += x_row) {
        const int8_t *w1 = w0 + w1_off, *x1 = x0 + x1_off;
        int32_t k = 0;
        for (; k + 4 <= n; k += 4) {
            const int32_t xv0 = nk_dsp_load4(x0 + k);
            const int32_t x0a = nk_dsp_sxtab16(offp, xv0), x0b = nk_dsp_sxtab16_ror8(offp, xv0);
            const int32_t wv0 = nk_dsp_load4(w0 + k);
            const int32_t w0a = nk_dsp_sxtb16(wv0), w0b = nk_dsp_sxtb16_ror8(wv0);
            a00 = nk_dsp_smlad(w0a, x0a, a00);
            a00 = nk_dsp_smlad(w0b, x0b, a00);
            if (nw == 2) {
                const int32_t wv1 = nk_dsp_load4(w1 + k);
                const int32_t w1a = nk_dsp_sxtb16(wv1), w1b = nk_dsp_sxtb16_ror8(wv1);
                a10 = nk_dsp_smlad(w1a, x0a, a10);
                a10 = nk_dsp_smlad(w1b, x0b, a10);
                if (nx == 2) {
                    const int32_t xv1 = nk_dsp_load4(x1 + k);
                    const int32_t x1a = nk_dsp_sxtab16(offp, xv1),
                                  x1b = nk_dsp_sxtab16_ror8(offp, xv1);
                    a01 = nk_dsp_smlad(w0a, x1a, a01);
                    a01 = nk_dsp_smlad(w0b, x1b, a01);
                    a11 = nk_dsp_smlad(w1a, x1a, a11);
                    a11 = nk_dsp_smlad(w1b, x1b, a11);
                }
            } else if (nx == 2) {
                const int32_t xv1 = nk_dsp_load4(x1 + k);
                a01 = nk_dsp_smlad(w0a, nk_dsp_sxtab16(offp, xv1), a01);
                a01 = nk_dsp_smlad(w0b, nk_dsp_sxtab16_ror8(offp, xv1), a01);
            }
        }
        for (; k < n; k++) { /* modulo 2^32 like SMLAD: the sums start from the bias */
            const int32_t xa = x0[k] + off, wa = w0[k];
            a00 = (int32_t)((uint32_t)a00 + (uint32_t)(xa * wa));
            if (nx == 2)
                a01 = (int32_t)((uint32_t)a01 + (uint32_t)((x1[k] + off) * wa));
            if (nw == 2) {
                a10 = (int32_t)((uint32_t)a10 + (uint32_t)(xa * w1[k]));
                if (nx == 2)
                    a11 = (int32_t)((uint32_t)a11 + (uint32_t)((x1[k] + off) * w1[k]));
            }
        }
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
}

#if NK_DSP_ASM
/* acc[i] += the words of x up to end (8 bytes a pass) times row i of
 * w, w + s, w2, w2 + s. GCC spills three of the fifteen registers a C loop
 * wants: here rows 1 and 3 are addressed from 0 and 2, and the end is
 * read from memory (13 registers, 51 instructions per 32 MACs); out of
 * line, so that nothing else is live around it (at -O3 the caller's
 * remainder loop left it no registers). */
static NK_DSP_NOINLINE void nk_dsp_dot4_words(const int8_t *xp, const int8_t *end,
                                              const int8_t *wp, const int8_t *w2p, size_t w_off,
                                              int32_t offp, int32_t *acc) {
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int32_t xv, xa, wv, wa;
    __asm__ volatile("1:\n\t"
                     "ldr %[xv], [%[x]], #4\n\t"
                     "sxtab16 %[xa], %[offp], %[xv]\n\t"
                     "sxtab16 %[xv], %[offp], %[xv], ror #8\n\t"
                     "ldr %[wv], [%[w], %[s]]\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a1], %[wa], %[xa], %[a1]\n\t"
                     "smlad %[a1], %[wv], %[xv], %[a1]\n\t"
                     "ldr %[wv], [%[w2], %[s]]\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a3], %[wa], %[xa], %[a3]\n\t"
                     "smlad %[a3], %[wv], %[xv], %[a3]\n\t"
                     "ldr %[wv], [%[w2]], #4\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a2], %[wa], %[xa], %[a2]\n\t"
                     "smlad %[a2], %[wv], %[xv], %[a2]\n\t"
                     "ldr %[wv], [%[w]], #4\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a0], %[wa], %[xa], %[a0]\n\t"
                     "smlad %[a0], %[wv], %[xv], %[a0]\n\t"
                     "ldr %[xv], [%[x]], #4\n\t"
                     "sxtab16 %[xa], %[offp], %[xv]\n\t"
                     "sxtab16 %[xv], %[offp], %[xv], ror #8\n\t"
                     "ldr %[wv], [%[w], %[s]]\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a1], %[wa], %[xa], %[a1]\n\t"
                     "smlad %[a1], %[wv], %[xv], %[a1]\n\t"
                     "ldr %[wv], [%[w2], %[s]]\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a3], %[wa], %[xa], %[a3]\n\t"
                     "smlad %[a3], %[wv], %[xv], %[a3]\n\t"
                     "ldr %[wv], [%[w2]], #4\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a2], %[wa], %[xa], %[a2]\n\t"
                     "smlad %[a2], %[wv], %[xv], %[a2]\n\t"
                     "ldr %[wv], [%[w]], #4\n\t"
                     "sxtb16 %[wa], %[wv]\n\t"
                     "sxtb16 %[wv], %[wv], ror #8\n\t"
                     "smlad %[a0], %[wa], %[xa], %[a0]\n\t"
                     "smlad %[a0], %[wv], %[xv], %[a0]\n\t"
                     "ldr %[wv], %[end]\n\t"
                     "cmp %[x], %[wv]\n\t"
                     "bne 1b"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
                       [x] "+r"(xp), [w] "+r"(wp), [w2] "+r"(w2p), [xv] "=&r"(xv),
                       [xa] "=&r"(xa), [wv] "=&r"(wv), [wa] "=&r"(wa)
                     : [s] "r"(w_off), [offp] "r"(offp), [end] "m"(end)
                     : "cc", "memory");
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}
#endif

/* acc[i] += sum over k < n of (x[k] + off) * w_i[k] for the four weight
 * runs w_i = w + i*w_off: one input word widened for eight SMLADs (a
 * single row, where two output channels would widen it for four). */
static NK_DSP_NOINLINE void nk_dsp_dot4(const int8_t *w, size_t w_off, const int8_t *x, int32_t n,
                                        int32_t off, int32_t offp, int32_t *acc) {
    const int8_t *w1 = w + w_off, *w2 = w1 + w_off, *w3 = w2 + w_off;
    int32_t a0, a1, a2, a3;
    int32_t k = 0;
#if NK_DSP_ASM
    if (n >= 8) {
        k = n & ~7;
        nk_dsp_dot4_words(x, x + k, w, w2, w_off, offp, acc);
    }
#endif
    a0 = acc[0];
    a1 = acc[1];
    a2 = acc[2];
    a3 = acc[3];
    for (; k + 4 <= n; k += 4) {
        const int32_t xv = nk_dsp_load4(x + k);
        const int32_t xa = nk_dsp_sxtab16(offp, xv), xb = nk_dsp_sxtab16_ror8(offp, xv);
        int32_t wv = nk_dsp_load4(w + k);
        a0 = nk_dsp_smlad(nk_dsp_sxtb16(wv), xa, a0);
        a0 = nk_dsp_smlad(nk_dsp_sxtb16_ror8(wv), xb, a0);
        wv = nk_dsp_load4(w1 + k);
        a1 = nk_dsp_smlad(nk_dsp_sxtb16(wv), xa, a1);
        a1 = nk_dsp_smlad(nk_dsp_sxtb16_ror8(wv), xb, a1);
        wv = nk_dsp_load4(w2 + k);
        a2 = nk_dsp_smlad(nk_dsp_sxtb16(wv), xa, a2);
        a2 = nk_dsp_smlad(nk_dsp_sxtb16_ror8(wv), xb, a2);
        wv = nk_dsp_load4(w3 + k);
        a3 = nk_dsp_smlad(nk_dsp_sxtb16(wv), xa, a3);
        a3 = nk_dsp_smlad(nk_dsp_sxtb16_ror8(wv), xb, a3);
    }
    for (; k < n; k++) { /* modulo 2^32 like SMLAD */
        const int32_t xk = x[k] + off;
        a0 = (int32_t)((uint32_t)a0 + (uint32_t)(xk * w[k]));
        a1 = (int32_t)((uint32_t)a1 + (uint32_t)(xk * w1[k]));
        a2 = (int32_t)((uint32_t)a2 + (uint32_t)(xk * w2[k]));
        a3 = (int32_t)((uint32_t)a3 + (uint32_t)(xk * w3[k]));
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* Any block (nw channels o.., np pixels at y0, y1; acc[2*i + j] holds
 * channel o+i, pixel j, bias included) through the portable epilogue:
 * blocks of one channel, and layers with a multiplier above one or 0. */
static NK_DSP_NOINLINE void nk_dsp_finish_any(const int32_t *acc, int nw, int np, int32_t o,
                                              int8_t *y0, int8_t *y1, const nk_dsp_epi *e) {
    int i, j;
    for (i = 0; i < nw; i++) {
        const nk_q_rq r = nk_i8_rq(e->q, o + i);
        int8_t v[2];
        for (j = 0; j < np; j++)
            v[j] = nk_i8_finish_rq(acc[2 * i + j], 0, &r, e->q);
        for (j = 0; j < np; j++)
            (j ? y1 : y0)[o + i] = v[j];
    }
}

/* Whether the activation clamp does anything: with the range all of
 * int8 (no activation, or ReLU whose zero point is -128) the saturation
 * to int8 before it has done its work. Read once per call. */
static inline int nk_dsp_clamps(const nk_dsp_epi *e) {
    return e->lo4 != (int32_t)0x80808080u || e->hi4 != 0x7F7F7F7F;
}

/* four int8 lanes clamped to the activation range when clamp is set */
NK_DSP_INLINE uint32_t nk_dsp_act4(uint32_t v, int clamp, const nk_dsp_epi *e) {
    return clamp ? (uint32_t)nk_dsp_min8(nk_dsp_max8((int32_t)v, e->lo4), e->hi4) : v;
}

/* Channels o, o+1 (accumulators c0p0, c0p1, c1p0, c1p1: channel, pixel;
 * bias included) by pixels at y0 and y1 (np = 2) or y0 alone (np = 1),
 * for an epilogue with e->fast: nk_dsp_rq_half, then the requantization's
 * last halving, the zero point and the saturation to int8 on int16 lanes,
 * the activation clamp on int8 lanes, and each pixel's two channels
 * stored as one halfword. Inlined into the channel loops, so a block
 * costs no call and no accumulator round trip through memory. */
NK_DSP_INLINE void nk_dsp_store22(int32_t c0p0, int32_t c0p1, int32_t c1p0, int32_t c1p1, int np,
                                  int32_t o, int8_t *y0, int8_t *y1, int clamp,
                                  const nk_dsp_epi *e) {
    const int32_t k0 = o & e->cmask, k1 = (o + 1) & e->cmask;
    const int32_t m0 = (int32_t)((uint32_t)e->mult[k0] << 1), a0 = ~e->shift[k0];
    const int32_t m1 = (int32_t)((uint32_t)e->mult[k1] << 1), a1 = ~e->shift[k1];
    uint32_t v;
    if (np == 2) {
        /* lanes: channel o for pixels 0, 1; channel o+1 */
        const int32_t c0 =
            nk_dsp_half_zp(nk_dsp_rq_half(c0p0, m0, a0), nk_dsp_rq_half(c0p1, m0, a0), e->zp1);
        const int32_t c1 =
            nk_dsp_half_zp(nk_dsp_rq_half(c1p0, m1, a1), nk_dsp_rq_half(c1p1, m1, a1), e->zp1);
        /* bytes: pixel 0's channels o, o+1, then pixel 1's */
        v = (uint32_t)nk_dsp_zip8(c0, c1);
    } else {
        const int32_t c =
            nk_dsp_half_zp(nk_dsp_rq_half(c0p0, m0, a0), nk_dsp_rq_half(c1p0, m1, a1), e->zp1);
        v = (uint32_t)nk_dsp_zip8(c, 0);
        v |= v >> 8;
    }
    v = nk_dsp_act4(v, clamp, e);
    nk_dsp_store2(y0 + o, v);
    if (np == 2)
        nk_dsp_store2(y1 + o, v >> 16);
}

/* nk_dsp_store22 from an accumulator block, any epilogue (out of line:
 * the single-row dense loops need every register). */
static NK_DSP_NOINLINE void nk_dsp_finish2(const int32_t *acc, int np, int32_t o, int8_t *y0,
                                           int8_t *y1, const nk_dsp_epi *e) {
    if (!e->fast)
        nk_dsp_finish_any(acc, 2, np, o, y0, y1, e);
    else
        nk_dsp_store22(acc[0], acc[1], acc[2], acc[3], np, o, y0, y1, 1, e);
}

/* Channels o..o+3 of one pixel at y (acc[i]: channel o+i, bias
 * included), as nk_dsp_finish2, stored as one word. */
static NK_DSP_NOINLINE void nk_dsp_finish4x1(const int32_t *acc, int32_t o, int8_t *y,
                                             const nk_dsp_epi *e) {
    int32_t s[4], i;
    uint32_t v;
    if (!e->fast) {
        const int32_t a01[4] = {acc[0], 0, acc[1], 0}, a23[4] = {acc[2], 0, acc[3], 0};
        nk_dsp_finish_any(a01, 2, 1, o, y, y, e);
        nk_dsp_finish_any(a23, 2, 1, o + 2, y, y, e);
        return;
    }
    for (i = 0; i < 4; i++) {
        int32_t m2, a;
        nk_dsp_epi_pair(e, o + i, &m2, &a);
        s[i] = nk_dsp_rq_half(acc[i], m2, a);
    }
    /* lanes: channels o, o+2 and o+1, o+3; bytes o..o+3 */
    v = (uint32_t)nk_dsp_zip8(nk_dsp_half_zp(s[0], s[2], e->zp1),
                              nk_dsp_half_zp(s[1], s[3], e->zp1));
    v = (uint32_t)nk_dsp_min8(nk_dsp_max8((int32_t)v, e->lo4), e->hi4);
    nk_dsp_store2(y + o, v);
    nk_dsp_store2(y + o + 2, v >> 16);
}

static inline void nk_dsp_finish(const int32_t *acc, int nw, int np, int32_t o, int8_t *y0,
                                 int8_t *y1, const nk_dsp_epi *e) {
    if (nw == 2)
        nk_dsp_finish2(acc, np, o, y0, y1, e);
    else
        nk_dsp_finish_any(acc, nw, np, o, y0, y1, e);
}

/* The accumulators of channels o (and o+1 when nw = 2) start from the bias. */
static inline void nk_dsp_acc_init(int32_t *acc, const int32_t *bias, int32_t o, int nw) {
    acc[0] = acc[1] = bias ? bias[o] : 0;
    acc[2] = acc[3] = bias && nw == 2 ? bias[o + 1] : 0;
}

/* Convs and dense layers by windows: each output pixel's taps (a dense
 * row, or a conv window in weight order) are gathered once, offset, as
 * int16 lanes with zeros for the padding (which then adds nothing, as
 * TFLite skips it), in the order SXTB16 / SXTB16 ROR 8 widen a weight
 * word to: taps 4j, 4j+2 in one word, 4j+1, 4j+3 in the next. Every output
 * channel then runs over the same K/4 weight words with no border cases
 * and no input widening: two channels by two pixels (any two consecutive
 * pixels, across rows too), two SMLADs per widened word. The two windows
 * are interleaved (words 4j, 4j+1 pixel 0's, 4j+2, 4j+3 pixel 1's) in the
 * op's workspace: 4 * NK_DSP_WIN_TAPS(K) bytes (and a stage, below). */

/* The whole words from x to x_end (x_end - x a positive multiple of 4),
 * offset and widened, to words ps*j, ps*j+1 of q; returns the next q. ps,
 * a constant, is the windows' pixel step: 4 for two pixels' windows
 * interleaved (below), 16 for eight (nk_dsp_oct_*). On the target 6
 * instructions a word (GCC's loop takes 9). */
NK_DSP_INLINE int32_t *nk_dsp_widen_words(const int8_t *x, const int8_t *x_end, int32_t offp,
                                          int32_t *q, const int ps) {
#if NK_DSP_ASM
    int32_t v, a;
    __asm__ volatile("1:\n\t"
                     "ldr %[v], [%[x]], #4\n\t"
                     "sxtab16 %[a], %[offp], %[v]\n\t"
                     "sxtab16 %[v], %[offp], %[v], ror #8\n\t"
                     "strd %[a], %[v], [%[q]], %[step]\n\t"
                     "cmp %[x], %[end]\n\t"
                     "bne 1b"
                     : [x] "+r"(x), [q] "+r"(q), [v] "=&r"(v), [a] "=&r"(a)
                     : [offp] "r"(offp), [end] "r"(x_end), [step] "n"(4 * ps)
                     : "cc", "memory");
#else
    for (; x != x_end; x += 4, q += ps) {
        const int32_t v = nk_dsp_load4(x);
        q[0] = nk_dsp_sxtab16(offp, v);
        q[1] = nk_dsp_sxtab16_ror8(offp, v);
    }
#endif
    return q;
}

/* nk_dsp_widen_words over seven words, unrolled */
NK_DSP_INLINE void nk_dsp_widen7(const int8_t *x, int32_t offp, int32_t *q, const int ps) {
    int i;
    for (i = 0; i < 7; i++) {
        const int32_t v = nk_dsp_load4(x + 4 * i);
        q[ps * i] = nk_dsp_sxtab16(offp, v);
        q[ps * i + 1] = nk_dsp_sxtab16_ror8(offp, v);
    }
}

/* n input bytes at x (n a multiple of 4 unless the window ends there),
 * offset, to the window words at win (a pixel's pair of every ps);
 * returns where the next taps go. */
NK_DSP_INLINE int32_t *nk_dsp_widen_run(const int8_t *x, int32_t n, int32_t off, int32_t offp,
                                        int32_t *win, const int ps) {
    const int32_t i = n & ~3;
    if (i > 0)
        win = nk_dsp_widen_words(x, x + i, offp, win, ps);
    if (i < n) { /* the last 1..3 taps, the rest of the word 0 */
        int32_t v[4] = {0, 0, 0, 0}, j;
        for (j = 0; i + j < n; j++)
            v[j] = x[i + j] + off;
        win[0] = nk_dsp_pack16(v[0], v[2]);
        win[1] = nk_dsp_pack16(v[1], v[3]);
        win += ps;
    }
    return win;
}
/* nk_dsp_widen_run into two-pixel windows, one out-of-line copy for the
 * dense rows and the small pointwise convs */
static int32_t *nk_dsp_widen_row(const int8_t *x, int32_t n, int32_t off, int32_t offp,
                                 int32_t *win) {
    return nk_dsp_widen_run(x, n, off, offp, win, 4);
}

/* The window of the output pixel whose taps start at input row iy0 and
 * column ix0 (padding included) of the image at xb, to words
 * ps*j and ps*j+1 of win for j < (k + 3) / 4, the last word's missing taps
 * zero, for windows over the padding (nk_dsp_gather takes the others).
 * With in_c not a multiple of 4 (a first layer's 1 or 3 channels)
 * the rows' runs do not fall on words: the window's bytes are first
 * copied to stage (k bytes rounded up to 4), the padding as in_zp,
 * which the offset makes 0, and widened by whole words. */
NK_DSP_INLINE void nk_dsp_window_at_ps(const int8_t *xb, const nk_ref_conv_geom *g, int32_t iy0,
                                       int32_t ix0, int32_t off, int32_t offp, int32_t *win,
                                       int8_t *stage, const int ps) {
    const int32_t in_c = g->in_c, run = g->k_w * in_c;
    const int8_t zp = (int8_t)-off;
    int32_t ky, i, kx_lo, kx_hi, i_lo, i_hi;
    /* a row's valid taps: bytes [i_lo, i_hi) of its run (no dilation) */
    nk_i8_tap_range(ix0, 1, g->k_w, g->in_w, &kx_lo, &kx_hi);
    i_lo = kx_lo * in_c;
    i_hi = kx_hi > kx_lo ? kx_hi * in_c : i_lo;
    if (in_c & 3) {
        /* the stage all in_zp first by words (byte loops would become
         * memset calls, dearer than the few bytes), then each row's
         * valid bytes over it */
        const int32_t k4 = (int32_t)NK_DSP_WIN_TAPS(g->k_h * run), zp4 = nk_dsp_dup8(zp);
        int8_t *sp = stage;
        for (i = 0; i < k4; i += 4)
            memcpy(stage + i, &zp4, 4);
        if (i_hi > i_lo)
            for (ky = 0; ky < g->k_h; ky++, sp += run) {
                const int32_t iy = iy0 + ky * g->dil_h;
                const int8_t *xr;
                if (iy < 0 || iy >= g->in_h)
                    continue;
                xr = xb + ((size_t)iy * (size_t)g->in_w + (size_t)(ix0 + kx_lo)) * (size_t)in_c;
                for (i = i_lo; i < i_hi; i++)
                    sp[i] = xr[i - i_lo];
            }
        nk_dsp_widen_run(stage, k4, off, offp, win, ps);
        return;
    }
    for (ky = 0; ky < g->k_h; ky++) { /* whole words: the runs and their padding */
        const int32_t iy = iy0 + ky * g->dil_h;
        const int row_ok = iy >= 0 && iy < g->in_h;
        /* the row's first valid byte, i_lo bytes into the run */
        const int8_t *xr =
            row_ok && i_hi > i_lo
                ? xb + ((size_t)iy * (size_t)g->in_w + (size_t)(ix0 + kx_lo)) * (size_t)in_c
                : xb;
        const int32_t lo = row_ok ? i_lo : 0, hi = row_ok ? i_hi : 0;
        for (i = 0; i < lo; i += 4, win += ps)
            win[0] = win[1] = 0;
        win = nk_dsp_widen_run(xr, hi - lo, off, offp, win, ps);
        for (i = hi; i < run; i += 4, win += ps)
            win[0] = win[1] = 0;
    }
}
/* out of line, once per pixel step */
static NK_DSP_NOINLINE void nk_dsp_window_at(const int8_t *xb, const nk_ref_conv_geom *g,
                                             int32_t iy0, int32_t ix0, int32_t off, int32_t offp,
                                             int32_t *win, int8_t *stage) {
    nk_dsp_window_at_ps(xb, g, iy0, ix0, off, offp, win, stage, 4);
}
static NK_DSP_NOINLINE void nk_dsp_window_at16(const int8_t *xb, const nk_ref_conv_geom *g,
                                               int32_t iy0, int32_t ix0, int32_t off,
                                               int32_t offp, int32_t *win, int8_t *stage) {
    nk_dsp_window_at_ps(xb, g, iy0, ix0, off, offp, win, stage, 16);
}

/* Output pixels in order with no divisions: the window origin of the
 * current one and its image. */
typedef struct nk_dsp_cursor {
    const int8_t *xb; /* the pixel's image */
    int32_t oy, ox;
} nk_dsp_cursor;

static inline nk_dsp_cursor nk_dsp_cursor_at(const int8_t *x, const nk_ref_conv_geom *g,
                                             int32_t p) {
    const int32_t hw = g->out_h * g->out_w, b = p / hw;
    nk_dsp_cursor c;
    c.xb = x + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    c.oy = (p - b * hw) / g->out_w;
    c.ox = p - b * hw - c.oy * g->out_w;
    return c;
}

static inline void nk_dsp_cursor_next(nk_dsp_cursor *c, const nk_ref_conv_geom *g) {
    if (++c->ox == g->out_w) {
        c->ox = 0;
        if (++c->oy == g->out_h) {
            c->oy = 0;
            c->xb += (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
        }
    }
}

/* The window of the cursor's pixel to words ps*j, ps*j+1 of wp (n4w words
 * of k = k_h * k_w * in_c taps, the last word's missing taps 0). Inside
 * the image (most pixels) with no call: whole words straight from the
 * rows when in_c is a multiple of 4, else the rows' bytes to the stage
 * over a last word of in_zp (the stores are volatile so that GCC keeps
 * the byte loop: its memmove call for a few bytes costs more), then
 * widened. Windows over the padding: nk_dsp_window_at. */
NK_DSP_INLINE void nk_dsp_gather(const nk_dsp_cursor *c, const nk_ref_conv_geom *g, int32_t off,
                                 int32_t offp, int32_t n4w, int32_t *wp, int8_t *stage,
                                 const int ps) {
    const int32_t iy0 = c->oy * g->stride_h - g->pad_top;
    const int32_t ix0 = c->ox * g->stride_w - g->pad_left;
    const size_t row = (size_t)g->dil_h * (size_t)g->in_w * (size_t)g->in_c;
    const int32_t run = g->k_w * g->in_c;
    const int inside = iy0 >= 0 && iy0 + (g->k_h - 1) * g->dil_h < g->in_h && ix0 >= 0 &&
                       ix0 + g->k_w - 1 < g->in_w;
    const int8_t *xr = c->xb + ((size_t)iy0 * (size_t)g->in_w + (size_t)ix0) * (size_t)g->in_c;
    int32_t ky, j;
    if (inside && !(g->in_c & 3)) {
        int32_t *q = wp;
        for (ky = 0; ky < g->k_h; ky++, xr += row)
            q = nk_dsp_widen_words(xr, xr + run, offp, q, ps);
    } else if (inside && run == 9 && g->k_h == 3) {
        /* a 3x3 over three channels (the RGB first layer of image models):
         * the general loops below, unrolled (VWW's stem: 1.39 M -> 1.27 M
         * instructions) */
        const int32_t zp4 = nk_dsp_dup8(-off);
        memcpy(stage + 24, &zp4, 4);
        nk_dsp_copy4(stage, xr);
        nk_dsp_copy4(stage + 4, xr + 4);
        nk_dsp_copy4(stage + 5, xr + 5);
        xr += row;
        nk_dsp_copy4(stage + 9, xr);
        nk_dsp_copy4(stage + 13, xr + 4);
        nk_dsp_copy4(stage + 14, xr + 5);
        xr += row;
        nk_dsp_copy4(stage + 18, xr);
        nk_dsp_copy4(stage + 22, xr + 4);
        nk_dsp_copy4(stage + 23, xr + 5);
        nk_dsp_widen7(stage, offp, wp, ps);
    } else if (inside) {
        const int32_t zp4 = nk_dsp_dup8(-off);
        int8_t *sp = stage;
        memcpy(stage + 4 * n4w - 4, &zp4, 4);
        /* each row's run by words (unaligned LDR/STR), the last one
         * ending where the run ends (overlapping the one before: no byte
         * read or written past the run); runs under a word byte by byte */
        for (ky = 0; ky < g->k_h; ky++, xr += row, sp += run) {
            if (run >= 4) {
                for (j = 0; j + 4 < run; j += 4)
                    nk_dsp_copy4(sp + j, xr + j);
                nk_dsp_copy4(sp + run - 4, xr + run - 4);
            } else {
                for (j = 0; j < run; j++)
                    ((volatile int8_t *)sp)[j] = xr[j];
            }
        }
        nk_dsp_widen_words(stage, stage + 4 * n4w, offp, wp, ps);
    } else if (ps == 4) {
        nk_dsp_window_at(c->xb, g, iy0, ix0, off, offp, wp, stage);
    } else {
        nk_dsp_window_at16(c->xb, g, iy0, ix0, off, offp, wp, stage);
    }
}

/* a00..a11 (channel i, window j) += window j (interleaved in win) times
 * weight row i (w, w + ws) over n4 whole words. On the target an
 * inline-asm loop over four words a pass: 66 instructions per 64 MACs,
 * after the first n4 % 4 words (in the same asm: a C loop there took
 * about 28 instructions a word with its spills, and a second asm loop
 * cost GCC registers around it). It holds 14 registers, as many as GCC
 * gives at every optimization level (an LDM of the four window words
 * would need them pinned, and that allocation fails at -O1, -O3 and on
 * Cortex-M7). */
NK_DSP_INLINE void nk_dsp_mac22(const int8_t *w, size_t ws, const int32_t *win, int32_t n4,
                                const int rem, int32_t *p00, int32_t *p01, int32_t *p10,
                                int32_t *p11) {
    int32_t a00 = *p00, a01 = *p01, a10 = *p10, a11 = *p11;
    const int8_t *const we = w + 4 * (size_t)n4;
#if NK_DSP_ASM
    if (w != we) {
        int32_t t0, t1, t2, t3, t4, t5;
#define NK_DSP_MAC22_WORD                                                                          \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t"                                                            \
    "ldrd %[t2], %[t3], [%[x]], #8\n\t"                                                            \
    "ldr %[t4], [%[w], %[s]]\n\t"                                                                 \
    "sxtb16 %[t5], %[t4]\n\t"                                                                     \
    "smlad %[a10], %[t5], %[t0], %[a10]\n\t"                                                       \
    "smlad %[a11], %[t5], %[t2], %[a11]\n\t"                                                       \
    "sxtb16 %[t4], %[t4], ror #8\n\t"                                                             \
    "smlad %[a10], %[t4], %[t1], %[a10]\n\t"                                                       \
    "smlad %[a11], %[t4], %[t3], %[a11]\n\t"                                                       \
    "ldr %[t4], [%[w]], #4\n\t"                                                                   \
    "sxtb16 %[t5], %[t4]\n\t"                                                                     \
    "smlad %[a00], %[t5], %[t0], %[a00]\n\t"                                                       \
    "smlad %[a01], %[t5], %[t2], %[a01]\n\t"                                                       \
    "sxtb16 %[t4], %[t4], ror #8\n\t"                                                             \
    "smlad %[a00], %[t4], %[t1], %[a00]\n\t"                                                       \
    "smlad %[a01], %[t4], %[t3], %[a01]\n\t"
        /* four words a pass, after the n4 % 4 others when there are
         * some (read from the byte count we - w = 4 * n4: LSLS #29 puts
         * its bit 2, one word, in N and bit 3, two words, in C, which
         * nothing in a word changes: SMLAD sets only Q) */
#define NK_DSP_MAC22_LOOP                                                                          \
    "1:\n\t" NK_DSP_MAC22_WORD NK_DSP_MAC22_WORD NK_DSP_MAC22_WORD NK_DSP_MAC22_WORD             \
    "cmp %[w], %[end]\n\t"                                                                        \
    "bne 1b\n\t"
#define NK_DSP_MAC22_OPERANDS                                                                      \
    : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(win),           \
      [w] "+r"(w), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),                 \
      [t4] "=&r"(t4), [t5] "=&r"(t5)                                                               \
    : [s] "r"(ws), [end] "r"(we)                                                                   \
    : "cc", "memory"
        if (rem && (n4 & 3))
            __asm__ volatile("sub %[t4], %[end], %[w]\n\t"
                             "lsls %[t4], %[t4], #29\n\t"
                             "bpl 2f\n\t" NK_DSP_MAC22_WORD
                             "2:\n\t"
                             "bcc 3f\n\t" NK_DSP_MAC22_WORD NK_DSP_MAC22_WORD
                             "3:\n\t"
                             "cmp %[w], %[end]\n\t"
                             "beq 4f\n\t" NK_DSP_MAC22_LOOP "4:" NK_DSP_MAC22_OPERANDS);
        else
            __asm__ volatile(NK_DSP_MAC22_LOOP NK_DSP_MAC22_OPERANDS);
#undef NK_DSP_MAC22_LOOP
#undef NK_DSP_MAC22_OPERANDS
#undef NK_DSP_MAC22_WORD
    }
#else
    (void)rem; /* the C loop takes any word count */
    while (w != we) {
        const int32_t v0 = nk_dsp_load4(w), v1 = nk_dsp_load4(w + ws);
        const int32_t w0e = nk_dsp_sxtb16(v0), w0o = nk_dsp_sxtb16_ror8(v0);
        const int32_t w1e = nk_dsp_sxtb16(v1), w1o = nk_dsp_sxtb16_ror8(v1);
        a00 = nk_dsp_smlad(w0e, win[0], a00);
        a00 = nk_dsp_smlad(w0o, win[1], a00);
        a01 = nk_dsp_smlad(w0e, win[2], a01);
        a01 = nk_dsp_smlad(w0o, win[3], a01);
        a10 = nk_dsp_smlad(w1e, win[0], a10);
        a10 = nk_dsp_smlad(w1o, win[1], a10);
        a11 = nk_dsp_smlad(w1e, win[2], a11);
        a11 = nk_dsp_smlad(w1o, win[3], a11);
        w += 4;
        win += 4;
    }
#endif
    *p00 = a00;
    *p01 = a01;
    *p10 = a10;
    *p11 = a11;
}

/* acc as nk_dsp_mac22 over a last word of tail (1..3) weight bytes per
 * row, read one by one (the last channel's row ends the weights; the
 * window is 0 past the taps) */
static void nk_dsp_tail22(const int8_t *w, size_t ws, const int32_t *win, int32_t tail,
                          int32_t *acc) {
    uint32_t t0 = 0, t1 = 0;
    int32_t k, w0e, w0o, w1e, w1o;
    for (k = 0; k < tail; k++) {
        t0 |= (uint32_t)(uint8_t)w[k] << 8 * k;
        t1 |= (uint32_t)(uint8_t)w[ws + (size_t)k] << 8 * k;
    }
    w0e = nk_dsp_sxtb16((int32_t)t0);
    w0o = nk_dsp_sxtb16_ror8((int32_t)t0);
    w1e = nk_dsp_sxtb16((int32_t)t1);
    w1o = nk_dsp_sxtb16_ror8((int32_t)t1);
    acc[0] = nk_dsp_smlad(w0o, win[1], nk_dsp_smlad(w0e, win[0], acc[0]));
    acc[1] = nk_dsp_smlad(w0o, win[3], nk_dsp_smlad(w0e, win[2], acc[1]));
    acc[2] = nk_dsp_smlad(w1o, win[1], nk_dsp_smlad(w1e, win[0], acc[2]));
    acc[3] = nk_dsp_smlad(w1o, win[3], nk_dsp_smlad(w1e, win[2], acc[3]));
}

/* The channel pairs o < o_end of the np pixels (a constant) over win,
 * e->fast and a bias: their accumulators stay in registers from the bias to the
 * stores, no call per block. Returns the next o. */
NK_DSP_INLINE int32_t nk_dsp_pairs(const int8_t *w, const int32_t *bias, const int32_t *win,
                                   int32_t n4w, size_t kk, int32_t o_end, const int np,
                                   const int rem, int8_t *y0, int8_t *y1, const nk_dsp_epi *e) {
    const int clamp = nk_dsp_clamps(e);
    int32_t o;
    for (o = 0; o < o_end; o += 2) {
        int32_t a00 = bias[o], a10 = bias[o + 1];
        int32_t a01 = a00, a11 = a10;
        nk_dsp_mac22(w + (size_t)o * kk, kk, win, n4w, rem, &a00, &a01, &a10, &a11);
        nk_dsp_store22(a00, a01, a10, a11, np, o, y0, y1, clamp, e);
    }
    return o;
}

#if NK_DSP_ASM
/* nk_dsp_pairs for two pixels as one asm loop: the MAC loop holds 14
 * registers, so GCC kept the pair loop's pointers and the epilogue's
 * fields on the stack, reloading and storing each (about 72 instructions
 * a block besides the MACs). Here they live in this struct, read with
 * LDRD, its address pushed during the MACs: about 56. The words are
 * nk_dsp_store22's and nk_dsp_mac22's, in the same order. */
typedef struct nk_dsp_pairs_st {
    const int8_t *w;         /*  0: the pair's first weight row */
    const int32_t *win;      /*  4: the two windows, interleaved */
    int32_t nb;              /*  8: 4 * n4w, bytes of a row the MACs read */
    int32_t kk;              /* 12: bytes from one row to the next */
    const int32_t *bias;     /* 16: the pair's bias */
    const int32_t *mult;     /* 20: its multipliers, */
    const int32_t *shift;    /* 24: and shifts (or mt, st per tensor) */
    int32_t pstep;           /* 28: 8 bytes a pair per channel, else 0 */
    int8_t *y0;              /* 32: pixel 0's outputs of the pair */
    int32_t y1_off;          /* 36: pixel 1's, from pixel 0's */
    int32_t zp1, lo4, hi4;   /* 40, 44, 48: as nk_dsp_epi */
    const int8_t *y0_end;    /* 52: y0 past the last pair */
    int32_t w_step;          /* 56: to the next pair's row from where the MACs end */
    int32_t mt[2], st[2];    /* a per-tensor pair twice */
} nk_dsp_pairs_st;
/* the asm's offsets */
typedef char nk_dsp_pairs_st_at56[offsetof(nk_dsp_pairs_st, w_step) == 56 ? 1 : -1];

#if NETKIT_SINGLE_ROUNDING
#define NK_DSP_P22_RQ(v, m, a)                                                                     \
    "smmla %[" v "], %[" v "], %[" m "], %[" v "]\n\t"                                             \
    "asr %[" v "], %[" v "], %[" a "]\n\t"                                                         \
    "ssat %[" v "], #16, %[" v "]\n\t"
#else
#define NK_DSP_P22_RQ(v, m, a)                                                                     \
    "add %[t5], %[" v "], %[" v "], asr #31\n\t"                                                   \
    "smmlar %[" v "], %[" v "], %[" m "], %[t5]\n\t"                                               \
    "asr %[" v "], %[" v "], %[" a "]\n\t"                                                         \
    "ssat %[" v "], #16, %[" v "]\n\t"
#endif
#define NK_DSP_P22_WORD                                                                            \
    "ldrd %[t0], %[t1], [%[x]], #8\n\t"                                                            \
    "ldrd %[t2], %[t3], [%[x]], #8\n\t"                                                            \
    "ldr %[t4], [%[w], %[s]]\n\t"                                                                 \
    "sxtb16 %[t5], %[t4]\n\t"                                                                     \
    "smlad %[a10], %[t5], %[t0], %[a10]\n\t"                                                       \
    "smlad %[a11], %[t5], %[t2], %[a11]\n\t"                                                       \
    "sxtb16 %[t4], %[t4], ror #8\n\t"                                                             \
    "smlad %[a10], %[t4], %[t1], %[a10]\n\t"                                                       \
    "smlad %[a11], %[t4], %[t3], %[a11]\n\t"                                                       \
    "ldr %[t4], [%[w]], #4\n\t"                                                                   \
    "sxtb16 %[t5], %[t4]\n\t"                                                                     \
    "smlad %[a00], %[t5], %[t0], %[a00]\n\t"                                                       \
    "smlad %[a01], %[t5], %[t2], %[a01]\n\t"                                                       \
    "sxtb16 %[t4], %[t4], ror #8\n\t"                                                             \
    "smlad %[a00], %[t4], %[t1], %[a00]\n\t"                                                       \
    "smlad %[a01], %[t4], %[t3], %[a01]\n\t"
/* block start: the bias pair, then w, x and the end of the row (in st's
 * register: st itself is at [sp]) */
#define NK_DSP_P22_HEAD                                                                            \
    "push {%[st]}\n\t"                                                                            \
    "5:\n\t"                                                                                       \
    "ldr %[st], [sp]\n\t"                                                                          \
    "ldr %[t0], [%[st], #16]\n\t"                                                                  \
    "ldrd %[a00], %[a10], [%[t0]], #8\n\t"                                                         \
    "str %[t0], [%[st], #16]\n\t"                                                                  \
    "mov %[a01], %[a00]\n\t"                                                                       \
    "mov %[a11], %[a10]\n\t"                                                                       \
    "ldrd %[w], %[x], [%[st], #0]\n\t"                                                             \
    "ldrd %[t4], %[s], [%[st], #8]\n\t"                                                            \
    "add %[st], %[w], %[t4]\n\t"
/* n4w % 4 words first (LSLS #29 of the byte count: bit 2, one word, to
 * N, bit 3, two words, to C; no word changes the flags) */
#define NK_DSP_P22_REM                                                                             \
    "lsls %[t4], %[t4], #29\n\t"                                                                   \
    "bpl 2f\n\t" NK_DSP_P22_WORD "2:\n\t"                                                          \
    "bcc 3f\n\t" NK_DSP_P22_WORD NK_DSP_P22_WORD "3:\n\t"                                          \
    "cmp %[w], %[st]\n\t"                                                                          \
    "beq 4f\n\t"
#define NK_DSP_P22_LOOP                                                                            \
    "1:\n\t" NK_DSP_P22_WORD NK_DSP_P22_WORD NK_DSP_P22_WORD NK_DSP_P22_WORD                       \
    "cmp %[w], %[st]\n\t"                                                                          \
    "bne 1b\n\t"                                                                                   \
    "4:\n\t"
/* the next pair's rows; the two channels' pairs (m2 = 2m in t3, t4,
 * a = ~shift in x, w); the four outputs as nk_dsp_store22 */
#define NK_DSP_P22_EPI                                                                             \
    "ldr %[st], [sp]\n\t"                                                                          \
    "ldr %[t0], [%[st], #56]\n\t"                                                                  \
    "add %[w], %[w], %[t0]\n\t"                                                                    \
    "str %[w], [%[st], #0]\n\t"                                                                    \
    "ldrd %[t0], %[t1], [%[st], #20]\n\t"                                                          \
    "ldr %[t2], [%[st], #28]\n\t"                                                                  \
    "ldrd %[t3], %[t4], [%[t0]]\n\t"                                                               \
    "ldrd %[x], %[w], [%[t1]]\n\t"                                                                 \
    "add %[t0], %[t0], %[t2]\n\t"                                                                  \
    "add %[t1], %[t1], %[t2]\n\t"                                                                  \
    "strd %[t0], %[t1], [%[st], #20]\n\t"                                                          \
    "lsl %[t3], %[t3], #1\n\t"                                                                     \
    "lsl %[t4], %[t4], #1\n\t"                                                                     \
    "mvn %[x], %[x]\n\t"                                                                           \
    "mvn %[w], %[w]\n\t" NK_DSP_P22_RQ("a00", "t3", "x") NK_DSP_P22_RQ("a01", "t3", "x")          \
        NK_DSP_P22_RQ("a10", "t4", "w") NK_DSP_P22_RQ("a11", "t4", "w")                            \
    "pkhbt %[a00], %[a00], %[a01], lsl #16\n\t"                                                    \
    "pkhbt %[a10], %[a10], %[a11], lsl #16\n\t"                                                    \
    "ldr %[t5], [%[st], #40]\n\t"                                                                  \
    "shadd16 %[a00], %[a00], %[t5]\n\t"                                                            \
    "shadd16 %[a10], %[a10], %[t5]\n\t"                                                            \
    "ssat16 %[a00], #8, %[a00]\n\t"                                                                \
    "ssat16 %[a10], #8, %[a10]\n\t"                                                                \
    "uxtb16 %[a00], %[a00]\n\t"                                                                    \
    "uxtb16 %[a10], %[a10]\n\t"                                                                    \
    "orr %[a00], %[a00], %[a10], lsl #8\n\t"
#define NK_DSP_P22_CLAMP                                                                           \
    "ldrd %[t0], %[t1], [%[st], #44]\n\t"                                                          \
    "ssub8 %[t2], %[a00], %[t0]\n\t"                                                               \
    "sel %[a00], %[a00], %[t0]\n\t"                                                                \
    "ssub8 %[t2], %[a00], %[t1]\n\t"                                                               \
    "sel %[a00], %[t1], %[a00]\n\t"
#define NK_DSP_P22_TAIL                                                                            \
    "ldrd %[t0], %[t1], [%[st], #32]\n\t"                                                          \
    "lsr %[a01], %[a00], #16\n\t"                                                                  \
    "strh %[a01], [%[t0], %[t1]]\n\t"                                                              \
    "strh %[a00], [%[t0]], #2\n\t"                                                                 \
    "str %[t0], [%[st], #32]\n\t"                                                                  \
    "ldr %[t1], [%[st], #52]\n\t"                                                                  \
    "cmp %[t0], %[t1]\n\t"                                                                         \
    "bne 5b\n\t"                                                                                   \
    "add sp, sp, #4"
#define NK_DSP_P22_OPERANDS                                                                        \
    : [st] "+&r"(stp), [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11),   \
      [x] "=&r"(x), [w] "=&r"(w), [s] "=&r"(s), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),  \
      [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)                                              \
    :                                                                                              \
    : "cc", "memory"

/* Every pair of st (at least one): rem when n4w % 4 may be nonzero,
 * clamp as nk_dsp_clamps. */
static NK_DSP_NOINLINE void nk_dsp_pairs22(nk_dsp_pairs_st *stp, int rem, int clamp) {
    int32_t a00, a01, a10, a11, x, w, s, t0, t1, t2, t3, t4, t5;
    if (rem && clamp)
        __asm__ volatile(NK_DSP_P22_HEAD NK_DSP_P22_REM NK_DSP_P22_LOOP NK_DSP_P22_EPI
                             NK_DSP_P22_CLAMP NK_DSP_P22_TAIL NK_DSP_P22_OPERANDS);
    else if (rem)
        __asm__ volatile(NK_DSP_P22_HEAD NK_DSP_P22_REM NK_DSP_P22_LOOP NK_DSP_P22_EPI
                             NK_DSP_P22_TAIL NK_DSP_P22_OPERANDS);
    else if (clamp)
        __asm__ volatile(NK_DSP_P22_HEAD NK_DSP_P22_LOOP NK_DSP_P22_EPI NK_DSP_P22_CLAMP
                             NK_DSP_P22_TAIL NK_DSP_P22_OPERANDS);
    else
        __asm__ volatile(NK_DSP_P22_HEAD NK_DSP_P22_LOOP NK_DSP_P22_EPI NK_DSP_P22_TAIL
                             NK_DSP_P22_OPERANDS);
}
#undef NK_DSP_P22_RQ
#undef NK_DSP_P22_WORD
#undef NK_DSP_P22_HEAD
#undef NK_DSP_P22_REM
#undef NK_DSP_P22_LOOP
#undef NK_DSP_P22_EPI
#undef NK_DSP_P22_CLAMP
#undef NK_DSP_P22_TAIL
#undef NK_DSP_P22_OPERANDS
#endif

/* Channels of the two pixels whose windows are in win (the same pixel
 * twice when np = 1) at y0, y0 + out_c; k taps per channel. With the
 * fast epilogue, channel pairs run with no call: their accumulators stay
 * in registers from the bias to the stores; a pair whose rows are not
 * the last reads its tail word whole (the bytes past its rows are the
 * next rows', times window lanes that are 0). The last pairs, and
 * layers with the portable epilogue, go by blocks in memory. */
static NK_DSP_NOINLINE void nk_dsp_win_channels(const int8_t *w, const int32_t *bias,
                                                const int32_t *win, int32_t k, int np, int8_t *y0,
                                                int32_t out_c, const nk_dsp_epi *e_in) {
    const int32_t n4 = k / 4, tail = k % 4;
    const size_t kk = (size_t)k;
    int8_t *const y1 = y0 + out_c;
    /* a copy on this frame: a field is one load from the stack, not two */
    const nk_dsp_epi e_copy = *e_in, *const e = &e_copy;
    int32_t o = 0;
    if (e->fast && bias) { /* convs without a bias take the blocks in memory */
        /* the whole tail word reads over = 0..3 bytes past row o+1:
         * the pair needs that many bytes of rows after it */
        const int32_t n4w = n4 + (tail != 0), over = 4 * n4w - k;
        const int32_t o_end = out_c - 1 - (over + k - 1) / k;
#if NK_DSP_ASM
        if (np == 2 && o_end > 0) {
            const int32_t n_pairs = (o_end + 1) / 2;
            nk_dsp_pairs_st st;
            st.w = w;
            st.win = win;
            st.nb = 4 * n4w;
            st.kk = k;
            st.bias = bias;
            st.mt[0] = st.mt[1] = e->mult[0];
            st.st[0] = st.st[1] = e->shift[0];
            st.mult = e->cmask ? e->mult : st.mt;
            st.shift = e->cmask ? e->shift : st.st;
            st.pstep = e->cmask ? 8 : 0;
            st.y0 = y0;
            st.y1_off = out_c;
            st.zp1 = e->zp1;
            st.lo4 = e->lo4;
            st.hi4 = e->hi4;
            st.y0_end = y0 + 2 * n_pairs;
            st.w_step = 2 * k - 4 * n4w;
            nk_dsp_pairs22(&st, (n4w & 3) != 0, nk_dsp_clamps(e));
            o = 2 * n_pairs;
        } else
#endif
        /* rem: a constant, so that the usual whole passes test nothing */
        if (np == 2 && (n4w & 3))
            o = nk_dsp_pairs(w, bias, win, n4w, kk, o_end, 2, 1, y0, y1, e);
        else if (np == 2)
            o = nk_dsp_pairs(w, bias, win, n4w, kk, o_end, 2, 0, y0, y1, e);
        else
            o = nk_dsp_pairs(w, bias, win, n4w, kk, o_end, 1, 1, y0, y1, e);
    }
    for (; o < out_c; o += 2) {
        const int nw = o + 1 < out_c ? 2 : 1;
        const int8_t *wo = w + (size_t)o * kk;
        const size_t ws = nw == 2 ? kk : 0; /* one channel: its weights twice */
        int32_t acc[4];
        nk_dsp_acc_init(acc, bias, o, nw);
        nk_dsp_mac22(wo, ws, win, n4, 1, &acc[0], &acc[1], &acc[2], &acc[3]);
        if (tail)
            nk_dsp_tail22(wo + 4 * (size_t)n4, ws, win + 4 * n4, tail, acc);
        nk_dsp_finish(acc, nw, np, o, y0, y1, e);
    }
}

/* ---- eight pixels by one channel ----
 *
 * When the op may use 16 K bytes of workspace (K taps a pixel: the whole
 * workspace the model has, less this op's staged rows; KWS has none to
 * spare, VWW's pointwise layers of K <= 64 and IC's 3x3 convs over 16
 * channels have), eight pixels' windows, interleaved by word, and one
 * channel at a time: its weight word widened once for sixteen SMLADs (27
 * instructions per 32 MACs against 32 for two channels by two pixels),
 * and one epilogue per eight outputs. */
#define NK_DSP_OCT_MIN_ROWS 8

/* Whether rows of k taps (k a multiple of 8, the asm's two words a pass)
 * fit eight at a time in ws_bytes; they run so when the epilogue suits
 * nk_dsp_rq_half too (nk_dsp_oct_takes) */
static int nk_dsp_oct_fits(size_t rows, int32_t k, size_t ws_bytes, const int32_t *bias) {
    return rows >= NK_DSP_OCT_MIN_ROWS && k > 0 && k % 8 == 0 && k <= NK_DSP_WIN_MAX_TAPS &&
           (size_t)k * 16u <= ws_bytes && bias != NULL;
}
static int nk_dsp_oct_takes(size_t rows, int32_t k, size_t ws_bytes, const int32_t *bias,
                            const nk_dsp_epi *e) {
    return nk_dsp_oct_fits(rows, k, ws_bytes, bias) && e->fast;
}

/* the k taps of eight rows at x (row i at x + i*k) widened with the
 * offset to win: word j of row i at win[16j + 2i], win[16j + 2i + 1] */
static void nk_dsp_oct_widen(const int8_t *x, size_t k, int32_t offp, int32_t *win) {
    int32_t i;
    for (i = 0; i < 8; i++, x += k)
        nk_dsp_widen_words(x, x + k, offp, win + 2 * i, 16);
}

/* What the channel loop reads (the asm's offsets). */
typedef struct nk_dsp_oct_st {
    const int8_t *w;        /*  0: the channel's weight row */
    int32_t nb;             /*  4: its bytes, k */
    const int32_t *win;     /*  8: the eight windows */
    const int32_t *bias;    /* 12: the channel's bias */
    const int32_t *mult;    /* 16: its multiplier, */
    const int32_t *shift;   /* 20: and shift (per tensor: the one pair) */
    int32_t pstep;          /* 24: 4 bytes a channel, else 0 */
    int32_t zp1;            /* 28: as nk_dsp_epi */
    int32_t lo4, hi4;       /* 32, 36 */
    int8_t *y;              /* 40: pixel 0's output of the channel */
    int32_t s;              /* 44: bytes from a pixel's outputs to the next's */
    const int8_t *y_end;    /* 48: y past the last channel */
} nk_dsp_oct_st;

#if NK_DSP_ASM
typedef char nk_dsp_oct_st_at48[offsetof(nk_dsp_oct_st, y_end) == 48 ? 1 : -1];
#if NETKIT_SINGLE_ROUNDING
#define NK_DSP_OCT_RQ(v)                                                                           \
    "smmla %[" v "], %[" v "], %[w], %[" v "]\n\t"                                                 \
    "asr %[" v "], %[" v "], %[we]\n\t"                                                            \
    "ssat %[" v "], #16, %[" v "]\n\t"
#else
#define NK_DSP_OCT_RQ(v)                                                                           \
    "add %[wo], %[" v "], %[" v "], asr #31\n\t"                                                   \
    "smmlar %[" v "], %[" v "], %[w], %[wo]\n\t"                                                   \
    "asr %[" v "], %[" v "], %[we]\n\t"                                                            \
    "ssat %[" v "], #16, %[" v "]\n\t"
#endif
#define NK_DSP_OCT_PX(a)                                                                           \
    "ldrd %[xe], %[xo], [%[x]], #8\n\t"                                                            \
    "smlad %[" a "], %[we], %[xe], %[" a "]\n\t"                                                   \
    "smlad %[" a "], %[wo], %[xo], %[" a "]\n\t"
#define NK_DSP_OCT_WORD                                                                            \
    "ldr %[we], [%[w]], #4\n\t"                                                                    \
    "sxtb16 %[wo], %[we], ror #8\n\t"                                                              \
    "sxtb16 %[we], %[we]\n\t" NK_DSP_OCT_PX("a0") NK_DSP_OCT_PX("a1") NK_DSP_OCT_PX("a2")          \
        NK_DSP_OCT_PX("a3") NK_DSP_OCT_PX("a4") NK_DSP_OCT_PX("a5") NK_DSP_OCT_PX("a6")            \
            NK_DSP_OCT_PX("a7")
/* [sp]: the MAC loop's end; [sp, #4]: the struct (xe's value on entry) */
#define NK_DSP_OCT_HEAD                                                                            \
    "push {%[xe]}\n\t"                                                                             \
    "sub sp, sp, #4\n\t"                                                                           \
    "5:\n\t"                                                                                       \
    "ldr %[xe], [sp, #4]\n\t"                                                                      \
    "ldrd %[w], %[xo], [%[xe], #0]\n\t"                                                            \
    "ldr %[x], [%[xe], #8]\n\t"                                                                    \
    "add %[xo], %[w], %[xo]\n\t"                                                                   \
    "str %[xo], [sp]\n\t"                                                                          \
    "ldr %[xo], [%[xe], #12]\n\t"                                                                  \
    "ldr %[a0], [%[xo]], #4\n\t"                                                                   \
    "str %[xo], [%[xe], #12]\n\t"                                                                  \
    "mov %[a1], %[a0]\n\t"                                                                         \
    "mov %[a2], %[a0]\n\t"                                                                         \
    "mov %[a3], %[a0]\n\t"                                                                         \
    "mov %[a4], %[a0]\n\t"                                                                         \
    "mov %[a5], %[a0]\n\t"                                                                         \
    "mov %[a6], %[a0]\n\t"                                                                         \
    "mov %[a7], %[a0]\n\t"                                                                         \
    "1:\n\t" NK_DSP_OCT_WORD NK_DSP_OCT_WORD                                                       \
    "ldr %[xe], [sp]\n\t"                                                                          \
    "cmp %[w], %[xe]\n\t"                                                                          \
    "bne 1b\n\t"
/* the next channel's row is where this one's ended; the channel's pair
 * (m2 = 2m in w, a = ~shift in we); the eight outputs as nk_dsp_store22's
 * lanes: bytes pixels 0, 2, 1, 3 in a0 and 4, 6, 5, 7 in a4 */
#define NK_DSP_OCT_EPI                                                                             \
    "ldr %[xe], [sp, #4]\n\t"                                                                      \
    "str %[w], [%[xe], #0]\n\t"                                                                    \
    "ldrd %[x], %[xo], [%[xe], #16]\n\t"                                                           \
    "ldr %[wo], [%[xe], #24]\n\t"                                                                  \
    "ldr %[w], [%[x]]\n\t"                                                                         \
    "ldr %[we], [%[xo]]\n\t"                                                                       \
    "add %[x], %[x], %[wo]\n\t"                                                                    \
    "add %[xo], %[xo], %[wo]\n\t"                                                                  \
    "strd %[x], %[xo], [%[xe], #16]\n\t"                                                           \
    "lsl %[w], %[w], #1\n\t"                                                                       \
    "mvn %[we], %[we]\n\t" NK_DSP_OCT_RQ("a0") NK_DSP_OCT_RQ("a1") NK_DSP_OCT_RQ("a2")            \
        NK_DSP_OCT_RQ("a3") NK_DSP_OCT_RQ("a4") NK_DSP_OCT_RQ("a5") NK_DSP_OCT_RQ("a6")            \
            NK_DSP_OCT_RQ("a7")                                                                    \
    "pkhbt %[a0], %[a0], %[a1], lsl #16\n\t"                                                       \
    "pkhbt %[a2], %[a2], %[a3], lsl #16\n\t"                                                       \
    "pkhbt %[a4], %[a4], %[a5], lsl #16\n\t"                                                       \
    "pkhbt %[a6], %[a6], %[a7], lsl #16\n\t"                                                       \
    "ldr %[wo], [%[xe], #28]\n\t"                                                                  \
    "shadd16 %[a0], %[a0], %[wo]\n\t"                                                              \
    "shadd16 %[a2], %[a2], %[wo]\n\t"                                                              \
    "shadd16 %[a4], %[a4], %[wo]\n\t"                                                              \
    "shadd16 %[a6], %[a6], %[wo]\n\t"                                                              \
    "ssat16 %[a0], #8, %[a0]\n\t"                                                                  \
    "ssat16 %[a2], #8, %[a2]\n\t"                                                                  \
    "ssat16 %[a4], #8, %[a4]\n\t"                                                                  \
    "ssat16 %[a6], #8, %[a6]\n\t"                                                                  \
    "uxtb16 %[a0], %[a0]\n\t"                                                                      \
    "uxtb16 %[a2], %[a2]\n\t"                                                                      \
    "uxtb16 %[a4], %[a4]\n\t"                                                                      \
    "uxtb16 %[a6], %[a6]\n\t"                                                                      \
    "orr %[a0], %[a0], %[a2], lsl #8\n\t"                                                          \
    "orr %[a4], %[a4], %[a6], lsl #8\n\t"
#define NK_DSP_OCT_CLAMP                                                                           \
    "ldrd %[x], %[xo], [%[xe], #32]\n\t"                                                           \
    "ssub8 %[w], %[a0], %[x]\n\t"                                                                  \
    "sel %[a0], %[a0], %[x]\n\t"                                                                   \
    "ssub8 %[w], %[a0], %[xo]\n\t"                                                                 \
    "sel %[a0], %[xo], %[a0]\n\t"                                                                  \
    "ssub8 %[w], %[a4], %[x]\n\t"                                                                  \
    "sel %[a4], %[a4], %[x]\n\t"                                                                   \
    "ssub8 %[w], %[a4], %[xo]\n\t"                                                                 \
    "sel %[a4], %[xo], %[a4]\n\t"
#define NK_DSP_OCT_TAIL                                                                            \
    "ldrd %[x], %[xo], [%[xe], #40]\n\t"                                                           \
    "strb %[a0], [%[x]]\n\t"                                                                       \
    "lsr %[a1], %[a0], #16\n\t"                                                                    \
    "strb %[a1], [%[x], %[xo]]\n\t"                                                                \
    "add %[w], %[x], %[xo], lsl #1\n\t"                                                            \
    "lsr %[a1], %[a0], #8\n\t"                                                                     \
    "strb %[a1], [%[w]]\n\t"                                                                       \
    "lsr %[a1], %[a0], #24\n\t"                                                                    \
    "strb %[a1], [%[w], %[xo]]\n\t"                                                                \
    "add %[w], %[w], %[xo], lsl #1\n\t"                                                            \
    "strb %[a4], [%[w]]\n\t"                                                                       \
    "lsr %[a1], %[a4], #16\n\t"                                                                    \
    "strb %[a1], [%[w], %[xo]]\n\t"                                                                \
    "add %[w], %[w], %[xo], lsl #1\n\t"                                                            \
    "lsr %[a1], %[a4], #8\n\t"                                                                     \
    "strb %[a1], [%[w]]\n\t"                                                                       \
    "lsr %[a1], %[a4], #24\n\t"                                                                    \
    "strb %[a1], [%[w], %[xo]]\n\t"                                                                \
    "add %[x], %[x], #1\n\t"                                                                       \
    "str %[x], [%[xe], #40]\n\t"                                                                   \
    "ldr %[xo], [%[xe], #48]\n\t"                                                                  \
    "cmp %[x], %[xo]\n\t"                                                                          \
    "bne 5b\n\t"                                                                                   \
    "add sp, sp, #8"
#define NK_DSP_OCT_OPERANDS                                                                        \
    : [xe] "+&r"(stp), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),           \
      [a4] "=&r"(a4), [a5] "=&r"(a5), [a6] "=&r"(a6), [a7] "=&r"(a7), [we] "=&r"(we),            \
      [wo] "=&r"(wo), [xo] "=&r"(xo), [x] "=&r"(x), [w] "=&r"(w)                                  \
    :                                                                                              \
    : "cc", "memory"

/* Every channel of st's eight pixels (at least one channel): one asm
 * loop of 14 registers, the struct and the MAC loop's end on the stack;
 * clamp as nk_dsp_clamps. */
static NK_DSP_NOINLINE void nk_dsp_oct_channels(nk_dsp_oct_st *stp, int clamp) {
    int32_t a0, a1, a2, a3, a4, a5, a6, a7, we, wo, xo, x, w;
    if (clamp)
        __asm__ volatile(NK_DSP_OCT_HEAD NK_DSP_OCT_EPI NK_DSP_OCT_CLAMP NK_DSP_OCT_TAIL
                             NK_DSP_OCT_OPERANDS);
    else
        __asm__ volatile(NK_DSP_OCT_HEAD NK_DSP_OCT_EPI NK_DSP_OCT_TAIL NK_DSP_OCT_OPERANDS);
}
#undef NK_DSP_OCT_RQ
#undef NK_DSP_OCT_PX
#undef NK_DSP_OCT_WORD
#undef NK_DSP_OCT_HEAD
#undef NK_DSP_OCT_EPI
#undef NK_DSP_OCT_CLAMP
#undef NK_DSP_OCT_TAIL
#undef NK_DSP_OCT_OPERANDS
#else
static void nk_dsp_oct_channels(nk_dsp_oct_st *st, int clamp) {
    nk_dsp_epi e;
    int32_t c = 0;
    e.q = NULL;
    e.mult = st->mult;
    e.shift = st->shift;
    e.cmask = st->pstep ? -1 : 0;
    e.fast = 1;
    e.zp1 = st->zp1;
    e.lo4 = st->lo4;
    e.hi4 = st->hi4;
    for (; st->y != st->y_end; st->y++, c++) {
        const int32_t *xp = st->win;
        const int8_t *const we = st->w + st->nb;
        const int32_t k = c & e.cmask;
        const int32_t m2 = (int32_t)((uint32_t)e.mult[k] << 1), a = ~e.shift[k];
        int32_t acc[8], i;
        uint32_t v0, v1;
        for (i = 0; i < 8; i++)
            acc[i] = *st->bias;
        st->bias++;
        for (; st->w != we; st->w += 4) {
            const int32_t v = nk_dsp_load4(st->w);
            const int32_t w_e = nk_dsp_sxtb16(v), w_o = nk_dsp_sxtb16_ror8(v);
            for (i = 0; i < 8; i++, xp += 2)
                acc[i] = nk_dsp_smlad(w_o, xp[1], nk_dsp_smlad(w_e, xp[0], acc[i]));
        }
        v0 = (uint32_t)nk_dsp_zip8(
            nk_dsp_half_zp(nk_dsp_rq_half(acc[0], m2, a), nk_dsp_rq_half(acc[1], m2, a), e.zp1),
            nk_dsp_half_zp(nk_dsp_rq_half(acc[2], m2, a), nk_dsp_rq_half(acc[3], m2, a), e.zp1));
        v1 = (uint32_t)nk_dsp_zip8(
            nk_dsp_half_zp(nk_dsp_rq_half(acc[4], m2, a), nk_dsp_rq_half(acc[5], m2, a), e.zp1),
            nk_dsp_half_zp(nk_dsp_rq_half(acc[6], m2, a), nk_dsp_rq_half(acc[7], m2, a), e.zp1));
        v0 = nk_dsp_act4(v0, clamp, &e);
        v1 = nk_dsp_act4(v1, clamp, &e);
        /* bytes: pixels 0, 2, 1, 3 and 4, 6, 5, 7 */
        for (i = 0; i < 8; i++) {
            const uint32_t v = i < 4 ? v0 : v1;
            const int j = i & 3, byte = (j & 1) * 2 + (j >> 1);
            st->y[(size_t)i * (size_t)st->s] = (int8_t)(v >> 8 * byte & 0xFFu);
        }
    }
}
#endif

/* Every channel of the eight pixels whose windows (k taps) are in win,
 * their outputs at y, y + n, ... */
static void nk_dsp_oct_run(const int8_t *w, const int32_t *bias, const int32_t *win, int32_t k,
                           int8_t *y, int32_t n, const nk_dsp_epi *e) {
    nk_dsp_oct_st st;
    st.w = w;
    st.nb = k;
    st.win = win;
    st.bias = bias;
    st.mult = e->mult;
    st.shift = e->shift;
    st.pstep = e->cmask ? 4 : 0;
    st.zp1 = e->zp1;
    st.lo4 = e->lo4;
    st.hi4 = e->hi4;
    st.y = y;
    st.s = n;
    st.y_end = y + n;
    nk_dsp_oct_channels(&st, nk_dsp_clamps(e));
}

/* A dense's rows eight at a time from the first (nk_dsp_oct_takes), the
 * windows in ws; returns the first row left. */
static size_t nk_dsp_oct_rows(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                              size_t rows, int32_t k, int32_t n, int32_t offp, const nk_dsp_epi *e,
                              int32_t *ws) {
    size_t r;
    for (r = 0; r + 8 <= rows; r += 8) {
        nk_dsp_oct_widen(x + r * (size_t)k, (size_t)k, offp, ws);
        nk_dsp_oct_run(w, bias, ws, k, y + r * (size_t)n, n, e);
    }
    return r;
}

/* The conv by windows (see above) from output pixel p on; k = k_h * k_w *
 * in_c taps. With ws_bytes of room (and whole words of channels, so no
 * stage) eight pixels at a time first (nk_dsp_oct_*). */
static void nk_dsp_conv_win(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                            const nk_ref_conv_geom *g, const nk_dsp_epi *e, int32_t *win,
                            int32_t p, size_t ws_bytes) {
    const int32_t off = -e->q->in_zp, offp = nk_dsp_dup16(off), out_c = g->out_c;
    const int32_t n_pix = g->batch * g->out_h * g->out_w, k = g->k_h * g->k_w * g->in_c;
    const int32_t n4w = (int32_t)NK_DSP_WIN_TAPS(k) / 4;
    int8_t *const stage = (int8_t *)(win + NK_DSP_WIN_TAPS(k));
    nk_dsp_cursor c = nk_dsp_cursor_at(x, g, p);
    if (!(g->in_c & 3) && nk_dsp_oct_takes((size_t)(n_pix - p), k, ws_bytes, bias, e))
        for (; p + 8 <= n_pix; p += 8) {
            int32_t i;
            for (i = 0; i < 8; i++) { /* (no stage: whole words of channels) */
                nk_dsp_gather(&c, g, off, offp, n4w, win + 2 * i, (int8_t *)(win + 4 * k), 16);
                nk_dsp_cursor_next(&c, g);
            }
            nk_dsp_oct_run(w, bias, win, k, y + (size_t)p * (size_t)out_c, out_c, e);
        }
    for (; p < n_pix; p += 2) {
        const int np = p + 1 < n_pix ? 2 : 1;
        nk_dsp_gather(&c, g, off, offp, n4w, win, stage, 4);
        if (np == 2) /* else the one pixel's window twice */
            nk_dsp_cursor_next(&c, g);
        nk_dsp_gather(&c, g, off, offp, n4w, win + 2, stage, 4);
        nk_dsp_cursor_next(&c, g);
        nk_dsp_win_channels(w, bias, win, k, np, y + (size_t)p * (size_t)out_c, out_c, e);
    }
}

/* Small windows (nk_fast_conv2d_i8_small: 1 to 3 words, a first layer's
 * 3x3 over one channel; up to 8 words for few output channels, a 3x3 over
 * three) would spend more on a channel pair's epilogue and bookkeeping
 * than on their few MACs. There each output channel runs
 * over four pixels' windows (two interleaved pairs, gathered before any
 * output is written) with its weights widened once per call into the
 * workspace, in window order; the channel's requantization pair is read
 * once for the four, and the loop keeps no state across an asm block, so
 * nothing spills. The C loops below unroll for 1 to 3 words; longer
 * windows loop over their words. */
/* words base[i], base[i + 1], i a constant (base 4-byte aligned): one
 * LDRD on the target, where GCC would take two LDRs. The asm tells GCC
 * it reads the NK_DSP_PAIR_SPAN words from base (all of a small
 * window pair), one operand whatever i, so no address is computed. */
#define NK_DSP_PAIR_SPAN 24
#if NK_DSP_ASM
#define NK_DSP_LOAD_PAIR(base, i, lo, hi)                                                          \
    __asm__("ldrd %0, %1, [%2, %3]"                                                                \
            : "=r"(lo), "=r"(hi)                                                                   \
            : "r"(base), "n"(4 * (i)), "m"(*(const int32_t(*)[NK_DSP_PAIR_SPAN])(base)))
#else
#define NK_DSP_LOAD_PAIR(base, i, lo, hi) ((lo) = (base)[i], (hi) = (base)[(i) + 1])
#endif

/* acc[i] += window i (pixels 0, 1 interleaved at win, 2, 3 at win +
 * 4 * n4w) times the channel's widened weights wv, over word j */
NK_DSP_INLINE void nk_dsp_small_word(const int32_t *wv, const int32_t *win, const int n4w,
                                     const int j, int32_t *acc) {
    int32_t we, wo, xe, xo;
    NK_DSP_LOAD_PAIR(wv, 2 * j, we, wo);
    NK_DSP_LOAD_PAIR(win, 4 * j, xe, xo);
    acc[0] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, acc[0]));
    NK_DSP_LOAD_PAIR(win, 4 * j + 2, xe, xo);
    acc[1] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, acc[1]));
    NK_DSP_LOAD_PAIR(win, 4 * n4w + 4 * j, xe, xo);
    acc[2] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, acc[2]));
    NK_DSP_LOAD_PAIR(win, 4 * n4w + 4 * j + 2, xe, xo);
    acc[3] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, acc[3]));
}

/* acc[0..3] (acc[0] holding the bias) = window i times the channel's
 * widened weights wv: straight-line for n4w = 1..3, else a loop over
 * the words (n4w = 0 stands for any count from 4 up: n4 words) */
NK_DSP_INLINE void nk_dsp_small_mac(const int32_t *wv, const int32_t *win, const int n4w,
                                    int32_t n4, int32_t *acc) {
    acc[1] = acc[2] = acc[3] = acc[0];
    if (n4w == 0) {
        const int32_t *x01 = win, *x23 = win + 4 * n4, *const wend = wv + 2 * n4;
        int32_t a0 = acc[0], a1 = a0, a2 = a0, a3 = a0;
#if NK_DSP_ASM /* GCC loads the words one by one: 24 LDRs where 12 LDRDs do */
        int32_t we, wo, xe, xo;
        __asm__ volatile("1:\n\t"
                         "ldrd %[we], %[wo], [%[w]], #8\n\t"
                         "ldrd %[xe], %[xo], [%[x01]], #8\n\t"
                         "smlad %[a0], %[we], %[xe], %[a0]\n\t"
                         "smlad %[a0], %[wo], %[xo], %[a0]\n\t"
                         "ldrd %[xe], %[xo], [%[x01]], #8\n\t"
                         "smlad %[a1], %[we], %[xe], %[a1]\n\t"
                         "smlad %[a1], %[wo], %[xo], %[a1]\n\t"
                         "ldrd %[xe], %[xo], [%[x23]], #8\n\t"
                         "smlad %[a2], %[we], %[xe], %[a2]\n\t"
                         "smlad %[a2], %[wo], %[xo], %[a2]\n\t"
                         "ldrd %[xe], %[xo], [%[x23]], #8\n\t"
                         "smlad %[a3], %[we], %[xe], %[a3]\n\t"
                         "smlad %[a3], %[wo], %[xo], %[a3]\n\t"
                         "cmp %[w], %[wend]\n\t"
                         "bne 1b"
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
                           [w] "+r"(wv), [x01] "+r"(x01), [x23] "+r"(x23), [we] "=&r"(we),
                           [wo] "=&r"(wo), [xe] "=&r"(xe), [xo] "=&r"(xo)
                         : [wend] "r"(wend)
                         : "cc", "memory");
#else
        for (; wv != wend; wv += 2, x01 += 4, x23 += 4) {
            a0 = nk_dsp_smlad(wv[1], x01[1], nk_dsp_smlad(wv[0], x01[0], a0));
            a1 = nk_dsp_smlad(wv[1], x01[3], nk_dsp_smlad(wv[0], x01[2], a1));
            a2 = nk_dsp_smlad(wv[1], x23[1], nk_dsp_smlad(wv[0], x23[0], a2));
            a3 = nk_dsp_smlad(wv[1], x23[3], nk_dsp_smlad(wv[0], x23[2], a3));
        }
#endif
        acc[0] = a0;
        acc[1] = a1;
        acc[2] = a2;
        acc[3] = a3;
        return;
    }
    nk_dsp_small_word(wv, win, n4w, 0, acc);
    if (n4w > 1)
        nk_dsp_small_word(wv, win, n4w, 1, acc);
    if (n4w > 2)
        nk_dsp_small_word(wv, win, n4w, 2, acc);
}

/* Every channel of the four pixels whose windows are in win (pixels 0, 1
 * at win, 2, 3 at win + 4 * n4w), the outputs at y, y + out_c, ... The
 * epilogue is nk_dsp_store22's on the channel's four pixels. */
NK_DSP_INLINE void nk_dsp_small_channels_n(const int32_t *wv, const int32_t *bias,
                                           const int32_t *win, const int n4w, int32_t n4,
                                           int8_t *y, int32_t out_c, const nk_dsp_epi *e) {
    const size_t s1 = (size_t)out_c;
    int8_t *const y2 = y + 2 * s1;
    const int clamp = nk_dsp_clamps(e);
    int32_t c;
    for (c = 0; c < out_c; c++, wv += 2 * n4) {
        int32_t m2, a, acc[4];
        uint32_t v;
        nk_dsp_epi_pair(e, c, &m2, &a);
        acc[0] = bias ? bias[c] : 0;
        nk_dsp_small_mac(wv, win, n4w, n4, acc);
        /* lanes: pixels 0, 1 and 2, 3; bytes pixels 0, 2, 1, 3 */
        v = (uint32_t)nk_dsp_zip8(
            nk_dsp_half_zp(nk_dsp_rq_half(acc[0], m2, a), nk_dsp_rq_half(acc[1], m2, a), e->zp1),
            nk_dsp_half_zp(nk_dsp_rq_half(acc[2], m2, a), nk_dsp_rq_half(acc[3], m2, a), e->zp1));
        v = nk_dsp_act4(v, clamp, e);
        /* two pointers a row apart (four would spill) */
        y[c] = (int8_t)(v & 0xFFu);
        y[s1 + (size_t)c] = (int8_t)(v >> 16 & 0xFFu);
        y2[c] = (int8_t)(v >> 8 & 0xFFu);
        y2[s1 + (size_t)c] = (int8_t)(v >> 24);
    }
}

static NK_DSP_NOINLINE void nk_dsp_small_channels(const int32_t *wv, const int32_t *bias,
                                                  const int32_t *win, int32_t n4w, int8_t *y,
                                                  int32_t out_c, const nk_dsp_epi *e_in) {
    const nk_dsp_epi e = *e_in; /* on this frame: one load per field */
    if (n4w == 1)
        nk_dsp_small_channels_n(wv, bias, win, 1, 1, y, out_c, &e);
    else if (n4w == 2)
        nk_dsp_small_channels_n(wv, bias, win, 2, 2, y, out_c, &e);
    else if (n4w == 3)
        nk_dsp_small_channels_n(wv, bias, win, 3, 3, y, out_c, &e);
    else
        nk_dsp_small_channels_n(wv, bias, win, 0, n4w, y, out_c, &e);
}

/* The conv with small windows (e->fast): the weights widened to wv (2
 * words per 4 taps and channel, the last word's missing taps 0), then
 * four pixels at a time; the last 1..3 pixels by pairs. */
static void nk_dsp_conv_small(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                              const nk_ref_conv_geom *g, const nk_dsp_epi *e, int32_t *ws) {
    const int32_t off = -e->q->in_zp, offp = nk_dsp_dup16(off), out_c = g->out_c;
    const int32_t n_pix = g->batch * g->out_h * g->out_w, k = g->k_h * g->k_w * g->in_c;
    const int32_t n4w = (int32_t)NK_DSP_WIN_TAPS(k) / 4;
    int32_t *const win = ws, *const wv = ws + 2 * NK_DSP_WIN_TAPS(k);
    int8_t *const stage = (int8_t *)(wv + 2 * (size_t)out_c * (size_t)n4w);
    int32_t c, p, i;
    for (c = 0; c < out_c; c++) { /* whole words, then the last 1..3 taps */
        const int8_t *wc = w + (size_t)c * (size_t)k;
        int32_t *wvc = wv + (size_t)c * 2 * (size_t)n4w;
        for (i = 0; 4 * i + 4 <= k; i++, wvc += 2) {
            const int32_t v = nk_dsp_load4(wc + 4 * i);
            wvc[0] = nk_dsp_sxtb16(v);
            wvc[1] = nk_dsp_sxtb16_ror8(v);
        }
        if (i < n4w) {
            int32_t t[4] = {0, 0, 0, 0}, j;
            for (j = 0; 4 * i + j < k; j++)
                t[j] = wc[4 * i + j];
            wvc[0] = nk_dsp_pack16(t[0], t[2]);
            wvc[1] = nk_dsp_pack16(t[1], t[3]);
        }
    }
    {
        nk_dsp_cursor cur = nk_dsp_cursor_at(x, g, 0);
        const int dense = nk_fast_conv2d_i8_is_dense(g);
        for (p = 0; p + 4 <= n_pix; p += 4) {
            if (dense) /* a pointwise conv's windows are its pixels, in a row */
                for (i = 0; i < 4; i++)
                    nk_dsp_widen_row(x + (size_t)(p + i) * (size_t)k, k, off, offp,
                                     win + (i & 1) * 2 + (i >> 1) * 4 * n4w);
            else
                for (i = 0; i < 4; i++) {
                    nk_dsp_gather(&cur, g, off, offp, n4w,
                                  win + (i & 1) * 2 + (i >> 1) * 4 * n4w, stage, 4);
                    nk_dsp_cursor_next(&cur, g);
                }
            nk_dsp_small_channels(wv, bias, win, n4w, y + (size_t)p * (size_t)out_c, out_c, e);
        }
    }
    if (p < n_pix) /* its windows and stage lie in ws too */
        nk_dsp_conv_win(x, w, bias, y, g, e, ws, p, 0);
}

/* ---- small windows from a column patch ----
 *
 * A first layer's 3x3 over three channels spends more on gathering each
 * pixel's window than on its MACs. Where the workspace holds them (the
 * room above the operands: a stem's output seldom fills the block), the
 * input rows under an output row are staged once instead, as a patch:
 * column by column, each column's k_h x in_c taps as int16 lanes of
 * x - in_zp (0 in the padding). In that order (kx, ky, c) every window is
 * one run of k lanes, and the next pixel's starts d = stride_w * k_h *
 * in_c lanes on (d even: on a word). The weights, widened to the same
 * order (np pairs of words a channel, the lanes past k zero), and each
 * channel's bias and requantization pair go ahead of the patch. Each
 * channel then runs over four pixels' windows read in place: np steps of
 * an LDRD of weights and four of windows, 8 SMLADs (13 instructions for
 * 16 MACs), and each output is finished alone (nk_dsp_half_zp1), the
 * clamp a pass over the four pixels' words. A last block of fewer pixels
 * is finished in the workspace and copied. */

/* LDRD steps (four lanes each) of a window of k taps. */
static int32_t nk_dsp_patch_steps(const nk_ref_conv_geom *g) {
    return (g->k_h * g->k_w * g->in_c + 3) / 4;
}

/* The patch's lanes: every column the row's windows cover, then zeros
 * up to the last lane a block of four pixels reads (blocks past out_w
 * read them and store nothing). */
static size_t nk_dsp_patch_lanes(const nk_ref_conv_geom *g) {
    const size_t d = (size_t)g->stride_w * (size_t)g->k_h * (size_t)g->in_c;
    const size_t cols = (size_t)(g->out_w - 1) * (size_t)g->stride_w + (size_t)g->k_w;
    const size_t read = ((size_t)g->out_w + 3u) / 4u * 4u * d - d + 4u * (size_t)nk_dsp_patch_steps(g);
    const size_t staged = cols * (size_t)g->k_h * (size_t)g->in_c;
    return ((staged > read ? staged : read) + 3u) & ~(size_t)3u;
}

/* Words a channel takes ahead of the patch: its np pairs of weight words,
 * then its bias, m2 and a (nk_dsp_rq_half) and a word to keep the pairs
 * on 8 bytes. */
static size_t nk_dsp_patch_channel_words(int32_t np) { return 2u * (size_t)np + 4u; }

/* Whether the patch path takes the conv in ws_bytes: the channels' words,
 * the patch, and the outputs of a last block under four pixels. */
static int nk_dsp_patch_fits(const nk_ref_conv_geom *g, const nk_dsp_epi *e, size_t ws_bytes) {
    const int32_t np = nk_dsp_patch_steps(g);
    if (!e->fast || g->dil_h != 1 || g->dil_w != 1 || np > 8 ||
        (g->stride_w * g->k_h * g->in_c) % 2 != 0)
        return 0;
    return (size_t)g->out_c * 4u * nk_dsp_patch_channel_words(np) + 2u * nk_dsp_patch_lanes(g) +
               (g->out_w % 4 != 0 ? 4u * (size_t)g->out_c : 0u) <=
           ws_bytes;
}

/* a[0..3] += step j of the windows at x0, x1, x2, x3 times the weights wv */
NK_DSP_INLINE void nk_dsp_patch_step(const int32_t *wv, const int32_t *x0, const int32_t *x1,
                                     const int32_t *x2, const int32_t *x3, const int j,
                                     int32_t *a) {
    int32_t we, wo, xe, xo;
    NK_DSP_LOAD_PAIR(wv, 2 * j, we, wo);
    NK_DSP_LOAD_PAIR(x0, 2 * j, xe, xo);
    a[0] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, a[0]));
    NK_DSP_LOAD_PAIR(x1, 2 * j, xe, xo);
    a[1] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, a[1]));
    NK_DSP_LOAD_PAIR(x2, 2 * j, xe, xo);
    a[2] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, a[2]));
    NK_DSP_LOAD_PAIR(x3, 2 * j, xe, xo);
    a[3] = nk_dsp_smlad(wo, xo, nk_dsp_smlad(we, xe, a[3]));
}

/* Every channel (its words at wv: nk_dsp_patch_channel_words) of the
 * four pixels whose windows start at x0, d4 words apart; the outputs at
 * y, y + out_c, y + 2 * out_c, y + 3 * out_c. */
static NK_DSP_NOINLINE void nk_dsp_patch_px4(const int32_t *wv, const int32_t *x0, int32_t d4,
                                             int32_t np, int8_t *y, int32_t out_c,
                                             const nk_dsp_epi *e) {
    const int32_t *const x1 = x0 + d4, *const x2 = x1 + d4, *const x3 = x2 + d4;
    const int32_t zp1 = 2 * e->q->out_zp + 1;
    const size_t s = (size_t)out_c, step = nk_dsp_patch_channel_words(np);
    int8_t *yp = y, *const y_end = y + out_c;
    for (; yp != y_end; yp++, wv += step) {
        const int32_t *const pr = wv + 2 * np; /* bias, m2, a */
        int32_t a[4];
        a[0] = a[1] = a[2] = a[3] = pr[0];
        switch (np) { /* steps np - 1 down to 0 */
        case 8: nk_dsp_patch_step(wv, x0, x1, x2, x3, 7, a); /* fall through */
        case 7: nk_dsp_patch_step(wv, x0, x1, x2, x3, 6, a); /* fall through */
        case 6: nk_dsp_patch_step(wv, x0, x1, x2, x3, 5, a); /* fall through */
        case 5: nk_dsp_patch_step(wv, x0, x1, x2, x3, 4, a); /* fall through */
        case 4: nk_dsp_patch_step(wv, x0, x1, x2, x3, 3, a); /* fall through */
        case 3: nk_dsp_patch_step(wv, x0, x1, x2, x3, 2, a); /* fall through */
        case 2: nk_dsp_patch_step(wv, x0, x1, x2, x3, 1, a); /* fall through */
        default: nk_dsp_patch_step(wv, x0, x1, x2, x3, 0, a);
        }
        {
            const int32_t m2 = pr[1], r = pr[2]; /* read before the byte stores */
            const int32_t o0 = nk_dsp_half_zp1(nk_dsp_rq_half(a[0], m2, r), zp1);
            const int32_t o1 = nk_dsp_half_zp1(nk_dsp_rq_half(a[1], m2, r), zp1);
            const int32_t o2 = nk_dsp_half_zp1(nk_dsp_rq_half(a[2], m2, r), zp1);
            const int32_t o3 = nk_dsp_half_zp1(nk_dsp_rq_half(a[3], m2, r), zp1);
            yp[0] = (int8_t)o0;
            yp[s] = (int8_t)o1;
            yp[2 * s] = (int8_t)o2;
            yp[3 * s] = (int8_t)o3;
        }
    }
    if (nk_dsp_clamps(e)) { /* 4 * out_c bytes: whole words */
        for (yp = y; yp != y + 4 * s; yp += 4) {
            const uint32_t v = nk_dsp_act4((uint32_t)nk_dsp_load4(yp), 1, e);
            memcpy(yp, &v, 4);
        }
    }
}

/* Four columns of three channels (12 bytes at *xr) to four patch columns
 * of col_lanes lanes at *q, over and over until *xr reaches end: the
 * bytes offset and widened by SXTAB16 (lanes: bytes 0 and 2 of a word,
 * 1 and 3 by ROR 8), then repacked in order, each column a word and a
 * halfword store (unaligned: the columns are 9 lanes apart at a 3x3).
 * On the target 30 instructions a pass, where GCC's took 45. */
NK_DSP_INLINE void nk_dsp_patch_stage3(const int8_t **xr, int16_t **q, const int8_t *end, int32_t offp,
                                       int32_t col_lanes) {
#if NK_DSP_ASM
    const int32_t step = 2 * col_lanes;
    const int8_t *x = *xr;
    int16_t *p = *q;
    int32_t v0, v1, v2, e, o, t;
    __asm__ volatile("1:\n\t"
                     "ldr %[v0], [%[x]]\n\t"
                     "ldr %[v1], [%[x], #4]\n\t"
                     "ldr %[v2], [%[x], #8]\n\t"
                     "adds %[x], #12\n\t"
                     "sxtab16 %[e], %[offp], %[v0]\n\t"
                     "sxtab16 %[o], %[offp], %[v0], ror #8\n\t"
                     "pkhbt %[t], %[e], %[o], lsl #16\n\t" /* bytes 0, 1 */
                     "str %[t], [%[p]]\n\t"
                     "lsrs %[t], %[e], #16\n\t"
                     "strh %[t], [%[p], #4]\n\t" /* byte 2 */
                     "add %[p], %[p], %[step]\n\t"
                     "sxtab16 %[e], %[offp], %[v1]\n\t"
                     "lsrs %[t], %[o], #16\n\t"
                     "pkhbt %[t], %[t], %[e], lsl #16\n\t" /* bytes 3, 4 */
                     "str %[t], [%[p]]\n\t"
                     "sxtab16 %[o], %[offp], %[v1], ror #8\n\t"
                     "strh %[o], [%[p], #4]\n\t" /* byte 5 */
                     "add %[p], %[p], %[step]\n\t"
                     "pkhtb %[t], %[o], %[e], asr #16\n\t" /* bytes 6, 7 */
                     "str %[t], [%[p]]\n\t"
                     "sxtab16 %[e], %[offp], %[v2]\n\t"
                     "strh %[e], [%[p], #4]\n\t" /* byte 8 */
                     "add %[p], %[p], %[step]\n\t"
                     "sxtab16 %[o], %[offp], %[v2], ror #8\n\t"
                     "pkhbt %[t], %[o], %[e]\n\t" /* bytes 9, 10 */
                     "str %[t], [%[p]]\n\t"
                     "lsrs %[t], %[o], #16\n\t"
                     "strh %[t], [%[p], #4]\n\t" /* byte 11 */
                     "add %[p], %[p], %[step]\n\t"
                     "cmp %[x], %[end]\n\t"
                     "bne 1b"
                     : [x] "+r"(x), [p] "+r"(p), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2),
                       [e] "=&r"(e), [o] "=&r"(o), [t] "=&r"(t)
                     : [end] "r"(end), [offp] "r"(offp), [step] "r"(step)
                     : "cc", "memory");
    *xr = x;
    *q = p;
#else
    const int8_t *x = *xr;
    int16_t *p = *q;
    for (; x != end; x += 3, p += col_lanes) {
        p[0] = (int16_t)(x[0] + (int16_t)offp);
        p[1] = (int16_t)(x[1] + (int16_t)offp);
        p[2] = (int16_t)(x[2] + (int16_t)offp);
    }
    *xr = x;
    *q = p;
#endif
}

/* The patch rows of output row oy (of the image at xb): for each tap row
 * ky inside the image, its columns' in_c taps, offset, into lanes ky*in_c..
 * of each column; a tap row outside gets zeros. The padding columns stay
 * as the call zeroed them. Three channels go four columns (12 bytes) at a
 * time, widened by SXTAB16 and repacked in order. */
static void nk_dsp_patch_stage(const int8_t *xb, const nk_ref_conv_geom *g, int32_t oy, int32_t off,
                               int16_t *patch) {
    const int32_t in_c = g->in_c, col_lanes = g->k_h * in_c, offp = nk_dsp_dup16(off);
    const int32_t cols = (g->out_w - 1) * g->stride_w + g->k_w;
    const int32_t c_lo = g->pad_left, c_hi = cols < g->in_w + g->pad_left ? cols : g->in_w + g->pad_left;
    const int32_t iy0 = oy * g->stride_h - g->pad_top;
    int32_t ky, col, i;
    for (ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = iy0 + ky;
        const int8_t *xr = xb + (size_t)iy * (size_t)g->in_w * (size_t)in_c;
        int16_t *q = patch + (size_t)c_lo * (size_t)col_lanes + (size_t)ky * (size_t)in_c;
        col = c_lo;
        if (iy < 0 || iy >= g->in_h) {
            for (; col < c_hi; col++, q += col_lanes)
                for (i = 0; i < in_c; i++)
                    q[i] = 0;
            continue;
        }
        if (in_c == 3) { /* four columns a pass */
            const int32_t n4 = (c_hi - col) / 4 * 4;
            if (n4 > 0)
                nk_dsp_patch_stage3(&xr, &q, xr + (size_t)n4 * 3u, offp, col_lanes);
            col += n4;
        }
        for (; col < c_hi; col++, xr += in_c, q += col_lanes)
            for (i = 0; i < in_c; i++)
                q[i] = (int16_t)(xr[i] + off);
    }
}

/* The conv by patches (nk_dsp_patch_fits), one output row at a time;
 * kept: ws holds the widened weights and the patch's padding already (a
 * staged op's earlier band). */
static void nk_dsp_conv_patch(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                              const nk_ref_conv_geom *g, const nk_dsp_epi *e, int32_t *ws,
                              int kept) {
    const int32_t np = nk_dsp_patch_steps(g), out_c = g->out_c, off = -e->q->in_zp;
    const int32_t k = g->k_h * g->k_w * g->in_c, d4 = g->stride_w * g->k_h * g->in_c / 2;
    const size_t lanes = nk_dsp_patch_lanes(g), step = nk_dsp_patch_channel_words(np);
    int16_t *const patch = (int16_t *)(ws + (size_t)out_c * step);
    int8_t *const tail = (int8_t *)(patch + lanes); /* a last block's outputs */
    int32_t c, kx, ky, i, b, oy, ox;
    /* the weights in patch order (kx, ky, c), zeros past k; bias, m2, a */
    for (c = 0; c < out_c && !kept; c++) {
        int32_t *const wc = ws + (size_t)c * step;
        int16_t *lane = (int16_t *)wc;
        const int8_t *src = w + (size_t)c * (size_t)k;
        for (i = k; i < 4 * np; i++)
            lane[i] = 0;
        for (kx = 0; kx < g->k_w; kx++)
            for (ky = 0; ky < g->k_h; ky++)
                for (i = 0; i < g->in_c; i++)
                    *lane++ = src[(ky * g->k_w + kx) * g->in_c + i];
        wc[2 * np] = bias != NULL ? bias[c] : 0;
        nk_dsp_epi_pair(e, c, &wc[2 * np + 1], &wc[2 * np + 2]);
        wc[2 * np + 3] = 0;
    }
    if (!kept)
        memset(patch, 0, 2u * lanes);
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
        for (oy = 0; oy < g->out_h; oy++) {
            int8_t *yr = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w) * (size_t)out_c;
            nk_dsp_patch_stage(xb, g, oy, off, patch);
            for (ox = 0; ox + 4 <= g->out_w; ox += 4)
                nk_dsp_patch_px4(ws, (const int32_t *)(void *)patch + (size_t)ox * (size_t)d4, d4, np,
                                 yr + (size_t)ox * (size_t)out_c, out_c, e);
            if (ox < g->out_w) { /* 1..3 pixels: all four finished in the workspace */
                nk_dsp_patch_px4(ws, (const int32_t *)(void *)patch + (size_t)ox * (size_t)d4, d4, np, tail,
                                 out_c, e);
                memcpy(yr + (size_t)ox * (size_t)out_c, tail, (size_t)(g->out_w - ox) * (size_t)out_c);
            }
        }
    }
}

/* One group, no horizontal dilation (nk_fast_conv2d_i8_workspace);
 * other convs take the portable kernel. */
int nk_fast_conv2d_i8_ws(const int8_t *x, const int8_t *NK_RESTRICT w,
                         const int32_t *NK_RESTRICT bias, int8_t *y, const nk_ref_conv_geom *g,
                         const nk_ref_i8_quant *q, int32_t *NK_RESTRICT ws, size_t ws_bytes,
                         int ws_kept) {
    const int small = nk_fast_conv2d_i8_small(g);
    nk_dsp_epi e;
    if (nk_fast_conv2d_i8_workspace(g) == 0)
        return 0;
    /* a pointwise conv is a dense layer over all pixels: pixel pairs run
     * on across rows; small ones too when eight pixels fit at a time */
    if (nk_fast_conv2d_i8_is_dense(g)) {
        const size_t n_pix = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w;
        if (!small || nk_dsp_oct_fits(n_pix, g->in_c, ws_bytes, bias))
            return nk_fast_dense_i8_ws(x, w, bias, y, n_pix, g->in_c, g->out_c, q, ws, ws_bytes);
    }
    e = nk_dsp_epi_make(q, g->out_c);
    if (small && nk_dsp_patch_fits(g, &e, ws_bytes))
        nk_dsp_conv_patch(x, w, bias, y, g, &e, ws, ws_kept);
    else if (small && e.fast)
        nk_dsp_conv_small(x, w, bias, y, g, &e, ws);
    else
        nk_dsp_conv_win(x, w, bias, y, g, &e, ws, 0, ws_bytes);
    return 1;
}

/* ---- six or four rows at a time ----
 *
 * One output channel by P = 6 or 4 pixels (or dense rows): each weight
 * word is loaded and widened once for P SMLAD pairs (21 instructions for
 * 24 MACs at 6, 15 for 16 at 4, against the pairs' 16 for 16), in 2P * k
 * bytes of windows, where eight rows' (nk_dsp_oct_*) do not fit: KWS's
 * 64 taps six at a time in its 896 bytes, VWW's 128 four at a time in its
 * 1,088. Each output is finished alone (nk_dsp_half_zp1: five
 * instructions and a byte store, against the pairs' epilogue of about 15
 * an output), the clamp a pass over the bytes. */
static int32_t nk_dsp_rows_p(size_t rows, int32_t k, size_t ws_bytes, const int32_t *bias,
                             const nk_dsp_epi *e) {
    int32_t p;
    if (k <= 0 || k % 8 != 0 || k > NK_DSP_WIN_MAX_TAPS || bias == NULL || !e->fast)
        return 0;
    for (p = 6; p >= 4; p -= 2)
        if (rows >= (size_t)p && (size_t)k * 2u * (size_t)p <= ws_bytes)
            return p;
    return 0;
}

/* a0..a(P-1) += the weight words from wp to w_end (an even count) times
 * their words of each window at xp (word j of row i at xp[2Pj + 2i],
 * xp[2Pj + 2i + 1]): on the target an asm loop of 13 (P 6) or 11
 * registers (GCC's took 60 instructions a pass for the 44 at 6), else C. */
#if NK_DSP_ASM
#define NK_DSP_ROWS_PX(a)                                                                          \
    "ldrd %[x0], %[x1], [%[xp]], #8\n\t"                                                            \
    "smlad %[" a "], %[we], %[x0], %[" a "]\n\t"                                                   \
    "smlad %[" a "], %[wo], %[x1], %[" a "]\n\t"
#define NK_DSP_ROWS_W                                                                              \
    "ldr %[we], [%[wp]], #4\n\t"                                                                  \
    "sxtb16 %[wo], %[we], ror #8\n\t"                                                             \
    "sxtb16 %[we], %[we]\n\t" NK_DSP_ROWS_PX("a0") NK_DSP_ROWS_PX("a1") NK_DSP_ROWS_PX("a2")       \
        NK_DSP_ROWS_PX("a3")
#define NK_DSP_ROWS_W6 NK_DSP_ROWS_W NK_DSP_ROWS_PX("a4") NK_DSP_ROWS_PX("a5")
#define NK_DSP_ROWS_ASM(words)                                                                     \
    __asm__ volatile("1:\n\t" words words "cmp %[wp], %[end]\n\t"                                   \
                     "bne 1b"                                                                      \
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4),  \
                       [a5] "+r"(a5), [wp] "+r"(wp), [xp] "+r"(xp), [we] "=&r"(we_),             \
                       [wo] "=&r"(wo_), [x0] "=&r"(x0_), [x1] "=&r"(x1_)                           \
                     : [end] "r"(w_end)                                                            \
                     : "cc", "memory")
#endif

/* Every channel of the P rows whose windows (k taps, a multiple of 8)
 * are in win; row i's outputs at y + i*n. */
NK_DSP_INLINE void nk_dsp_rows_channels(const int8_t *w, const int32_t *bias, const int32_t *win,
                                        int32_t k, int8_t *y, int32_t n, const nk_dsp_epi *e,
                                        const int P) {
    const int32_t zp1 = 2 * e->q->out_zp + 1;
    const size_t s = (size_t)n;
    int32_t c, i;
    for (c = 0; c < n; c++) {
        const int8_t *wp = w + (size_t)c * (size_t)k, *const w_end = wp + k;
        const int32_t *xp = win;
        int32_t a0 = bias[c], a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, m2, a;
        int8_t *yp = y + c;
#if NK_DSP_ASM
        int32_t we_, wo_, x0_, x1_;
        if (P == 6)
            NK_DSP_ROWS_ASM(NK_DSP_ROWS_W6);
        else
            NK_DSP_ROWS_ASM(NK_DSP_ROWS_W);
#else
        for (; wp != w_end; wp += 4) {
            const int32_t v = nk_dsp_load4(wp);
            const int32_t we = nk_dsp_sxtb16(v), wo = nk_dsp_sxtb16_ror8(v);
            int32_t *const acc[6] = {&a0, &a1, &a2, &a3, &a4, &a5};
            for (i = 0; i < P; i++, xp += 2)
                *acc[i] = nk_dsp_smlad(wo, xp[1], nk_dsp_smlad(we, xp[0], *acc[i]));
        }
#endif
        nk_dsp_epi_pair(e, c, &m2, &a);
        yp[0] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(a0, m2, a), zp1);
        yp[s] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(a1, m2, a), zp1);
        yp += 2 * s;
        yp[0] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(a2, m2, a), zp1);
        yp[s] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(a3, m2, a), zp1);
        if (P == 6) {
            yp += 2 * s;
            yp[0] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(a4, m2, a), zp1);
            yp[s] = (int8_t)nk_dsp_half_zp1(nk_dsp_rq_half(a5, m2, a), zp1);
        }
    }
    if (nk_dsp_clamps(e)) {
        const int32_t lo = e->q->act_min, hi = e->q->act_max;
        int8_t *const end = y + (size_t)P * s;
        for (; y != end; y++)
            *y = (int8_t)(*y < lo ? lo : *y > hi ? hi : *y);
    }
    (void)i;
}
static NK_DSP_NOINLINE void nk_dsp_rows6(const int8_t *w, const int32_t *bias, const int32_t *win,
                                         int32_t k, int8_t *y, int32_t n, const nk_dsp_epi *e) {
    nk_dsp_rows_channels(w, bias, win, k, y, n, e, 6);
}
static NK_DSP_NOINLINE void nk_dsp_rows4(const int8_t *w, const int32_t *bias, const int32_t *win,
                                         int32_t k, int8_t *y, int32_t n, const nk_dsp_epi *e) {
    nk_dsp_rows_channels(w, bias, win, k, y, n, e, 4);
}
#if NK_DSP_ASM
#undef NK_DSP_ROWS_PX
#undef NK_DSP_ROWS_W
#undef NK_DSP_ROWS_W6
#undef NK_DSP_ROWS_ASM
#endif

/* Rows r.. P at a time (nk_dsp_rows_p), the windows in ws; returns the
 * first row left. */
static size_t nk_dsp_rows_run(const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                              size_t r, size_t rows, int32_t k, int32_t n, int32_t offp,
                              const nk_dsp_epi *e, int32_t *ws, int32_t P) {
    const size_t kk = (size_t)k;
    for (; r + (size_t)P <= rows; r += (size_t)P) {
        int32_t i;
        for (i = 0; i < P; i++) {
            const int8_t *const xr = x + (r + (size_t)i) * kk;
            if (P == 6)
                nk_dsp_widen_words(xr, xr + kk, offp, ws + 2 * i, 12);
            else
                nk_dsp_widen_words(xr, xr + kk, offp, ws + 2 * i, 8);
        }
        if (P == 6) /* direct calls, as scripts/stack-depth.awk bounds them */
            nk_dsp_rows6(w, bias, ws, k, y + r * (size_t)n, n, e);
        else
            nk_dsp_rows4(w, bias, ws, k, y + r * (size_t)n, n, e);
    }
    return r;
}

int nk_fast_dense_i8_ws(const int8_t *x, const int8_t *NK_RESTRICT w,
                        const int32_t *NK_RESTRICT bias, int8_t *y, size_t rows,
                        int32_t in_features, int32_t out_features, const nk_ref_i8_quant *q,
                        int32_t *NK_RESTRICT ws, size_t ws_bytes) {
    const size_t k_n = (size_t)in_features, n_out = (size_t)out_features;
    const int32_t off = -q->in_zp, offp = nk_dsp_dup16(off);
    const nk_dsp_epi e = nk_dsp_epi_make(q, out_features);
    size_t r;
    int32_t n, p;
    if (rows > 1) { /* by windows: eight rows at a time where they fit, or six or four, then two */
        if (nk_fast_dense_i8_workspace(rows, in_features) == 0)
            return 0; /* no windows that long: the portable kernel */
        r = nk_dsp_oct_takes(rows, in_features, ws_bytes, bias, &e)
                ? nk_dsp_oct_rows(x, w, bias, y, rows, in_features, out_features, offp, &e, ws)
                : 0;
        p = nk_dsp_rows_p(rows - r, in_features, ws_bytes, bias, &e);
        if (p)
            r = nk_dsp_rows_run(x, w, bias, y, r, rows, in_features, out_features, offp, &e, ws, p);
        for (; r + 2 <= rows; r += 2) {
            nk_dsp_widen_row(x + r * k_n, in_features, off, offp, ws);
            nk_dsp_widen_row(x + (r + 1) * k_n, in_features, off, offp, ws + 2);
            nk_dsp_win_channels(w, bias, ws, in_features, 2, y + r * n_out, out_features, &e);
        }
        if (r == rows)
            return 1;
        /* an odd last row (KWS's bands of five pixels) as a single row: a
         * pair over it twice would do twice its MACs */
        x += r * k_n;
        y += r * n_out;
    }
    /* a single row: four channels at a time, the input widened once per
     * word for the four */
    for (n = 0; n + 4 <= out_features; n += 4) {
        int32_t acc[4], i;
        for (i = 0; i < 4; i++)
            acc[i] = bias ? bias[n + i] : 0;
        nk_dsp_dot4(w + (size_t)n * k_n, k_n, x, in_features, off, offp, acc);
        nk_dsp_finish4x1(acc, n, y, &e);
    }
    for (; n < out_features; n += 2) {
        const int nw = n + 1 < out_features ? 2 : 1;
        int32_t acc[4];
        nk_dsp_acc_init(acc, bias, n, nw);
        if (nw == 2)
            nk_dsp_dot(w + (size_t)n * k_n, k_n, x, 0, in_features, 1, 0, 0, off, offp, 2, 1, acc);
        else
            nk_dsp_dot(w + (size_t)n * k_n, 0, x, 0, in_features, 1, 0, 0, off, offp, 1, 1, acc);
        nk_dsp_finish(acc, nw, 1, n, y, y, &e);
    }
    return 1;
}

/* A pointwise conv of equal channels on its own input (xy: input and
 * output), in ws_bytes of workspace at ws: output pixel p lies on input
 * pixel p, and the dense rows (eight, six, four or two at a time) gather a
 * block's windows before writing it, so they run in place; an odd last
 * pixel takes a pair's kernel over its window twice (the single-row path
 * reads its input while writing its outputs). 0 when the dense path
 * does not take it. */
int nk_fast_pointwise_i8_in_place(int8_t *xy, const int8_t *NK_RESTRICT w,
                                  const int32_t *NK_RESTRICT bias, const nk_ref_conv_geom *g,
                                  const nk_ref_i8_quant *q, int32_t *NK_RESTRICT ws,
                                  size_t ws_bytes) {
    const size_t n_pix = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w;
    const int32_t k = g->in_c, off = -q->in_zp;
    if (!nk_fast_conv2d_i8_is_dense(g) || g->out_c != k || n_pix < 2 ||
        nk_fast_dense_i8_workspace(n_pix, k) > ws_bytes)
        return 0;
    if (!nk_fast_dense_i8_ws(xy, w, bias, xy, n_pix & ~(size_t)1, k, k, q, ws, ws_bytes))
        return 0;
    if (n_pix & 1) {
        const nk_dsp_epi e = nk_dsp_epi_make(q, k);
        int8_t *const last = xy + (n_pix - 1) * (size_t)k;
        nk_dsp_widen_row(last, k, off, nk_dsp_dup16(off), ws);
        nk_dsp_widen_row(last, k, off, nk_dsp_dup16(off), ws + 2);
        nk_dsp_win_channels(w, bias, ws, k, 1, last, k, &e);
    }
    return 1;
}

/* Add: each input's rescaling depends on its int8 value alone, so the
 * two are tabulated (256 int32 each, in the workspace) once per call and
 * each element takes two table reads, the wrapping sum and the output
 * requantization (nk_dsp_rq_half when shift_out < 0, as every real model
 * has), two elements a pass with the zero point and clamps on lanes. Small
 * adds take the portable kernel: the tables would not pay. */


int nk_fast_add_i8_ws(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                      const nk_ref_add_i8_params *p, int32_t *NK_RESTRICT ws) {
    const nk_q_rq r1 = nk_q_rq_make(p->m1, p->shift1), r2 = nk_q_rq_make(p->m2, p->shift2);
    const int32_t zp1 = p->in1_zp, zp2 = p->in2_zp, ls = p->left_shift, zo = p->out_zp;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t *const t1 = ws + 128, *const t2 = ws + 256 + 128; /* indexed -128..127 */
    int32_t v;
    size_t i;
    if (n < NK_DSP_ADD_MIN || p->shift_out >= 0 || p->m_out == 0)
        return 0;
    for (v = -128; v < 128; v++) {
        /* |v - zp| <= 255 and left_shift <= 23: no overflow */
        t1[v] = nk_q_rq_apply(&r1, (int32_t)((uint32_t)(v - zp1) << ls));
        t2[v] = nk_q_rq_apply(&r2, (int32_t)((uint32_t)(v - zp2) << ls));
    }
    {
        const int32_t m2 = (int32_t)((uint32_t)p->m_out << 1), sa = ~p->shift_out;
        const int32_t zo1 = nk_dsp_dup16(2 * zo + 1), lo4 = nk_dsp_dup8(lo), hi4 = nk_dsp_dup8(hi);
        const int clamp = lo > -128 || hi < 127;
        /* two elements a pass: both read before either is written (y may
         * be a), finished on int16 / int8 lanes as nk_dsp_store22 does */
        for (i = 0; i + 2 <= n; i += 2) {
            const int32_t s0 =
                nk_dsp_rq_half((int32_t)((uint32_t)t1[a[i]] + (uint32_t)t2[b[i]]), m2, sa);
            const int32_t s1 = nk_dsp_rq_half(
                (int32_t)((uint32_t)t1[a[i + 1]] + (uint32_t)t2[b[i + 1]]), m2, sa);
            uint32_t v = (uint32_t)nk_dsp_zip8(nk_dsp_half_zp(s0, s1, zo1), 0);
            v |= v >> 8;
            if (clamp)
                v = (uint32_t)nk_dsp_min8(nk_dsp_max8((int32_t)v, lo4), hi4);
            nk_dsp_store2(y + i, v);
        }
        if (i < n) {
            const int32_t sum = (int32_t)((uint32_t)t1[a[i]] + (uint32_t)t2[b[i]]);
            const int32_t s = nk_dsp_rq_half(sum, m2, sa);
            /* (s + 1) >> 1 without overflow; |result| <= 2^30 */
            const int32_t r = (s >> 1) + (s & 1) + zo;
            y[i] = (int8_t)(r < lo ? lo : r > hi ? hi : r);
        }
    }
    return 1;
}

/* y[0 .. y_end - y) = the lane maxima of the 2x2 window at x (rows
 * row_stride apart, columns c_n apart), four channels a word; out of
 * line, so that only its pointers are live and nothing spills. */
static NK_DSP_NOINLINE void nk_dsp_max2x2(const int8_t *x, size_t row_stride, size_t c_n, int8_t *y,
                                 const int8_t *y_end) {
    const int8_t *x1 = x + row_stride;
    for (; y != y_end; y += 4, x += 4, x1 += 4) {
        const uint32_t v =
            (uint32_t)nk_dsp_max8(nk_dsp_max8(nk_dsp_load4(x), nk_dsp_load4(x + c_n)),
                                  nk_dsp_max8(nk_dsp_load4(x1), nk_dsp_load4(x1 + c_n)));
        nk_dsp_store2(y, v);
        nk_dsp_store2(y + 2, v >> 16);
    }
}

/* Sum of four channels (c .. c+3 at x) over the window's taps: rows ky_n
 * of kx_n taps, rows row_stride and taps c_n apart, into sum[0..3]. The
 * taps go into two words of int16 lanes (channels c, c+2 by SXTAB16 and
 * c+1, c+3 by SXTAB16 ROR 8), which 255 taps of -128..127 cannot
 * overflow; every 255 taps, and at the end, the lanes move to int32. */
static void nk_dsp_sum4(const int8_t *x, size_t row_stride, size_t c_n, int32_t ky_n,
                        int32_t kx_n, int32_t *sum) {
    int32_t s02 = 0, s13 = 0, ky, n, m, left = 255;
    sum[0] = sum[1] = sum[2] = sum[3] = 0;
    if ((size_t)kx_n * c_n == row_stride) { /* whole rows (global pools): one run */
        kx_n *= ky_n;
        ky_n = 1;
    }
    for (ky = 0; ky < ky_n; ky++, x += row_stride) {
        const int8_t *xp = x;
        for (n = kx_n; n > 0; n -= m) {
            int32_t t;
            m = n < left ? n : left;
            left -= m;
            for (t = m; t > 1; t -= 2, xp += 2 * c_n) {
                const int32_t v = nk_dsp_load4(xp), u = nk_dsp_load4(xp + c_n);
                s02 = nk_dsp_sxtab16(nk_dsp_sxtab16(s02, v), u);
                s13 = nk_dsp_sxtab16_ror8(nk_dsp_sxtab16_ror8(s13, v), u);
            }
            if (t) {
                const int32_t v = nk_dsp_load4(xp);
                s02 = nk_dsp_sxtab16(s02, v);
                s13 = nk_dsp_sxtab16_ror8(s13, v);
                xp += c_n;
            }
            if (left == 0 || (ky == ky_n - 1 && n == m)) {
                sum[0] += (int16_t)s02;
                sum[2] += (int16_t)((uint32_t)s02 >> 16);
                sum[1] += (int16_t)s13;
                sum[3] += (int16_t)((uint32_t)s13 >> 16);
                s02 = s13 = 0;
                left = 255;
            }
        }
    }
}

/* One output pixel of an average pool: the window of ky_n x kx_n valid
 * taps at x (channel 0 of its first tap), rows row_stride and taps c_n
 * apart, into y[0 .. c_n). */
static void nk_dsp_avg_window(const int8_t *x, int8_t *y, size_t row_stride, size_t c_n,
                              int32_t ky_n, int32_t kx_n, int32_t act_min, int32_t act_max) {
    const int32_t count = ky_n * kx_n;
    int32_t ky, kx, i, sum[4];
    size_t c = 0;
    if (count > 0)
        for (; c + 4 <= c_n; c += 4) {
            nk_dsp_sum4(x + c, row_stride, c_n, ky_n, kx_n, sum);
            /* all four read before any store: y may be x (in place) */
            for (i = 0; i < 4; i++)
                y[c + (size_t)i] = (int8_t)nk_q_clamp(nk_q_round_div(sum[i], count), act_min, act_max);
        }
    for (; c < c_n; c++) {
        int32_t a = 0;
        for (ky = 0; ky < ky_n; ky++)
            for (kx = 0; kx < kx_n; kx++)
                a += x[(size_t)ky * row_stride + (size_t)kx * c_n + c];
        y[c] = (int8_t)nk_q_clamp(count > 0 ? nk_q_round_div(a, count) : 0, act_min, act_max);
    }
}

/* Max pool: four channels per word, SSUB8/SEL lane maxima over the valid
 * taps from -128 (an empty window gives -128, as the portable kernel),
 * then the clamp on the four lanes; the last in_c % 4 channels one by
 * one. Average pool: four channels per word through nk_dsp_sum4, then
 * the portable kernel's rounded division and clamp per channel; the
 * last in_c % 4 channels and empty windows take the portable kernel's
 * arithmetic one by one. */
int nk_fast_pool2d_i8(const int8_t *x, int8_t *y, const nk_ref_conv_geom *g, int32_t act_min,
                      int32_t act_max, int is_max) {
    const size_t c_n = (size_t)g->in_c;
    const size_t row_stride = (size_t)g->in_w * c_n;
    const int32_t lo4 = nk_dsp_dup8(act_min), hi4 = nk_dsp_dup8(act_max);
    const int32_t low4 = nk_dsp_dup8(-128);
    const int clamp = act_min > -128 || act_max < 127; /* else the int8 lanes are the range */
    int32_t b, oy, ox, ky, kx;
    size_t c, i;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_pool_range(iy0, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++, y += c_n) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi;
                nk_ref_pool_range(ix0, g->k_w, g->in_w, &kx_lo, &kx_hi);
                if (!is_max) {
                    nk_dsp_avg_window(xb + (size_t)(iy0 + ky_lo) * row_stride +
                                          (size_t)(ix0 + kx_lo) * c_n,
                                      y, row_stride, c_n, ky_hi - ky_lo, kx_hi - kx_lo, act_min,
                                      act_max);
                    continue;
                }
                c = 0;
                if (ky_hi - ky_lo == 2 && kx_hi - kx_lo == 2) {
                    /* a whole 2x2 window (most pools): four loads and
                     * three lane maxima per word, no tap loops */
                    c = c_n & ~(size_t)3;
                    nk_dsp_max2x2(xb + (size_t)(iy0 + ky_lo) * row_stride +
                                      (size_t)(ix0 + kx_lo) * c_n,
                                  row_stride, c_n, y, y + c);
                    if (clamp)
                        for (i = 0; i < c; i += 4) {
                            const int32_t v = nk_dsp_load4((const int8_t *)y + i);
                            const uint32_t r = (uint32_t)nk_dsp_min8(nk_dsp_max8(v, lo4), hi4);
                            nk_dsp_store2(y + i, r);
                            nk_dsp_store2(y + i + 2, r >> 16);
                        }
                }
                for (; c + 4 <= c_n; c += 4) {
                    int32_t v = low4;
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xp = xb + (size_t)(iy0 + ky) * row_stride +
                                           (size_t)(ix0 + kx_lo) * c_n + c;
                        for (kx = kx_lo; kx < kx_hi; kx++, xp += c_n)
                            v = nk_dsp_max8(v, nk_dsp_load4(xp));
                    }
                    v = nk_dsp_min8(nk_dsp_max8(v, lo4), hi4);
                    nk_dsp_store2(y + c, (uint32_t)v);
                    nk_dsp_store2(y + c + 2, (uint32_t)v >> 16);
                }
                for (; c < c_n; c++) {
                    int32_t m = -128;
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xp = xb + (size_t)(iy0 + ky) * row_stride +
                                           (size_t)(ix0 + kx_lo) * c_n + c;
                        for (kx = kx_lo; kx < kx_hi; kx++, xp += c_n)
                            m = *xp > m ? *xp : m;
                    }
                    y[c] = (int8_t)(m < act_min ? act_min : m > act_max ? act_max : m);
                }
            }
        }
    }
    return 1;
}

#else
/* ISO C wants a declaration in every translation unit. */
typedef int nk_dsp_i8_not_built;
#endif

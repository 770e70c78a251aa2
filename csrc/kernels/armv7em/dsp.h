/*
 * dsp.h — the few Armv7E-M / Armv8-M DSP-extension instructions the fast
 * int8 kernels use, as inline functions over packed 32-bit words.
 *
 * On a target with the DSP extension (__ARM_FEATURE_DSP: Cortex-M4, M7,
 * M33, M55) they are the ACLE intrinsics of <arm_acle.h>; elsewhere, or
 * with NETKIT_EMULATE_DSP=1, an exact C emulation, so the same kernel
 * source runs (and is tested against the oracle) on the host.
 *
 * A word holds two int16 lanes (lo = bits 0..15, hi = bits 16..31) or four
 * int8 lanes (byte 0 lowest). Lane arithmetic wraps like the instructions;
 * SMLAD accumulates modulo 2^32 (the Q flag is never read).
 */
#ifndef NK_DSP_H
#define NK_DSP_H

#include <stdint.h>
#include <string.h>

#include "../ref/ref_i8.h"

#if defined(__ARM_FEATURE_DSP) && !(defined(NETKIT_EMULATE_DSP) && NETKIT_EMULATE_DSP)
#define NK_DSP_NATIVE 1
#include <arm_acle.h>
#else
#define NK_DSP_NATIVE 0
#endif

#if NK_DSP_NATIVE

/* Four int8 at p, any alignment (LDR allows it on Armv7-M and later). */
static inline int32_t nk_dsp_load4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}
/* Four bytes from src to dst, any alignment: an LDR and an STR, which
 * GCC cannot turn into a memmove call (it does so to a loop of
 * memcpy-made words, dear for a few bytes). */
static inline void nk_dsp_copy4(int8_t *dst, const int8_t *src) {
#if defined(__GNUC__)
    int32_t v;
    __asm__ volatile("ldr %0, [%1]\n\tstr %0, [%2]" : "=&r"(v) : "r"(src), "r"(dst) : "memory");
#else
    memmove(dst, src, 4);
#endif
}
/* (sext byte0, sext byte2) */
static inline int32_t nk_dsp_sxtb16(int32_t x) { return __sxtb16(x); }
/* (a.lo + sext byte0, a.hi + sext byte2) */
static inline int32_t nk_dsp_sxtab16(int32_t a, int32_t x) { return __sxtab16(a, x); }
/* The same on bytes 1 and 3. GCC 12 does not fold a rotate into the
 * operand of the intrinsic (one more instruction each), hence the asm. */
static inline int32_t nk_dsp_sxtb16_ror8(int32_t x) {
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}
static inline int32_t nk_dsp_sxtab16_ror8(int32_t a, int32_t x) {
    int32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
    return r;
}
/* acc + a.lo*b.lo + a.hi*b.hi */
static inline int32_t nk_dsp_smlad(int32_t a, int32_t b, int32_t acc) { return __smlad(a, b, acc); }
/* acc + a.lo*b.lo, acc + a.hi*b.hi */
static inline int32_t nk_dsp_smlabb(int32_t a, int32_t b, int32_t acc) { return __smlabb(a, b, acc); }
static inline int32_t nk_dsp_smlatt(int32_t a, int32_t b, int32_t acc) { return __smlatt(a, b, acc); }
/* acc + a.lo*b.hi, acc + a.hi*b.lo */
static inline int32_t nk_dsp_smlabt(int32_t a, int32_t b, int32_t acc) { return __smlabt(a, b, acc); }
static inline int32_t nk_dsp_smlatb(int32_t a, int32_t b, int32_t acc) { return __smlatb(a, b, acc); }
/* a.lo*b.lo + a.hi*b.hi; a.hi*b.lo (GCC 12's ACLE has no __smultb) */
static inline int32_t nk_dsp_smuad(int32_t a, int32_t b) { return __smuad(a, b); }
static inline int32_t nk_dsp_smultb(int32_t a, int32_t b) {
    int32_t r;
    __asm__("smultb %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
/* x >> (e & 255), arithmetic, as Arm shifts by a register: 32 and more
 * fill with the sign bit */
static inline int32_t nk_dsp_asr(int32_t x, int32_t e) {
    int32_t r;
    __asm__("asr %0, %1, %2" : "=r"(r) : "r"(x), "r"(e));
    return r;
}
/* high word of (acc << 32) + a*b + 2^31, and without the 2^31 (the
 * 64-bit sum taken modulo 2^64). Not in ACLE. */
static inline int32_t nk_dsp_smmlar(int32_t a, int32_t b, int32_t acc) {
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}
static inline int32_t nk_dsp_smmla(int32_t a, int32_t b, int32_t acc) {
    int32_t r;
    __asm__("smmla %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}
/* x saturated to int16 */
static inline int32_t nk_dsp_ssat16(int32_t x) { return __ssat(x, 16); }
/* a + b saturated to int32 */
static inline int32_t nk_dsp_qadd(int32_t a, int32_t b) { return __qadd(a, b); }
/* x >> 1 (arithmetic) saturated to int8 */
static inline int32_t nk_dsp_ssat8_half(int32_t x) {
    int32_t r;
    __asm__("ssat %0, #8, %1, asr #1" : "=r"(r) : "r"(x));
    return r;
}
/* v in the low int16 lane, w in the high one */
static inline int32_t nk_dsp_pack16(int32_t v, int32_t w) {
    int32_t r;
    __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(v), "r"(w));
    return r;
}
/* v's high int16 lane in the low lane, w's in the high one */
static inline int32_t nk_dsp_pack16_hi(int32_t v, int32_t w) {
    int32_t r;
    __asm__("pkhtb %0, %2, %1, asr #16" : "=r"(r) : "r"(v), "r"(w));
    return r;
}
/* lane-wise (a + b) >> 1, exact (17-bit sums) */
static inline int32_t nk_dsp_shadd16(int32_t a, int32_t b) { return __shadd16(a, b); }
/* each int16 lane saturated to -128..127 */
static inline int32_t nk_dsp_ssat16_8(int32_t x) { return __ssat16(x, 8); }
/* bytes 0 and 2 of a, then of b: (a0, b0, a2, b2) */
static inline int32_t nk_dsp_zip8(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)__uxtb16(a) | (uint32_t)__uxtb16(b) << 8);
}
/* lane-wise max and min of four int8 (SSUB8 sets the GE flags SEL reads;
 * one asm statement so nothing comes between them) */
static inline int32_t nk_dsp_max8(int32_t a, int32_t b) {
    int32_t r, t;
    __asm__("ssub8 %1, %2, %3\n\tsel %0, %2, %3" : "=r"(r), "=&r"(t) : "r"(a), "r"(b) : "cc");
    return r;
}
static inline int32_t nk_dsp_min8(int32_t a, int32_t b) {
    int32_t r, t;
    __asm__("ssub8 %1, %2, %3\n\tsel %0, %3, %2" : "=r"(r), "=&r"(t) : "r"(a), "r"(b) : "cc");
    return r;
}
#else /* exact C emulation */

static inline int32_t nk_dsp_load4(const int8_t *p) {
    const uint8_t *b = (const uint8_t *)p;
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24);
}
static inline void nk_dsp_copy4(int8_t *dst, const int8_t *src) { memmove(dst, src, 4); }
static inline int32_t nk_dsp_lo(int32_t a) { return (int16_t)((uint32_t)a & 0xFFFFu); }
static inline int32_t nk_dsp_hi(int32_t a) { return (int16_t)((uint32_t)a >> 16); }
static inline int32_t nk_dsp_byte(int32_t x, int i) {
    return (int8_t)(((uint32_t)x >> (8 * i)) & 0xFFu);
}
static inline int32_t nk_dsp_pack(int32_t lo, int32_t hi) {
    return (int32_t)(((uint32_t)lo & 0xFFFFu) | ((uint32_t)hi & 0xFFFFu) << 16);
}
static inline int32_t nk_dsp_sxtb16(int32_t x) {
    return nk_dsp_pack(nk_dsp_byte(x, 0), nk_dsp_byte(x, 2));
}
static inline int32_t nk_dsp_sxtab16(int32_t a, int32_t x) {
    return nk_dsp_pack(nk_dsp_lo(a) + nk_dsp_byte(x, 0), nk_dsp_hi(a) + nk_dsp_byte(x, 2));
}
static inline int32_t nk_dsp_sxtb16_ror8(int32_t x) {
    return nk_dsp_pack(nk_dsp_byte(x, 1), nk_dsp_byte(x, 3));
}
static inline int32_t nk_dsp_sxtab16_ror8(int32_t a, int32_t x) {
    return nk_dsp_pack(nk_dsp_lo(a) + nk_dsp_byte(x, 1), nk_dsp_hi(a) + nk_dsp_byte(x, 3));
}
static inline int32_t nk_dsp_smlad(int32_t a, int32_t b, int32_t acc) {
    return (int32_t)((uint32_t)acc + (uint32_t)(nk_dsp_lo(a) * nk_dsp_lo(b)) +
                     (uint32_t)(nk_dsp_hi(a) * nk_dsp_hi(b)));
}
static inline int32_t nk_dsp_smlabb(int32_t a, int32_t b, int32_t acc) {
    return (int32_t)((uint32_t)acc + (uint32_t)(nk_dsp_lo(a) * nk_dsp_lo(b)));
}
static inline int32_t nk_dsp_smlatt(int32_t a, int32_t b, int32_t acc) {
    return (int32_t)((uint32_t)acc + (uint32_t)(nk_dsp_hi(a) * nk_dsp_hi(b)));
}
static inline int32_t nk_dsp_smlabt(int32_t a, int32_t b, int32_t acc) {
    return (int32_t)((uint32_t)acc + (uint32_t)(nk_dsp_lo(a) * nk_dsp_hi(b)));
}
static inline int32_t nk_dsp_smlatb(int32_t a, int32_t b, int32_t acc) {
    return (int32_t)((uint32_t)acc + (uint32_t)(nk_dsp_hi(a) * nk_dsp_lo(b)));
}
static inline int32_t nk_dsp_smuad(int32_t a, int32_t b) { return nk_dsp_smlad(a, b, 0); }
static inline int32_t nk_dsp_smultb(int32_t a, int32_t b) { return nk_dsp_hi(a) * nk_dsp_lo(b); }
static inline int32_t nk_dsp_asr(int32_t x, int32_t e) {
    const int32_t n = (int32_t)((uint32_t)e & 255u);
    return nk_q_asr32(x, n < 31 ? (int)n : 31);
}
static inline int32_t nk_dsp_mmla(int32_t a, int32_t b, int32_t acc, uint32_t round) {
    const uint64_t t = ((uint64_t)(uint32_t)acc << 32) + (uint64_t)((int64_t)a * b) + round;
    return (int32_t)(uint32_t)(t >> 32);
}
static inline int32_t nk_dsp_smmlar(int32_t a, int32_t b, int32_t acc) {
    return nk_dsp_mmla(a, b, acc, 0x80000000u);
}
static inline int32_t nk_dsp_smmla(int32_t a, int32_t b, int32_t acc) {
    return nk_dsp_mmla(a, b, acc, 0u);
}
static inline int32_t nk_dsp_ssat16(int32_t x) { return x < -32768 ? -32768 : x > 32767 ? 32767 : x; }
static inline int32_t nk_dsp_qadd(int32_t a, int32_t b) {
    const int64_t v = (int64_t)a + b;
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}
static inline int32_t nk_dsp_ssat8_half(int32_t x) {
    const int32_t v = nk_q_asr32(x, 1);
    return v < -128 ? -128 : v > 127 ? 127 : v;
}
static inline int32_t nk_dsp_pack16(int32_t v, int32_t w) { return nk_dsp_pack(v, w); }
static inline int32_t nk_dsp_pack16_hi(int32_t v, int32_t w) {
    return nk_dsp_pack(nk_dsp_hi(v), nk_dsp_hi(w));
}
static inline int32_t nk_dsp_shadd16(int32_t a, int32_t b) {
    /* floor((a + b) / 2) of each lane */
    const int32_t lo = nk_dsp_lo(a) + nk_dsp_lo(b), hi = nk_dsp_hi(a) + nk_dsp_hi(b);
    return nk_dsp_pack(lo >= 0 ? lo / 2 : -((1 - lo) / 2), hi >= 0 ? hi / 2 : -((1 - hi) / 2));
}
static inline int32_t nk_dsp_sat8(int32_t v) { return v < -128 ? -128 : v > 127 ? 127 : v; }
static inline int32_t nk_dsp_ssat16_8(int32_t x) {
    return nk_dsp_pack(nk_dsp_sat8(nk_dsp_lo(x)), nk_dsp_sat8(nk_dsp_hi(x)));
}
static inline int32_t nk_dsp_zip8(int32_t a, int32_t b) {
    const uint32_t ua = (uint32_t)a & 0x00FF00FFu, ub = (uint32_t)b & 0x00FF00FFu;
    return (int32_t)(ua | ub << 8);
}
static inline int32_t nk_dsp_max8(int32_t a, int32_t b) {
    uint32_t r = 0;
    int i;
    for (i = 0; i < 4; i++) {
        const int32_t x = nk_dsp_byte(a, i), y = nk_dsp_byte(b, i);
        r |= (uint32_t)(x >= y ? x : y) << 8 * i & 0xFFu << 8 * i;
    }
    return (int32_t)r;
}
static inline int32_t nk_dsp_min8(int32_t a, int32_t b) {
    uint32_t r = 0;
    int i;
    for (i = 0; i < 4; i++) {
        const int32_t x = nk_dsp_byte(a, i), y = nk_dsp_byte(b, i);
        r |= (uint32_t)(x >= y ? y : x) << 8 * i & 0xFFu << 8 * i;
    }
    return (int32_t)r;
}
#endif

/* lo, hi = p[off/4], p[off/4 + 1] (p 4-byte aligned, off a constant) in
 * one LDRD, and the same store by STRD: GCC's Cortex-M4 tuning splits
 * them into two LDRs / STRs. Thumb-2 only: in the A32 instruction set
 * (armv7-linux's Go builds) LDRD wants an even/odd register pair, which
 * an asm operand cannot ask for, so there the C. */
#if NK_DSP_NATIVE && defined(__thumb2__)
#define NK_DSP_LDRD(p, off, lo, hi)                                                               \
    __asm__("ldrd %0, %1, [%2, #" #off "]"                                                        \
            : "=r"(lo), "=r"(hi)                                                                  \
            : "r"(p), "m"(*(const int32_t(*)[2])((const char *)(p) + (off))))
#define NK_DSP_STRD(p, off, lo, hi)                                                               \
    __asm__("strd %1, %2, [%3, #" #off "]"                                                        \
            : "=m"(*(int32_t(*)[2])((char *)(p) + (off)))                                         \
            : "r"(lo), "r"(hi), "r"(p))
/* the same LDRD / STRD at p, then p += step (a constant) */
#define NK_DSP_LDRD_POST(p, step, lo, hi)                                                         \
    __asm__("ldrd %0, %1, [%2], #" #step                                                          \
            : "=r"(lo), "=r"(hi), "+r"(p)                                                         \
            : "m"(*(const int32_t(*)[2])(p)))
#define NK_DSP_STRD_POST(p, step, lo, hi)                                                         \
    __asm__("strd %2, %3, [%1], #" #step                                                          \
            : "=m"(*(int32_t(*)[2])(p)), "+r"(p)                                                  \
            : "r"(lo), "r"(hi))
#else
#define NK_DSP_LDRD_POST(p, step, lo, hi)                                                         \
    do {                                                                                          \
        (lo) = (p)[0];                                                                            \
        (hi) = (p)[1];                                                                            \
        (p) += (step) / 4;                                                                        \
    } while (0)
#define NK_DSP_STRD_POST(p, step, lo, hi)                                                         \
    do {                                                                                          \
        (p)[0] = (lo);                                                                            \
        (p)[1] = (hi);                                                                            \
        (p) += (step) / 4;                                                                        \
    } while (0)
#define NK_DSP_LDRD(p, off, lo, hi)                                                               \
    do {                                                                                          \
        (lo) = (p)[(off) / 4];                                                                    \
        (hi) = (p)[(off) / 4 + 1];                                                                \
    } while (0)
#define NK_DSP_STRD(p, off, lo, hi)                                                               \
    do {                                                                                          \
        (p)[(off) / 4] = (lo);                                                                    \
        (p)[(off) / 4 + 1] = (hi);                                                                \
    } while (0)
#endif

/* The four bytes of v to p, byte 0 first (any alignment: STR on the
 * target allows it). */
static inline void nk_dsp_store4(int8_t *p, uint32_t v) {
#if NK_DSP_NATIVE
    memcpy(p, &v, 4);
#else
    p[0] = (int8_t)(v & 0xFFu);
    p[1] = (int8_t)(v >> 8 & 0xFFu);
    p[2] = (int8_t)(v >> 16 & 0xFFu);
    p[3] = (int8_t)(v >> 24 & 0xFFu);
#endif
}

/* v in all four int8 lanes */
static inline int32_t nk_dsp_dup8(int32_t v) {
    return (int32_t)(((uint32_t)v & 0xFFu) * 0x01010101u);
}

/* The low two bytes of v to p, byte 0 first (any alignment: STRH on
 * the target allows it). */
static inline void nk_dsp_store2(int8_t *p, uint32_t v) {
#if NK_DSP_NATIVE
    const uint16_t h = (uint16_t)v;
    memcpy(p, &h, 2);
#else
    p[0] = (int8_t)(v & 0xFFu);
    p[1] = (int8_t)(v >> 8 & 0xFFu);
#endif
}

/* The int8 epilogue for shift < 0 and m != 0, the pairs of every conv
 * and dense of a real model, from nk_q_rq's m2 = 2m and a = ~shift
 * (= -shift - 1). nk_dsp_rq_half(v) = s with requantize(v) = (s + 1) >> 1
 * exactly, the last halving left to SHADD16 on two lanes (below):
 *   double rounding: s = (SRDHM(v, m) - [v<0]) >> a (qmath.h, nk_q_rq),
 *     SRDHM(v, m) being SMMLAR(v, m2, v): the accumulator v makes up for
 *     m2 = 2m - 2^32, and v - [v<0] folds the tie fix into it;
 *   single rounding: s = floor(v*2m / 2^32) >> a, SMMLA(v, m2, v).
 * Also exact for m = 0 with shift >= 0 (TFLite's pair for a zero scale):
 * m2 = 0 leaves the high word about v, and a = ~shift >= 224 as a
 * register shift gives s = 0 or -1, so 0. */
static inline int32_t nk_dsp_rq_half(int32_t v, int32_t m2, int32_t a) {
#if NETKIT_SINGLE_ROUNDING
    const int32_t h = nk_dsp_smmla(v, m2, v);
#else
    const int32_t h = nk_dsp_smmlar(v, m2, (int32_t)((uint32_t)v - ((uint32_t)v >> 31)));
#endif
    return nk_dsp_asr(h, a);
}

/* Two outputs s0, s1 of nk_dsp_rq_half finished as int16 lanes:
 * (s + 1) >> 1 plus the zero point zp, saturated to -128..127, with
 * zp1 = 2*zp + 1 in both lanes ((s + 2zp + 1) >> 1 by SHADD16). Exact
 * before the clamp to the activation range, which takes -128..127: s is
 * first saturated to int16, which moves no value across that range. */
static inline int32_t nk_dsp_half_zp(int32_t s0, int32_t s1, int32_t zp1) {
    return nk_dsp_ssat16_8(nk_dsp_shadd16(nk_dsp_pack16(nk_dsp_ssat16(s0), nk_dsp_ssat16(s1)), zp1));
}

/* One output of nk_dsp_rq_half finished alone: (s + zp1) >> 1 saturated
 * to int8, the sum saturated to int32 first; the same value as
 * nk_dsp_half_zp's lanes (an s outside int16 saturates either way). */
static inline int32_t nk_dsp_half_zp1(int32_t s, int32_t zp1) {
    return nk_dsp_ssat8_half(nk_dsp_qadd(s, zp1));
}

/* v in both int16 lanes (the input offset added by SXTAB16). */
static inline int32_t nk_dsp_dup16(int32_t v) {
    return (int32_t)(((uint32_t)v & 0xFFFFu) * 0x10001u);
}

/* The int8 epilogue's parameters, read once per kernel call by the conv,
 * dense and depthwise kernels. The bias is not here: the blocks start
 * their accumulators from it. */
typedef struct nk_dsp_epi {
    const nk_ref_i8_quant *q;
    const int32_t *mult, *shift;
    int32_t cmask;    /* channel c's pair is at c & cmask (-1, or 0 per tensor) */
    int32_t fast;     /* every pair suits nk_dsp_rq_half */
    int32_t zp1;      /* 2*out_zp + 1 in both int16 lanes */
    int32_t lo4, hi4; /* act_min, act_max in the four int8 lanes */
} nk_dsp_epi;

static inline nk_dsp_epi nk_dsp_epi_make(const nk_ref_i8_quant *q, int32_t out_c) {
    nk_dsp_epi e;
    e.q = q;
    e.mult = q->mult;
    e.shift = q->shift;
    e.cmask = q->per_channel ? -1 : 0;
    e.fast = (q->rq_right != 0 ? q->rq_right : nk_i8_rq_right(q, out_c)) > 0;
    e.zp1 = nk_dsp_dup16(2 * q->out_zp + 1);
    e.lo4 = nk_dsp_dup8(q->act_min);
    e.hi4 = nk_dsp_dup8(q->act_max);
    return e;
}

/* Channel c's (m2, a) pair for nk_dsp_rq_half. */
static inline void nk_dsp_epi_pair(const nk_dsp_epi *e, int32_t c, int32_t *m2, int32_t *a) {
    const int32_t k = c & e->cmask;
    *m2 = (int32_t)((uint32_t)e->mult[k] << 1);
    *a = ~e->shift[k];
}

#endif /* NK_DSP_H */

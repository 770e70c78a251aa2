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
#else /* exact C emulation */

static inline int32_t nk_dsp_load4(const int8_t *p) {
    const uint8_t *b = (const uint8_t *)p;
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24);
}
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
#endif

/* v in both int16 lanes (the input offset added by SXTAB16). */
static inline int32_t nk_dsp_dup16(int32_t v) {
    return (int32_t)(((uint32_t)v & 0xFFFFu) * 0x10001u);
}

#endif /* NK_DSP_H */

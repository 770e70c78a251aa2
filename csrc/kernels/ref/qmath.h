/*
 * qmath.h — the integer fixed-point primitives every int8 kernel shares.
 *
 * These reproduce, bit for bit, the arithmetic of TFLite's int8 reference
 * kernels and of CMSIS-NN (docs/INT8.md, facts from gemmlowp's fixed-point
 * semantics and the TFLite quantization spec). Notation: a "Qm.n" value is
 * an int32 whose real value is raw / 2^n, with m integer bits (m + n = 31).
 *
 * Rounding modes of the requantization, chosen at build time:
 *   NETKIT_SINGLE_ROUNDING undefined or 0  double rounding (TFLite's default)
 *   NETKIT_SINGLE_ROUNDING=1               single rounding (TFLITE_SINGLE_ROUNDING=1,
 *                                          CMSIS_NN_USE_SINGLE_ROUNDING)
 * The two differ by one on about 0.8% of outputs; a model must be run in
 * the mode its reference used. Both variants are always compiled so tests
 * can check them side by side; nk_q_requantize() is the build's choice.
 *
 * Everything here is defined behaviour in C99 for every input: left shifts
 * go through uint32_t, right shifts of negative values are written as
 * floor divisions, so UBSan stays quiet and results do not depend on the
 * compiler's choice for `>>` of negative numbers.
 */
#ifndef NK_QMATH_H
#define NK_QMATH_H

#include <stdint.h>

#ifndef NETKIT_SINGLE_ROUNDING
#define NETKIT_SINGLE_ROUNDING 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define NK_QMATH_HIDDEN __attribute__((visibility("hidden")))
#else
#define NK_QMATH_HIDDEN
#endif

/* floor(x / 2^e) for e in [0, 31]: an arithmetic right shift, spelled so it
 * is portable for negative x (~x is non-negative when x is negative). */
static inline int32_t nk_q_asr32(int32_t x, int e) {
    return x >= 0 ? (x >> e) : ~((~x) >> e);
}

/* floor(x / 2^e) for e in [0, 63]. */
static inline int64_t nk_q_asr64(int64_t x, int e) {
    return x >= 0 ? (x >> e) : ~((~x) >> e);
}

/* x * 2^e with two's complement wrap-around (the int32 multiply TFLite and
 * CMSIS do before the high multiply; callers keep it in range). e in [0, 31]. */
static inline int32_t nk_q_shl_wrap(int32_t x, int e) {
    return (int32_t)((uint32_t)x << e);
}

/* Saturating rounding doubling high multiply (gemmlowp, Arm VQRDMULH):
 * floor((a*b + 2^30) / 2^31), i.e. a*b/2^31 rounded half up, and the one
 * overflow case a == b == INT32_MIN saturating to INT32_MAX. */
static inline int32_t nk_q_srdhm(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    return (int32_t)nk_q_asr64((int64_t)a * (int64_t)b + ((int64_t)1 << 30), 31);
}

/* Rounding divide by 2^e, e in [0, 31], ties away from zero (gemmlowp
 * RoundingDivideByPOT): the remainder is compared with half the divisor,
 * nudged by one for negative x so that -2.5 goes to -3. */
static inline int32_t nk_q_rdbpot(int32_t x, int e) {
    const int32_t mask = (int32_t)(((uint32_t)1 << e) - 1u);
    const int32_t rem = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return nk_q_asr32(x, e) + (rem > threshold ? 1 : 0);
}

/* x * 2^e saturated to int32, e in [0, 31] (gemmlowp
 * SaturatingRoundingMultiplyByPOT with a positive exponent). */
static inline int32_t nk_q_sat_shl(int32_t x, int e) {
    const int32_t threshold = (int32_t)(0x7FFFFFFFu >> e);
    if (x > threshold)
        return INT32_MAX;
    if (x < -threshold)
        return INT32_MIN;
    return nk_q_shl_wrap(x, e);
}

/* Requantize an int32 accumulator by the Q0.31 multiplier m (in
 * [2^30, 2^31-1], or 0) and shift (in [-31, 30], positive = left):
 * TFLite MultiplyByQuantizedMultiplier.
 *
 * Double rounding: SRDHM(val * 2^max(shift,0), m) then rounding divide by
 * 2^max(-shift,0). val * 2^left wraps if it overflows, as the C/C++ int
 * multiply does on every target; the converter keeps it in range. */
static inline int32_t nk_q_requantize_dr(int32_t val, int32_t m, int32_t shift) {
    const int left = shift > 0 ? (int)shift : 0;
    const int right = shift > 0 ? 0 : (int)-shift;
    return nk_q_rdbpot(nk_q_srdhm(nk_q_shl_wrap(val, left), m), right);
}

/* Single rounding: (val*m + 2^(30-shift)) / 2^(31-shift), floored, in int64.
 * A result outside int32 wraps (TFLite casts; its check is debug only). */
static inline int32_t nk_q_requantize_sr(int32_t val, int32_t m, int32_t shift) {
    const int total = 31 - (int)shift;
    const int64_t round = (int64_t)1 << (total - 1);
    return (int32_t)(uint32_t)(uint64_t)nk_q_asr64((int64_t)val * (int64_t)m + round, total);
}

/* The same two requantizations prepared once per (m, shift), for kernels
 * that apply one channel's pair to many accumulators. Both are exactly
 * nk_q_requantize_dr / _sr for every int32 input (the functions above are
 * the oracle), in one 32x32->64 multiply-accumulate and three shifts:
 *
 * Double rounding. x = SRDHM(v, m) = floor((v*2m + 2^31) / 2^32) is the
 * high word of v*m2 + (v << 32 | 2^31), m2 = 2m read as int32 (2m - 2^32;
 * m < 2^31). The rounding divide by 2^e, e >= 1, ties away from zero, is
 * floor((x - [x<0] + 2^(e-1)) / 2^e) = (((x - [x<0]) >> (e-1)) + 1) >> 1,
 * which cannot overflow (|x| < 2^31 - 1). [x<0] equals [v<0] except for
 * x = 0 (m = 0, or v = -1 and m = 2^30), where both give 0; so it is taken
 * from v and subtracted in the high word before the multiply.
 *
 * Single rounding, shift = -e <= 0: floor((v*m + 2^(30+e)) / 2^(31+e)) is
 * ((floor(v*2m / 2^32) >> (e-1)) + 1) >> 1 for e >= 1, and the high word
 * of v*2m + 2^31 for e = 0. A positive shift (a multiplier above one,
 * rare) takes nk_q_requantize_sr itself: its wrapped result needs bits of
 * both words. m2 = 2m - 2^32 assumes m >= 2^30; m = 0 (result 0) gets
 * shifts that give 0 from any high word. Preparing costs a few
 * instructions, applying nine on Cortex-M4 (SMLAL). */
typedef struct nk_q_rq {
    int32_t m2;   /* 2m modulo 2^32, as int32 */
    int32_t left; /* double: the left shift; single: the shift when > 0 */
    int32_t a;    /* first right shift */
    int32_t b;    /* 1: round the last bit away (e >= 1), else 0 */
    uint32_t lo;  /* low word of the rounding constant (2^31 or 0) */
} nk_q_rq;

static inline nk_q_rq nk_q_rq_make_dr(int32_t m, int32_t shift) {
    /* m = 0 (m - 1 < 0): a = 31, b = 1, and ((h >> 31) + 1) >> 1 is 0
     * for every h, whatever the rest computes */
    const int32_t zero = (int32_t)((uint32_t)(m - 1) >> 31);
    nk_q_rq r;
    r.m2 = (int32_t)((uint32_t)m << 1);
    r.left = shift > 0 ? shift : 0;
    r.a = (shift < 0 ? -shift - 1 : 0) | (zero * 31);
    r.b = (int32_t)((uint32_t)shift >> 31) | zero;
    r.lo = 0x80000000u;
    return r;
}

static inline nk_q_rq nk_q_rq_make_sr(int32_t m, int32_t shift) {
    nk_q_rq r = nk_q_rq_make_dr(m, shift);
    r.lo = shift == 0 ? 0x80000000u : 0u;
    return r;
}

/* The high word of hi:lo + v*m2, then the two rounding shifts. */
static inline int32_t nk_q_rq_tail(uint32_t v, uint32_t hi, uint32_t lo, int32_t m2, int32_t a,
                                   int32_t b) {
    const uint64_t t = ((uint64_t)hi << 32 | lo) + (uint64_t)((int64_t)(int32_t)v * m2);
    const int32_t h = (int32_t)(uint32_t)(t >> 32);
    return nk_q_asr32(nk_q_asr32(h, (int)a) + b, (int)b);
}

static inline int32_t nk_q_rq_dr(const nk_q_rq *r, int32_t val) {
    const uint32_t v = (uint32_t)val << r->left;
    return nk_q_rq_tail(v, v - ((uint32_t)r->b & (v >> 31)), 0x80000000u, r->m2, r->a, r->b);
}

static inline int32_t nk_q_rq_sr(const nk_q_rq *r, int32_t val) {
    if (r->left)
        return nk_q_requantize_sr(val, (int32_t)((uint32_t)r->m2 >> 1), r->left);
    return nk_q_rq_tail((uint32_t)val, (uint32_t)val, r->lo, r->m2, r->a, r->b);
}

/* The build's requantization (see the rounding modes above): prepared,
 * applied, and in one go. */
static inline nk_q_rq nk_q_rq_make(int32_t m, int32_t shift) {
#if NETKIT_SINGLE_ROUNDING
    return nk_q_rq_make_sr(m, shift);
#else
    return nk_q_rq_make_dr(m, shift);
#endif
}

static inline int32_t nk_q_rq_apply(const nk_q_rq *r, int32_t val) {
#if NETKIT_SINGLE_ROUNDING
    return nk_q_rq_sr(r, val);
#else
    return nk_q_rq_dr(r, val);
#endif
}

static inline int32_t nk_q_requantize(int32_t val, int32_t m, int32_t shift) {
    const nk_q_rq r = nk_q_rq_make(m, shift);
    return nk_q_rq_apply(&r, val);
}

/* The build's requantization for a multiplier anywhere in [0, 2^31): the
 * prepared form above needs m >= 2^30 or 0 (MEAN's folded multiplier is
 * not normalized). */
static inline int32_t nk_q_requantize_any(int32_t val, int32_t m, int32_t shift) {
#if NETKIT_SINGLE_ROUNDING
    return nk_q_requantize_sr(val, m, shift);
#else
    return nk_q_requantize_dr(val, m, shift);
#endif
}

/* Clamp to [lo, hi] (quantized activation range, int8 cast). */
static inline int32_t nk_q_clamp(int32_t v, int32_t lo, int32_t hi) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* clamp(r + zp, lo, hi) for zp, lo, hi in -128..127 (the validators'
 * ranges), without overflow: r is first saturated to [-2^24, 2^24), which
 * changes no outcome (one SSAT on Arm). */
static inline int8_t nk_q_zp_clamp_s8(int32_t r, int32_t zp, int32_t lo, int32_t hi) {
    r = (r < -(1 << 24) ? -(1 << 24) : r > (1 << 24) - 1 ? (1 << 24) - 1 : r) + zp;
    return (int8_t)nk_q_clamp(r, lo, hi);
}

/* The int8 output epilogue of conv, depthwise, dense, add, mul and
 * requantize: requantize, then add the output zero point, then clamp (in
 * that order). TFLite's int32 addition overflows for a requantized value
 * within 128 of INT32_MIN or INT32_MAX; the result here is the clamp of
 * the exact sum, and equal everywhere else. */
static inline int8_t nk_q_out_s8(int32_t acc, int32_t m, int32_t shift, int32_t out_zp,
                                 int32_t act_min, int32_t act_max) {
    return nk_q_zp_clamp_s8(nk_q_requantize(acc, m, shift), out_zp, act_min, act_max);
}

/* Rounded average of an int8 pool window: ties away from zero with C's
 * truncating division. count > 0. On the magnitude in 32 unsigned bits
 * (|sum| + count / 2 < 2^32: a window of 2^24 taps of -128 sums to
 * INT32_MIN), so firmware links no 64-bit division. */
static inline int32_t nk_q_round_div(int32_t sum, int32_t count) {
    const uint32_t mag = sum >= 0 ? (uint32_t)sum : 0u - (uint32_t)sum;
    const uint32_t q = (mag + (uint32_t)count / 2u) / (uint32_t)count;
    return (int32_t)(sum >= 0 ? q : 0u - q);
}

/* Leading zero bits of a 32-bit word (32 for 0). */
NK_QMATH_HIDDEN int nk_q_clz32(uint32_t x);

/* exp(a) for a <= 0 given in Q(ib).(31-ib), ib in [0, 6]; result in Q0.31
 * (gemmlowp exp_on_negative_values). exp(0) is INT32_MAX. Softmax uses
 * ib = 5, tanh ib = 5, logistic ib = 4. */
NK_QMATH_HIDDEN int32_t nk_q_exp_neg(int32_t a, int ib);

/* 1 / (1 + a) for a in [0, 1) in Q0.31; result in Q0.31 (three
 * Newton-Raphson steps from 48/17 - 32/17 * d). */
NK_QMATH_HIDDEN int32_t nk_q_one_over_one_plus_x(int32_t a);

/* (1 - a) / (1 + a) for a in [0, 1) in Q0.31; result in Q0.31. */
NK_QMATH_HIDDEN int32_t nk_q_one_minus_x_over_one_plus_x(int32_t a);

/* Logistic of a Q4.27 value, result Q0.31 (1.0 saturates to INT32_MAX). */
NK_QMATH_HIDDEN int32_t nk_q_logistic_q4(int32_t a);

/* tanh of a Q4.27 value, result Q0.31. */
NK_QMATH_HIDDEN int32_t nk_q_tanh_q4(int32_t a);

/* Softmax reciprocal of a Q12.19 sum of exps (sum > 0): the Q0.31 scale
 * 1/(sum normalised to [1,2)) and the extra power-of-two bits over one
 * (TFLite GetReciprocal with 12 integer bits). */
NK_QMATH_HIDDEN int32_t nk_q_softmax_reciprocal(int32_t sum, int *bits_over_unit);

/* One int8 softmax row, TFLite's reference: out_bits 8 writes int8 (scale
 * 1/256, zero point -128), 16 writes int16 (scale 1/65536, zero point
 * -32768); mult/shift/diff_min as the converter computes them from beta and
 * the input scale (docs/INT8.md). n >= 1; an int8 y may equal x. */
NK_QMATH_HIDDEN void nk_q_softmax_row(const int8_t *x, void *y, int32_t n, int32_t mult,
                                      int32_t shift, int32_t diff_min, int out_bits);

/* Element-wise int8 logistic and tanh (TFLite reference_integer_ops):
 * input zero point, range radius, Q0.31 multiplier and left shift from the
 * converter. Logistic output: scale 1/256, zero point -128; tanh output:
 * scale 1/128, zero point 0. */
NK_QMATH_HIDDEN int8_t nk_q_logistic_s8(int8_t x, int32_t in_zp, int32_t radius, int32_t mult,
                                        int32_t shift);
NK_QMATH_HIDDEN int8_t nk_q_tanh_s8(int8_t x, int32_t in_zp, int32_t radius, int32_t mult,
                                    int32_t shift);

#endif /* NK_QMATH_H */

/*
 * qmath.c — the larger fixed-point functions of qmath.h: exp on negative
 * values, the Newton-Raphson reciprocals, logistic, tanh and the int8
 * softmax row. Constants are the Q0.31 / Q2.29 encodings of the real
 * numbers named next to them.
 */
#include "qmath.h"

/* Plain int32 addition and subtraction that wrap like the hardware does
 * (the fixed-point code this mirrors adds without saturation). */
static inline int32_t nk_q_add(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}
static inline int32_t nk_q_sub(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

int nk_q_clz32(uint32_t x) {
    int n = 0;
    if (x == 0)
        return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* exp(a) for a in [-1/4, 0), a in Q0.31: Taylor series around -1/8. */
static int32_t nk_q_exp_quarter(int32_t a) {
    const int32_t exp_minus_one_eighth = 1895147668; /* exp(-1/8) */
    const int32_t one_third = 715827883;             /* 1/3 */
    const int32_t x = nk_q_add(a, 1 << 28);          /* a + 1/8 */
    const int32_t x2 = nk_q_srdhm(x, x);
    const int32_t x3 = nk_q_srdhm(x2, x);
    const int32_t x4 = nk_q_srdhm(x2, x2);
    const int32_t x4_over_4 = nk_q_rdbpot(x4, 2);
    /* x^4/24 + x^3/6 + x^2/2 */
    const int32_t poly =
        nk_q_rdbpot(nk_q_add(nk_q_srdhm(nk_q_add(x4_over_4, x3), one_third), x2), 1);
    return nk_q_add(exp_minus_one_eighth,
                    nk_q_srdhm(exp_minus_one_eighth, nk_q_add(x, poly)));
}

int32_t nk_q_exp_neg(int32_t a, int ib) {
    /* exp(-2^k) for k = -2..4 in Q0.31 */
    static const int32_t exp_neg_pow2[7] = {1672461947, 1302514674, 790015084, 290630308,
                                            39332535,   720401,     242};
    const int frac = 31 - ib;
    const int32_t quarter = (int32_t)1 << (frac - 2);
    /* a mod 1/4 - 1/4, in [-1/4, 0) */
    const int32_t q = nk_q_sub(a & (quarter - 1), quarter);
    const int32_t remainder = nk_q_sub(q, a); /* the multiple of 1/4 left to apply */
    int32_t r = nk_q_exp_quarter(nk_q_sat_shl(q, ib));
    int k;
    for (k = 0; k < 7; k++) {
        const int exponent = k - 2;
        if (ib > exponent && (remainder & ((int32_t)1 << (frac + exponent))))
            r = nk_q_srdhm(r, exp_neg_pow2[k]);
    }
    if (ib > 5 && a < -((int32_t)1 << (36 - ib))) /* below -32: exp underflows */
        r = 0;
    if (a == 0)
        r = INT32_MAX;
    return r;
}

/* Shared Newton-Raphson for 1/(1+a): x in Q2.29 converges to 1/d where
 * d = (1+a)/2 in [1/2, 1) is the Q0.31 half denominator. */
static int32_t nk_q_newton_reciprocal(int32_t a) {
    const int64_t sum = (int64_t)a + INT32_MAX; /* a + 1.0 */
    const int32_t half_den = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int32_t x = nk_q_add(1515870810, nk_q_srdhm(half_den, -1010580540)); /* 48/17 - 32/17 d */
    int i;
    for (i = 0; i < 3; i++) {
        const int32_t one_minus_dx = nk_q_sub(1 << 29, nk_q_srdhm(half_den, x));
        x = nk_q_add(x, nk_q_sat_shl(nk_q_srdhm(x, one_minus_dx), 2));
    }
    return x;
}

int32_t nk_q_one_over_one_plus_x(int32_t a) {
    /* 1/(1+a) = (1/d)/2: Q2.29 halved is Q1.30, shifted by one into Q0.31 */
    return nk_q_sat_shl(nk_q_newton_reciprocal(a), 1);
}

int32_t nk_q_one_minus_x_over_one_plus_x(int32_t a) {
    /* (1-a)/(1+a) = 1/d - 1 */
    return nk_q_sat_shl(nk_q_sub(nk_q_newton_reciprocal(a), 1 << 29), 2);
}

int32_t nk_q_logistic_q4(int32_t a) {
    int32_t neg_abs, pos;
    if (a == 0)
        return 1 << 30; /* 1/2 */
    neg_abs = a > 0 ? nk_q_sub(0, a) : a;
    pos = nk_q_one_over_one_plus_x(nk_q_exp_neg(neg_abs, 4)); /* logistic(|a|) */
    return a > 0 ? pos : nk_q_sub(INT32_MAX, pos);
}

int32_t nk_q_tanh_q4(int32_t a) {
    int32_t neg_abs, t;
    if (a == 0)
        return 0;
    neg_abs = a < 0 ? a : nk_q_sub(0, a);
    /* the same raw read with 5 integer bits is 2*neg_abs: exp(-2|a|) */
    t = nk_q_one_minus_x_over_one_plus_x(nk_q_exp_neg(neg_abs, 5)); /* tanh(|a|) */
    return a < 0 ? nk_q_sub(0, t) : t;
}

int32_t nk_q_softmax_reciprocal(int32_t sum, int *bits_over_unit) {
    const int headroom = nk_q_clz32((uint32_t)sum);
    /* sum * 2^headroom is in [1, 2) in Q1.31 terms; minus one gives Q0.31.
     * A row of 8192 equal maxima wraps the sum to 0 (headroom 32): shifted,
     * 0 stays 0 on every target, written without the undefined shift. */
    const uint32_t shifted = headroom < 32 ? (uint32_t)sum << headroom : 0u;
    const int32_t shifted_minus_one = (int32_t)(shifted - 0x80000000u);
    *bits_over_unit = 12 - headroom;
    return nk_q_one_over_one_plus_x(shifted_minus_one);
}

void nk_q_softmax_row(const int8_t *x, void *y, int32_t n, int32_t mult, int32_t shift,
                      int32_t diff_min, int out_bits) {
    /* the output's zero point and range: -2^(bits-1) .. 2^(bits-1)-1 */
    const int32_t lo = out_bits == 16 ? -32768 : -128, hi = -lo - 1;
    int32_t i, mx = x[0], sum = 0, scale;
    int bits_over_unit, out_shift;
    for (i = 1; i < n; i++)
        mx = x[i] > mx ? x[i] : mx;
    for (i = 0; i < n; i++) {
        const int32_t d = (int32_t)x[i] - mx;
        if (d >= diff_min) {
            /* scaled difference in Q5.26; the sum of exps in Q12.19 */
            const int32_t s = nk_q_srdhm(nk_q_shl_wrap(d, (int)shift), mult);
            sum = nk_q_add(sum, nk_q_rdbpot(nk_q_exp_neg(s, 5), 12));
        }
    }
    scale = nk_q_softmax_reciprocal(sum, &bits_over_unit);
    out_shift = bits_over_unit + 31 - out_bits;
    /* second pass writes y, which may alias x (int8 output): read each x[i] first */
    for (i = 0; i < n; i++) {
        const int32_t d = (int32_t)x[i] - mx;
        int32_t v = lo;
        if (d >= diff_min) {
            const int32_t s = nk_q_srdhm(nk_q_shl_wrap(d, (int)shift), mult);
            /* rows of 512+ equal maxima push out_shift past 31, where the
             * Q0.31 product divided by 2^32 or more rounds to 0 */
            const int32_t p = nk_q_srdhm(scale, nk_q_exp_neg(s, 5));
            v = nk_q_clamp((out_shift > 31 ? 0 : nk_q_rdbpot(p, out_shift)) + lo, lo, hi);
        }
        if (out_bits == 16)
            ((int16_t *)y)[i] = (int16_t)v;
        else
            ((int8_t *)y)[i] = (int8_t)v;
    }
}

int8_t nk_q_logistic_s8(int8_t x, int32_t in_zp, int32_t radius, int32_t mult, int32_t shift) {
    const int32_t in = (int32_t)x - in_zp;
    int32_t v;
    if (in <= -radius)
        return -128;
    if (in >= radius)
        return 127;
    /* Q0.31 result to 1/256 steps (31 - 8 = 23 bits), zero point -128 */
    v = nk_q_rdbpot(nk_q_logistic_q4(nk_q_requantize(in, mult, shift)), 23) - 128;
    return (int8_t)nk_q_clamp(v, -128, 127);
}

int8_t nk_q_tanh_s8(int8_t x, int32_t in_zp, int32_t radius, int32_t mult, int32_t shift) {
    const int32_t in = (int32_t)x - in_zp;
    int32_t v;
    if (in <= -radius)
        return -128;
    if (in >= radius)
        return 127;
    /* Q0.31 result to 1/128 steps (31 - 7 = 24 bits), zero point 0 */
    v = nk_q_rdbpot(nk_q_tanh_q4(nk_q_requantize(in, mult, shift)), 24);
    return (int8_t)nk_q_clamp(v, -128, 127);
}

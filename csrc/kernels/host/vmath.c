/*
 * vmath.c — vectorized exp, erf, tanh, sigmoid, GELU and softmax (vmath.h).
 *
 * Written once over host_isa.h's vector vocabulary (nk_vf of NK_VL floats,
 * GCC/Clang vector extensions plus nk_vfma), so every lane runs the same
 * operations on every ISA level. Branches become lane selects: each lane
 * computes every candidate formula and keeps one; clamps are written so a
 * NaN lane fails the comparison and stays NaN.
 *
 * The polynomial coefficients are minimax fits made by vmath_fit.py (next to
 * this file; mpmath Remez, weights stated there). docs/HOST_MATH.md has the
 * designs and the measured errors.
 */
#include "host_isa.h"
#include "vmath.h"

#include <math.h> /* INFINITY */

/* file-local names, suffixed per level (host_isa.h) */
#define nk_vm_vi NK_HOST_FN(nk_vm_vi)
#define vm_exp_parts NK_HOST_FN(vm_exp_parts)
#define vm_select NK_HOST_FN(vm_select)
#define vm_abs NK_HOST_FN(vm_abs)
#define vm_copysign NK_HOST_FN(vm_copysign)
#define vm_min_keep_nan NK_HOST_FN(vm_min_keep_nan)
#define vm_c NK_HOST_FN(vm_c)
#define vm_exp_poly NK_HOST_FN(vm_exp_poly)
#define vm_exp_scale NK_HOST_FN(vm_exp_scale)
#define vm_exp2 NK_HOST_FN(vm_exp2)
#define vm_exp NK_HOST_FN(vm_exp)
#define vm_exp_square NK_HOST_FN(vm_exp_square)
#define vm_sigmoid_lo NK_HOST_FN(vm_sigmoid_lo)
#define vm_sigmoid NK_HOST_FN(vm_sigmoid)
#define vm_tanh NK_HOST_FN(vm_tanh)
#define vm_erf NK_HOST_FN(vm_erf)
#define vm_gelu_erf NK_HOST_FN(vm_gelu_erf)
#define vm_gelu_tanh NK_HOST_FN(vm_gelu_tanh)

/* Lanes as int32 bit patterns: bit tricks and select masks. Comparisons of
 * nk_vf yield this type (all ones / zero per lane). */
typedef int32_t nk_vm_vi __attribute__((vector_size(sizeof(nk_vf))));

static inline nk_vf vm_select(nk_vm_vi mask, nk_vf a, nk_vf b) {
    return (nk_vf)((mask & (nk_vm_vi)a) | (~mask & (nk_vm_vi)b));
}
static inline nk_vf vm_abs(nk_vf x) { return (nk_vf)((nk_vm_vi)x & 0x7fffffff); }
/* |a| with the sign of s */
static inline nk_vf vm_copysign(nk_vf a, nk_vf s) {
    return (nk_vf)((nk_vm_vi)vm_abs(a) | ((nk_vm_vi)s & (int32_t)0x80000000u));
}
/* x > hi ? hi : x — a NaN x stays NaN */
static inline nk_vf vm_min_keep_nan(nk_vf x, float hi) {
    return vm_select(x > hi, nk_vdup(hi), x);
}
static inline nk_vf vm_c(float c) { return nk_vdup(c); }

/* ---- exp ----
 * exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 in [-ln2/2, ln2/2]
 * (the product n ln 2 is exact inside the fma, ln 2's low part in a second
 * fma). exp(r) = 1 + r + r^2 P(r), P of degree 4 (relative error of the fit
 * 3.3e-9). 2^n is applied as two factors 2^(n/2) 2^(n - n/2), so results in
 * the denormal range round once, like libm's, and n = 128 overflows to inf.
 * Rounding to an integer adds 1.5 * 2^23: the sum's low mantissa bits are
 * then n itself. */
#define VM_SHIFTER 12582912.0f /* 1.5 * 2^23 */
#define VM_SHIFTER_BITS 0x4b400000
#define VM_LOG2E 1.44269502f
#define VM_LN2_HI 0.693147182f     /* float(ln 2) */
#define VM_LN2_LO -1.90465421e-09f /* ln 2 - VM_LN2_HI */

typedef struct vm_exp_parts {
    nk_vf m, s;
} vm_exp_parts;

/* exp(r) for |r| <= 0.36: 1 + r (1 + r P(r)) */
static inline nk_vf vm_exp_poly(nk_vf r) {
    nk_vf q = nk_vfma(vm_c(1.381314546e-03f), r, vm_c(8.369418837e-03f));
    q = nk_vfma(q, r, vm_c(4.166845677e-02f));
    q = nk_vfma(q, r, vm_c(1.666651479e-01f));
    q = nk_vfma(q, r, vm_c(4.999999305e-01f));
    return nk_vfma(nk_vfma(q, r, vm_c(1.0f)), r, vm_c(1.0f));
}

/* exp(r) 2^n as two factors m * s: m = exp(r) 2^(n/2) is a normal float
 * and s = 2^(n - n/2). A caller that scales the result (sigmoid, erf)
 * multiplies m first and s last, so a denormal result is rounded once;
 * rounding exp first and then scaling by |x| > 1 would scale its rounding
 * error too. kf = n + VM_SHIFTER, |r| <= 0.36, n in [-252, 128]. */
static inline vm_exp_parts vm_exp_scale(nk_vf kf, nk_vf r) {
    const nk_vf q = vm_exp_poly(r);
    nk_vm_vi n, n1;
    vm_exp_parts e;
    n = (nk_vm_vi)kf - VM_SHIFTER_BITS;
    n1 = n >> 1;
    e.m = q * (nk_vf)((n1 + 127) << 23);
    e.s = (nk_vf)((n - n1 + 127) << 23);
    return e;
}

/* exp(x + xlo) for a small correction xlo (|xlo| <~ 1e-5; 0 for plain exp).
 * x is clamped to [-120, 89]: exp(89) is inf, and exp(-120) stays 0 even
 * after a scale factor up to 2^20 (vm_sigmoid_lo). */
static inline vm_exp_parts vm_exp2(nk_vf x, nk_vf xlo) {
    nk_vf kf, nf, r;
    x = vm_min_keep_nan(x, 89.0f);
    x = vm_select(x < -120.0f, vm_c(-120.0f), x);
    kf = nk_vfma(x, vm_c(VM_LOG2E), vm_c(VM_SHIFTER));
    nf = kf - VM_SHIFTER;
    r = nk_vfma(nf, vm_c(-VM_LN2_HI), x);
    r = nk_vfma(nf, vm_c(-VM_LN2_LO), r) + xlo;
    return vm_exp_scale(kf, r);
}
static inline nk_vf vm_exp(nk_vf x) {
    const vm_exp_parts e = vm_exp2(x, vm_c(0.0f));
    return e.m * e.s;
}

/* exp(q - h - l), where h + l = t^2 exactly (h = t*t, l its fma residual),
 * 0 <= h <= 120 and |q| <= 2. h enters the reduction exactly: the fma
 * forms -h - n ln 2 without rounding h + q first, which would lose up to
 * 2^-18 of absolute accuracy at h ~ 100. */
static inline vm_exp_parts vm_exp_square(nk_vf h, nk_vf l, nk_vf q) {
    const nk_vf kf = nk_vfma(q - h, vm_c(VM_LOG2E), vm_c(VM_SHIFTER));
    const nk_vf nf = kf - VM_SHIFTER;
    const nk_vf r = (nk_vfma(nf, vm_c(-VM_LN2_HI), -h) + q) + nk_vfma(nf, vm_c(-VM_LN2_LO), -l);
    return vm_exp_scale(kf, r);
}

/* ---- sigmoid ----
 * e = exp(-|x|) never overflows; sigmoid(x) = 1 / (1 + e) for x >= 0 and
 * e / (1 + e) for x < 0, so tiny results keep their relative accuracy down
 * into the denormals (1 / (1 + exp(-x)) would give 0 below x = -88.7).
 * vm_sigmoid_lo returns scale * sigmoid(x + xlo), the scale applied before
 * the last rounding. */
static inline nk_vf vm_sigmoid_lo(nk_vf x, nk_vf xlo, nk_vf scale) {
    const nk_vm_vi neg = x < 0.0f;
    const vm_exp_parts e = vm_exp2(-vm_abs(x), vm_select(neg, xlo, -xlo));
    const nk_vf d = scale / (1.0f + e.m * e.s);
    return vm_select(neg, d * e.m * e.s, d);
}
static inline nk_vf vm_sigmoid(nk_vf x) { return vm_sigmoid_lo(x, vm_c(0.0f), vm_c(1.0f)); }

/* ---- tanh ----
 * |x| < 0.55: x + x s P(s), s = x^2, P of degree 4 (odd minimax of degree
 * 11, relative error 9.4e-10). Beyond: 1 - 2 / (exp(2|x|) + 1), with no
 * cancellation worse than a factor 2 from 0.55 up; exp(2|x|) = inf gives 1.
 * The sign is copied back, so tanh(-0) = -0. */
static inline nk_vf vm_tanh(nk_vf x) {
    const nk_vf a = vm_abs(x);
    const nk_vf s = x * x;
    nk_vf p = nk_vfma(vm_c(-6.235559756e-03f), s, vm_c(2.103967562e-02f));
    nk_vf big;
    p = nk_vfma(p, s, vm_c(-5.384270730e-02f));
    p = nk_vfma(p, s, vm_c(1.333246075e-01f));
    p = nk_vfma(p, s, vm_c(-3.333331096e-01f));
    p = nk_vfma(x * s, p, x);
    big = 1.0f - 2.0f / (vm_exp(a + a) + 1.0f);
    return vm_select(a < 0.55f, p, vm_copysign(big, x));
}

/* ---- erf ----
 * |x| < 0.6: x P(x^2), P of degree 4 (relative error 8.1e-9).
 * 0.6 <= |x| <= 4: 1 - erfc(|x|), erfc(t) = u exp(-t^2 + Q(u)) with
 * u = 1 / (1 + t/2) and Q of degree 5 (error 1.2e-8 relative to erf; erfc
 * is at most 0.4 here, so the subtraction loses under a bit). Above 4,
 * erf rounds to 1 (erfc(4) = 1.5e-8 < half an ulp below 1). */
static inline nk_vf vm_erf(nk_vf x) {
    const nk_vf a = vm_min_keep_nan(vm_abs(x), 4.0f);
    const nk_vf s = x * x;
    const nk_vf u = 1.0f / nk_vfma(a, vm_c(0.5f), vm_c(1.0f));
    const nk_vf h = a * a;
    nk_vf p = nk_vfma(vm_c(4.512358045e-03f), s, vm_c(-2.664698640e-02f));
    nk_vf q = nk_vfma(vm_c(2.610177521e-01f), u, vm_c(-7.956654857e-01f));
    nk_vf big;
    p = nk_vfma(p, s, vm_c(1.128099173e-01f));
    p = nk_vfma(p, s, vm_c(-3.761251261e-01f));
    p = nk_vfma(p, s, vm_c(1.128379158e+00f)) * x;
    q = nk_vfma(q, u, vm_c(5.618008347e-01f));
    q = nk_vfma(q, u, vm_c(2.138733278e-01f));
    q = nk_vfma(q, u, vm_c(1.026338575e+00f));
    q = nk_vfma(q, u, vm_c(-1.267084720e+00f));
    {
        const vm_exp_parts e = vm_exp_square(h, nk_vfma(a, a, -h), q);
        big = 1.0f - u * e.m * e.s;
    }
    return vm_select(a < 0.6f, p, vm_copysign(big, x));
}

/* ---- GELU, erf form ----
 * gelu(x) = x Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2. With a = |x| and
 * E = erfc(a / sqrt 2): Phi = E/2 for x < 0 and 1 - E/2 for x >= 0, so
 * neither side cancels (x/2 (1 + erf) loses all accuracy below x = -5).
 * E = u exp(-a^2/2 + Q(u)), u = 1 / (1 + a/4), Q of degree 9 fitted over
 * a in [0, 14.6] (relative error 3.3e-8); a^2/2 enters exactly (a float
 * pair from an fma residual), since an error of 2^-24 relative in
 * a^2/2 = 100 alone would be 6e-6 in E. a is clamped to 14.6, where E/2
 * times 14.6 is below half the least denormal.
 *
 * Few operations, since the kernel is compute bound (it is a third of the
 * DW model's time): the exponent is built with a bias of 2^63 folded into
 * the rounding shifter, so 2^(n + 63) is one shift of the rounded sum's
 * bits and stays a normal float for every a <= 14.6 (n >= -156); the 2^63
 * times E/2 = u exp(..) / 2 is scaled back by 2^-64 in the last fma, so a
 * denormal result rounds once. Both signs are one formula: gelu(x) =
 * relu(x) - a E/2. */
#define VM_GELU_SHIFTER 12583102.0f /* 1.5 * 2^23 + 190: n + 190 = n + 63 + 127 */
static inline nk_vf vm_gelu_erf(nk_vf x) {
    const nk_vf a = nk_vmin(vm_c(14.6f), vm_abs(x)); /* min(c, NaN) keeps the NaN */
    const nk_vf a2 = 0.5f * a;
    const nk_vf hh = a * a2, hl = nk_vfma(a, a2, -hh); /* hh + hl = a^2/2 exactly */
    const nk_vf u = 1.0f / nk_vfma(a2, vm_c(0.5f), vm_c(1.0f));
    /* Estrin's scheme: the degree-9 polynomial in four fma levels after
     * u^2, u^4, u^8 instead of nine chained ones */
    const nk_vf u2 = u * u, u4 = u2 * u2, u8 = u4 * u4;
    const nk_vf p01 = nk_vfma(vm_c(1.002596193e+00f), u, vm_c(-1.612229815e+00f));
    const nk_vf p23 = nk_vfma(vm_c(2.751572110e-01f), u, vm_c(4.187058587e-01f));
    const nk_vf p45 = nk_vfma(vm_c(-1.142601040e-01f), u, vm_c(-2.471350857e-02f));
    const nk_vf p67 = nk_vfma(vm_c(-1.161444719e+00f), u, vm_c(6.081414014e-01f));
    const nk_vf p89 = nk_vfma(vm_c(-1.869103940e-01f), u, vm_c(7.949578435e-01f));
    const nk_vf p07 = nk_vfma(nk_vfma(p67, u2, p45), u4, nk_vfma(p23, u2, p01));
    nk_vf q = nk_vfma(p89, u8, p07);
    nk_vf kf, nf, r, t;
    /* exp(q - hh - hl) = 2^n exp(r): -hh enters the reduction exactly (the
     * fma forms -hh - n ln 2 unrounded), as in vm_exp_square */
    kf = nk_vfma(q - hh, vm_c(VM_LOG2E), vm_c(VM_GELU_SHIFTER));
    nf = kf - VM_GELU_SHIFTER;
    r = (nk_vfma(nf, vm_c(-VM_LN2_HI), -hh) + q) + nk_vfma(nf, vm_c(-VM_LN2_LO), -hl);
    /* t = 2^63 u exp(..) = 2^64 E/2: kf's low bits are n + 190, the bits
     * above them shift out */
    t = u * (vm_exp_poly(r) * (nk_vf)((nk_vm_vi)kf << 23));
    /* relu(x) - a E/2, rounded once: x - x E/2 for x >= 0; -a E/2 for
     * x < 0, where relu is x * 0 = -0 (so a result under the least
     * denormal, below -14.6 too, is -0) or NaN for -inf, as in the
     * portable kernel's x/2 (1 + erf) = -inf * 0 */
    return nk_vfma(a * t, vm_c(-0x1p-64f), vm_select(x < 0.0f, x * 0.0f, x));
}

/* ---- GELU, tanh form ----
 * x/2 (1 + tanh(z)) = x sigmoid(2z), 2z = x (C1 + C2 x^2) with
 * C1 = 2 sqrt(2/pi), C2 = 0.044715 C1. For x < 0 the result is about
 * x exp(2z), so 2z's absolute error becomes relative error; at x = -10,
 * 2z = -87, and float rounding alone would cost 1e-5. 2z is therefore
 * carried as a float pair hi + lo: x^2 and the products are split exactly
 * with fma, the sum C1 + C2 x^2 with a two-sum, the constants in two parts.
 * |x| is clamped to 20 inside (2z = -600 there: sigmoid is 0 or 1). The
 * scale x enters before the last rounding, as in vm_gelu_erf. */
#define VM_GT_C1_HI 1.59576917f      /* 2 sqrt(2/pi) */
#define VM_GT_C1_LO -4.53406805e-08f /* 2 sqrt(2/pi) - VM_GT_C1_HI */
#define VM_GT_C2_HI 7.13548139e-02f  /* 0.044715 * 2 sqrt(2/pi) */
#define VM_GT_C2_LO 2.39883247e-09f  /* its remainder */
static inline nk_vf vm_gelu_tanh(nk_vf x) {
    const nk_vf xc = vm_select(vm_abs(x) > 20.0f, vm_copysign(vm_c(20.0f), x), x);
    const nk_vf sh = xc * xc, sl = nk_vfma(xc, xc, -sh);
    /* inner = C1 + C2 s as ih + il */
    const nk_vf wh = VM_GT_C2_HI * sh, wl = nk_vfma(vm_c(VM_GT_C2_HI), sh, -wh);
    const nk_vf ih = VM_GT_C1_HI + wh;
    const nk_vf bv = ih - VM_GT_C1_HI; /* two-sum of C1_HI + wh */
    const nk_vf e1 = (VM_GT_C1_HI - (ih - bv)) + (wh - bv);
    const nk_vf il = e1 + wl + VM_GT_C1_LO + nk_vfma(vm_c(VM_GT_C2_HI), sl, VM_GT_C2_LO * sh);
    /* 2z = xc (ih + il) as zh + zl */
    const nk_vf zh = xc * ih;
    const nk_vf zl = nk_vfma(xc, ih, -zh) + xc * il;
    /* below -20: -0, or NaN for -inf as in the portable kernel */
    return vm_select(x < -20.0f, x * 0.0f, vm_sigmoid_lo(zh, zl, x));
}

/* ---- array kernels ---- */
#define VM_MAP(fn, x, y, n)                                                               \
    do {                                                                                  \
        size_t i_;                                                                        \
        for (i_ = 0; i_ + NK_VL <= (n); i_ += NK_VL)                                      \
            nk_vstore((y) + i_, fn(nk_vload((x) + i_)));                                  \
        if (i_ < (n))                                                                     \
            nk_vstore_n((y) + i_, fn(nk_vload_n((x) + i_, (n) - i_)), (n) - i_);          \
    } while (0)

void NK_HOST_FN(nk_host_exp_f32)(const float *x, float *y, size_t n) { VM_MAP(vm_exp, x, y, n); }
void NK_HOST_FN(nk_host_erf_f32)(const float *x, float *y, size_t n) { VM_MAP(vm_erf, x, y, n); }
void NK_HOST_FN(nk_host_tanh_f32)(const float *x, float *y, size_t n) {
    VM_MAP(vm_tanh, x, y, n);
}
void NK_HOST_FN(nk_host_sigmoid_f32)(const float *x, float *y, size_t n) {
    VM_MAP(vm_sigmoid, x, y, n);
}
void NK_HOST_FN(nk_host_gelu_f32)(const float *x, float *y, size_t n, int32_t approximate) {
    if (approximate)
        VM_MAP(vm_gelu_tanh, x, y, n);
    else
        VM_MAP(vm_gelu_erf, x, y, n);
}

/* Softmax as the portable kernel computes it (max of beta*x, exp of
 * beta*x - max, times 1/sum), with vm_exp, the exponent in one fma and the
 * sum kept in NK_VL lanes. */
void NK_HOST_FN(nk_host_softmax_f32)(const float *x, float *y, size_t rows, size_t cols,
                                     float beta) {
    size_t r, j;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        nk_vf vmax = nk_vdup(-INFINITY), vsum = nk_vdup(0.0f);
        float mx = -INFINITY, sum, inv;
        for (j = 0; j + NK_VL <= cols; j += NK_VL) {
            const nk_vf v = beta * nk_vload(xr + j);
            vmax = vm_select(v > vmax, v, vmax);
        }
        {
            float lanes[NK_VL];
            size_t k;
            nk_vstore(lanes, vmax);
            for (k = 0; k < NK_VL; k++)
                mx = lanes[k] > mx ? lanes[k] : mx;
            for (; j < cols; j++)
                mx = beta * xr[j] > mx ? beta * xr[j] : mx;
        }
        /* beta*x - max in one fma: the same in every build, whether or not
         * the compiler contracts (the portable kernel rounds beta*x first;
         * for beta = 1 the two agree exactly) */
        for (j = 0; j + NK_VL <= cols; j += NK_VL) {
            const nk_vf e = vm_exp(nk_vfma(vm_c(beta), nk_vload(xr + j), vm_c(-mx)));
            nk_vstore(yr + j, e);
            vsum += e;
        }
        sum = nk_vsum(vsum);
        if (j < cols) {
            const size_t rest = cols - j;
            const nk_vf v = nk_vfma(vm_c(beta), nk_vload_n(xr + j, rest), vm_c(-mx));
            float lanes[NK_VL];
            size_t k;
            nk_vstore(lanes, vm_exp(v));
            for (k = 0; k < rest; k++)
                sum += lanes[k];
            nk_vstore_n(yr + j, nk_vload(lanes), rest);
        }
        inv = 1.0f / sum;
        for (j = 0; j + NK_VL <= cols; j += NK_VL)
            nk_vstore(yr + j, nk_vload(yr + j) * inv);
        for (; j < cols; j++)
            yr[j] *= inv;
    }
}

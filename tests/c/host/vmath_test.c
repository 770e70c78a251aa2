/* vmath_test.c — the host exp, erf, tanh, sigmoid, GELU and softmax kernels
 * (csrc/kernels/host/vmath.c) against libm, on every ISA level this build
 * has and this CPU runs.
 *
 * Error measure: rel = |y - ref| / max(|ref|, FLT_MIN). Above FLT_MIN it is
 * the plain relative error. Below, results are denormals, whose spacing is
 * fixed at 2^-149 (a denormal near 2^-140 has only 9 significant bits, so
 * 1e-6 relative cannot even be represented there); the bound then reads
 * |y - ref| <= 1e-6 FLT_MIN = 1.2e-44, about 8 denormal steps, which still
 * fails a kernel that flushes to zero or underflows early. NaN must match
 * NaN, infinities and zeros (with their sign) must match exactly.
 *
 * References: glibc expf, erff, tanhf; sigmoid 1/(1 + exp(-x)) and both
 * GELU forms in double (glibc exp, erfc), rounded to float once, since the
 * float formulas cancel (x/2 (1 + erff(x/sqrt 2)) has no correct digit
 * below x = -5).
 *
 * Inputs: every k-th float bit pattern (k = 257 by default: 16.7 M inputs
 * of both signs per function, denormals and large magnitudes included),
 * plus specials and every float within 2^12 steps of each threshold the
 * kernels branch or clamp at. `vmath_test --exhaustive` takes k = 1 (all
 * 2^32 floats; minutes per function) for docs/HOST_MATH.md; `--stride N`
 * picks another k; `--only NAME` checks one function (e.g. gelu_erf). Prints the maximum error and where, per function and
 * level; exits 1 when any exceeds 1e-6. */

#define _POSIX_C_SOURCE 200112L /* setenv (vmath_levels.h) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmath_levels.h"

#define TOL 1e-6

static float bits_f(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static uint32_t f_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ---- references ---- */
static float ref_exp(float x) { return expf(x); }
static float ref_erf(float x) { return erff(x); }
static float ref_tanh(float x) { return tanhf(x); }
static float ref_sigmoid(float x) { return (float)(1.0 / (1.0 + exp(-(double)x))); }
static float ref_gelu_erf(float x) {
    return (float)(0.5 * (double)x * erfc(-(double)x * 0.70710678118654752440));
}
static float ref_gelu_tanh(float x) {
    const double v = x, k = 0.79788456080286535588; /* sqrt(2/pi) */
    /* x/2 (1 + tanh z) = x / (1 + exp(-2z)): no cancellation */
    return (float)(v / (1.0 + exp(-2.0 * k * (v + 0.044715 * v * v * v))));
}

typedef struct vm_fn {
    const char *name;
    float (*ref)(float);
    /* which kernel: 0 exp, 1 erf, 2 tanh, 3 sigmoid, 4 gelu erf, 5 gelu tanh */
    int which;
    /* thresholds of the kernel (and of float itself) to sweep densely */
    float edges[8];
} vm_fn;

static const vm_fn fns[] = {
    {"exp", ref_exp, 0, {-104.0f, -103.97f, -87.34f, 88.72f, 89.0f, 0.0f, 0.34657f, 1.0f}},
    {"erf", ref_erf, 1, {0.6f, 4.0f, 3.92f, 1.0f, 0.0f, 2.0f, 0.5f, 3.0f}},
    {"tanh", ref_tanh, 2, {0.55f, 9.01f, 44.5f, 0.0f, 1.0f, 0.3f, 5.0f, 20.0f}},
    {"sigmoid", ref_sigmoid, 3, {-87.34f, -103.28f, -104.0f, 16.64f, 0.0f, 1.0f, 5.0f, 88.7f}},
    {"gelu_erf", ref_gelu_erf, 4, {-14.6f, 14.6f, -13.2f, -5.0f, 0.0f, 1.0f, -1.0f, -10.0f}},
    {"gelu_tanh", ref_gelu_tanh, 5, {-20.0f, 20.0f, -10.0f, -5.0f, 0.0f, 1.0f, -1.0f, 3.0f}},
};
#define N_FNS (sizeof fns / sizeof fns[0])

static void run_kernel(const vm_level *lv, int which, const float *x, float *y, size_t n) {
    switch (which) {
    case 0: lv->exp_f32(x, y, n); break;
    case 1: lv->erf_f32(x, y, n); break;
    case 2: lv->tanh_f32(x, y, n); break;
    case 3: lv->sigmoid_f32(x, y, n); break;
    case 4: lv->gelu_f32(x, y, n, 0); break;
    default: lv->gelu_f32(x, y, n, 1); break;
    }
}

typedef struct vm_stat {
    double max_rel;
    float at;
    uint64_t n, bad;
} vm_stat;

static void check_one(vm_stat *st, const char *what, float x, float got, float want) {
    double rel;
    int ok;
    st->n++;
    if (isnan(want) || isnan(got)) {
        ok = isnan(want) && isnan(got);
        rel = ok ? 0.0 : INFINITY;
    } else if (isinf(want) || isinf(got) || want == 0.0f || got == 0.0f) {
        /* exact, sign included; a zero may stand for a result under 1e-6 FLT_MIN */
        rel = fabs((double)got - (double)want) / FLT_MIN;
        ok = (got == want && signbit(got) == signbit(want)) ||
             (!isinf(want) && !isinf(got) && rel <= TOL &&
              (want == 0.0f ? 1 : signbit(got) == signbit(want)));
        if (isinf(want) || isinf(got))
            rel = ok ? 0.0 : INFINITY;
    } else {
        const double d = fabs((double)want) > FLT_MIN ? fabs((double)want) : FLT_MIN;
        rel = fabs((double)got - (double)want) / d;
        ok = rel <= TOL;
    }
    if (rel > st->max_rel || (!ok && st->bad == 0)) {
        st->max_rel = rel > st->max_rel ? rel : st->max_rel;
        st->at = x;
    }
    if (!ok) {
        if (st->bad < 5)
            fprintf(stderr, "FAIL %s(%a = %.9g): got %.9g want %.9g (rel %.3g)\n", what, x, x, got,
                    want, rel);
        st->bad++;
    }
}

#define CHUNK 4096

/* inputs: a generator filling up to CHUNK floats per call */
typedef struct vm_inputs {
    uint64_t next, stride;  /* strided bit patterns */
    size_t edge, edge_step; /* then sweeps around each edge */
    const float *edges;
    size_t special;
} vm_inputs;

static const float specials_src[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MIN,
                                     -FLT_MIN, FLT_MAX, -FLT_MAX, 1.40129846e-45f, -1.40129846e-45f,
                                     1e-45f, 1e-38f, 1.0f, -1.0f, 1e10f, -1e10f, 1e30f, -1e30f};

static size_t fill(vm_inputs *in, float *x) {
    size_t n = 0;
    while (n < CHUNK && in->special < sizeof specials_src / sizeof specials_src[0])
        x[n++] = specials_src[in->special++];
    while (n < CHUNK && in->next < ((uint64_t)1 << 32)) {
        x[n++] = bits_f((uint32_t)in->next);
        in->next += in->stride;
    }
    /* 2^12 floats either side of +-edge */
    while (n < CHUNK && in->edge < 8 * 2) {
        const float e = in->edges[in->edge / 2] * (in->edge % 2 ? -1.0f : 1.0f);
        const int32_t off = (int32_t)in->edge_step - 4096;
        x[n++] = bits_f(f_bits(e) + (uint32_t)off); /* wraps past +-0 into NaNs: harmless */
        if (++in->edge_step == 8192) {
            in->edge_step = 0;
            in->edge++;
        }
    }
    return n;
}

static int check_functions(const vm_level *const *levels, size_t n_levels, uint64_t stride,
                           const char *only) {
    static float x[CHUNK], ref[CHUNK], y[CHUNK];
    int fails = 0;
    size_t f, l, i, n;
    for (f = 0; f < N_FNS; f++) {
        vm_stat st[8];
        vm_inputs in;
        if (only != NULL && strcmp(only, fns[f].name) != 0)
            continue;
        memset(st, 0, sizeof st);
        memset(&in, 0, sizeof in);
        in.stride = stride;
        in.edges = fns[f].edges;
        while ((n = fill(&in, x)) > 0) {
            for (i = 0; i < n; i++)
                ref[i] = fns[f].ref(x[i]);
            for (l = 0; l < n_levels; l++) {
                run_kernel(levels[l], fns[f].which, x, y, n);
                for (i = 0; i < n; i++)
                    check_one(&st[l], fns[f].name, x[i], y[i], ref[i]);
            }
        }
        for (l = 0; l < n_levels; l++) {
            printf("%-10s %-7s max rel error %.3g at x = %.9g (%a), %llu inputs%s\n",
                   fns[f].name, levels[l]->name, st[l].max_rel, st[l].at, st[l].at,
                   (unsigned long long)st[l].n, st[l].bad ? "  FAILED" : "");
            fails += st[l].bad != 0;
        }
    }
    return fails;
}

/* Lengths around the vector width, unaligned starts and y == x give the
 * same values as one long call (lanes are independent). */
static int check_tails(const vm_level *lv) {
    float src[200], full[200], part[200], inplace[200];
    int fails = 0, which;
    size_t i, n, off;
    for (i = 0; i < 200; i++)
        src[i] = (float)((int)(i * 37 % 211) - 105) * 0.173f;
    for (which = 0; which < 6; which++) {
        run_kernel(lv, which, src, full, 200);
        for (off = 0; off < 3; off++) {
            for (n = 0; n + off <= 70; n++) {
                for (i = 0; i < 200; i++)
                    part[i] = -7.0f;
                memcpy(inplace, src, sizeof src);
                run_kernel(lv, which, src + off, part + off, n);
                run_kernel(lv, which, inplace + off, inplace + off, n);
                for (i = 0; i < 200; i++) {
                    const int inside = i >= off && i < off + n;
                    if (inside ? (f_bits(part[i]) != f_bits(full[i]) ||
                                  f_bits(inplace[i]) != f_bits(full[i]))
                               : (part[i] != -7.0f || f_bits(inplace[i]) != f_bits(src[i]))) {
                        fprintf(stderr, "FAIL %s tail: fn %d n %zu off %zu index %zu\n", lv->name,
                                which, n, off, i);
                        fails++;
                        break;
                    }
                }
            }
        }
    }
    return fails;
}

/* Softmax against exp(fmaf(beta, x, -max)) / sum in double, max the
 * largest float product beta*x. The kernel forms the exponent with the same
 * single rounding (one fma); that rounding, up to 2^-24 |beta*x - max| in
 * the exponent, is the op's conditioning (the portable kernel's too, which
 * rounds beta*x first), not the approximation's error. */
static int check_softmax(const vm_level *lv) {
    static float x[3 * 1024], y[3 * 1024], v[1024];
    static const size_t col_list[] = {1, 2, 3, 7, 10, 15, 16, 17, 31, 33, 64, 100, 1000};
    static const float betas[] = {1.0f, 0.5f, 2.5f, -1.0f};
    uint32_t seed = 12345u;
    double max_rel = 0.0;
    int fails = 0;
    size_t ci, bi, r, j, rows = 3;
    for (ci = 0; ci < sizeof col_list / sizeof col_list[0]; ci++) {
        const size_t cols = col_list[ci];
        for (bi = 0; bi < sizeof betas / sizeof betas[0]; bi++) {
            const float beta = betas[bi];
            for (r = 0; r < rows; r++)
                for (j = 0; j < cols; j++) {
                    seed = seed * 1664525u + 1013904223u;
                    /* row 2 spreads over +-80: many terms underflow */
                    x[r * cols + j] = ((float)(seed >> 8) / 16777216.0f - 0.5f) *
                                      (r == 2 ? 160.0f : r == 1 ? 20.0f : 4.0f);
                }
            lv->softmax_f32(x, y, rows, cols, beta);
            for (r = 0; r < rows; r++) {
                double mx = -INFINITY, sum = 0.0;
                for (j = 0; j < cols; j++) {
                    const float p = beta * x[r * cols + j];
                    mx = p > mx ? p : mx;
                }
                for (j = 0; j < cols; j++) {
                    v[j] = fmaf(beta, x[r * cols + j], -(float)mx);
                    sum += exp((double)v[j]);
                }
                for (j = 0; j < cols; j++) {
                    const double want = exp((double)v[j]) / sum;
                    const double d = want > FLT_MIN ? want : FLT_MIN;
                    const double rel = fabs((double)y[r * cols + j] - want) / d;
                    max_rel = rel > max_rel ? rel : max_rel;
                    if (rel > TOL) {
                        if (fails < 5)
                            fprintf(stderr,
                                    "FAIL softmax %s cols %zu beta %g row %zu [%zu]: %.9g vs %.9g\n",
                                    lv->name, cols, beta, r, j, y[r * cols + j], want);
                        fails++;
                    }
                }
            }
        }
    }
    /* a NaN poisons its row only; -inf entries give exact zeros */
    {
        float xs[2 * 5] = {1.0f, NAN, 2.0f, 3.0f, 4.0f, -INFINITY, 0.0f, -INFINITY, 1.0f, 0.0f};
        float ys[2 * 5];
        lv->softmax_f32(xs, ys, 2, 5, 1.0f);
        for (j = 0; j < 5; j++)
            if (!isnan(ys[j])) {
                fprintf(stderr, "FAIL softmax %s: NaN row gave %g at %zu\n", lv->name, ys[j], j);
                fails++;
            }
        if (ys[5] != 0.0f || ys[7] != 0.0f || fabsf(ys[8] - 0.576116885f) > 1e-7f) {
            fprintf(stderr, "FAIL softmax %s: -inf row gave %g %g %g\n", lv->name, ys[5], ys[7],
                    ys[8]);
            fails++;
        }
    }
    printf("softmax    %-7s max rel error %.3g (rows of 1..1000, beta 1, 0.5, 2.5, -1)%s\n",
           lv->name, max_rel, fails ? "  FAILED" : "");
    return fails;
}

int main(int argc, char **argv) {
    const vm_level *levels[8];
    size_t n_levels = vm_levels_available(levels, 8), l;
    uint64_t stride = 257;
    const char *only = NULL;
    int i, fails = 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--exhaustive") == 0)
            stride = 1;
        else if (strcmp(argv[i], "--stride") == 0 && i + 1 < argc)
            stride = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--exhaustive | --stride N] [--only NAME]\n", argv[0]);
            return 2;
        }
    }
    if (stride == 0)
        stride = 1;
    if (n_levels == 0) {
        printf("vmath: no host ISA level runs on this CPU, skipped\n");
        return 77;
    }
    if (only != NULL) {
        for (i = 0; i < (int)N_FNS && strcmp(only, fns[i].name) != 0; i++) {
        }
        if (i == (int)N_FNS) {
            fprintf(stderr, "vmath_test: --only %s: no such function\n", only);
            return 2;
        }
    }
    for (l = 0; l < n_levels && only == NULL; l++) {
        fails += check_tails(levels[l]);
        fails += check_softmax(levels[l]);
    }
    fails += check_functions(levels, n_levels, stride, only);
    printf("vmath: %s\n", fails ? "FAILED" : "ok");
    return fails ? 1 : 0;
}

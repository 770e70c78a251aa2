/* bench_vmath.c — speed of the host vmath kernels against the portable
 * kernels (libm per element) they replace. A benchmark, not a test:
 *
 *   bench_vmath [n]    (default n = 12544, the 28x28x16 GELU of cnn_dw.nk)
 *
 * Prints ns per element (median of 31 timed runs after warm-up, in thread
 * CPU time, so other processes on a shared machine inflate it less) for each
 * function on the portable path and on each ISA level this CPU runs, and the
 * GELU op's microseconds per call. Inputs span [-8, 8] (every branch). */
#define _POSIX_C_SOURCE 200112L /* clock_gettime, setenv */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/ref/ref_kernels.h"
#include "vmath_levels.h"

#define RUNS 31

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the portable paths: what the op evals run without host kernels */
static void port_exp(const float *x, float *y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = expf(x[i]);
}
static void port_erf(const float *x, float *y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = erff(x[i]);
}
static void port_gelu_erf(const float *x, float *y, size_t n) { nk_ref_gelu_f32(x, y, n, 0); }
static void port_gelu_tanh(const float *x, float *y, size_t n) { nk_ref_gelu_f32(x, y, n, 1); }
static void port_softmax(const float *x, float *y, size_t n) {
    nk_ref_softmax_f32(x, y, n / 16, 16, 1.0f);
}

typedef struct bench_case {
    const char *name;
    void (*portable)(const float *, float *, size_t);
    int which; /* vmath kernel: 0 exp 1 erf 2 tanh 3 sigmoid 4 gelu 5 gelu tanh 6 softmax */
} bench_case;

static const bench_case cases[] = {
    {"exp", port_exp, 0},           {"erf", port_erf, 1},
    {"tanh", nk_ref_tanh_f32, 2},   {"sigmoid", nk_ref_sigmoid_f32, 3},
    {"gelu erf", port_gelu_erf, 4}, {"gelu tanh", port_gelu_tanh, 5},
    {"softmax rows of 16", port_softmax, 6},
};

static const vm_level *g_level;
static int g_which;
static void run_level(const float *x, float *y, size_t n) {
    switch (g_which) {
    case 0: g_level->exp_f32(x, y, n); break;
    case 1: g_level->erf_f32(x, y, n); break;
    case 2: g_level->tanh_f32(x, y, n); break;
    case 3: g_level->sigmoid_f32(x, y, n); break;
    case 4: g_level->gelu_f32(x, y, n, 0); break;
    case 5: g_level->gelu_f32(x, y, n, 1); break;
    default: g_level->softmax_f32(x, y, n / 16, 16, 1.0f); break;
    }
}

/* median ns per call */
static double time_it(void (*fn)(const float *, float *, size_t), const float *x, float *y,
                      size_t n) {
    double t[RUNS];
    int r, reps = 1, k;
    double t0 = now_ns();
    fn(x, y, n);
    /* enough repetitions for ~200 us per timed run */
    while (now_ns() - t0 < 2e5 && reps < (1 << 20)) {
        reps *= 2;
        t0 = now_ns();
        for (k = 0; k < reps; k++)
            fn(x, y, n);
    }
    for (r = 0; r < RUNS; r++) {
        t0 = now_ns();
        for (k = 0; k < reps; k++)
            fn(x, y, n);
        t[r] = (now_ns() - t0) / reps;
    }
    qsort(t, RUNS, sizeof t[0], cmp_d);
    return t[RUNS / 2];
}

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 12544;
    const vm_level *levels[8];
    const size_t n_levels = vm_levels_available(levels, 8);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    size_t c, l, i;
    uint32_t seed = 1;
    if (!x || !y || n < 16)
        return 1;
    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 16.0f;
    }
    printf("%zu elements; ns per element (median of %d runs)\n%-20s %10s", n, RUNS, "function",
           "portable");
    for (l = 0; l < n_levels; l++)
        printf(" %10s", levels[l]->name);
    printf("\n");
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        printf("%-20s %10.3f", cases[c].name, time_it(cases[c].portable, x, y, n) / (double)n);
        for (l = 0; l < n_levels; l++) {
            g_level = levels[l];
            g_which = cases[c].which;
            printf(" %10.3f", time_it(run_level, x, y, n) / (double)n);
        }
        printf("\n");
    }
    printf("%-20s %10.2f", "gelu erf, us/call", time_it(port_gelu_erf, x, y, n) / 1e3);
    for (l = 0; l < n_levels; l++) {
        g_level = levels[l];
        g_which = 4;
        printf(" %10.2f", time_it(run_level, x, y, n) / 1e3);
    }
    printf("\n");
    free(x);
    free(y);
    return 0;
}

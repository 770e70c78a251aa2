/* bench_fma_peak.c — the core's fused multiply-add peak on one thread, the
 * yardstick for the host conv and dense kernels' GMAC/s
 * (docs/BENCHMARKS.md). A benchmark, not a test:
 *
 *   bench_fma_peak
 *
 * Runs twelve independent FMA chains (enough to cover the FMA latency on
 * every x86-64 core with two FMA ports) on 8-lane (AVX2) and 16-lane
 * (AVX-512) vectors, for each level this CPU runs, and prints the best of
 * 15 runs in GMAC/s of thread CPU time (other processes on a shared
 * machine inflate it less than wall time). */
#define _POSIX_C_SOURCE 200112L /* clock_gettime */
#include <stdio.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define CHAINS 12
#define ITERS 20000000L
#define RUNS 15
/* one step of every chain, spelled out so each stays in a register */
#define NK_FMA12(fma)                                                                             \
    a[0] = fma(a[0], m, c), a[1] = fma(a[1], m, c), a[2] = fma(a[2], m, c),                       \
    a[3] = fma(a[3], m, c), a[4] = fma(a[4], m, c), a[5] = fma(a[5], m, c),                       \
    a[6] = fma(a[6], m, c), a[7] = fma(a[7], m, c), a[8] = fma(a[8], m, c),                       \
    a[9] = fma(a[9], m, c), a[10] = fma(a[10], m, c), a[11] = fma(a[11], m, c)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Each function returns a sum of its chains so nothing is optimized away;
 * the multiplier and addend keep the values finite and normal. */
__attribute__((target("avx2,fma"))) static float chains_avx2(long iters) {
    __m256 a[CHAINS], m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    float out[8], s = 0;
    long i;
    int k;
    for (k = 0; k < CHAINS; k++)
        a[k] = _mm256_set1_ps((float)k);
    for (i = 0; i < iters; i++) {
        NK_FMA12(_mm256_fmadd_ps);
    }
    for (k = 1; k < CHAINS; k++)
        a[0] = _mm256_add_ps(a[0], a[k]);
    _mm256_storeu_ps(out, a[0]);
    for (k = 0; k < 8; k++)
        s += out[k];
    return s;
}

__attribute__((target("avx512f"))) static float chains_avx512(long iters) {
    __m512 a[CHAINS], m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    long i;
    int k;
    for (k = 0; k < CHAINS; k++)
        a[k] = _mm512_set1_ps((float)k);
    for (i = 0; i < iters; i++) {
        NK_FMA12(_mm512_fmadd_ps);
    }
    for (k = 1; k < CHAINS; k++)
        a[0] = _mm512_add_ps(a[0], a[k]);
    return _mm512_reduce_add_ps(a[0]);
}

/* Keeps the chains' results alive so the compiler cannot drop the loops. */
static volatile float sink;

static void run(const char *name, float (*f)(long), int lanes) {
    double best = 0;
    int r;
    sink += f(ITERS / 10); /* warm-up: clocks up, code paged in */
    for (r = 0; r < RUNS; r++) {
        const double t0 = now_s();
        double g;
        sink += f(ITERS);
        g = (double)ITERS * CHAINS * lanes / (now_s() - t0) * 1e-9;
        if (g > best)
            best = g;
    }
    printf("%-8s %6.1f GMAC/s (%d chains x %d lanes, best of %d)\n", name, best, CHAINS, lanes,
           RUNS);
}

int main(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        run("avx2", chains_avx2, 8);
    if (__builtin_cpu_supports("avx512f"))
        run("avx512", chains_avx512, 16);
    return 0;
}
#else
int main(void) {
    puts("bench_fma_peak: x86-64 only");
    return 0;
}
#endif

/* bench_kernels.c — host throughput of the reference kernels (a benchmark,
 * not a test): best of several timed runs per kernel, as milliseconds and
 * GMAC/s (multiply-accumulates, or element ops for the elementwise ones).
 *
 *   cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DNETKIT_BUILD_TESTS=ON
 *   cmake --build build/bench --target bench_kernels && build/bench/tests/c/ops/bench_kernels
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L
#endif
#include "kernels/ref/ref_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double nkb_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static float *nkb_random(size_t n) {
    float *p = (float *)malloc(n * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    return p;
}

typedef struct nkb_job {
    int kind;
    nk_ref_conv_geom g;
    float *x, *w, *b, *y;
    int32_t k, n;
    int32_t dims[4], cdims[1];
} nkb_job;

enum { NKB_CONV, NKB_DW, NKB_DENSE, NKB_MAXPOOL, NKB_SOFTMAX, NKB_ADD_CHANNEL };

static void nkb_run_once(const nkb_job *j) {
    switch (j->kind) {
    case NKB_CONV: nk_ref_conv2d_f32(j->x, j->w, j->b, j->y, &j->g); break;
    case NKB_DW: nk_ref_depthwise_conv2d_f32(j->x, j->w, j->b, j->y, &j->g); break;
    case NKB_DENSE:
        nk_ref_dense_f32(j->x, j->w, j->b, j->y, 1, j->k, j->n, 0.0f, INFINITY);
        break;
    case NKB_MAXPOOL: nk_ref_max_pool2d_f32(j->x, j->y, &j->g); break;
    case NKB_SOFTMAX: nk_ref_softmax_f32(j->x, j->y, (size_t)j->k, (size_t)j->n, 1.0f); break;
    case NKB_ADD_CHANNEL:
        nk_ref_add_f32(j->x, j->dims, 4, j->b, j->cdims, 1, j->y, j->dims, 4, -INFINITY,
                       INFINITY);
        break;
    }
}

static void nkb_report(const char *name, const nkb_job *j, double ops) {
    double best = 1e30;
    int r;
    for (r = 0; r < 15; r++) {
        double t0 = nkb_now(), dt;
        long it = 0;
        do {
            nkb_run_once(j);
            it++;
        } while (nkb_now() - t0 < 0.02);
        dt = (nkb_now() - t0) / (double)it;
        if (dt < best)
            best = dt;
    }
    printf("%-40s %10.4f ms %8.2f GMAC/s\n", name, best * 1e3, ops / best * 1e-9);
}

static nk_ref_conv_geom nkb_geom(int32_t h, int32_t w, int32_t c, int32_t oh, int32_t ow,
                                 int32_t oc, int32_t k, int32_t stride, int32_t pad) {
    nk_ref_conv_geom g;
    g.batch = 1;
    g.in_h = h;
    g.in_w = w;
    g.in_c = c;
    g.out_h = oh;
    g.out_w = ow;
    g.out_c = oc;
    g.k_h = k;
    g.k_w = k;
    g.stride_h = g.stride_w = stride;
    g.dil_h = g.dil_w = 1;
    g.pad_top = g.pad_left = pad;
    g.groups = 1;
    g.multiplier = 1;
    g.count_include_pad = 0;
    g.act_min = 0.0f;
    g.act_max = INFINITY;
    return g;
}

int main(void) {
    nkb_job j;
    printf("reference kernels, NK_REF_VECTOR_FPU=%d\n", NK_REF_VECTOR_FPU);

    j.kind = NKB_CONV;
    j.g = nkb_geom(32, 32, 16, 32, 32, 32, 3, 1, 1);
    j.x = nkb_random(32 * 32 * 32); /* largest input below */
    j.w = nkb_random(32 * 9 * 16);
    j.b = nkb_random(256); /* biases and the per-channel operand */
    j.y = nkb_random(32 * 32 * 32);
    nkb_report("conv2d 3x3 32x32x16 -> 32", &j, 32.0 * 32 * 32 * 9 * 16);
    j.g = nkb_geom(28, 28, 1, 28, 28, 8, 3, 1, 1);
    nkb_report("conv2d 3x3 28x28x1 -> 8 (first layer)", &j, 28.0 * 28 * 8 * 9);
    j.g = nkb_geom(32, 32, 16, 32, 32, 32, 1, 1, 0);
    nkb_report("conv2d 1x1 32x32x16 -> 32", &j, 32.0 * 32 * 32 * 16);

    j.kind = NKB_DW;
    j.g = nkb_geom(32, 32, 32, 32, 32, 32, 3, 1, 1);
    nkb_report("depthwise 3x3 32x32x32", &j, 32.0 * 32 * 32 * 9);

    j.kind = NKB_MAXPOOL;
    j.g = nkb_geom(32, 32, 32, 16, 16, 32, 2, 2, 0);
    j.g.act_min = -INFINITY;
    nkb_report("max_pool 2x2 s2 32x32x32", &j, 16.0 * 16 * 32 * 4);

    free(j.w);
    j.kind = NKB_DENSE;
    j.w = nkb_random(512 * 256);
    j.k = 512;
    j.n = 256;
    nkb_report("dense 512 -> 256", &j, 512.0 * 256);

    j.kind = NKB_SOFTMAX;
    j.k = 16;
    j.n = 1000;
    nkb_report("softmax 16 x 1000", &j, 16000.0);

    j.kind = NKB_ADD_CHANNEL;
    j.dims[0] = 1;
    j.dims[1] = 32;
    j.dims[2] = 32;
    j.dims[3] = 32;
    j.cdims[0] = 32;
    nkb_report("add [1,32,32,32] + [32]", &j, 32.0 * 32 * 32);

    free(j.x);
    free(j.w);
    free(j.b);
    free(j.y);
    return 0;
}

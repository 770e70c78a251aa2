/*
 * xnnpack_int8_probe.c — a probe, not a test: is XNNPACK's int8 fully
 * connected (xnn_create_fully_connected_nc_qs8) byte-identical to netkit's
 * int8 epilogue (TFLite's requantization)? Built with NETKIT_XNNPACK=ON;
 * run build/<dir>/tests/c/xnnpack_int8_probe. For random scales, zero
 * points, weights and bias, over 256 random input rows each, it counts the
 * outputs where XNNPACK differs from netkit's double rounding (TFLite's
 * default) and from single rounding. docs/BACKENDS.md records the answer:
 * int8 is not routed through XNNPACK.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <xnnpack.h>

#include "kernels/ref/qmath.h"

#define ROWS 256
#define TRIALS 400

/* TFLite's QuantizeMultiplier: s = m * 2^(shift - 31), m in [2^30, 2^31). */
static void quantize_multiplier(double s, int32_t *m, int32_t *shift) {
    int e;
    double f = frexp(s, &e);
    long long q = llround(f * 2147483648.0);
    if (q == 2147483648LL) {
        q /= 2;
        e++;
    }
    *m = (int32_t)q;
    *shift = e;
}

static uint32_t rng = 12345u;
static int32_t rnd(int32_t n) { /* 0..n-1 */
    rng = rng * 1664525u + 1013904223u;
    return (int32_t)((rng >> 8) % (uint32_t)n);
}

int main(void) {
    static const int taps[] = {2, 64, 1024};
    static int8_t x[ROWS * 1024 + 16], w[1024];
    int8_t y[ROWS];
    size_t t;
    if (xnn_initialize(NULL) != xnn_status_success) {
        fprintf(stderr, "xnnpack_int8_probe: XNNPACK does not run on this CPU\n");
        return 1;
    }
    for (t = 0; t < sizeof taps / sizeof taps[0]; t++) {
        const int k = taps[t];
        long total = 0, off_double = 0, off_single = 0;
        int trial, i, j;
        for (trial = 0; trial < TRIALS; trial++) {
            float in_scale = 0.001f + (float)rnd(1000) * 1e-4f;
            float w_scale = 0.001f + (float)rnd(1000) * 5e-5f;
            float out_scale = (0.01f + (float)rnd(1000) * 5e-4f) * (float)k;
            int8_t in_zp = (int8_t)(rnd(256) - 128), out_zp = (int8_t)(rnd(256) - 128);
            int32_t bias = rnd(2001) - 1000, m, shift;
            xnn_operator_t op = NULL;
            for (j = 0; j < k; j++) w[j] = (int8_t)(rnd(255) - 127);
            for (i = 0; i < ROWS * k; i++) x[i] = (int8_t)(rnd(256) - 128);
            if (xnn_create_fully_connected_nc_qs8((size_t)k, 1, (size_t)k, 1, in_zp, in_scale, w_scale, w, &bias,
                                                  out_zp, out_scale, -128, 127, 0, &op) != xnn_status_success ||
                xnn_setup_fully_connected_nc_qs8(op, ROWS, x, y, NULL) != xnn_status_success ||
                xnn_run_operator(op, NULL) != xnn_status_success) {
                fprintf(stderr, "xnnpack_int8_probe: XNNPACK refused the operator\n");
                return 1;
            }
            /* the converter's multiplier from the same float scales */
            quantize_multiplier((double)in_scale * (double)w_scale / (double)out_scale, &m, &shift);
            for (i = 0; i < ROWS; i++) {
                int32_t acc = bias;
                for (j = 0; j < k; j++) acc += ((int32_t)x[i * k + j] - in_zp) * w[j];
                off_double += nk_q_zp_clamp_s8(nk_q_requantize_dr(acc, m, shift), out_zp, -128, 127) != y[i];
                off_single += nk_q_zp_clamp_s8(nk_q_requantize_sr(acc, m, shift), out_zp, -128, 127) != y[i];
                total++;
            }
            xnn_delete_operator(op);
        }
        printf("%4d taps: XNNPACK differs on %ld of %ld outputs from double rounding, %ld from single rounding\n",
               k, off_double, total, off_single);
    }
    return 0;
}

/* ref_dense.c — fully connected layer, float32. */
#include "ref_kernels.h"

/* Dot product with four partial sums: independent chains let a compiler
 * keep several multiply-adds in flight (and vectorize) without fast-math. */
static inline float nk_ref_dot_f32(const float *NK_RESTRICT a, const float *NK_RESTRICT b,
                                   int32_t n) {
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++)
        s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

void nk_ref_dense_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                      const float *NK_RESTRICT bias, float *NK_RESTRICT y, size_t rows,
                      int32_t in_features, int32_t out_features, float act_min, float act_max) {
    size_t r;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * (size_t)in_features;
        float *yr = y + r * (size_t)out_features;
        const float *wn = w;
        int32_t n;
        for (n = 0; n < out_features; n++, wn += in_features) {
            float acc = nk_ref_dot_f32(xr, wn, in_features);
            if (bias)
                acc += bias[n];
            yr[n] = nk_clampf(acc, act_min, act_max);
        }
    }
}

/* ref_activation.c — elementwise activations, batch norm and softmax,
 * float32. Every kernel here accepts y == x (the planner runs them in place),
 * so each element is read before it is written and nothing is restrict. */
#include "ref_kernels.h"
#include <math.h>

void nk_ref_relu_f32(const float *x, float *y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] < 0.0f ? 0.0f : x[i]; /* NaN passes through, as in torch */
}

void nk_ref_clip_f32(const float *x, float *y, size_t n, float lo, float hi) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = nk_clampf(x[i], lo, hi);
}

void nk_ref_leaky_relu_f32(const float *x, float *y, size_t n, float alpha) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] >= 0.0f ? x[i] : x[i] * alpha;
}

void nk_ref_sigmoid_f32(const float *x, float *y, size_t n) {
    size_t i;
    /* expf(-x) overflows to +inf for x < -88, giving exactly 0: no NaN. */
    for (i = 0; i < n; i++)
        y[i] = 1.0f / (1.0f + expf(-x[i]));
}

void nk_ref_tanh_f32(const float *x, float *y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = tanhf(x[i]);
}

void nk_ref_gelu_f32(const float *x, float *y, size_t n, int32_t approximate) {
    size_t i;
    if (approximate) {
        const float k = 0.7978845608028654f; /* sqrt(2/pi) */
        for (i = 0; i < n; i++) {
            const float v = x[i];
            y[i] = 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
        }
    } else {
        const float r = 0.7071067811865476f; /* 1/sqrt(2) */
        for (i = 0; i < n; i++) {
            const float v = x[i];
            y[i] = 0.5f * v * (1.0f + erff(v * r));
        }
    }
}

/* Channels are processed in blocks so the per-channel scale is computed once
 * per block rather than once per element, with a small fixed stack array. */
#define NK_BN_BLOCK 16

void nk_ref_batch_norm_f32(const float *x, float *y, size_t rows, int32_t c,
                           const float *gamma, const float *beta, const float *mean,
                           const float *var, float eps) {
    float scale[NK_BN_BLOCK];
    int32_t c0, j;
    size_t r;
    for (c0 = 0; c0 < c; c0 += NK_BN_BLOCK) {
        const int32_t nb = c - c0 < NK_BN_BLOCK ? c - c0 : NK_BN_BLOCK;
        for (j = 0; j < nb; j++)
            scale[j] = gamma[c0 + j] / sqrtf(var[c0 + j] + eps);
        for (r = 0; r < rows; r++) {
            const float *xr = x + r * (size_t)c + (size_t)c0;
            float *yr = y + r * (size_t)c + (size_t)c0;
            for (j = 0; j < nb; j++)
                yr[j] = (xr[j] - mean[c0 + j]) * scale[j] + beta[c0 + j];
        }
    }
}

void nk_ref_softmax_f32(const float *x, float *y, size_t rows, size_t cols, float beta) {
    size_t r, j;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float mx = -INFINITY, sum = 0.0f, inv;
        /* Subtract the row maximum of beta*x so exp never overflows. */
        for (j = 0; j < cols; j++) {
            const float v = beta * xr[j];
            mx = v > mx ? v : mx;
        }
        for (j = 0; j < cols; j++) {
            const float e = expf(beta * xr[j] - mx);
            yr[j] = e;
            sum += e;
        }
        inv = 1.0f / sum;
        for (j = 0; j < cols; j++)
            yr[j] *= inv;
    }
}

void nk_ref_hard_sigmoid_f32(const float *x, float *y, size_t n, float alpha, float beta) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = nk_clampf(alpha * x[i] + beta, 0.0f, 1.0f);
}

void nk_ref_hard_swish_f32(const float *x, float *y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = v * nk_clampf(v * (1.0f / 6.0f) + 0.5f, 0.0f, 1.0f);
    }
}

void nk_ref_layer_norm_f32(const float *x, float *y, size_t rows, size_t n, const float *scale,
                           const float *bias, float eps) {
    size_t r, i;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        float mean = 0.0f, var = 0.0f, inv;
        for (i = 0; i < n; i++)
            mean += xr[i];
        mean /= (float)n;
        for (i = 0; i < n; i++) {
            const float d = xr[i] - mean;
            var += d * d;
        }
        inv = 1.0f / sqrtf(var / (float)n + eps);
        /* each y[i] is written after the row's last read of x */
        for (i = 0; i < n; i++) {
            const float v = (xr[i] - mean) * inv * scale[i];
            yr[i] = bias != NULL ? v + bias[i] : v;
        }
    }
}

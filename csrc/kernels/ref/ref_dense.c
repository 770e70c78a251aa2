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

/* Four output features at a time, so an input value loaded once feeds four
 * rows of weights. On vector FPUs each output keeps four partial sums over k
 * (independent chains a compiler vectorizes without fast-math); on scalar
 * FPUs one sum per output, which stays in registers. */
static void nk_ref_dense_row4(const float *NK_RESTRICT xr, const float *NK_RESTRICT w0,
                              int32_t k_len, float *out4) {
    const float *w1 = w0 + k_len, *w2 = w1 + k_len, *w3 = w2 + k_len;
    int32_t k = 0;
#if NK_REF_VECTOR_FPU
    float s0[4] = {0}, s1[4] = {0}, s2[4] = {0}, s3[4] = {0};
    int32_t j;
    for (; k + 4 <= k_len; k += 4) {
        NK_REF_LANES
        for (j = 0; j < 4; j++) {
            const float xv = xr[k + j];
            s0[j] += xv * w0[k + j];
            s1[j] += xv * w1[k + j];
            s2[j] += xv * w2[k + j];
            s3[j] += xv * w3[k + j];
        }
    }
    for (; k < k_len; k++) {
        const float xv = xr[k];
        s0[0] += xv * w0[k];
        s1[0] += xv * w1[k];
        s2[0] += xv * w2[k];
        s3[0] += xv * w3[k];
    }
    out4[0] = (s0[0] + s0[1]) + (s0[2] + s0[3]);
    out4[1] = (s1[0] + s1[1]) + (s1[2] + s1[3]);
    out4[2] = (s2[0] + s2[1]) + (s2[2] + s2[3]);
    out4[3] = (s3[0] + s3[1]) + (s3[2] + s3[3]);
#else
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (; k < k_len; k++) {
        const float xv = xr[k];
        a0 += xv * w0[k];
        a1 += xv * w1[k];
        a2 += xv * w2[k];
        a3 += xv * w3[k];
    }
    out4[0] = a0;
    out4[1] = a1;
    out4[2] = a2;
    out4[3] = a3;
#endif
}

void nk_ref_dense_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                      const float *NK_RESTRICT bias, float *NK_RESTRICT y, size_t rows,
                      int32_t in_features, int32_t out_features, float act_min, float act_max) {
    size_t r;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * (size_t)in_features;
        float *yr = y + r * (size_t)out_features;
        int32_t n = 0, j;
        for (; n + 4 <= out_features; n += 4) {
            float acc[4];
            nk_ref_dense_row4(xr, w + (size_t)n * (size_t)in_features, in_features, acc);
            for (j = 0; j < 4; j++)
                yr[n + j] = nk_clampf(bias ? acc[j] + bias[n + j] : acc[j], act_min, act_max);
        }
        for (; n < out_features; n++) {
            float acc = nk_ref_dot_f32(xr, w + (size_t)n * (size_t)in_features, in_features);
            if (bias)
                acc += bias[n];
            yr[n] = nk_clampf(acc, act_min, act_max);
        }
    }
}

void nk_ref_matmul_f32(const float *NK_RESTRICT a, const int32_t *a_dims, int32_t a_rank,
                       const float *NK_RESTRICT b, const int32_t *b_dims, int32_t b_rank,
                       float *NK_RESTRICT y, const int32_t *y_dims, int32_t y_rank,
                       float act_min, float act_max) {
    const size_t m = (size_t)y_dims[y_rank - 2], n = (size_t)y_dims[y_rank - 1];
    const size_t k = (size_t)a_dims[a_rank - 1];
    const int32_t nb = y_rank - 2;
    size_t sa[4], sb[4], idx[4], batches = 1, bi, oa = 0, ob = 0, acc_a = m * k, acc_b = k * n;
    int32_t d;
    /* batch strides in matrices; 0 where an operand broadcasts */
    for (d = nb - 1; d >= 0; d--) {
        const int32_t ia = d - (nb - (a_rank - 2)), ib = d - (nb - (b_rank - 2));
        const int32_t da = ia >= 0 ? a_dims[ia] : 1, db = ib >= 0 ? b_dims[ib] : 1;
        sa[d] = da == 1 ? 0 : acc_a;
        sb[d] = db == 1 ? 0 : acc_b;
        acc_a *= (size_t)da;
        acc_b *= (size_t)db;
        idx[d] = 0;
        batches *= (size_t)y_dims[d];
    }
    for (bi = 0; bi < batches; bi++) {
        const float *ab = a + oa, *bb = b + ob;
        float *yb = y + bi * m * n;
        size_t i, j, p;
        for (i = 0; i < m; i++) {
            float *yr = yb + i * n;
            for (j = 0; j < n; j++)
                yr[j] = 0.0f;
            for (p = 0; p < k; p++) {
                const float av = ab[i * k + p];
                const float *br = bb + p * n;
                for (j = 0; j < n; j++)
                    yr[j] += av * br[j];
            }
            for (j = 0; j < n; j++)
                yr[j] = nk_clampf(yr[j], act_min, act_max);
        }
        for (d = nb - 1; d >= 0; d--) {
            oa += sa[d];
            ob += sb[d];
            if (++idx[d] < (size_t)y_dims[d])
                break;
            oa -= sa[d] * (size_t)y_dims[d];
            ob -= sb[d] * (size_t)y_dims[d];
            idx[d] = 0;
        }
    }
}

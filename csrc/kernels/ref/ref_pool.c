/* ref_pool.c — max, average and global average pooling, NHWC float32. */
#include "ref_kernels.h"

/* Max or average over the window taps inside the input (taps dil_h, dil_w
 * apart: ONNX MaxPool's dilations); the average divides by the taps inside
 * or, with count_include_pad, by all k_h*k_w. */
static inline void nk_ref_pool2d_f32(const float *x, float *y,
                                     const nk_ref_conv_geom *g, int is_max) {
    const int32_t ch = g->in_c;
    const size_t row_stride = (size_t)g->in_w * (size_t)ch;
    int32_t b, oy, ox, ky, kx, c;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_pool_range_dil(iy0, g->k_h, g->dil_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi;
                float *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                 (size_t)ox) * (size_t)ch;
                int first = 1;
                float scale = 1.0f;
                nk_ref_pool_range_dil(ix0, g->k_w, g->dil_w, g->in_w, &kx_lo, &kx_hi);
                if (!is_max)
                    for (c = 0; c < ch; c++)
                        yp[c] = 0.0f;
                for (ky = ky_lo; ky < ky_hi; ky++) {
                    const float *xrow = xb + (size_t)(iy0 + ky * g->dil_h) * row_stride;
                    for (kx = kx_lo; kx < kx_hi; kx++) {
                        const float *xp = xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)ch;
                        if (!is_max) {
                            for (c = 0; c < ch; c++)
                                yp[c] += xp[c];
                        } else if (first) {
                            for (c = 0; c < ch; c++)
                                yp[c] = xp[c];
                            first = 0;
                        } else {
                            for (c = 0; c < ch; c++)
                                yp[c] = xp[c] > yp[c] ? xp[c] : yp[c];
                        }
                    }
                }
                if (!is_max)
                    scale = g->count_include_pad
                                ? 1.0f / (float)(g->k_h * g->k_w)
                                : 1.0f / (float)((ky_hi - ky_lo) * (kx_hi - kx_lo));
                for (c = 0; c < ch; c++)
                    yp[c] = nk_clampf(is_max ? yp[c] : yp[c] * scale, g->act_min, g->act_max);
            }
        }
    }
}

void nk_ref_max_pool2d_f32(const float *x, float *y,
                           const nk_ref_conv_geom *g) {
    nk_ref_pool2d_f32(x, y, g, 1);
}

void nk_ref_avg_pool2d_f32(const float *x, float *y,
                           const nk_ref_conv_geom *g) {
    nk_ref_pool2d_f32(x, y, g, 0);
}

void nk_ref_global_avg_pool_f32(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                int32_t batch, size_t hw, int32_t c) {
    int32_t b, j;
    size_t p;
    const float scale = 1.0f / (float)hw;
    for (b = 0; b < batch; b++) {
        const float *xb = x + (size_t)b * hw * (size_t)c;
        float *yb = y + (size_t)b * (size_t)c;
        for (j = 0; j < c; j++)
            yb[j] = 0.0f;
        for (p = 0; p < hw; p++) {
            const float *xp = xb + p * (size_t)c;
            for (j = 0; j < c; j++)
                yb[j] += xp[j];
        }
        for (j = 0; j < c; j++)
            yb[j] *= scale;
    }
}

/* ref_conv.c — 2-D convolution and depthwise convolution, NHWC float32. */
#include "ref_kernels.h"

/* Taps [*lo, *hi) of a window starting at input index `start` with
 * dilation `dil` over `k` taps that land inside [0, n). */
static inline void nk_ref_tap_range(int32_t start, int32_t dil, int32_t k, int32_t n,
                                    int32_t *lo, int32_t *hi) {
    int32_t a = start >= 0 ? 0 : (-start + dil - 1) / dil;
    int32_t b = start > n - 1 ? 0 : (n - 1 - start) / dil + 1;
    *lo = a;
    *hi = b < k ? b : k;
}

void nk_ref_conv2d_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                       const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                       const nk_ref_conv_geom *g) {
    const int32_t cg = g->in_c / g->groups;  /* input channels per group */
    const int32_t og = g->out_c / g->groups; /* output channels per group */
    const size_t row_stride = (size_t)g->in_w * (size_t)g->in_c;
    const size_t w_per_out = (size_t)g->k_h * (size_t)g->k_w * (size_t)cg;
    int32_t b, oy, ox, grp, o, ky, kx, ci;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi;
                float *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                 (size_t)ox) * (size_t)g->out_c;
                nk_ref_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                for (grp = 0; grp < g->groups; grp++) {
                    const float *xg = xb + (size_t)grp * (size_t)cg;
                    const int32_t o_end = (grp + 1) * og;
                    o = grp * og;
                    /* Four output channels at a time: each input value is
                     * loaded once for four independent accumulators. */
                    for (; o + 4 <= o_end; o += 4) {
                        const float *w0 = w + (size_t)o * w_per_out;
                        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
                        if (bias) {
                            a0 = bias[o];
                            a1 = bias[o + 1];
                            a2 = bias[o + 2];
                            a3 = bias[o + 3];
                        }
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const float *xrow = xg + (size_t)(iy0 + ky * g->dil_h) * row_stride;
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const float *xp =
                                    xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                                const float *wp =
                                    w0 + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * (size_t)cg;
                                for (ci = 0; ci < cg; ci++) {
                                    const float xv = xp[ci];
                                    a0 += xv * wp[ci];
                                    a1 += xv * wp[w_per_out + (size_t)ci];
                                    a2 += xv * wp[2 * w_per_out + (size_t)ci];
                                    a3 += xv * wp[3 * w_per_out + (size_t)ci];
                                }
                            }
                        }
                        yp[o] = nk_clampf(a0, g->act_min, g->act_max);
                        yp[o + 1] = nk_clampf(a1, g->act_min, g->act_max);
                        yp[o + 2] = nk_clampf(a2, g->act_min, g->act_max);
                        yp[o + 3] = nk_clampf(a3, g->act_min, g->act_max);
                    }
                    for (; o < o_end; o++) {
                        const float *w0 = w + (size_t)o * w_per_out;
                        float acc = bias ? bias[o] : 0.0f;
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const float *xrow = xg + (size_t)(iy0 + ky * g->dil_h) * row_stride;
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const float *xp =
                                    xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                                const float *wp =
                                    w0 + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * (size_t)cg;
                                for (ci = 0; ci < cg; ci++)
                                    acc += xp[ci] * wp[ci];
                            }
                        }
                        yp[o] = nk_clampf(acc, g->act_min, g->act_max);
                    }
                }
            }
        }
    }
}

void nk_ref_depthwise_conv2d_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                                 const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                 const nk_ref_conv_geom *g) {
    const int32_t m = g->multiplier;
    const int32_t oc = g->out_c; /* in_c * m: also the weights' channel stride */
    const size_t row_stride = (size_t)g->in_w * (size_t)g->in_c;
    int32_t b, oy, ox, ky, kx, c, j;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi;
                float *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                 (size_t)ox) * (size_t)oc;
                nk_ref_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                /* Accumulate in the output pixel: contiguous over channels. */
                for (j = 0; j < oc; j++)
                    yp[j] = bias ? bias[j] : 0.0f;
                for (ky = ky_lo; ky < ky_hi; ky++) {
                    const int32_t iy = iy0 + ky * g->dil_h;
                    const float *xrow = xb + (size_t)iy * row_stride;
                    const float *wrow = w + (size_t)ky * (size_t)g->k_w * (size_t)oc;
                    for (kx = kx_lo; kx < kx_hi; kx++) {
                        const float *xp = xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                        const float *wp = wrow + (size_t)kx * (size_t)oc;
                        if (m == 1) {
                            for (c = 0; c < oc; c++)
                                yp[c] += xp[c] * wp[c];
                        } else {
                            for (c = 0; c < g->in_c; c++) {
                                const float xv = xp[c];
                                const float *wc = wp + (size_t)c * (size_t)m;
                                float *yc = yp + (size_t)c * (size_t)m;
                                for (j = 0; j < m; j++)
                                    yc[j] += xv * wc[j];
                            }
                        }
                    }
                }
                for (j = 0; j < oc; j++)
                    yp[j] = nk_clampf(yp[j], g->act_min, g->act_max);
            }
        }
    }
}

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

/* s[j][i] += x[c] * w_j[c] over c = i mod 4, for the four weight rows
 * w_j = w + j*w_stride: one load of x feeds four outputs, and the four
 * partial sums per output are independent chains (vectorizable without
 * reassociation). */
static inline void nk_ref_mac4x4(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                                 size_t w_stride, int32_t n, float s[4][4]) {
    const float *w1 = w + w_stride, *w2 = w1 + w_stride, *w3 = w2 + w_stride;
    int32_t c = 0, i;
    for (; c + 4 <= n; c += 4) {
        NK_REF_LANES
        for (i = 0; i < 4; i++) {
            const float xv = x[c + i];
            s[0][i] += xv * w[c + i];
            s[1][i] += xv * w1[c + i];
            s[2][i] += xv * w2[c + i];
            s[3][i] += xv * w3[c + i];
        }
    }
    for (; c < n; c++) {
        const float xv = x[c];
        s[0][0] += xv * w[c];
        s[1][0] += xv * w1[c];
        s[2][0] += xv * w2[c];
        s[3][0] += xv * w3[c];
    }
}

void nk_ref_conv2d_f32(const float *x, const float *NK_RESTRICT w,
                       const float *NK_RESTRICT bias, float *y,
                       const nk_ref_conv_geom *g) {
    const int32_t cg = g->in_c / g->groups;  /* input channels per group */
    const int32_t og = g->out_c / g->groups; /* output channels per group */
    const size_t row_stride = (size_t)g->in_w * (size_t)g->in_c;
    const size_t w_per_out = (size_t)g->k_h * (size_t)g->k_w * (size_t)cg;
    int32_t b, oy, ox, grp, o, ky, kx, ci, j;
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
                    /* Four output channels at a time, so each input value is
                     * loaded once for four accumulators: on vector FPUs with
                     * >= 4 input channels per group, four partial sums per
                     * output (vectorizable); else one chain per output. */
                    for (; NK_REF_VECTOR_FPU && cg >= 4 && o + 4 <= o_end; o += 4) {
                        const float *w0 = w + (size_t)o * w_per_out;
                        float s[4][4] = {{0}};
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const float *xrow = xg + (size_t)(iy0 + ky * g->dil_h) * row_stride;
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const float *xp =
                                    xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                                const float *wp =
                                    w0 + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * (size_t)cg;
                                nk_ref_mac4x4(xp, wp, w_per_out, cg, s);
                            }
                        }
                        for (j = 0; j < 4; j++) {
                            const float acc = (s[j][0] + s[j][1]) + (s[j][2] + s[j][3]);
                            yp[o + j] = nk_clampf(bias ? acc + bias[o + j] : acc, g->act_min,
                                                  g->act_max);
                        }
                    }
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

void nk_ref_depthwise_conv2d_f32(const float *x, const float *NK_RESTRICT w,
                                 const float *NK_RESTRICT bias, float *y,
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
                if (m == 1) {
                    /* Four channels in registers across all taps: two loads
                     * per multiply-add and one store per output. */
                    for (c = 0; c + 4 <= oc; c += 4) {
                        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
                        if (bias) {
                            a0 = bias[c];
                            a1 = bias[c + 1];
                            a2 = bias[c + 2];
                            a3 = bias[c + 3];
                        }
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const float *xrow =
                                xb + (size_t)(iy0 + ky * g->dil_h) * row_stride + (size_t)c;
                            const float *wrow = w + (size_t)ky * (size_t)g->k_w * (size_t)oc +
                                                (size_t)c;
                            for (kx = kx_lo; kx < kx_hi; kx++) {
                                const float *xp =
                                    xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                                const float *wp = wrow + (size_t)kx * (size_t)oc;
                                a0 += xp[0] * wp[0];
                                a1 += xp[1] * wp[1];
                                a2 += xp[2] * wp[2];
                                a3 += xp[3] * wp[3];
                            }
                        }
                        yp[c] = nk_clampf(a0, g->act_min, g->act_max);
                        yp[c + 1] = nk_clampf(a1, g->act_min, g->act_max);
                        yp[c + 2] = nk_clampf(a2, g->act_min, g->act_max);
                        yp[c + 3] = nk_clampf(a3, g->act_min, g->act_max);
                    }
                    for (; c < oc; c++) {
                        float acc = bias ? bias[c] : 0.0f;
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const float *xrow =
                                xb + (size_t)(iy0 + ky * g->dil_h) * row_stride + (size_t)c;
                            const float *wrow = w + (size_t)ky * (size_t)g->k_w * (size_t)oc +
                                                (size_t)c;
                            for (kx = kx_lo; kx < kx_hi; kx++)
                                acc += xrow[(size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c] *
                                       wrow[(size_t)kx * (size_t)oc];
                        }
                        yp[c] = nk_clampf(acc, g->act_min, g->act_max);
                    }
                    continue;
                }
                /* Multiplier > 1: accumulate in the output pixel, contiguous
                 * over the multiplier's channels. */
                for (j = 0; j < oc; j++)
                    yp[j] = bias ? bias[j] : 0.0f;
                for (ky = ky_lo; ky < ky_hi; ky++) {
                    const int32_t iy = iy0 + ky * g->dil_h;
                    const float *xrow = xb + (size_t)iy * row_stride;
                    const float *wrow = w + (size_t)ky * (size_t)g->k_w * (size_t)oc;
                    for (kx = kx_lo; kx < kx_hi; kx++) {
                        const float *xp = xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                        const float *wp = wrow + (size_t)kx * (size_t)oc;
                        for (c = 0; c < g->in_c; c++) {
                            const float xv = xp[c];
                            const float *wc = wp + (size_t)c * (size_t)m;
                            float *yc = yp + (size_t)c * (size_t)m;
                            for (j = 0; j < m; j++)
                                yc[j] += xv * wc[j];
                        }
                    }
                }
                for (j = 0; j < oc; j++)
                    yp[j] = nk_clampf(yp[j], g->act_min, g->act_max);
            }
        }
    }
}

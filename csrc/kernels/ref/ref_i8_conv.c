/* ref_i8_conv.c — int8 convolution, depthwise convolution and dense.
 *
 * TFLite sums (x - in_zp) * w over the taps that land inside the input;
 * padded taps contribute nothing (they are not x = 0). The kernels do the
 * same: they walk only the valid taps and add the offset -in_zp to each x
 * once, for the four output channels that share it (4-channel blocking as
 * in ref_conv.c). */
#include "ref_i8.h"

/* sum(x*w) + off * sum(w) = sum((x + off) * w): each term fits int32 (the
 * depth bound), their sum is taken modulo 2^32, which gives the exact
 * value whenever it fits, as TFLite's does. */
static inline int32_t nk_i8_add_offset(int32_t acc, int32_t off, int32_t wsum) {
    return (int32_t)((uint32_t)acc + (uint32_t)(off * wsum));
}

void nk_ref_conv_wsum_i8(const int8_t *NK_RESTRICT w, int32_t out_c, size_t per_out,
                         int32_t *NK_RESTRICT wsum) {
    int32_t o;
    size_t k;
    for (o = 0; o < out_c; o++) {
        int32_t acc = 0;
        for (k = 0; k < per_out; k++)
            acc += w[(size_t)o * per_out + k];
        wsum[o] = acc;
    }
}

void nk_ref_conv2d_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                      const int32_t *NK_RESTRICT bias, int8_t *y,
                      const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                      const int32_t *NK_RESTRICT wsum) {
    const int32_t cg = g->in_c / g->groups;  /* input channels per group */
    const int32_t og = g->out_c / g->groups; /* output channels per group */
    const int32_t off = -q->in_zp;
    const size_t row_stride = (size_t)g->in_w * (size_t)g->in_c;
    const size_t w_per_out = (size_t)g->k_h * (size_t)g->k_w * (size_t)cg;
    /* With one group and no horizontal dilation, the valid taps of a kernel
     * row are one contiguous run of x and of w: one inner loop over it
     * (first layers have few input channels, where per-tap loop overhead
     * would dominate). */
    const int merge_row = g->groups == 1 && g->dil_w == 1;
    int32_t b, oy, ox, grp, o, ky, kx, ci;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi, kx_end, run, full;
                int8_t *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                  (size_t)ox) * (size_t)g->out_c;
                nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                full = wsum != NULL && ky_lo == 0 && ky_hi == g->k_h && kx_lo == 0 &&
                       kx_hi == g->k_w;
                kx_end = kx_hi;
                run = cg;
                if (merge_row && kx_lo < kx_hi) {
                    kx_end = kx_lo + 1;
                    run = (kx_hi - kx_lo) * cg;
                }
                for (grp = 0; grp < g->groups; grp++) {
                    const int8_t *xg = xb + (size_t)grp * (size_t)cg;
                    const int32_t o_end = (grp + 1) * og;
                    o = grp * og;
                    if (full) {
                        /* A window inside the input: sum x*w, then add the
                         * offset term off * sum(w) once per output channel. */
                        for (; o + 4 <= o_end; o += 4) {
                            const int8_t *w0 = w + (size_t)o * w_per_out;
                            int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                            for (ky = ky_lo; ky < ky_hi; ky++) {
                                const int8_t *xrow =
                                    xg + (size_t)(iy0 + ky * g->dil_h) * row_stride;
                                for (kx = kx_lo; kx < kx_end; kx++) {
                                    const int8_t *xp =
                                        xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                                    const int8_t *wp = w0 + ((size_t)ky * (size_t)g->k_w +
                                                             (size_t)kx) * (size_t)cg;
                                    const int8_t *wp1 = wp + w_per_out, *wp2 = wp1 + w_per_out,
                                                 *wp3 = wp2 + w_per_out;
                                    for (ci = 0; ci < run; ci++) {
                                        const int32_t xv = xp[ci];
                                        a0 += xv * wp[ci];
                                        a1 += xv * wp1[ci];
                                        a2 += xv * wp2[ci];
                                        a3 += xv * wp3[ci];
                                    }
                                }
                            }
                            yp[o] = nk_i8_finish(nk_i8_add_offset(a0, off, wsum[o]), bias,
                                                   o, q);
                            yp[o + 1] = nk_i8_finish(nk_i8_add_offset(a1, off, wsum[o + 1]), bias,
                                                   o + 1, q);
                            yp[o + 2] = nk_i8_finish(nk_i8_add_offset(a2, off, wsum[o + 2]), bias,
                                                   o + 2, q);
                            yp[o + 3] = nk_i8_finish(nk_i8_add_offset(a3, off, wsum[o + 3]), bias,
                                                   o + 3, q);
                        }
                    }
                    /* Four output channels at a time: each input value is
                     * loaded and offset once for four accumulators. */
                    for (; o + 4 <= o_end; o += 4) {
                        const int8_t *w0 = w + (size_t)o * w_per_out;
                        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *xrow = xg + (size_t)(iy0 + ky * g->dil_h) * row_stride;
                            for (kx = kx_lo; kx < kx_end; kx++) {
                                const int8_t *xp =
                                    xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                                const int8_t *wp =
                                    w0 + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * (size_t)cg;
                                const int8_t *wp1 = wp + w_per_out, *wp2 = wp1 + w_per_out,
                                             *wp3 = wp2 + w_per_out;
                                for (ci = 0; ci < run; ci++) {
                                    const int32_t xv = xp[ci] + off;
                                    a0 += xv * wp[ci];
                                    a1 += xv * wp1[ci];
                                    a2 += xv * wp2[ci];
                                    a3 += xv * wp3[ci];
                                }
                            }
                        }
                        yp[o] = nk_i8_finish(a0, bias, o, q);
                        yp[o + 1] = nk_i8_finish(a1, bias, o + 1, q);
                        yp[o + 2] = nk_i8_finish(a2, bias, o + 2, q);
                        yp[o + 3] = nk_i8_finish(a3, bias, o + 3, q);
                    }
                    for (; o < o_end; o++) {
                        const int8_t *w0 = w + (size_t)o * w_per_out;
                        int32_t acc = 0;
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *xrow = xg + (size_t)(iy0 + ky * g->dil_h) * row_stride;
                            for (kx = kx_lo; kx < kx_end; kx++) {
                                const int8_t *xp =
                                    xrow + (size_t)(ix0 + kx * g->dil_w) * (size_t)g->in_c;
                                const int8_t *wp =
                                    w0 + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * (size_t)cg;
                                for (ci = 0; ci < run; ci++)
                                    acc += (xp[ci] + off) * wp[ci];
                            }
                        }
                        yp[o] = nk_i8_finish(acc, bias, o, q);
                    }
                }
            }
        }
    }
}

void nk_ref_depthwise_wsum_i8(const int8_t *NK_RESTRICT w, int32_t taps, int32_t oc,
                              int32_t *NK_RESTRICT wsum) {
    int32_t t, c;
    for (c = 0; c < oc; c++)
        wsum[c] = 0;
    for (t = 0; t < taps; t++)
        for (c = 0; c < oc; c++)
            wsum[c] += w[(size_t)t * (size_t)oc + (size_t)c];
}

void nk_ref_depthwise_conv2d_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                                const int32_t *NK_RESTRICT bias, int8_t *y,
                                const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                const int32_t *NK_RESTRICT wsum) {
    const int32_t m = g->multiplier;
    const int32_t oc = g->out_c; /* in_c * m: also the weights' channel stride */
    const int32_t off = -q->in_zp;
    const size_t row_stride = (size_t)g->in_w * (size_t)g->in_c;
    const size_t w_row = (size_t)g->k_w * (size_t)oc;
    int32_t b, oy, ox, ky, kx, c;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_i8_tap_range(iy0, g->dil_h, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                const size_t x_step = (size_t)g->dil_w * (size_t)g->in_c;
                const size_t w_step = (size_t)oc;
                int32_t kx_lo, kx_hi;
                int8_t *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                  (size_t)ox) * (size_t)oc;
                nk_i8_tap_range(ix0, g->dil_w, g->k_w, g->in_w, &kx_lo, &kx_hi);
                c = 0;
                if (m == 1 && wsum != NULL && ky_lo == 0 && ky_hi == g->k_h && kx_lo == 0 &&
                    kx_hi == g->k_w) {
                    /* A window inside the input: sum x*w and add the offset
                     * term off * sum(w) once per channel (exact in int32 as
                     * TFLite's sum of (x + off) * w is; the two terms are
                     * added with wrap-around, whose result is that sum). */
                    for (; c + 4 <= oc; c += 4) {
                        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                        for (ky = 0; ky < ky_hi; ky++) {
                            const int8_t *xp = xb + (size_t)(iy0 + ky * g->dil_h) * row_stride +
                                               (size_t)ix0 * (size_t)g->in_c + (size_t)c;
                            const int8_t *wp = w + (size_t)ky * w_row + (size_t)c;
                            for (kx = 0; kx < kx_hi; kx++, xp += x_step, wp += w_step) {
                                a0 += xp[0] * wp[0];
                                a1 += xp[1] * wp[1];
                                a2 += xp[2] * wp[2];
                                a3 += xp[3] * wp[3];
                            }
                        }
                        yp[c] = nk_i8_finish(nk_i8_add_offset(a0, off, wsum[c]), bias, c, q);
                        yp[c + 1] =
                            nk_i8_finish(nk_i8_add_offset(a1, off, wsum[c + 1]), bias, c + 1, q);
                        yp[c + 2] =
                            nk_i8_finish(nk_i8_add_offset(a2, off, wsum[c + 2]), bias, c + 2, q);
                        yp[c + 3] =
                            nk_i8_finish(nk_i8_add_offset(a3, off, wsum[c + 3]), bias, c + 3, q);
                    }
                } else if (m == 1) {
                    /* At the border: only the valid taps, each x offset. */
                    for (; c + 4 <= oc; c += 4) {
                        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *xp = xb + (size_t)(iy0 + ky * g->dil_h) * row_stride +
                                               (size_t)(ix0 + kx_lo * g->dil_w) * (size_t)g->in_c +
                                               (size_t)c;
                            const int8_t *wp =
                                w + (size_t)ky * w_row + (size_t)kx_lo * w_step + (size_t)c;
                            for (kx = kx_lo; kx < kx_hi; kx++, xp += x_step, wp += w_step) {
                                a0 += (xp[0] + off) * wp[0];
                                a1 += (xp[1] + off) * wp[1];
                                a2 += (xp[2] + off) * wp[2];
                                a3 += (xp[3] + off) * wp[3];
                            }
                        }
                        yp[c] = nk_i8_finish(a0, bias, c, q);
                        yp[c + 1] = nk_i8_finish(a1, bias, c + 1, q);
                        yp[c + 2] = nk_i8_finish(a2, bias, c + 2, q);
                        yp[c + 3] = nk_i8_finish(a3, bias, c + 3, q);
                    }
                }
#if !NK_REF_SMALL
                /* (NK_REF_SMALL, -Os, leaves multipliers > 1 to the loop
                 * below: the four lanes cost about 300 B of flash on Cortex-M) */
                else {
                    /* Multiplier > 1: four output channels at a time, lane j
                     * reading input channel (c + j) / m. */
                    for (; c + 4 <= oc; c += 4) {
                        const size_t i0 = (size_t)(c / m), i1 = (size_t)((c + 1) / m),
                                     i2 = (size_t)((c + 2) / m), i3 = (size_t)((c + 3) / m);
                        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                        for (ky = ky_lo; ky < ky_hi; ky++) {
                            const int8_t *xp = xb + (size_t)(iy0 + ky * g->dil_h) * row_stride +
                                               (size_t)(ix0 + kx_lo * g->dil_w) * (size_t)g->in_c;
                            const int8_t *wp =
                                w + (size_t)ky * w_row + (size_t)kx_lo * w_step + (size_t)c;
                            for (kx = kx_lo; kx < kx_hi; kx++, xp += x_step, wp += w_step) {
                                a0 += (xp[i0] + off) * wp[0];
                                a1 += (xp[i1] + off) * wp[1];
                                a2 += (xp[i2] + off) * wp[2];
                                a3 += (xp[i3] + off) * wp[3];
                            }
                        }
                        yp[c] = nk_i8_finish(a0, bias, c, q);
                        yp[c + 1] = nk_i8_finish(a1, bias, c + 1, q);
                        yp[c + 2] = nk_i8_finish(a2, bias, c + 2, q);
                        yp[c + 3] = nk_i8_finish(a3, bias, c + 3, q);
                    }
                }
#endif
                /* The rest, and any multiplier: output channel c reads
                 * input channel c / m. */
                for (; c < oc; c++) {
                    const int32_t ic = c / m;
                    int32_t acc = 0;
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xp = xb + (size_t)(iy0 + ky * g->dil_h) * row_stride +
                                           (size_t)(ix0 + kx_lo * g->dil_w) * (size_t)g->in_c +
                                           (size_t)ic;
                        const int8_t *wp =
                            w + (size_t)ky * w_row + (size_t)kx_lo * w_step + (size_t)c;
                        for (kx = kx_lo; kx < kx_hi; kx++, xp += x_step, wp += w_step)
                            acc += (xp[0] + off) * wp[0];
                    }
                    yp[c] = nk_i8_finish(acc, bias, c, q);
                }
            }
        }
    }
}

void nk_ref_dense_i8(const int8_t *NK_RESTRICT x, const int8_t *NK_RESTRICT w,
                     const int32_t *NK_RESTRICT bias, int8_t *NK_RESTRICT y, size_t rows,
                     int32_t in_features, int32_t out_features, const nk_ref_i8_quant *q) {
    const size_t k_n = (size_t)in_features;
    const int32_t off = -q->in_zp;
    size_t r;
    int32_t n, k;
    for (r = 0; r < rows; r++) {
        const int8_t *xr = x + r * k_n;
        int8_t *yr = y + r * (size_t)out_features;
        for (n = 0; n + 4 <= out_features; n += 4) {
            const int8_t *w0 = w + (size_t)n * k_n, *w1 = w0 + k_n, *w2 = w1 + k_n,
                         *w3 = w2 + k_n;
            int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            for (k = 0; k < in_features; k++) {
                const int32_t xv = xr[k] + off;
                a0 += xv * w0[k];
                a1 += xv * w1[k];
                a2 += xv * w2[k];
                a3 += xv * w3[k];
            }
            yr[n] = nk_i8_finish(a0, bias, n, q);
            yr[n + 1] = nk_i8_finish(a1, bias, n + 1, q);
            yr[n + 2] = nk_i8_finish(a2, bias, n + 2, q);
            yr[n + 3] = nk_i8_finish(a3, bias, n + 3, q);
        }
        for (; n < out_features; n++) {
            const int8_t *w0 = w + (size_t)n * k_n;
            int32_t acc = 0;
            for (k = 0; k < in_features; k++)
                acc += (xr[k] + off) * w0[k];
            yr[n] = nk_i8_finish(acc, bias, n, q);
        }
    }
}

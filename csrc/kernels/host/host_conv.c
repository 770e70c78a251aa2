/* host_conv.c — conv2d (groups 1) and depthwise conv over NHWC float32.
 *
 * conv2d reads weights packed once at load into panels of NK_VL output
 * channels: packed[p][ky][kx][c][j] = w[p*NK_VL + j][ky][kx][c] (zero past
 * out_c), i.e. a GEMM whose A rows are the output pixels' input windows,
 * read in place (no im2col copy). Eight output pixels of a row share each
 * weight load (eight independent FMA chains); pixels whose window crosses
 * the left or right padding take the per-pixel path with tap checks. 1x1
 * and 3x3 kernels, strides, padding and dilation all go through it.
 * Depthwise reads the weights as stored ([1, k_h, k_w, C], contiguous over
 * channels) and vectorizes over channels. Compiled once per ISA level. */
#include "host_isa.h"
#include "host.h"

/* file-local names, suffixed per level (host_isa.h) */
#define nk_hconv_store NK_HOST_FN(nk_hconv_store)
#define nk_hconv_block NK_HOST_FN(nk_hconv_block)
#define nk_hconv_pixel NK_HOST_FN(nk_hconv_pixel)

#define NK_HCONV_MR 8 /* output pixels per register block */

size_t NK_HOST_FN(nk_host_conv2d_pack_size)(const nk_ref_conv_geom *g) {
    const size_t panels = ((size_t)g->out_c + NK_VL - 1) / NK_VL;
    if (g->groups != 1) return 0; /* grouped convs run the portable kernel */
    return panels * (size_t)g->k_h * (size_t)g->k_w * (size_t)g->in_c * NK_VL * sizeof(float);
}

void NK_HOST_FN(nk_host_conv2d_pack)(const float *NK_RESTRICT w, const nk_ref_conv_geom *g,
                                     float *NK_RESTRICT packed) {
    const size_t taps = (size_t)g->k_h * (size_t)g->k_w * (size_t)g->in_c;
    const size_t panels = ((size_t)g->out_c + NK_VL - 1) / NK_VL;
    size_t p, t, j;
    for (p = 0; p < panels; p++)
        for (t = 0; t < taps; t++)
            for (j = 0; j < NK_VL; j++) {
                const size_t o = p * NK_VL + j;
                packed[(p * taps + t) * NK_VL + j] = o < (size_t)g->out_c ? w[o * taps + t] : 0.0f;
            }
}

size_t NK_HOST_FN(nk_host_conv2d_workspace)(const nk_ref_conv_geom *g) {
    (void)g;
    return 0;
}

static inline void nk_hconv_store(float *y, nk_vf v, size_t n, nk_vf lo, nk_vf hi) {
    v = nk_vclamp(v, lo, hi);
    if (n == NK_VL)
        nk_vstore(y, v);
    else
        nk_vstore_n(y, v, n);
}

/* NK_HCONV_MR pixels ox0.. of output row oy whose windows lie inside the
 * input columns, against panel pw. */
static void nk_hconv_block(const float *NK_RESTRICT xb, const float *NK_RESTRICT pw,
                           const nk_ref_conv_geom *g, int32_t oy, int32_t ox0, nk_vf b,
                           nk_vf *acc) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    const size_t sx = (size_t)g->stride_w * C;
    nk_vf a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b;
    int32_t ky, kx;
    size_t c;
    for (ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = oy * g->stride_h - g->pad_top + ky * g->dil_h;
        if (iy < 0 || iy >= g->in_h) continue;
        for (kx = 0; kx < g->k_w; kx++) {
            const int32_t ix = ox0 * g->stride_w - g->pad_left + kx * g->dil_w;
            const float *xp = xb + (size_t)iy * row + (size_t)ix * C;
            const float *wp = pw + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * C * NK_VL;
            for (c = 0; c < C; c++) {
                const nk_vf w = nk_vload(wp + c * NK_VL);
                const float *xc = xp + c;
                a0 = nk_vfma(nk_vdup(xc[0]), w, a0);
                a1 = nk_vfma(nk_vdup(xc[sx]), w, a1);
                a2 = nk_vfma(nk_vdup(xc[2 * sx]), w, a2);
                a3 = nk_vfma(nk_vdup(xc[3 * sx]), w, a3);
                a4 = nk_vfma(nk_vdup(xc[4 * sx]), w, a4);
                a5 = nk_vfma(nk_vdup(xc[5 * sx]), w, a5);
                a6 = nk_vfma(nk_vdup(xc[6 * sx]), w, a6);
                a7 = nk_vfma(nk_vdup(xc[7 * sx]), w, a7);
            }
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
    acc[4] = a4;
    acc[5] = a5;
    acc[6] = a6;
    acc[7] = a7;
}

/* One output pixel against panel pw, skipping taps in the padding. */
static nk_vf nk_hconv_pixel(const float *NK_RESTRICT xb, const float *NK_RESTRICT pw,
                            const nk_ref_conv_geom *g, int32_t oy, int32_t ox, nk_vf b) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    nk_vf a0 = b, a1 = nk_vdup(0.0f);
    int32_t ky, kx;
    size_t c;
    for (ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = oy * g->stride_h - g->pad_top + ky * g->dil_h;
        if (iy < 0 || iy >= g->in_h) continue;
        for (kx = 0; kx < g->k_w; kx++) {
            const int32_t ix = ox * g->stride_w - g->pad_left + kx * g->dil_w;
            const float *xp, *wp;
            if (ix < 0 || ix >= g->in_w) continue;
            xp = xb + (size_t)iy * row + (size_t)ix * C;
            wp = pw + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * C * NK_VL;
            for (c = 0; c + 2 <= C; c += 2) {
                a0 = nk_vfma(nk_vdup(xp[c]), nk_vload(wp + c * NK_VL), a0);
                a1 = nk_vfma(nk_vdup(xp[c + 1]), nk_vload(wp + (c + 1) * NK_VL), a1);
            }
            if (c < C) a0 = nk_vfma(nk_vdup(xp[c]), nk_vload(wp + c * NK_VL), a0);
        }
    }
    return a0 + a1;
}

void NK_HOST_FN(nk_host_conv2d_f32)(const float *NK_RESTRICT x, const float *NK_RESTRICT packed,
                                    const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                    const nk_ref_conv_geom *g, float *NK_RESTRICT workspace) {
    const size_t O = (size_t)g->out_c, panels = (O + NK_VL - 1) / NK_VL;
    const size_t taps = (size_t)g->k_h * (size_t)g->k_w * (size_t)g->in_c;
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    /* output columns [ox_lo, ox_hi) have every tap inside the input columns */
    const int32_t span = (g->k_w - 1) * g->dil_w;
    int32_t ox_lo = (g->pad_left + g->stride_w - 1) / g->stride_w;
    int32_t ox_hi = g->in_w - 1 - span + g->pad_left < 0
                        ? 0
                        : (g->in_w - 1 - span + g->pad_left) / g->stride_w + 1;
    int32_t b, oy, ox;
    size_t p, i;
    (void)workspace;
    if (ox_hi > g->out_w) ox_hi = g->out_w;
    if (ox_lo > ox_hi) ox_lo = ox_hi;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
        float *yb = y + (size_t)b * (size_t)g->out_h * (size_t)g->out_w * O;
        for (oy = 0; oy < g->out_h; oy++) {
            float *yr = yb + (size_t)oy * (size_t)g->out_w * O;
            for (p = 0; p < panels; p++) {
                const float *pw = packed + p * taps * NK_VL;
                const size_t o = p * NK_VL, n = O - o < NK_VL ? O - o : NK_VL;
                const nk_vf bv = bias == NULL ? nk_vdup(0.0f)
                                 : n == NK_VL ? nk_vload(bias + o) : nk_vload_n(bias + o, n);
                for (ox = 0; ox < ox_lo; ox++)
                    nk_hconv_store(yr + (size_t)ox * O + o, nk_hconv_pixel(xb, pw, g, oy, ox, bv),
                                   n, lo, hi);
                for (; ox + NK_HCONV_MR <= ox_hi; ox += NK_HCONV_MR) {
                    nk_vf acc[NK_HCONV_MR];
                    nk_hconv_block(xb, pw, g, oy, ox, bv, acc);
                    for (i = 0; i < NK_HCONV_MR; i++)
                        nk_hconv_store(yr + ((size_t)ox + i) * O + o, acc[i], n, lo, hi);
                }
                for (; ox < g->out_w; ox++)
                    nk_hconv_store(yr + (size_t)ox * O + o, nk_hconv_pixel(xb, pw, g, oy, ox, bv),
                                   n, lo, hi);
            }
        }
    }
}

/* Depthwise, multiplier 1: channels in vectors, taps outside the input
 * skipped. Other multipliers run the portable kernel. */
int NK_HOST_FN(nk_host_depthwise_conv2d_f32)(const float *NK_RESTRICT x,
                                             const float *NK_RESTRICT w,
                                             const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                             const nk_ref_conv_geom *g) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    int32_t b, oy, ox, ky, kx;
    size_t c;
    if (g->multiplier != 1) return 0;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row;
        for (oy = 0; oy < g->out_h; oy++) {
            for (ox = 0; ox < g->out_w; ox++) {
                float *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                 (size_t)ox) * C;
                for (c = 0; c < C; c += NK_VL) {
                    const size_t n = C - c < NK_VL ? C - c : NK_VL;
                    nk_vf acc = bias == NULL ? nk_vdup(0.0f)
                                : n == NK_VL ? nk_vload(bias + c) : nk_vload_n(bias + c, n);
                    for (ky = 0; ky < g->k_h; ky++) {
                        const int32_t iy = oy * g->stride_h - g->pad_top + ky * g->dil_h;
                        if (iy < 0 || iy >= g->in_h) continue;
                        for (kx = 0; kx < g->k_w; kx++) {
                            const int32_t ix = ox * g->stride_w - g->pad_left + kx * g->dil_w;
                            const float *xp, *wp;
                            if (ix < 0 || ix >= g->in_w) continue;
                            xp = xb + (size_t)iy * row + (size_t)ix * C + c;
                            wp = w + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * C + c;
                            if (n == NK_VL)
                                acc = nk_vfma(nk_vload(xp), nk_vload(wp), acc);
                            else
                                acc = nk_vfma(nk_vload_n(xp, n), nk_vload_n(wp, n), acc);
                        }
                    }
                    nk_hconv_store(yp + c, acc, n, lo, hi);
                }
            }
        }
    }
    return 1;
}

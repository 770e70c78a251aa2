/* host_pool.c — max, average and global average pooling, NHWC float32,
 * vectorized over channels; the same window rules as kernels/ref/ref_pool.c
 * (taps in the padding skipped; average over the taps inside, or all k_h*k_w
 * with count_include_pad). Compiled once per ISA level (host.h). */
#include "host_isa.h"
#include "host.h"

/* file-local names, suffixed per level (host_isa.h) */
#define nk_hpool_load NK_HOST_FN(nk_hpool_load)
#define nk_hpool2d NK_HOST_FN(nk_hpool2d)
#define nk_hpool_vec NK_HOST_FN(nk_hpool_vec)
#define nk_hpool_max2x2 NK_HOST_FN(nk_hpool_max2x2)

static inline __attribute__((always_inline)) nk_vf nk_hpool_load(const float *p, size_t n) {
    return n == NK_VL ? nk_vload(p) : nk_vload_n(p, n);
}

/* One channel vector (n lanes, a constant NK_VL where inlined) of one output
 * pixel over the window's taps inside the input, clamped and stored. */
static inline __attribute__((always_inline)) void
nk_hpool_vec(const float *NK_RESTRICT x0, size_t row, size_t C, int32_t nky, int32_t nkx,
             float *NK_RESTRICT yp, size_t n, int is_max, nk_vf scale, nk_vf lo, nk_vf hi) {
    nk_vf acc = nk_vdup(0.0f);
    int32_t ky, kx;
    if (is_max) acc = nk_hpool_load(x0, n);
    for (ky = 0; ky < nky; ky++) {
        const float *xr = x0 + (size_t)ky * row;
        for (kx = 0; kx < nkx; kx++) {
            const nk_vf v = nk_hpool_load(xr + (size_t)kx * C, n);
            if (is_max) /* (v > acc ? v : acc), as the portable kernel */
                acc = nk_vmax(v, acc);
            else
                acc = acc + v;
        }
    }
    if (!is_max) acc = acc * scale;
    acc = nk_vclamp(acc, lo, hi);
    if (n == NK_VL)
        nk_vstore(yp, acc);
    else
        nk_vstore_n(yp, acc, n);
}

/* Max pooling with 2x2 windows at stride 2, every window inside the input
 * (the CNN downsampling step): straight loops over the output rows, no
 * per-pixel window ranges. */
static int nk_hpool_max2x2(const float *x, float *y, const nk_ref_conv_geom *g) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    int32_t b, oy, ox;
    size_t c;
    if (g->k_h != 2 || g->k_w != 2 || g->stride_h != 2 || g->stride_w != 2 || g->pad_top != 0 ||
        g->pad_left != 0 || 2 * g->out_h > g->in_h || 2 * g->out_w > g->in_w)
        return 0;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row;
        for (oy = 0; oy < g->out_h; oy++) {
            const float *xr = xb + (size_t)(2 * oy) * row;
            float *yr = y + ((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w * C;
            for (ox = 0; ox < g->out_w; ox++) {
                const float *x0 = xr + (size_t)(2 * ox) * C;
                float *yp = yr + (size_t)ox * C;
                for (c = 0; c + NK_VL <= C; c += NK_VL)
                    nk_hpool_vec(x0 + c, row, C, 2, 2, yp + c, NK_VL, 1, lo, lo, hi);
                if (c < C) nk_hpool_vec(x0 + c, row, C, 2, 2, yp + c, C - c, 1, lo, lo, hi);
            }
        }
    }
    return 1;
}

static void nk_hpool2d(const float *x, float *y,
                       const nk_ref_conv_geom *g, int is_max) {
    const size_t C = (size_t)g->in_c, row = (size_t)g->in_w * C;
    const nk_vf lo = nk_vdup(g->act_min), hi = nk_vdup(g->act_max);
    int32_t b, oy, ox;
    size_t c;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_pool_range(iy0, g->k_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                float *yp = y + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                 (size_t)ox) * C;
                const float *x0;
                int32_t kx_lo, kx_hi;
                nk_vf scale;
                nk_ref_pool_range(ix0, g->k_w, g->in_w, &kx_lo, &kx_hi);
                scale = is_max ? lo
                        : nk_vdup(g->count_include_pad
                                      ? 1.0f / (float)(g->k_h * g->k_w)
                                      : 1.0f / (float)((ky_hi - ky_lo) * (kx_hi - kx_lo)));
                x0 = xb + (size_t)(iy0 + ky_lo) * row + (size_t)(ix0 + kx_lo) * C;
                /* full vectors, then the tail: constant widths inline; the
                 * common 2x2 max window whole inside the input, constant too */
                if (is_max && ky_hi - ky_lo == 2 && kx_hi - kx_lo == 2) {
                    for (c = 0; c + NK_VL <= C; c += NK_VL)
                        nk_hpool_vec(x0 + c, row, C, 2, 2, yp + c, NK_VL, 1, scale, lo, hi);
                    if (c < C)
                        nk_hpool_vec(x0 + c, row, C, 2, 2, yp + c, C - c, 1, scale, lo, hi);
                    continue;
                }
                for (c = 0; c + NK_VL <= C; c += NK_VL) {
                    if (is_max)
                        nk_hpool_vec(x0 + c, row, C, ky_hi - ky_lo, kx_hi - kx_lo, yp + c, NK_VL,
                                     1, scale, lo, hi);
                    else
                        nk_hpool_vec(x0 + c, row, C, ky_hi - ky_lo, kx_hi - kx_lo, yp + c, NK_VL,
                                     0, scale, lo, hi);
                }
                if (c < C)
                    nk_hpool_vec(x0 + c, row, C, ky_hi - ky_lo, kx_hi - kx_lo, yp + c, C - c,
                                 is_max, scale, lo, hi);
            }
        }
    }
}

int NK_HOST_FN(nk_host_max_pool2d_f32)(const float *x, float *y,
                                       const nk_ref_conv_geom *g) {
    if (g->dil_h != 1 || g->dil_w != 1)
        return 0; /* dilated windows: the portable kernel */
    if (!nk_hpool_max2x2(x, y, g)) nk_hpool2d(x, y, g, 1);
    return 1;
}

int NK_HOST_FN(nk_host_avg_pool2d_f32)(const float *x, float *y,
                                       const nk_ref_conv_geom *g) {
    nk_hpool2d(x, y, g, 0);
    return 1;
}

int NK_HOST_FN(nk_host_global_avg_pool_f32)(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                            int32_t batch, size_t hw, int32_t c) {
    const size_t C = (size_t)c;
    const nk_vf scale = nk_vdup(1.0f / (float)hw);
    int32_t b;
    size_t p, j;
    for (b = 0; b < batch; b++) {
        const float *xb = x + (size_t)b * hw * C;
        float *yb = y + (size_t)b * C;
        for (j = 0; j < C; j += NK_VL) {
            const size_t n = C - j < NK_VL ? C - j : NK_VL;
            nk_vf a0 = nk_vdup(0.0f), a1 = a0;
            for (p = 0; p + 2 <= hw; p += 2) {
                a0 = a0 + nk_hpool_load(xb + p * C + j, n);
                a1 = a1 + nk_hpool_load(xb + (p + 1) * C + j, n);
            }
            if (p < hw) a0 = a0 + nk_hpool_load(xb + p * C + j, n);
            a0 = (a0 + a1) * scale;
            if (n == NK_VL)
                nk_vstore(yb + j, a0);
            else
                nk_vstore_n(yb + j, a0, n);
        }
    }
    return 1;
}

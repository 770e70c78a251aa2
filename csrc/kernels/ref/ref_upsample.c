/* ref_upsample.c — RESIZE2D (nearest, bilinear, cubic) and CONV_TRANSPOSE2D over
 * NHWC float32. */
#include "ref_kernels.h"

#include <math.h>
#include <string.h>

/* The source coordinate of output index o along an axis of in_len
 * (ONNX Resize's coordinate_transformation_mode). As ONNX defines it, the
 * resized length is in_len * scale, not rounded to the output extent;
 * tf_crop_and_resize spreads the out_len outputs over the crop box. */
static float nk_ref_resize_coord(int32_t o, int32_t in_len, int32_t out_len, float scale,
                                 int32_t coord, const float crop[2]) {
    const float resized = (float)in_len * scale;
    switch (coord) {
    case NK_RESIZE_TF_CROP_AND_RESIZE: {
        const float span = (crop[1] - crop[0]) * (float)(in_len - 1);
        return crop[0] * (float)(in_len - 1) +
               (out_len > 1 ? (float)o * span / (float)(out_len - 1) : 0.5f * span);
    }
    case NK_RESIZE_ALIGN_CORNERS:
        return resized > 1.0f ? (float)o * (float)(in_len - 1) / (resized - 1.0f) : 0.0f;
    case NK_RESIZE_ASYMMETRIC:
        return (float)o / scale;
    case NK_RESIZE_PYTORCH_HALF_PIXEL:
        return resized > 1.0f ? ((float)o + 0.5f) / scale - 0.5f : 0.0f;
    case NK_RESIZE_TF_HALF_PIXEL_FOR_NN:
        return ((float)o + 0.5f) / scale;
    default: /* NK_RESIZE_HALF_PIXEL */
        return ((float)o + 0.5f) / scale - 0.5f;
    }
}

/* Whether a tf_crop_and_resize source coordinate lies outside the input
 * (the output pixel then takes the extrapolation value). */
static int nk_ref_resize_outside(const nk_ref_resize_geom *g, float c, int32_t in_len) {
    return g->coord == NK_RESIZE_TF_CROP_AND_RESIZE && (c < 0.0f || c > (float)(in_len - 1));
}

static int32_t nk_ref_clampi(int32_t v, int32_t hi) {
    return v < 0 ? 0 : v > hi ? hi : v;
}

/* The nearest source index of coordinate c, rounded per `rounding`, in [0, n). */
static int32_t nk_ref_resize_nearest(float c, int32_t n, int32_t rounding) {
    const float f = floorf(c), frac = c - f;
    int32_t i;
    /* clamp before converting: a far-out coordinate must not overflow int32 */
    if (c < -1.0f)
        return 0;
    if (c > (float)n)
        return n - 1;
    switch (rounding) {
    case NK_RESIZE_ROUND_PREFER_CEIL:
        i = (int32_t)f + (frac >= 0.5f);
        break;
    case NK_RESIZE_FLOOR:
        i = (int32_t)f;
        break;
    case NK_RESIZE_CEIL:
        i = (int32_t)f + (frac > 0.0f);
        break;
    default: /* NK_RESIZE_ROUND_PREFER_FLOOR */
        i = (int32_t)f + (frac > 0.5f);
        break;
    }
    return nk_ref_clampi(i, n - 1);
}

/* Bilinear taps of coordinate c: i0, i1 in [0, n) and the weight of i1
 * (out-of-range coordinates take the edge value). */
static void nk_ref_resize_linear(float c, int32_t n, int32_t *i0, int32_t *i1, float *w) {
    float f;
    if (c <= 0.0f) {
        *i0 = *i1 = 0;
        *w = 0.0f;
        return;
    }
    if (c >= (float)(n - 1)) {
        *i0 = *i1 = n - 1;
        *w = 0.0f;
        return;
    }
    f = floorf(c);
    *i0 = (int32_t)f;
    *i1 = *i0 + 1;
    *w = c - f;
}

/* The four cubic taps of coordinate c along an axis of n: indices (already
 * clamped to the edge) and weights. */
typedef struct nk_ref_cubic_taps {
    int32_t idx[4];
    float w[4];
} nk_ref_cubic_taps;

static void nk_ref_resize_cubic(float c, int32_t n, float a, int32_t exclude_outside,
                                nk_ref_cubic_taps *t) {
    /* The taps are f-1..f+2 with f the grid point below c, or one below c
     * when c is on the grid: the fraction r = c - f is in (0, 1] (ONNX's
     * choice; at r = 1 the weights are 0,0,1,0). Taps may reach two pixels
     * past either edge, which repeat the edge pixel. */
    const float f = ceilf(c) - 1.0f, r = c - f, s = 1.0f - r;
    float first = f - 1.0f, sum = 0.0f;
    int32_t i, i0;
    if (first < -2.0f)
        first = -2.0f;
    if (first > (float)(n - 2))
        first = (float)(n - 2);
    i0 = (int32_t)first;
    /* Keys' kernel at distances 1+r, r, 1-r, 2-r */
    t->w[0] = ((a * (r + 1.0f) - 5.0f * a) * (r + 1.0f) + 8.0f * a) * (r + 1.0f) - 4.0f * a;
    t->w[1] = ((a + 2.0f) * r - (a + 3.0f)) * r * r + 1.0f;
    t->w[2] = ((a + 2.0f) * s - (a + 3.0f)) * s * s + 1.0f;
    t->w[3] = ((a * (s + 1.0f) - 5.0f * a) * (s + 1.0f) + 8.0f * a) * (s + 1.0f) - 4.0f * a;
    for (i = 0; i < 4; i++) {
        const int32_t k = i0 + i;
        if (exclude_outside && (k < 0 || k >= n))
            t->w[i] = 0.0f;
        sum += t->w[i];
        t->idx[i] = nk_ref_clampi(k, n - 1);
    }
    if (exclude_outside && sum != 0.0f)
        for (i = 0; i < 4; i++)
            t->w[i] /= sum;
}

static void nk_ref_resize2d_cubic_f32(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                      const nk_ref_resize_geom *g) {
    const int32_t c = g->channels;
    const size_t row = (size_t)g->in_w * (size_t)c, image = (size_t)g->in_h * row;
    int32_t b, oy, ox, k, i, j;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * image;
        for (oy = 0; oy < g->out_h; oy++) {
            const float cy =
                nk_ref_resize_coord(oy, g->in_h, g->out_h, g->scale_h, g->coord, g->crop_h);
            nk_ref_cubic_taps ty;
            nk_ref_resize_cubic(cy, g->in_h, g->cubic_a, g->exclude_outside, &ty);
            for (ox = 0; ox < g->out_w; ox++) {
                const float cx =
                    nk_ref_resize_coord(ox, g->in_w, g->out_w, g->scale_w, g->coord, g->crop_w);
                nk_ref_cubic_taps tx;
                if (nk_ref_resize_outside(g, cy, g->in_h) || nk_ref_resize_outside(g, cx, g->in_w)) {
                    for (k = 0; k < c; k++)
                        y[k] = g->extrapolation;
                    y += c;
                    continue;
                }
                nk_ref_resize_cubic(cx, g->in_w, g->cubic_a, g->exclude_outside, &tx);
                for (k = 0; k < c; k++) {
                    float acc = 0.0f;
                    /* along W within each of the four rows, then along H */
                    for (i = 0; i < 4; i++) {
                        const float *r = xb + (size_t)ty.idx[i] * row + (size_t)k;
                        float v = 0.0f;
                        for (j = 0; j < 4; j++)
                            v += tx.w[j] * r[(size_t)tx.idx[j] * (size_t)c];
                        acc += ty.w[i] * v;
                    }
                    y[k] = acc;
                }
                y += c;
            }
        }
    }
}

void nk_ref_resize2d_nearest(const void *NK_RESTRICT x, void *NK_RESTRICT y,
                             const nk_ref_resize_geom *g, size_t es) {
    const size_t pixel = (size_t)g->channels * es;
    const size_t row = (size_t)g->in_w * pixel, image = (size_t)g->in_h * row;
    const unsigned char *xs = (const unsigned char *)x;
    unsigned char *yd = (unsigned char *)y;
    int32_t b, oy, ox;
    for (b = 0; b < g->batch; b++) {
        const unsigned char *xb = xs + (size_t)b * image;
        for (oy = 0; oy < g->out_h; oy++) {
            const float cy =
                nk_ref_resize_coord(oy, g->in_h, g->out_h, g->scale_h, g->coord, g->crop_h);
            const int32_t iy = nk_ref_resize_nearest(cy, g->in_h, g->rounding);
            for (ox = 0; ox < g->out_w; ox++) {
                const float cx =
                    nk_ref_resize_coord(ox, g->in_w, g->out_w, g->scale_w, g->coord, g->crop_w);
                const int32_t ix = nk_ref_resize_nearest(cx, g->in_w, g->rounding);
                if (es == sizeof(float) &&
                    (nk_ref_resize_outside(g, cy, g->in_h) || nk_ref_resize_outside(g, cx, g->in_w))) {
                    int32_t k;
                    for (k = 0; k < g->channels; k++)
                        memcpy(yd + (size_t)k * es, &g->extrapolation, es);
                } else {
                    memcpy(yd, xb + (size_t)iy * row + (size_t)ix * pixel, pixel);
                }
                yd += pixel;
            }
        }
    }
}

void nk_ref_resize2d_f32(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                         const nk_ref_resize_geom *g) {
    const int32_t c = g->channels;
    const size_t row = (size_t)g->in_w * (size_t)c, image = (size_t)g->in_h * row;
    int32_t b, oy, ox, k;
    if (g->mode == NK_RESIZE_NEAREST) {
        nk_ref_resize2d_nearest(x, y, g, sizeof(float));
        return;
    }
    if (g->mode == NK_RESIZE_CUBIC) {
        nk_ref_resize2d_cubic_f32(x, y, g);
        return;
    }
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * image;
        for (oy = 0; oy < g->out_h; oy++) {
            const float cy =
                nk_ref_resize_coord(oy, g->in_h, g->out_h, g->scale_h, g->coord, g->crop_h);
            for (ox = 0; ox < g->out_w; ox++) {
                const float cx =
                    nk_ref_resize_coord(ox, g->in_w, g->out_w, g->scale_w, g->coord, g->crop_w);
                if (nk_ref_resize_outside(g, cy, g->in_h) || nk_ref_resize_outside(g, cx, g->in_w)) {
                    for (k = 0; k < c; k++)
                        y[k] = g->extrapolation;
                } else {
                    int32_t y0, y1, x0, x1;
                    float wy, wx;
                    const float *r0, *r1;
                    nk_ref_resize_linear(cy, g->in_h, &y0, &y1, &wy);
                    nk_ref_resize_linear(cx, g->in_w, &x0, &x1, &wx);
                    r0 = xb + (size_t)y0 * row;
                    r1 = xb + (size_t)y1 * row;
                    for (k = 0; k < c; k++) {
                        const float top = r0[(size_t)x0 * c + k] * (1.0f - wx) +
                                          r0[(size_t)x1 * c + k] * wx;
                        const float bottom = r1[(size_t)x0 * c + k] * (1.0f - wx) +
                                             r1[(size_t)x1 * c + k] * wx;
                        y[k] = top * (1.0f - wy) + bottom * wy;
                    }
                }
                y += c;
            }
        }
    }
}

/* Gathers, per output pixel, the taps whose scattered position lands on it:
 * input row iy feeds output row iy*stride - pad_top + ky*dil. */
void nk_ref_conv_transpose2d_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                                 const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                 const nk_ref_conv_geom *g) {
    const int32_t ci = g->in_c;
    const size_t in_row = (size_t)g->in_w * (size_t)ci, in_image = (size_t)g->in_h * in_row;
    const size_t w_oc = (size_t)g->k_h * (size_t)g->k_w * (size_t)ci;
    int32_t b, oy, ox, oc, ky, kx, k;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * in_image;
        for (oy = 0; oy < g->out_h; oy++) {
            for (ox = 0; ox < g->out_w; ox++) {
                for (oc = 0; oc < g->out_c; oc++) {
                    float acc = bias ? bias[oc] : 0.0f;
                    for (ky = 0; ky < g->k_h; ky++) {
                        const int32_t ty = oy + g->pad_top - ky * g->dil_h;
                        int32_t iy;
                        if (ty < 0 || ty % g->stride_h != 0)
                            continue;
                        iy = ty / g->stride_h;
                        if (iy >= g->in_h)
                            continue;
                        for (kx = 0; kx < g->k_w; kx++) {
                            const int32_t tx = ox + g->pad_left - kx * g->dil_w;
                            const float *xp, *wp;
                            int32_t ix;
                            if (tx < 0 || tx % g->stride_w != 0)
                                continue;
                            ix = tx / g->stride_w;
                            if (ix >= g->in_w)
                                continue;
                            xp = xb + (size_t)iy * in_row + (size_t)ix * (size_t)ci;
                            wp = w + (size_t)oc * w_oc + ((size_t)ky * (size_t)g->k_w + (size_t)kx) * (size_t)ci;
                            for (k = 0; k < ci; k++)
                                acc += xp[k] * wp[k];
                        }
                    }
                    *y++ = nk_clampf(acc, g->act_min, g->act_max);
                }
            }
        }
    }
}

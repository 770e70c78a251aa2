/* ref_i8.c — int8 pools, elementwise ops, softmax, logistic/tanh,
 * (de)quantization. The byte-moving kernels are dtype-generic (ref_shape.c). */
#include "ref_i8.h"
#include <math.h>
#include <string.h>

/* Wrapping int32 addition (TFLite adds the two rescaled inputs of Add and
 * the bias without saturation). */
static inline int32_t nk_i8_wrap_add(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* Max or average over the window taps inside the input, taps dil_h, dil_w
 * apart (only MAX_POOL2D_I8 has a dilation). */
static void nk_i8_pool(const int8_t *x, int8_t *y,
                       const nk_ref_conv_geom *g, int32_t act_min, int32_t act_max, int is_max) {
    const size_t c_n = (size_t)g->in_c;
    const size_t row_stride = (size_t)g->in_w * c_n;
    int32_t b, oy, ox, ky, kx, c;
    for (b = 0; b < g->batch; b++) {
        const int8_t *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_pool_range_dil(iy0, g->k_h, g->dil_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi, count;
                nk_ref_pool_range_dil(ix0, g->k_w, g->dil_w, g->in_w, &kx_lo, &kx_hi);
                count = (ky_hi - ky_lo) * (kx_hi - kx_lo);
                for (c = 0; c < g->in_c; c++) {
                    int32_t acc = is_max ? -128 : 0;
                    for (ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *xp = xb + (size_t)(iy0 + ky * g->dil_h) * row_stride +
                                           (size_t)(ix0 + kx_lo * g->dil_w) * c_n + (size_t)c;
                        for (kx = kx_lo; kx < kx_hi; kx++, xp += (size_t)g->dil_w * c_n) {
                            if (is_max)
                                acc = *xp > acc ? *xp : acc;
                            else
                                acc += *xp;
                        }
                    }
                    if (!is_max)
                        acc = nk_q_round_div(acc, count);
                    *y++ = (int8_t)nk_q_clamp(acc, act_min, act_max);
                }
            }
        }
    }
}

void nk_ref_avg_pool2d_i8(const int8_t *x, int8_t *y,
                          const nk_ref_conv_geom *g, int32_t act_min, int32_t act_max) {
    nk_i8_pool(x, y, g, act_min, act_max, 0);
}

void nk_ref_max_pool2d_i8(const int8_t *x, int8_t *y,
                          const nk_ref_conv_geom *g, int32_t act_min, int32_t act_max) {
    nk_i8_pool(x, y, g, act_min, act_max, 1);
}

/* The add and mul loops over runs whose inputs step by sa and sb (1, or 0
 * for a repeated value): the equal-shape kernels and the broadcast runs. */
static void nk_add_i8_strided(const int8_t *a, size_t sa, const int8_t *b, size_t sb, int8_t *y,
                              size_t n, const nk_ref_add_i8_params *p) {
    /* the parameters in locals, the requantizations prepared once: y's
     * stores could alias *p */
    const nk_q_rq r1 = nk_q_rq_make(p->m1, p->shift1), r2 = nk_q_rq_make(p->m2, p->shift2);
    const nk_q_rq ro = nk_q_rq_make(p->m_out, p->shift_out);
    const int32_t zp1 = p->in1_zp, zp2 = p->in2_zp, ls = p->left_shift, zo = p->out_zp;
    const int32_t lo = p->act_min, hi = p->act_max;
    size_t i;
    for (i = 0; i < n; i++, a += sa, b += sb) {
        /* |x - zp| <= 255 and left_shift <= 23: no overflow */
        const int32_t va = (int32_t)(((uint32_t)((int32_t)*a - zp1)) << ls);
        const int32_t vb = (int32_t)(((uint32_t)((int32_t)*b - zp2)) << ls);
        const int32_t sum = nk_i8_wrap_add(nk_q_rq_apply(&r1, va), nk_q_rq_apply(&r2, vb));
        y[i] = nk_q_zp_clamp_s8(nk_q_rq_apply(&ro, sum), zo, lo, hi);
    }
}

static void nk_mul_i8_strided(const int8_t *a, size_t sa, const int8_t *b, size_t sb, int8_t *y,
                              size_t n, const nk_ref_mul_i8_params *p) {
    const nk_q_rq r = nk_q_rq_make(p->mult, p->shift);
    const int32_t zp1 = p->in1_zp, zp2 = p->in2_zp, zo = p->out_zp;
    const int32_t lo = p->act_min, hi = p->act_max;
    size_t i;
    for (i = 0; i < n; i++, a += sa, b += sb) {
        const int32_t prod = ((int32_t)*a - zp1) * ((int32_t)*b - zp2);
        y[i] = nk_q_zp_clamp_s8(nk_q_rq_apply(&r, prod), zo, lo, hi);
    }
}

void nk_ref_add_i8(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                   const nk_ref_add_i8_params *p) {
    nk_add_i8_strided(a, 1, b, 1, y, n, p);
}

void nk_ref_mul_i8(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                   const nk_ref_mul_i8_params *p) {
    nk_mul_i8_strided(a, 1, b, 1, y, n, p);
}

typedef struct nk_binary_i8_ctx {
    const nk_ref_add_i8_params *add;
    const nk_ref_mul_i8_params *mul;
    const int8_t *a, *b;
    int8_t *y;
} nk_binary_i8_ctx;

static void nk_binary_i8_runs(void *ctx, size_t ia, size_t sa, size_t ib, size_t sb, size_t iy,
                              size_t n) {
    const nk_binary_i8_ctx *c = (const nk_binary_i8_ctx *)ctx;
    if (c->add != NULL)
        nk_add_i8_strided(c->a + ia, sa, c->b + ib, sb, c->y + iy, n, c->add);
    else
        nk_mul_i8_strided(c->a + ia, sa, c->b + ib, sb, c->y + iy, n, c->mul);
}

void nk_ref_binary_i8_broadcast(const nk_ref_add_i8_params *add, const nk_ref_mul_i8_params *mul,
                                const int8_t *a, const int32_t *a_dims, int32_t a_rank,
                                const int8_t *b, const int32_t *b_dims, int32_t b_rank, int8_t *y,
                                const int32_t *y_dims, int32_t y_rank) {
    nk_binary_i8_ctx c;
    c.add = add;
    c.mul = mul;
    c.a = a;
    c.b = b;
    c.y = y;
    nk_ref_broadcast_runs(a_dims, a_rank, b_dims, b_rank, y_dims, y_rank, nk_binary_i8_runs, &c);
}

void nk_ref_softmax_i8(const int8_t *x, int8_t *y, size_t rows, size_t cols, int32_t mult,
                       int32_t shift, int32_t diff_min) {
    size_t r;
    for (r = 0; r < rows; r++)
        nk_q_softmax_row(x + r * cols, y + r * cols, (int32_t)cols, mult, shift, diff_min, 8);
}

void nk_ref_softmax_i8_i16(const int8_t *x, int16_t *y, size_t rows, size_t cols, int32_t mult,
                           int32_t shift, int32_t diff_min) {
    size_t r;
    for (r = 0; r < rows; r++)
        nk_q_softmax_row(x + r * cols, y + r * cols, (int32_t)cols, mult, shift, diff_min, 16);
}

static inline int8_t nk_i8_act_fn(int8_t v, int is_tanh, int32_t in_zp, int32_t mult,
                                  int32_t shift, int32_t radius) {
    return is_tanh ? nk_q_tanh_s8(v, in_zp, radius, mult, shift)
                   : nk_q_logistic_s8(v, in_zp, radius, mult, shift);
}

void nk_ref_logistic_tanh_i8(const int8_t *x, int8_t *y, size_t n, int is_tanh, int32_t in_zp,
                             int32_t mult, int32_t shift, int32_t radius, int8_t *lut) {
    size_t i;
    if (lut != NULL && n > 256) {
        int32_t v;
        for (v = -128; v < 128; v++)
            lut[v + 128] = nk_i8_act_fn((int8_t)v, is_tanh, in_zp, mult, shift, radius);
        for (i = 0; i < n; i++)
            y[i] = lut[x[i] + 128];
        return;
    }
    for (i = 0; i < n; i++)
        y[i] = nk_i8_act_fn(x[i], is_tanh, in_zp, mult, shift, radius);
}

void nk_ref_quantize_f32_i8(const float *NK_RESTRICT x, int8_t *NK_RESTRICT y, size_t n,
                            const float *scale, const int32_t *zp, uint32_t count,
                            size_t inner) {
    size_t i;
    for (i = 0; i < n; i++) {
        const size_t k = count > 1 ? (i / inner) % count : 0;
        float s, r;
        int32_t zk;
        memcpy(&s, &scale[k], sizeof s); /* the image is little-endian; views may be unaligned */
        memcpy(&zk, &zp[k], sizeof zk);
        r = roundf(x[i] / s);
        /* NaN goes to the zero point; the sum saturates in float (exact
         * for any zero point and rounded value below 2^24) */
        if (r != r)
            r = 0.0f;
        r += (float)zk;
        y[i] = (int8_t)(r < -128.0f ? -128 : r > 127.0f ? 127 : (int32_t)r);
    }
}

void nk_ref_dequantize_i8_f32(const int8_t *NK_RESTRICT x, float *NK_RESTRICT y, size_t n,
                              const float *scale, const int32_t *zp, uint32_t count,
                              size_t inner) {
    size_t i;
    for (i = 0; i < n; i++) {
        const size_t k = count > 1 ? (i / inner) % count : 0;
        float s;
        int32_t zk;
        memcpy(&s, &scale[k], sizeof s);
        memcpy(&zk, &zp[k], sizeof zk);
        /* (x - zp) has at most 9 significant bits and s 24: the exact
         * product fits a double, so one float multiply rounds exactly as
         * TFLite's double product cast to float (when the difference is
         * exact in float). */
        if (zk >= -(1 << 23) && zk <= (1 << 23))
            y[i] = s * (float)((int32_t)x[i] - zk);
        else
            y[i] = (float)((double)s * (double)((int64_t)x[i] - zk));
    }
}

void nk_ref_requantize_i8(const int8_t *x, int8_t *y, size_t n, int32_t mult, int32_t shift,
                          int32_t in_zp, int32_t out_zp) {
    const nk_q_rq r = nk_q_rq_make(mult, shift);
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = nk_q_zp_clamp_s8(nk_q_rq_apply(&r, (int32_t)x[i] - in_zp), out_zp, -128, 127);
}

void nk_ref_lut_i8(const int8_t *x, const int8_t *NK_RESTRICT table, int8_t *y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = table[(int32_t)x[i] + 128];
}

void nk_ref_reduce_mean_i8(const int8_t *NK_RESTRICT x, const int32_t *dims, int32_t rank,
                           uint32_t mask, int32_t in_zp, int32_t out_zp, int32_t mult,
                           int32_t shift, int8_t *NK_RESTRICT y) {
    /* The dims as runs (nk_ref_reduce_runs), split into the kept runs,
     * which number the outputs, and the reduced runs, which one output
     * sums; each with its input stride. */
    size_t len[6], stride[6], klen[6], kstr[6]; /* rank <= 6 */
    size_t rlen[6], rstr[6], kidx[6], ridx[6];
    unsigned char red[6];
    size_t n = 1, out_n = 1, base = 0, o, i, s = 1;
    const int32_t r = nk_ref_reduce_runs(dims, rank, mask, len, red);
    int32_t nk = 0, nr = 0, d;
    for (d = r - 1; d >= 0; d--) {
        stride[d] = s;
        s *= len[d];
    }
    for (d = 0; d < r; d++) {
        if (red[d]) {
            rlen[nr] = len[d];
            rstr[nr] = stride[d];
            ridx[nr++] = 0;
            n *= len[d];
        } else {
            klen[nk] = len[d];
            kstr[nk] = stride[d];
            kidx[nk++] = 0;
            out_n *= len[d];
        }
    }
    for (o = 0; o < out_n; o++) {
        uint32_t acc = 0; /* wraps as TFLite's int32 sum does */
        size_t off = base;
        for (i = 0; i < n; i++) {
            acc += (uint32_t)(int32_t)x[off];
            for (d = nr - 1; d >= 0; d--) { /* odometer over the reduced runs */
                off += rstr[d];
                if (++ridx[d] < rlen[d])
                    break;
                off -= rstr[d] * rlen[d];
                ridx[d] = 0;
            }
        }
        acc -= (uint32_t)in_zp * (uint32_t)n;
        y[o] = (int8_t)nk_q_clamp(nk_q_requantize_any((int32_t)acc, mult, shift) + out_zp, -128, 127);
        for (d = nk - 1; d >= 0; d--) { /* odometer over the kept runs */
            base += kstr[d];
            if (++kidx[d] < klen[d])
                break;
            base -= kstr[d] * klen[d];
            kidx[d] = 0;
        }
    }
}

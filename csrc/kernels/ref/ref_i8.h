/*
 * ref_i8.h — the portable int8 reference kernels, bit-exact with TFLite's
 * int8 reference kernels (and CMSIS-NN) in the build's rounding mode
 * (qmath.h, NETKIT_SINGLE_ROUNDING).
 *
 * Plain integer math over explicit pointers and parameters, like
 * ref_kernels.h; nothing here knows the op table. Layout is NHWC. Every
 * accumulator is int32 as in TFLite: the callers' validation bounds the
 * accumulation depth so the sums cannot overflow (the bias and the
 * requantization wrap like TFLite's int32 arithmetic).
 *
 * Output epilogue of conv, depthwise, dense: requantize by M[c], shift[c]
 * (per channel, or one pair when per_channel is 0), add the output zero
 * point, clamp to [act_min, act_max].
 */
#ifndef NK_REF_I8_H
#define NK_REF_I8_H

#include "qmath.h"
#include "ref_kernels.h"

/* NK_REF_SMALL: leave out the kernels' blocks that only speed up rare
 * cases (the depthwise four lanes for multipliers > 1), whose general
 * loops give the same bytes; on by default in -Os builds. */
#ifndef NK_REF_SMALL
#if defined(__OPTIMIZE_SIZE__)
#define NK_REF_SMALL 1
#else
#define NK_REF_SMALL 0
#endif
#endif

/* The integer part of an int8 conv/dense: zero points, clamp and the
 * requantization multipliers. */
typedef struct nk_ref_i8_quant {
    int32_t in_zp, out_zp, act_min, act_max;
    const int32_t *mult;  /* Q0.31 multipliers */
    const int32_t *shift; /* positive = left */
    int32_t per_channel;  /* 0: mult[0]/shift[0] for every channel */
    /* nk_i8_rq_right's answer when the op's eval found it once for all
     * its kernel calls (staged bands call the kernel per band), else 0 */
    int32_t rq_right;
} nk_ref_i8_quant;

/* 1 when every channel's pair shifts right (shift < 0) or has multiplier
 * 0 with shift >= 0 (TFLite's pair for a zero scale): the form the fast
 * kernels' SMMLAR epilogues take; -1 otherwise. */
static inline int32_t nk_i8_rq_right(const nk_ref_i8_quant *q, int32_t n_channels) {
    const int32_t n = q->per_channel ? n_channels : 1;
    int32_t c;
    for (c = 0; c < n; c++)
        if ((q->shift[c] >= 0) != (q->mult[c] == 0))
            return -1;
    return 1;
}

/* Shared by the portable and the fast int8 conv kernels (kernels/fast_i8.h). */

/* Taps [*lo, *hi) of a window starting at input index `start` with
 * dilation `dil` over `k` taps that land inside [0, n). */
static inline void nk_i8_tap_range(int32_t start, int32_t dil, int32_t k, int32_t n,
                                   int32_t *lo, int32_t *hi) {
    int32_t a = start >= 0 ? 0 : (-start + dil - 1) / dil;
    int32_t b = start > n - 1 ? 0 : (n - 1 - start) / dil + 1;
    *lo = a;
    *hi = b < k ? b : k;
}

/* Channel c's requantization, prepared (qmath.h): kernels that finish
 * several outputs of a channel make it once. */
static inline nk_q_rq nk_i8_rq(const nk_ref_i8_quant *q, int32_t c) {
    const int32_t k = q->per_channel ? c : 0;
    return nk_q_rq_make(q->mult[k], q->shift[k]);
}

/* bias + acc (wrapping like TFLite's int32 add), then the output epilogue
 * with a prepared requantization. */
static inline int8_t nk_i8_finish_rq(int32_t acc, int32_t bias, const nk_q_rq *rq,
                                     const nk_ref_i8_quant *q) {
    acc = (int32_t)((uint32_t)acc + (uint32_t)bias);
    return nk_q_zp_clamp_s8(nk_q_rq_apply(rq, acc), q->out_zp, q->act_min, q->act_max);
}

/* The same for channel c with bias[c] (bias may be NULL). */
static inline int8_t nk_i8_finish(int32_t acc, const int32_t *bias, int32_t c,
                                  const nk_ref_i8_quant *q) {
    const nk_q_rq rq = nk_i8_rq(q, c);
    return nk_i8_finish_rq(acc, bias ? bias[c] : 0, &rq, q);
}

/* Conv geometry reuses nk_ref_conv_geom (act_min/act_max unused). w is
 * [out_c, k_h, k_w, in_c/groups]; bias [out_c] or NULL. wsum (optional,
 * NULL for none) holds each output channel's sum of weights
 * (nk_ref_conv_wsum_i8): with it, windows inside the input add the input
 * offset term once per output instead of offsetting every x. */
NK_REF_HIDDEN void nk_ref_conv2d_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                                    const int32_t *NK_RESTRICT bias, int8_t *y,
                                    const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                    const int32_t *NK_RESTRICT wsum);
/* wsum[o] = sum of the per_out weights of output channel o (w is [out_c, per_out]). */
NK_REF_HIDDEN void nk_ref_conv_wsum_i8(const int8_t *NK_RESTRICT w, int32_t out_c,
                                       size_t per_out, int32_t *NK_RESTRICT wsum);
/* w is [1, k_h, k_w, in_c*multiplier]; output channel c*multiplier+m reads
 * input channel c. wsum (optional, NULL for none) holds each output
 * channel's sum of weights over all taps (nk_ref_depthwise_wsum_i8): with it,
 * windows inside the input skip the per-tap input offset. */
NK_REF_HIDDEN void nk_ref_depthwise_conv2d_i8(const int8_t *x,
                                              const int8_t *NK_RESTRICT w,
                                              const int32_t *NK_RESTRICT bias,
                                              int8_t *y, const nk_ref_conv_geom *g,
                                              const nk_ref_i8_quant *q,
                                              const int32_t *NK_RESTRICT wsum);
/* wsum[c] = sum over the taps of w[tap][c]; w is [taps, oc]. */
NK_REF_HIDDEN void nk_ref_depthwise_wsum_i8(const int8_t *NK_RESTRICT w, int32_t taps,
                                            int32_t oc, int32_t *NK_RESTRICT wsum);
/* y[r, n] = epilogue(sum_k (x[r,k] - in_zp) * w[n,k] + bias[n]). */
NK_REF_HIDDEN void nk_ref_dense_i8(const int8_t *NK_RESTRICT x, const int8_t *NK_RESTRICT w,
                                   const int32_t *NK_RESTRICT bias, int8_t *NK_RESTRICT y,
                                   size_t rows, int32_t in_features, int32_t out_features,
                                   const nk_ref_i8_quant *q);

/* Pools over the valid taps only (dilation 1), then the clamp
 * [act_min, act_max]; no requantization. */
NK_REF_HIDDEN void nk_ref_avg_pool2d_i8(const int8_t *x, int8_t *y,
                                        const nk_ref_conv_geom *g, int32_t act_min,
                                        int32_t act_max);
NK_REF_HIDDEN void nk_ref_max_pool2d_i8(const int8_t *x, int8_t *y,
                                        const nk_ref_conv_geom *g, int32_t act_min,
                                        int32_t act_max);

/* TFLite int8 add of equal-shaped tensors; y may equal a or b. */
typedef struct nk_ref_add_i8_params {
    int32_t in1_zp, in2_zp, out_zp, left_shift;
    int32_t m1, shift1, m2, shift2, m_out, shift_out;
    int32_t act_min, act_max;
} nk_ref_add_i8_params;
NK_REF_HIDDEN void nk_ref_add_i8(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                                 const nk_ref_add_i8_params *p);
/* y = clamp(requantize((a - zp1) * (b - zp2)) + out_zp); y may equal a or b. */
typedef struct nk_ref_mul_i8_params {
    int32_t in1_zp, in2_zp, out_zp, mult, shift, act_min, act_max;
} nk_ref_mul_i8_params;
NK_REF_HIDDEN void nk_ref_mul_i8(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                                 const nk_ref_mul_i8_params *p);
/* ADD_I8 (add != NULL) or MUL_I8 (mul != NULL) with numpy broadcasting
 * (nk_ref_broadcast_runs): each output element is the equal-shape op's of
 * its two broadcast inputs, as TFLite's broadcast kernels compute it. y may
 * equal a when y has a's shape. */
NK_REF_HIDDEN void nk_ref_binary_i8_broadcast(const nk_ref_add_i8_params *add,
                                              const nk_ref_mul_i8_params *mul, const int8_t *a,
                                              const int32_t *a_dims, int32_t a_rank,
                                              const int8_t *b, const int32_t *b_dims,
                                              int32_t b_rank, int8_t *y, const int32_t *y_dims,
                                              int32_t y_rank);
/* Softmax over rows of `cols` values (output scale 1/256, zp -128); y may equal x. */
NK_REF_HIDDEN void nk_ref_softmax_i8(const int8_t *x, int8_t *y, size_t rows, size_t cols,
                                     int32_t mult, int32_t shift, int32_t diff_min);
/* The same with int16 output (scale 1/65536, zero point -32768). */
NK_REF_HIDDEN void nk_ref_softmax_i8_i16(const int8_t *x, int16_t *y, size_t rows, size_t cols,
                                         int32_t mult, int32_t shift, int32_t diff_min);
/* Logistic (is_tanh 0) or tanh (1) of n values. With a 256-byte table
 * (lut != NULL) and enough values, each distinct input is computed once.
 * y may equal x. */
NK_REF_HIDDEN void nk_ref_logistic_tanh_i8(const int8_t *x, int8_t *y, size_t n, int is_tanh,
                                           int32_t in_zp, int32_t mult, int32_t shift,
                                           int32_t radius, int8_t *lut);
/* f32 -> i8 with scale/zero point per `axis` block: element i uses entry
 * (i / inner) % count. round(x / scale) ties away from zero, NaN -> 0. */
NK_REF_HIDDEN void nk_ref_quantize_f32_i8(const float *NK_RESTRICT x, int8_t *NK_RESTRICT y,
                                          size_t n, const float *scale, const int32_t *zp,
                                          uint32_t count, size_t inner);
/* i8 -> f32: scale * (x - zp), same indexing. */
NK_REF_HIDDEN void nk_ref_dequantize_i8_f32(const int8_t *NK_RESTRICT x, float *NK_RESTRICT y,
                                            size_t n, const float *scale, const int32_t *zp,
                                            uint32_t count, size_t inner);
/* i8 -> i8 rescale: clamp(requantize(x - in_zp) + out_zp); y may equal x. */
NK_REF_HIDDEN void nk_ref_requantize_i8(const int8_t *x, int8_t *y, size_t n, int32_t mult,
                                        int32_t shift, int32_t in_zp, int32_t out_zp);
/* TFLite Micro's int8 MEAN over the dims of x that mask reduces (bit d:
 * dim d; y keeps the rank, those dims 1): each output sums its raw inputs
 * in an int32 that wraps, less in_zp times their count n (wrapped), then
 * requantizes by mult/shift, which have 1/n folded in (any mult in
 * [0, 2^31)), adds out_zp and clamps to int8. */
NK_REF_HIDDEN void nk_ref_reduce_mean_i8(const int8_t *NK_RESTRICT x, const int32_t *dims,
                                         int32_t rank, uint32_t mask, int32_t in_zp,
                                         int32_t out_zp, int32_t mult, int32_t shift,
                                         int8_t *NK_RESTRICT y);
/* y[i] = table[x[i] + 128]; y may equal x. */
NK_REF_HIDDEN void nk_ref_lut_i8(const int8_t *x, const int8_t *NK_RESTRICT table, int8_t *y,
                                 size_t n);

/* SVDF (ref_svdf.c): shapes and the converter's requantization. */
typedef struct nk_ref_svdf_params {
    int32_t batch, input, filters, memory, rank;
    int32_t state_i16; /* 1: state and weights_time are int16, 0: int8 */
    int32_t mult1, shift1; /* input * weights_feature -> state */
    int32_t mult2, shift2; /* state * weights_time -> output */
    int32_t in_zp, state_zp, out_zp;
} nk_ref_svdf_params;
/* One SVDF step: x [batch, input], wf [filters, input], wt and the state
 * [batch, filters * memory] (updated in place), bias [filters / rank] or
 * NULL, y [batch, filters / rank]. */
NK_REF_HIDDEN void nk_ref_svdf_i8(const nk_ref_svdf_params *p, const int8_t *x, const int8_t *wf,
                                  const void *wt, const int32_t *bias, void *state, int8_t *y);
/* TFLite's Requantize between integer dtypes of 1, 2 or 4 bytes
 * (int8, int16, int32):
 * clamp(requantize(x - in_zp) + out_zp) to y's range. */
NK_REF_HIDDEN void nk_ref_requantize_int(const void *x, uint32_t x_size, void *y, uint32_t y_size,
                                         size_t n, int32_t mult, int32_t shift, int32_t in_zp,
                                         int32_t out_zp);

#endif /* NK_REF_I8_H */

/*
 * ops_i8.h — the int8 op table entries (ids 64..75 and the i8 variants of
 * CONCAT, RESHAPE, PAD, TRANSPOSE) and the checks their validators share.
 * The rules are mirrored by internal/nkfile (shapes_i8.go) so the Go and C
 * readers accept the same images.
 */
#ifndef NK_OPS_I8_H
#define NK_OPS_I8_H

#include "ops_common.h"
#include "../kernels/ref/ref_i8.h"
#include "../kernels/fast_i8.h" /* the build's fast int8 kernels, if any */

NK_HIDDEN extern const nk_op_def nk_op_conv2d_i8;
NK_HIDDEN extern const nk_op_def nk_op_depthwise_conv2d_i8;
NK_HIDDEN extern const nk_op_def nk_op_dense_i8;
NK_HIDDEN extern const nk_op_def nk_op_avg_pool2d_i8;
NK_HIDDEN extern const nk_op_def nk_op_max_pool2d_i8;
NK_HIDDEN extern const nk_op_def nk_op_add_i8;
NK_HIDDEN extern const nk_op_def nk_op_mul_i8;
NK_HIDDEN extern const nk_op_def nk_op_softmax_i8;
NK_HIDDEN extern const nk_op_def nk_op_logistic_i8;
NK_HIDDEN extern const nk_op_def nk_op_tanh_i8;
NK_HIDDEN extern const nk_op_def nk_op_quantize_f32;
NK_HIDDEN extern const nk_op_def nk_op_quantize_i8;
NK_HIDDEN extern const nk_op_def nk_op_dequantize_i8;
NK_HIDDEN extern const nk_op_def nk_op_concat_i8;
NK_HIDDEN extern const nk_op_def nk_op_reshape_i8;
NK_HIDDEN extern const nk_op_def nk_op_pad_i8;
NK_HIDDEN extern const nk_op_def nk_op_transpose_i8;
NK_HIDDEN extern const nk_op_def nk_op_slice_i8;
NK_HIDDEN extern const nk_op_def nk_op_lut_i8;
NK_HIDDEN extern const nk_op_def nk_op_svdf_i8;
NK_HIDDEN extern const nk_op_def nk_op_quantize_i16;
NK_HIDDEN extern const nk_op_def nk_op_reduce_mean_i8;

/* Products summed into one int32 accumulator (conv, depthwise, dense) and
 * taps of an int8 pool window: bounds that keep the int32 sums exact. */
#define NK_I8_MAX_ACCUM_DEPTH (1 << 16)
#define NK_I8_MAX_POOL_TAPS (1 << 24)

/* Like nk_ops_check_io with per-input dtypes: input i must have dtype
 * in_dt[min(i, n_dt-1)] (absent inputs at index `optional` are allowed),
 * the single output out_dt; n_params exact unless < 0. */
NK_HIDDEN nk_status nk_i8_check_io(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                   uint32_t min_in, uint32_t max_in, uint32_t optional,
                                   int32_t n_params, const uint8_t *in_dt, uint32_t n_dt,
                                   uint8_t out_dt, nk_error_t *err);
/* A zero point in -128..127. */
NK_HIDDEN nk_status nk_i8_check_zp(const char *name, const char *what, int32_t zp,
                                   nk_error_t *err);
/* The quantized clamp [lo, hi] within -128..127, lo <= hi. */
NK_HIDDEN nk_status nk_i8_check_clamp(const char *name, int32_t lo, int32_t hi, nk_error_t *err);
/* A Q0.31 multiplier, 0 or in [2^30, 2^31), and a shift in -31..30. */
NK_HIDDEN nk_status nk_i8_check_mult(const char *name, const char *what, int32_t m,
                                     int32_t shift, nk_error_t *err);
/* Inputs 3 and 4 (multiplier and shift): constant i32 [n] or [1], equal
 * shapes (the values: the loader, NK_OPF_I8_REQUANT). */
NK_HIDDEN nk_status nk_i8_check_per_channel(const nk_op_rt *op, const nk_tensor_rt *t,
                                            const char *name, int32_t n, nk_error_t *err);
/* Output dims must equal input 0's. */
#define nk_i8_check_same_shape nk_ops_check_same_shape

static inline const int8_t *nk_i8_in(const nk_op_rt *op, const nk_exec *x, uint32_t i) {
    if (i >= op->n_in || op->in[i] == NK_NONE)
        return NULL;
    return (const int8_t *)x->data[op->in[i]];
}
static inline const int32_t *nk_i8_in_i32(const nk_op_rt *op, const nk_exec *x, uint32_t i) {
    if (i >= op->n_in || op->in[i] == NK_NONE)
        return NULL;
    return (const int32_t *)x->data[op->in[i]];
}
static inline int8_t *nk_i8_out(const nk_op_rt *op, const nk_exec *x) {
    return (int8_t *)x->data[op->out[0]];
}

/* NETKIT_STRIP_MESSAGES: the text arguments (op names, what is checked)
 * are left unevaluated, as nk_fail does (nk_internal.h), so their literals
 * are not linked; the definitions are parenthesised. */
#if NETKIT_STRIP_MESSAGES
#define nk_i8_check_io(op, t, name, min_in, max_in, optional, n_params, in_dt, n_dt, out_dt, err) \
    (NK_MSG_DROP(name), nk_i8_check_io((op), (t), NULL, (min_in), (max_in), (optional), (n_params), (in_dt), (n_dt), (out_dt), (err)))
#define nk_i8_check_zp(name, what, zp, err) \
    (NK_MSG_DROP(name), NK_MSG_DROP(what), nk_i8_check_zp(NULL, NULL, (zp), (err)))
#define nk_i8_check_clamp(name, lo, hi, err) \
    (NK_MSG_DROP(name), nk_i8_check_clamp(NULL, (lo), (hi), (err)))
#define nk_i8_check_mult(name, what, m, shift, err) \
    (NK_MSG_DROP(name), NK_MSG_DROP(what), nk_i8_check_mult(NULL, NULL, (m), (shift), (err)))
#define nk_i8_check_per_channel(op, t, name, n, err) \
    (NK_MSG_DROP(name), nk_i8_check_per_channel((op), (t), NULL, (n), (err)))
#endif

#endif /* NK_OPS_I8_H */

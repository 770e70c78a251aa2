/* op_table.c — the op table: one entry per (op type, dtype of input 0).
 * Looked up once per op at load, so a linear scan is fine. Alone in its
 * file: a firmware that links a per-model table (`netkit aot`, IDENT_ops.c,
 * which defines nk_op_lookup) never pulls this object from libnetkit.a. */
#include "ops_i8.h"

static const nk_op_def *const nk_op_table[] = {
    &nk_op_dense_f32,        &nk_op_conv2d_f32,       &nk_op_depthwise_conv2d_f32,
    &nk_op_max_pool2d_f32,   &nk_op_avg_pool2d_f32,   &nk_op_global_avg_pool_f32,
    &nk_op_batch_norm_f32,   &nk_op_relu_f32,         &nk_op_clip_f32,
    &nk_op_leaky_relu_f32,   &nk_op_sigmoid_f32,      &nk_op_tanh_f32,
    &nk_op_gelu_f32,         &nk_op_softmax_f32,      &nk_op_add_f32,
    &nk_op_mul_f32,          &nk_op_concat_f32,       &nk_op_reshape_f32,
    &nk_op_pad_f32,          &nk_op_transpose_f32,
    /* float ops from id 21 */
    &nk_op_sub_f32,          &nk_op_div_f32,          &nk_op_maximum_f32,
    &nk_op_minimum_f32,      &nk_op_pow_f32,          &nk_op_exp_f32,
    &nk_op_sqrt_f32,         &nk_op_neg_f32,          &nk_op_abs_f32,
    &nk_op_reciprocal_f32,   &nk_op_hard_sigmoid_f32, &nk_op_hard_swish_f32,
    &nk_op_reduce_mean_f32,  &nk_op_reduce_sum_f32,   &nk_op_reduce_max_f32,
    &nk_op_slice_f32,        &nk_op_matmul_f32,       &nk_op_layer_norm_f32,
    /* ids 40.. */
    &nk_op_resize2d_f32,     &nk_op_conv_transpose2d_f32, &nk_op_resize2d_i8,
    &nk_op_lstm_f32,         &nk_op_gru_f32,
    /* integer, float16 and double tensors (NK_OP_ANY_DTYPE) */
    &nk_op_add_typed,        &nk_op_mul_typed,        &nk_op_sub_typed,
    &nk_op_div_typed,        &nk_op_maximum_typed,    &nk_op_minimum_typed,
    /* int8 (ids 64..75; QUANTIZE has an f32 and an i8 entry) */
    &nk_op_conv2d_i8,        &nk_op_depthwise_conv2d_i8, &nk_op_dense_i8,
    &nk_op_avg_pool2d_i8,    &nk_op_max_pool2d_i8,    &nk_op_add_i8,
    &nk_op_mul_i8,           &nk_op_softmax_i8,       &nk_op_logistic_i8,
    &nk_op_tanh_i8,          &nk_op_quantize_f32,     &nk_op_quantize_i8,
    &nk_op_dequantize_i8,    &nk_op_concat_i8,        &nk_op_reshape_i8,
    &nk_op_pad_i8,           &nk_op_transpose_i8,
    /* int8 ids 76.. (QUANTIZE from int16 at its id) */
    &nk_op_lut_i8,           &nk_op_svdf_i8,          &nk_op_quantize_i16,
    &nk_op_reduce_mean_i8,   &nk_op_slice_i8,
};

const nk_op_def *nk_op_lookup(uint32_t type, uint32_t dtype) {
    return nk_op_lookup_in(nk_op_table, sizeof nk_op_table / sizeof nk_op_table[0], type, dtype);
}

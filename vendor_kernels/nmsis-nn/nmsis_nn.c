/*
 * nmsis_nn.c — the NMSIS-NN backend (Nuclei's RISC-V port of CMSIS-NN v7),
 * compiled from a tree the user supplies (-DNETKIT_NMSIS_NN_DIR=<NMSIS
 * tree>, docs/TARGETS.md).
 *
 * NMSIS-NN keeps CMSIS-NN's functions, structs and argument lists under
 * other names (arm_* -> riscv_*, cmsis_nn_* -> nmsis_nn_*), so this is the
 * CMSIS-NN adapter (../cmsis-nn/cmsis_nn.c: the mapping, the supports()
 * checks, the scratch sizes) compiled over those names, not a second copy.
 * The MVE guards there do not apply (RISCV_MATH_* are not ARM_MATH_MVEI).
 *
 * Rounding: NMSIS-NN requantizes with TFLite's double rounding only (its
 * single-rounding switch is documented but not implemented), so the build
 * refuses NETKIT_SINGLE_ROUNDING with this backend.
 */
#include "riscv_nnfunctions.h"
#include "riscv_nnsupportfunctions.h"

#if defined(NETKIT_SINGLE_ROUNDING) && NETKIT_SINGLE_ROUNDING
#error "NMSIS-NN has no single rounding: build without NETKIT_SINGLE_ROUNDING"
#endif

#define NK_VENDOR_NAME "nmsis-nn"

#define arm_cmsis_nn_status riscv_nmsis_nn_status
#define ARM_CMSIS_NN_SUCCESS RISCV_NMSIS_NN_SUCCESS
#define cmsis_nn_context nmsis_nn_context
#define cmsis_nn_conv_params nmsis_nn_conv_params
#define cmsis_nn_dims nmsis_nn_dims
#define cmsis_nn_dw_conv_params nmsis_nn_dw_conv_params
#define cmsis_nn_fc_params nmsis_nn_fc_params
#define cmsis_nn_per_channel_quant_params nmsis_nn_per_channel_quant_params
#define cmsis_nn_per_tensor_quant_params nmsis_nn_per_tensor_quant_params
#define cmsis_nn_pool_params nmsis_nn_pool_params
#define arm_avgpool_s8 riscv_avgpool_s8
#define arm_avgpool_s8_get_buffer_size riscv_avgpool_s8_get_buffer_size
#define arm_convolve_s8 riscv_convolve_s8
#define arm_convolve_s8_get_buffer_size riscv_convolve_s8_get_buffer_size
#define arm_convolve_wrapper_s8 riscv_convolve_wrapper_s8
#define arm_convolve_wrapper_s8_get_buffer_size riscv_convolve_wrapper_s8_get_buffer_size
#define arm_depthwise_conv_wrapper_s8 riscv_depthwise_conv_wrapper_s8
#define arm_depthwise_conv_wrapper_s8_get_buffer_size riscv_depthwise_conv_wrapper_s8_get_buffer_size
#define arm_elementwise_add_s8 riscv_elementwise_add_s8
#define arm_elementwise_mul_s8 riscv_elementwise_mul_s8
#define arm_fully_connected_per_channel_s8 riscv_fully_connected_per_channel_s8
#define arm_fully_connected_s8 riscv_fully_connected_s8
#define arm_fully_connected_s8_get_buffer_size riscv_fully_connected_s8_get_buffer_size
#define arm_max_pool_s8 riscv_max_pool_s8
#define arm_softmax_s8 riscv_softmax_s8
#define arm_vector_sum_s8 riscv_vector_sum_s8

/* NMSIS-NN's conv wrapper tests these conditions inline (CMSIS-NN names
 * them arm_nn_is_convolve_1x1 / _1_x_n): which of its paths a conv takes. */
static int nk_nmsis_is_1x1(const nmsis_nn_conv_params *p, const nmsis_nn_dims *in,
                           const nmsis_nn_dims *f) {
    return p->padding.w == 0 && p->padding.h == 0 && f->w == 1 && f->h == 1 &&
           p->dilation.w == 1 && p->dilation.h == 1 && in->c == f->c;
}
static int nk_nmsis_is_1_x_n(const nmsis_nn_conv_params *p, const nmsis_nn_dims *in,
                             const nmsis_nn_dims *f) {
    return in->h == 1 && p->dilation.w == 1 && f->h == 1 && (p->stride.w * in->c) % 4 == 0 &&
           in->c == f->c;
}
#define arm_nn_is_convolve_1x1 nk_nmsis_is_1x1
#define arm_nn_is_convolve_1_x_n nk_nmsis_is_1_x_n

#include "../cmsis-nn/cmsis_nn.c"

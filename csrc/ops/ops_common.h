/*
 * ops_common.h — what the op families in csrc/ops/ share: the op_def
 * entries op_table.c lists, printf-free error message building, and the
 * checks every validate starts with.
 */
#ifndef NK_OPS_COMMON_H
#define NK_OPS_COMMON_H

#include "../nk_internal.h"
#include "../format.h" /* nk_msg: the core's message builder */
#include "../kernels/ref/ref_kernels.h"
#if NETKIT_HOST_KERNELS
#include "../kernels/host/host.h" /* evals call x->host's kernels when set */
#endif

/* ---- op table entries (one per op and dtype) ---- */
NK_HIDDEN extern const nk_op_def nk_op_dense_f32;
NK_HIDDEN extern const nk_op_def nk_op_conv2d_f32;
NK_HIDDEN extern const nk_op_def nk_op_depthwise_conv2d_f32;
NK_HIDDEN extern const nk_op_def nk_op_max_pool2d_f32;
NK_HIDDEN extern const nk_op_def nk_op_avg_pool2d_f32;
NK_HIDDEN extern const nk_op_def nk_op_global_avg_pool_f32;
NK_HIDDEN extern const nk_op_def nk_op_batch_norm_f32;
NK_HIDDEN extern const nk_op_def nk_op_relu_f32;
NK_HIDDEN extern const nk_op_def nk_op_clip_f32;
NK_HIDDEN extern const nk_op_def nk_op_leaky_relu_f32;
NK_HIDDEN extern const nk_op_def nk_op_sigmoid_f32;
NK_HIDDEN extern const nk_op_def nk_op_tanh_f32;
NK_HIDDEN extern const nk_op_def nk_op_gelu_f32;
NK_HIDDEN extern const nk_op_def nk_op_softmax_f32;
NK_HIDDEN extern const nk_op_def nk_op_add_f32;
NK_HIDDEN extern const nk_op_def nk_op_mul_f32;
NK_HIDDEN extern const nk_op_def nk_op_concat_f32;
NK_HIDDEN extern const nk_op_def nk_op_reshape_f32;
NK_HIDDEN extern const nk_op_def nk_op_pad_f32;
NK_HIDDEN extern const nk_op_def nk_op_transpose_f32;
NK_HIDDEN extern const nk_op_def nk_op_sub_f32;
NK_HIDDEN extern const nk_op_def nk_op_div_f32;
NK_HIDDEN extern const nk_op_def nk_op_maximum_f32;
NK_HIDDEN extern const nk_op_def nk_op_minimum_f32;
NK_HIDDEN extern const nk_op_def nk_op_pow_f32;
NK_HIDDEN extern const nk_op_def nk_op_exp_f32;
NK_HIDDEN extern const nk_op_def nk_op_sqrt_f32;
NK_HIDDEN extern const nk_op_def nk_op_neg_f32;
NK_HIDDEN extern const nk_op_def nk_op_abs_f32;
NK_HIDDEN extern const nk_op_def nk_op_reciprocal_f32;
NK_HIDDEN extern const nk_op_def nk_op_hard_sigmoid_f32;
NK_HIDDEN extern const nk_op_def nk_op_hard_swish_f32;
NK_HIDDEN extern const nk_op_def nk_op_reduce_mean_f32;
NK_HIDDEN extern const nk_op_def nk_op_reduce_sum_f32;
NK_HIDDEN extern const nk_op_def nk_op_reduce_max_f32;
NK_HIDDEN extern const nk_op_def nk_op_slice_f32;
NK_HIDDEN extern const nk_op_def nk_op_matmul_f32;
NK_HIDDEN extern const nk_op_def nk_op_layer_norm_f32;
NK_HIDDEN extern const nk_op_def nk_op_resize2d_f32;
NK_HIDDEN extern const nk_op_def nk_op_resize2d_i8;
NK_HIDDEN extern const nk_op_def nk_op_conv_transpose2d_f32;
NK_HIDDEN extern const nk_op_def nk_op_lstm_f32;
NK_HIDDEN extern const nk_op_def nk_op_gru_f32;
/* The binary ops on integer, float16 and double tensors (NK_OP_ANY_DTYPE,
 * elementwise_typed.c). */
NK_HIDDEN extern const nk_op_def nk_op_add_typed;
NK_HIDDEN extern const nk_op_def nk_op_mul_typed;
NK_HIDDEN extern const nk_op_def nk_op_sub_typed;
NK_HIDDEN extern const nk_op_def nk_op_div_typed;
NK_HIDDEN extern const nk_op_def nk_op_maximum_typed;
NK_HIDDEN extern const nk_op_def nk_op_minimum_typed;

/* ---- error messages without stdio (on top of format.h's nk_msg) ---- */

/* Starts a message with "<op>: ". */
NK_HIDDEN void nk_msg_begin(nk_msg *m, const char *op);
/* Approximate decimal rendering (6 decimals at most), enough to name a value. */
NK_HIDDEN void nk_msg_f(nk_msg *m, float v);
/* "[1,28,28,3]" */
NK_HIDDEN void nk_msg_dims(nk_msg *m, const int32_t *dims, int32_t rank);
/* Hands the message to nk_fail (op index -1: the caller fills it). */
NK_HIDDEN nk_status nk_msg_fail(nk_msg *m, nk_error_t *err, nk_status s);
/* Shortcut for a fixed message "<op>: <s>". */
NK_HIDDEN nk_status nk_ops_fail(nk_error_t *err, nk_status s, const char *op, const char *what);

/* ---- shared validate steps ---- */

/* Checks what every op shares: min_in..max_in inputs, of which those at
 * index >= first_optional may be NK_NONE (absent), exactly one output,
 * `n_params` parameter words (skipped when n_params < 0), and that every
 * present tensor is float32. */
NK_HIDDEN nk_status nk_ops_check_io(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                    uint32_t min_in, uint32_t max_in, uint32_t first_optional,
                                    int32_t n_params, nk_error_t *err);
/* The same with every present tensor of `dtype`. */
NK_HIDDEN nk_status nk_ops_check_io_as(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                       uint32_t min_in, uint32_t max_in, uint32_t first_optional,
                                       int32_t n_params, uint8_t dtype, nk_error_t *err);
/* The tensor half of the io checks: every input present unless its index
 * is in [opt_lo, opt_hi), input i of dtype in_dt[min(i, n_dt-1)], the
 * output present and of dtype out_dt. */
NK_HIDDEN nk_status nk_ops_check_tensors(const nk_op_rt *op, const nk_tensor_rt *t,
                                         const char *name, uint32_t opt_lo, uint32_t opt_hi,
                                         const uint8_t *in_dt, uint32_t n_dt, uint8_t out_dt,
                                         nk_error_t *err);
/* Fails with NK_ERR_DTYPE: "<op>: <what> [index] is <got>, expected <want>"
 * (no index when it is negative). */
NK_HIDDEN nk_status nk_ops_fail_dtype(nk_error_t *err, const char *name, const char *what,
                                      int64_t index, uint8_t got, uint8_t want);
/* first_optional for ops whose inputs are all required */
#define NK_OPS_NO_OPTIONAL 0xFFu
/* Input i's tensor, or NULL when it is absent (NK_NONE or past n_in). */
NK_HIDDEN const nk_tensor_rt *nk_ops_in(const nk_op_rt *op, const nk_tensor_rt *t, uint32_t i);
/* 1 when `o` has exactly rank `rank` and dims `dims`. */
NK_HIDDEN int nk_ops_dims_equal(const nk_tensor_rt *o, const int32_t *dims, int32_t rank);
/* Fails with NK_ERR_SHAPE: "<op>: output dims [..] do not match input [..]"
 * + detail + " (expected [..])". detail may be NULL. */
NK_HIDDEN nk_status nk_ops_fail_out_dims(nk_error_t *err, const char *op, const nk_tensor_rt *out,
                                         const nk_tensor_rt *in, const char *detail,
                                         const int32_t *expected, int32_t rank);
/* Fails with NK_ERR_SHAPE: "<op>: inputs [..] and [..]" + tail. */
NK_HIDDEN nk_status nk_ops_fail_inputs(nk_error_t *err, const char *name, const nk_tensor_rt *a,
                                       const nk_tensor_rt *b, const char *tail);
/* Checks the fused-activation clamp [act_min, act_max] at params k, k+1:
 * no NaN and min <= max (infinities allowed). */
NK_HIDDEN nk_status nk_ops_check_act(const nk_op_rt *op, uint32_t k, const char *name,
                                     nk_error_t *err);
/* The output of an op whose output has input 0's shape (elementwise). */
NK_HIDDEN nk_status nk_ops_check_same_shape(const nk_op_rt *op, const nk_tensor_rt *t,
                                            const char *name, nk_error_t *err);
/* Inputs 0 and 1 broadcast (numpy rules, rank <= NK_MAX_DIMS) and the
 * output has their broadcast shape. */
NK_HIDDEN nk_status nk_ops_check_broadcast(const nk_op_rt *op, const nk_tensor_rt *t,
                                           const char *name, nk_error_t *err);
/* 1 when inputs 0 and 1 and the output have equal element counts: under
 * nk_ops_check_broadcast, equal shapes (up to leading 1s), no broadcasting. */
NK_HIDDEN int nk_ops_no_broadcast(const nk_op_rt *op, const nk_tensor_rt *t);
/* 1 when v is neither NaN nor infinite. */
NK_HIDDEN int nk_ops_finite(float v);
/* The build's float32 dense kernel for weights as stored (the fast set's,
 * else the portable one): the dense op without host-packed weights, and
 * the recurrent ops' gate products. */
NK_HIDDEN void nk_dense_f32_run(const float *x, const float *w, const float *bias, float *y,
                                size_t rows, int32_t in_features, int32_t out_features,
                                float act_min, float act_max);

/* A sliding 2-D window (conv, depthwise, pools) read from params. */
typedef struct nk_ops_window {
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w;
    int32_t pad_top, pad_left, pad_bottom, pad_right;
} nk_ops_window;
/* Checks the window's values (kernel, stride, dilation >= 1, pads >= 0, all
 * <= 2^24) and that the dilated kernel fits the padded input [N,H,W,C];
 * fills *out_h, *out_w (floor mode). Fails NK_ERR_UNSUPPORTED / NK_ERR_SHAPE. */
NK_HIDDEN nk_status nk_ops_window_check(const char *name, const nk_tensor_rt *x,
                                        const nk_ops_window *w, int32_t *out_h,
                                        int32_t *out_w, nk_error_t *err);
/* Appends "with kernel 3x3 stride 2 pads 1,1,1,1" (+ dilation when not 1). */
NK_HIDDEN void nk_ops_window_detail(nk_msg *m, const nk_ops_window *w);
/* The window of the conv ops (params 0..7: stride, dilation, pads; the
 * kernel from weights [O,KH,KW,C] or [1,KH,KW,C]) and of the pools
 * (params 0..7: kernel, stride, pads; dilation 1, but the max pools'
 * optional params 10, 11), f32 and i8 alike. */
NK_HIDDEN void nk_ops_conv_window(const nk_op_rt *op, const nk_tensor_rt *w, nk_ops_window *win);
NK_HIDDEN void nk_ops_pool_window(const nk_op_rt *op, nk_ops_window *win);
/* MAX_POOL2D and MAX_POOL2D_I8 with dilation_h, dilation_w after the clamp. */
#define NK_OPS_MAX_POOL_DILATED_PARAMS 12
/* Checks that every window of a pool has a tap inside the input x [N,H,W,C]:
 * with dilation a window can straddle the input without landing on it
 * (pads < kernel rules that out only at dilation 1). NK_ERR_UNSUPPORTED. */
NK_HIDDEN nk_status nk_ops_pool_check_taps(const char *name, const nk_tensor_rt *x,
                                           const nk_ops_window *win, int32_t out_h,
                                           int32_t out_w, nk_error_t *err);
/* Kernel geometry from input 0, the output (in the tensor table t) and the
 * window; groups and multiplier 1, count_include_pad 0 and a [0, 0] clamp for
 * the caller to set. */
NK_HIDDEN void nk_ops_window_geom(const nk_op_rt *op, const nk_tensor_rt *t,
                                  const nk_ops_window *win, nk_ref_conv_geom *g);
/* The whole geometry of a conv2d / depthwise_conv2d, float or int8: window,
 * groups or multiplier (param 8) and, for float, the fused clamp (params 9,
 * 10). The evals and the host kernels' packing (kernels/host_select.c) read
 * it from here alike. */
NK_HIDDEN void nk_ops_conv_geom(const nk_op_rt *op, const nk_tensor_rt *t, nk_ref_conv_geom *g);
/* An optional bias (NULL when absent) must be [n]; the message names n `unit`
 * ("output channels"). */
NK_HIDDEN nk_status nk_ops_check_bias(const nk_tensor_rt *bias, const char *name, int32_t n,
                                      const char *unit, nk_error_t *err);
/* Starts "<op>: weights [..] do not fit input [..] with <what> <k>" (conv
 * groups or depthwise multiplier) for the caller to finish. */
NK_HIDDEN void nk_ops_msg_weights_misfit(nk_msg *m, const char *name, const nk_tensor_rt *w,
                                         const nk_tensor_rt *x, const char *what, int32_t k);
/* Rank-4 NHWC check with a clear message. */
NK_HIDDEN nk_status nk_ops_check_rank(const char *name, const char *what, const nk_tensor_rt *x,
                                      int32_t rank, nk_error_t *err);

/* The out_shift of a windowed op (conv, depthwise, pool) whose kernels
 * visit output pixels in NHWC raster order, reading only the window's taps
 * and writing at most `block` pixels ahead of the first pixel whose window
 * they still read (docs/MEMORY.md). Only the planner calls it (through
 * out_shift), and links it (plan_model.c): overlap_rules.c says why the
 * ops' reference is weak. */
NK_HIDDEN int64_t nk_ops_raster_shift(const nk_op_rt *op, const nk_tensor_rt *t,
                                      const nk_ops_window *win, int32_t block) NK_WEAK_REF;
/* Defined beside it: a reference to this one links it (plan_model.c). */
NK_HIDDEN extern const int nk_ops_overlap_rules;


/* Staged rows (docs/MEMORY.md): the overlap rule of an int8 conv or
 * depthwise whose eval stages its output rows in the workspace
 * (nk_i8_conv_stage, nk_lowered.h), with *staging the rows' bytes ahead of
 * the op's own workspace; NK_SHIFT_NONE for other ops and convs that
 * cannot stage. The planner marks an op placed past its out_shift but
 * within this in_place 3 (plan.h, 2c). */
NK_HIDDEN int64_t nk_ops_staged_shift(const nk_op_rt *op, const nk_tensor_rt *t, size_t *staging);

/* Shared op_def callbacks. */
NK_HIDDEN size_t nk_ops_no_workspace(const nk_op_rt *op, const nk_tensor_rt *t);
NK_HIDDEN uint64_t nk_ops_no_macs(const nk_op_rt *op, const nk_tensor_rt *t);
/* One op per output element. */
NK_HIDDEN uint64_t nk_ops_out_elems(const nk_op_rt *op, const nk_tensor_rt *t);
/* One op per input element (reductions). */
NK_HIDDEN uint64_t nk_ops_in_elems(const nk_op_rt *op, const nk_tensor_rt *t);
/* The name errors give an op whose entry serves several op types. */
NK_HIDDEN const char *nk_ops_def_name(const nk_op_rt *op);
/* The output of a REDUCE_* op (param 0: the axes mask) keeps x's rank, the
 * reduced dims 1. */
NK_HIDDEN nk_status nk_reduce_check_shape(const nk_op_rt *op, const nk_tensor_rt *t,
                                          const char *name, nk_error_t *err);
/* The kernels' binary op of ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM or POW. */
NK_HIDDEN nk_ref_binop nk_ops_binop_of(uint32_t type);

/* Every op's eval by name (the data-movement ones serve any dtype), and
 * nk_op_lookup_in. */
#include "../nk_lowered.h"

/* Bytes per element of a tensor. */
static inline size_t nk_ops_elem_size(const nk_tensor_rt *t) {
    return nk_dtype_size((nk_dtype)t->dtype);
}

/* Data pointers inside eval. */
static inline const float *nk_ops_in_f32(const nk_op_rt *op, const nk_exec *x, uint32_t i) {
    if (i >= op->n_in || op->in[i] == NK_NONE)
        return NULL;
    return (const float *)x->data[op->in[i]];
}
static inline float *nk_ops_out_f32(const nk_op_rt *op, const nk_exec *x) {
    return (float *)x->data[op->out[0]];
}
static inline const nk_tensor_rt *nk_ops_tin(const nk_op_rt *op, const nk_exec *x, uint32_t i) {
    return &x->tensors[op->in[i]];
}
static inline const nk_tensor_rt *nk_ops_tout(const nk_op_rt *op, const nk_exec *x) {
    return &x->tensors[op->out[0]];
}

/* NETKIT_STRIP_MESSAGES: the text arguments (op names, what is checked)
 * are left unevaluated, as nk_fail does (nk_internal.h), so their literals
 * are not linked; the definitions are parenthesised. */
#if NETKIT_STRIP_MESSAGES
#define nk_msg_begin(m, op) \
    (NK_MSG_DROP(op), nk_msg_begin((m), NULL))
#define nk_ops_fail(err, s, op, what) \
    (NK_MSG_DROP(op), NK_MSG_DROP(what), nk_ops_fail((err), (s), NULL, NULL))
#define nk_ops_check_io(op, t, name, min_in, max_in, first_optional, n_params, err) \
    (NK_MSG_DROP(name), nk_ops_check_io((op), (t), NULL, (min_in), (max_in), (first_optional), (n_params), (err)))
#define nk_ops_check_io_as(op, t, name, min_in, max_in, first_optional, n_params, dtype, err) \
    (NK_MSG_DROP(name), nk_ops_check_io_as((op), (t), NULL, (min_in), (max_in), (first_optional), (n_params), (dtype), (err)))
#define nk_ops_check_tensors(op, t, name, opt_lo, opt_hi, in_dt, n_dt, out_dt, err) \
    (NK_MSG_DROP(name), nk_ops_check_tensors((op), (t), NULL, (opt_lo), (opt_hi), (in_dt), (n_dt), (out_dt), (err)))
#define nk_ops_fail_dtype(err, name, what, index, got, want) \
    (NK_MSG_DROP(name), NK_MSG_DROP(what), nk_ops_fail_dtype((err), NULL, NULL, (index), (got), (want)))
#define nk_ops_fail_out_dims(err, op, out, in, detail, expected, rank) \
    (NK_MSG_DROP(op), NK_MSG_DROP(detail), nk_ops_fail_out_dims((err), NULL, (out), (in), NULL, (expected), (rank)))
#define nk_ops_fail_inputs(err, name, a, b, tail) \
    (NK_MSG_DROP(name), NK_MSG_DROP(tail), nk_ops_fail_inputs((err), NULL, (a), (b), NULL))
#define nk_ops_check_act(op, k, name, err) \
    (NK_MSG_DROP(name), nk_ops_check_act((op), (k), NULL, (err)))
#define nk_ops_check_same_shape(op, t, name, err) \
    (NK_MSG_DROP(name), nk_ops_check_same_shape((op), (t), NULL, (err)))
#define nk_ops_check_broadcast(op, t, name, err) \
    (NK_MSG_DROP(name), nk_ops_check_broadcast((op), (t), NULL, (err)))
#define nk_reduce_check_shape(op, t, name, err) \
    (NK_MSG_DROP(name), nk_reduce_check_shape((op), (t), NULL, (err)))
#define nk_ops_window_check(name, x, w, out_h, out_w, err) \
    (NK_MSG_DROP(name), nk_ops_window_check(NULL, (x), (w), (out_h), (out_w), (err)))
#define nk_ops_pool_check_taps(name, x, w, out_h, out_w, err) \
    (NK_MSG_DROP(name), nk_ops_pool_check_taps(NULL, (x), (w), (out_h), (out_w), (err)))
#define nk_ops_check_bias(bias, name, n, unit, err) \
    (NK_MSG_DROP(name), NK_MSG_DROP(unit), nk_ops_check_bias((bias), NULL, (n), NULL, (err)))
#define nk_ops_msg_weights_misfit(m, name, w, x, what, k) \
    (NK_MSG_DROP(name), NK_MSG_DROP(what), nk_ops_msg_weights_misfit((m), NULL, (w), (x), NULL, (k)))
#define nk_ops_check_rank(name, what, x, rank, err) \
    (NK_MSG_DROP(name), NK_MSG_DROP(what), nk_ops_check_rank(NULL, NULL, (x), (rank), (err)))
#endif

#endif /* NK_OPS_COMMON_H */

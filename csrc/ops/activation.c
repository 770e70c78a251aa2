/* activation.c — RELU, CLIP, LEAKY_RELU, SIGMOID, TANH, GELU, HARD_SIGMOID,
 * HARD_SWISH, SOFTMAX, BATCH_NORM and LAYER_NORM: ops whose output has input 0's shape and whose element i
 * depends only on input element i (softmax: on i's own row), so the planner
 * may run them in place (out == in0); the ref kernels allow that, and so do
 * the host kernels (kernels/host/vmath.c) that sigmoid, tanh, gelu and
 * softmax run when the model was loaded with host kernels. */
#include "ops_common.h"

static nk_status nk_unary_validate(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                   int32_t n_params, nk_error_t *err) {
    nk_status s = nk_ops_check_io(op, t, name, 1, 1, NK_OPS_NO_OPTIONAL, n_params, err);
    if (s != NK_OK)
        return s;
    return nk_ops_check_same_shape(op, t, name, err);
}

static size_t nk_unary_n(const nk_op_rt *op, const nk_exec *x) {
    return nk_ops_tin(op, x, 0)->elems;
}

/* The host table's kernel `member` when the model runs host kernels and the
 * table has it (kernels/host/vmath.c), else NULL: the portable kernel runs. */
#if NETKIT_HOST_KERNELS
#define NK_HOST_VMATH(x, member)                                                              \
    (NK_EXEC_HOST(x) != NULL ? NK_EXEC_HOST(x)->member : NULL)
#endif

/* ---- relu ---- */
static nk_status nk_relu_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    return nk_unary_validate(op, t, "relu", 0, err);
}
nk_status nk_relu_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_relu_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x));
    return NK_OK;
}

/* ---- clip: min, max ---- */
static nk_status nk_clip_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    nk_status s = nk_unary_validate(op, t, "clip", 2, err);
    if (s != NK_OK)
        return s;
    return nk_ops_check_act(op, 0, "clip", err);
}
nk_status nk_clip_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_clip_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x),
                    nk_param_f32(op, 0), nk_param_f32(op, 1));
    return NK_OK;
}

/* ---- leaky_relu: alpha ---- */
static nk_status nk_leaky_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    nk_status s = nk_unary_validate(op, t, "leaky_relu", 1, err);
    if (s != NK_OK)
        return s;
    if (!nk_ops_finite(nk_param_f32(op, 0)))
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "leaky_relu", "alpha must be finite");
    return NK_OK;
}
nk_status nk_leaky_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_leaky_relu_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x),
                          nk_param_f32(op, 0));
    return NK_OK;
}

/* ---- sigmoid, tanh ---- */
static nk_status nk_sigmoid_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                     nk_error_t *err) {
    return nk_unary_validate(op, t, "sigmoid", 0, err);
}
nk_status nk_sigmoid_eval(const nk_op_rt *op, const nk_exec *x) {
#if NETKIT_HOST_KERNELS
    if (NK_HOST_VMATH(x, sigmoid_f32) != NULL) {
        NK_EXEC_HOST(x)->sigmoid_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x),
                                     nk_unary_n(op, x));
        return NK_OK;
    }
#endif
    nk_ref_sigmoid_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x));
    return NK_OK;
}
static nk_status nk_tanh_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    return nk_unary_validate(op, t, "tanh", 0, err);
}
nk_status nk_tanh_eval(const nk_op_rt *op, const nk_exec *x) {
#if NETKIT_HOST_KERNELS
    if (NK_HOST_VMATH(x, tanh_f32) != NULL) {
        NK_EXEC_HOST(x)->tanh_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x),
                                  nk_unary_n(op, x));
        return NK_OK;
    }
#endif
    nk_ref_tanh_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x));
    return NK_OK;
}

/* ---- gelu: approximate (0 erf, 1 tanh) ---- */
static nk_status nk_gelu_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    nk_status s = nk_unary_validate(op, t, "gelu", 1, err);
    if (s != NK_OK)
        return s;
    if (nk_param_i32(op, 0) != 0 && nk_param_i32(op, 0) != 1) {
        nk_msg m;
        nk_msg_begin(&m, "gelu");
        nk_msg_s(&m, "approximate ");
        nk_msg_i(&m, nk_param_i32(op, 0));
        nk_msg_s(&m, " is not 0 (erf) or 1 (tanh)");
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    return NK_OK;
}
nk_status nk_gelu_eval(const nk_op_rt *op, const nk_exec *x) {
#if NETKIT_HOST_KERNELS
    if (NK_HOST_VMATH(x, gelu_f32) != NULL) {
        NK_EXEC_HOST(x)->gelu_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x),
                                  nk_unary_n(op, x), nk_param_i32(op, 0));
        return NK_OK;
    }
#endif
    nk_ref_gelu_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x),
                    nk_param_i32(op, 0));
    return NK_OK;
}

/* ---- hard_sigmoid: alpha, beta; hard_swish (MobileNetV3) ---- */
static nk_status nk_hard_sigmoid_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                          nk_error_t *err) {
    nk_status s = nk_unary_validate(op, t, "hard_sigmoid", 2, err);
    if (s != NK_OK)
        return s;
    if (!nk_ops_finite(nk_param_f32(op, 0)) || !nk_ops_finite(nk_param_f32(op, 1)))
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "hard_sigmoid",
                           "alpha and beta must be finite");
    return NK_OK;
}
nk_status nk_hard_sigmoid_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_hard_sigmoid_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x),
                            nk_param_f32(op, 0), nk_param_f32(op, 1));
    return NK_OK;
}
static nk_status nk_hard_swish_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                        nk_error_t *err) {
    return nk_unary_validate(op, t, "hard_swish", 0, err);
}
nk_status nk_hard_swish_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_hard_swish_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), nk_unary_n(op, x));
    return NK_OK;
}

/* ---- softmax over the last axis: beta ---- */
static nk_status nk_softmax_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                     nk_error_t *err) {
    nk_status s = nk_unary_validate(op, t, "softmax", 1, err);
    if (s != NK_OK)
        return s;
    if (t[op->in[0]].rank < 1)
        return nk_ops_fail(err, NK_ERR_SHAPE, "softmax", "input must have rank >= 1");
    if (!nk_ops_finite(nk_param_f32(op, 0)))
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "softmax", "beta must be finite");
    return NK_OK;
}
nk_status nk_softmax_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    const size_t cols = (size_t)in->dims[in->rank - 1];
#if NETKIT_HOST_KERNELS
    if (NK_HOST_VMATH(x, softmax_f32) != NULL) {
        NK_EXEC_HOST(x)->softmax_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x),
                                     in->elems / cols, cols, nk_param_f32(op, 0));
        return NK_OK;
    }
#endif
    nk_ref_softmax_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), in->elems / cols, cols,
                       nk_param_f32(op, 0));
    return NK_OK;
}

/* ---- batch_norm: x (channels last), gamma, beta, mean, var [C]; epsilon ---- */
static nk_status nk_bn_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    static const char *const names[5] = {"x", "gamma", "beta", "mean", "var"};
    const nk_tensor_rt *x;
    int32_t c;
    uint32_t i;
    nk_status s = nk_ops_check_io(op, t, "batch_norm", 5, 5, NK_OPS_NO_OPTIONAL, 1, err);
    if (s == NK_OK)
        s = nk_ops_check_same_shape(op, t, "batch_norm", err);
    if (s != NK_OK)
        return s;
    x = &t[op->in[0]];
    if (x->rank < 1)
        return nk_ops_fail(err, NK_ERR_SHAPE, "batch_norm", "input must have rank >= 1");
    c = x->dims[x->rank - 1];
    for (i = 1; i < 5; i++) {
        const nk_tensor_rt *p = &t[op->in[i]];
        if (p->rank != 1 || p->dims[0] != c) {
            nk_msg m;
            nk_msg_begin(&m, "batch_norm");
            nk_msg_s(&m, names[i]);
            nk_msg_s(&m, " ");
            nk_msg_dims(&m, p->dims, p->rank);
            nk_msg_s(&m, " does not match the ");
            nk_msg_i(&m, c);
            nk_msg_s(&m, " channels (last dim) of input ");
            nk_msg_dims(&m, x->dims, x->rank);
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
    }
    if (!nk_ops_finite(nk_param_f32(op, 0)) || nk_param_f32(op, 0) < 0.0f)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "batch_norm",
                           "epsilon must be finite and >= 0");
    return NK_OK;
}
nk_status nk_bn_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    const int32_t c = in->dims[in->rank - 1];
    nk_ref_batch_norm_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x),
                          in->elems / (uint32_t)c, c, nk_ops_in_f32(op, x, 1),
                          nk_ops_in_f32(op, x, 2), nk_ops_in_f32(op, x, 3),
                          nk_ops_in_f32(op, x, 4), nk_param_f32(op, 0));
    return NK_OK;
}

/* ---- layer_norm: x, scale, bias (optional) [dims axis..rank-1 of x];
 * axis i32, epsilon f32 ---- */
static nk_status nk_layer_norm_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                        nk_error_t *err) {
    const nk_tensor_rt *x;
    int32_t axis, i, d;
    nk_status s = nk_ops_check_io(op, t, "layer_norm", 2, 3, 2, 2, err);
    if (s == NK_OK)
        s = nk_ops_check_same_shape(op, t, "layer_norm", err);
    if (s != NK_OK)
        return s;
    x = &t[op->in[0]];
    axis = nk_param_i32(op, 0);
    if (axis < 0 || axis >= (int32_t)x->rank) {
        nk_msg m;
        nk_msg_begin(&m, "layer_norm");
        nk_msg_s(&m, "axis ");
        nk_msg_i(&m, axis);
        nk_msg_s(&m, " is outside input ");
        nk_msg_dims(&m, x->dims, x->rank);
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    for (i = 1; i < (int32_t)op->n_in; i++) {
        const nk_tensor_rt *p = nk_ops_in(op, t, (uint32_t)i);
        int ok = p == NULL || p->rank == x->rank - axis;
        for (d = 0; ok && p != NULL && d < (int32_t)p->rank; d++)
            ok = p->dims[d] == x->dims[axis + d];
        if (!ok) {
            nk_msg m;
            nk_msg_begin(&m, "layer_norm");
            nk_msg_s(&m, i == 1 ? "scale " : "bias ");
            nk_msg_dims(&m, p->dims, p->rank);
            nk_msg_s(&m, " is not dims ");
            nk_msg_i(&m, axis);
            nk_msg_s(&m, ".. of input ");
            nk_msg_dims(&m, x->dims, x->rank);
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
    }
    if (!nk_ops_finite(nk_param_f32(op, 1)) || nk_param_f32(op, 1) < 0.0f)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "layer_norm",
                           "epsilon must be finite and >= 0");
    return NK_OK;
}
nk_status nk_layer_norm_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    size_t n = 1;
    int32_t d;
    for (d = nk_param_i32(op, 0); d < (int32_t)in->rank; d++)
        n *= (size_t)in->dims[d];
    nk_ref_layer_norm_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), in->elems / n, n,
                          nk_ops_in_f32(op, x, 1), nk_ops_in_f32(op, x, 2), nk_param_f32(op, 1));
    return NK_OK;
}

/* Every op here runs in place, has one output and needs no workspace. */
#define NK_INPLACE_DEF(var, name, type, n_in, n_params, validate, eval)                          \
    const nk_op_def var = {name,     type,     NK_F32,              NK_OPF_ELEMENTWISE,         \
                           n_in,     n_in,     1,                   n_params,                   \
                           validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), eval, NULL}

NK_INPLACE_DEF(nk_op_relu_f32, NK_OP_NAME("relu"), NK_OP_RELU, 1, 0, nk_relu_validate, nk_relu_eval);
NK_INPLACE_DEF(nk_op_clip_f32, NK_OP_NAME("clip"), NK_OP_CLIP, 1, 2, nk_clip_validate, nk_clip_eval);
NK_INPLACE_DEF(nk_op_leaky_relu_f32, NK_OP_NAME("leaky_relu"), NK_OP_LEAKY_RELU, 1, 1, nk_leaky_validate,
               nk_leaky_eval);
NK_INPLACE_DEF(nk_op_sigmoid_f32, NK_OP_NAME("sigmoid"), NK_OP_SIGMOID, 1, 0, nk_sigmoid_validate,
               nk_sigmoid_eval);
NK_INPLACE_DEF(nk_op_tanh_f32, NK_OP_NAME("tanh"), NK_OP_TANH, 1, 0, nk_tanh_validate, nk_tanh_eval);
NK_INPLACE_DEF(nk_op_gelu_f32, NK_OP_NAME("gelu"), NK_OP_GELU, 1, 1, nk_gelu_validate, nk_gelu_eval);
NK_INPLACE_DEF(nk_op_softmax_f32, NK_OP_NAME("softmax"), NK_OP_SOFTMAX, 1, 1, nk_softmax_validate,
               nk_softmax_eval);
NK_INPLACE_DEF(nk_op_batch_norm_f32, NK_OP_NAME("batch_norm"), NK_OP_BATCH_NORM, 5, 1, nk_bn_validate,
               nk_bn_eval);
NK_INPLACE_DEF(nk_op_hard_sigmoid_f32, NK_OP_NAME("hard_sigmoid"), NK_OP_HARD_SIGMOID, 1, 2,
               nk_hard_sigmoid_validate, nk_hard_sigmoid_eval);
NK_INPLACE_DEF(nk_op_hard_swish_f32, NK_OP_NAME("hard_swish"), NK_OP_HARD_SWISH, 1, 0,
               nk_hard_swish_validate, nk_hard_swish_eval);

const nk_op_def nk_op_layer_norm_f32 = {
    NK_OP_NAME("layer_norm"), NK_OP_LAYER_NORM, NK_F32, NK_OPF_ELEMENTWISE, 2, 3, 1, 2,
    nk_layer_norm_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_layer_norm_eval,
    NULL,
};

#undef NK_INPLACE_DEF

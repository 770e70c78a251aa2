/* conv.c — CONV2D and DEPTHWISE_CONV2D over NHWC tensors.
 * params: stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left,
 * pad_bottom, pad_right, groups (conv2d) or multiplier (depthwise), act_min,
 * act_max. */
#include "ops_common.h"
#include "../kernels/fast_f32.h"

#define NK_CONV_PARAMS 11

/* Shared by both ops: ranks, window, bias, output dims; `out_c` is the
 * output channel count the op implies. */
static nk_status nk_conv_check_common(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                      int32_t out_c, const char *extra, nk_error_t *err) {
    const nk_tensor_rt *x = nk_ops_in(op, t, 0), *w = nk_ops_in(op, t, 1);
    const nk_tensor_rt *bias = nk_ops_in(op, t, 2), *out = &t[op->out[0]];
    nk_ops_window win;
    int32_t expected[4];
    nk_status s;
    nk_ops_conv_window(op, w, &win);
    s = nk_ops_window_check(name, x, &win, &expected[1], &expected[2], err);
    if (s != NK_OK)
        return s;
    if ((s = nk_ops_check_bias(bias, name, out_c, "output channels", err)) != NK_OK)
        return s;
    expected[0] = x->dims[0];
    expected[3] = out_c;
    if (!nk_ops_dims_equal(out, expected, 4)) {
        nk_msg d = NK_MSG_INIT;
        nk_ops_window_detail(&d, &win);
        if (extra)
            nk_msg_s(&d, extra);
        return nk_ops_fail_out_dims(err, name, out, x, d.text, expected, 4);
    }
    return nk_ops_check_act(op, 9, name, err);
}

static nk_status nk_conv2d_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *x, *w;
    int32_t groups, c;
    nk_status s = nk_ops_check_io(op, t, "conv2d", 2, 3, 2, NK_CONV_PARAMS, err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    w = nk_ops_in(op, t, 1);
    if ((s = nk_ops_check_rank("conv2d", "input", x, 4, err)) != NK_OK ||
        (s = nk_ops_check_rank("conv2d", "weights", w, 4, err)) != NK_OK)
        return s;
    groups = nk_param_i32(op, 8);
    c = x->dims[3];
    if (groups < 1 || c % groups != 0 || w->dims[0] % groups != 0) {
        nk_msg m;
        nk_msg_begin(&m, "conv2d");
        nk_msg_s(&m, "groups ");
        nk_msg_i(&m, groups);
        nk_msg_s(&m, " must divide input channels ");
        nk_msg_i(&m, c);
        nk_msg_s(&m, " and output channels ");
        nk_msg_i(&m, w->dims[0]);
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    if (w->dims[3] != c / groups) {
        nk_msg m;
        nk_ops_msg_weights_misfit(&m, "conv2d", w, x, "groups", groups);
        nk_msg_s(&m, " (expected [O,KH,KW,");
        nk_msg_i(&m, c / groups);
        nk_msg_s(&m, "])");
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    if (groups == 1)
        return nk_conv_check_common(op, t, "conv2d", w->dims[0], NULL, err);
    {
        nk_msg g = NK_MSG_INIT;
        nk_msg_s(&g, " groups ");
        nk_msg_i(&g, groups);
        return nk_conv_check_common(op, t, "conv2d", w->dims[0], g.text, err);
    }
}

static nk_status nk_depthwise_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                       nk_error_t *err) {
    const nk_tensor_rt *x, *w;
    int32_t mult;
    nk_status s = nk_ops_check_io(op, t, "depthwise_conv2d", 2, 3, 2, NK_CONV_PARAMS, err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    w = nk_ops_in(op, t, 1);
    if ((s = nk_ops_check_rank("depthwise_conv2d", "input", x, 4, err)) != NK_OK ||
        (s = nk_ops_check_rank("depthwise_conv2d", "weights", w, 4, err)) != NK_OK)
        return s;
    mult = nk_param_i32(op, 8);
    if (mult < 1 || mult > (1 << 24))
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "depthwise_conv2d",
                           "multiplier must be >= 1");
    if (w->dims[0] != 1 || (int64_t)w->dims[3] != (int64_t)x->dims[3] * mult) {
        nk_msg m;
        nk_ops_msg_weights_misfit(&m, "depthwise_conv2d", w, x, "multiplier", mult);
        nk_msg_s(&m, " (expected [1,KH,KW,");
        nk_msg_i(&m, (int64_t)x->dims[3] * mult);
        nk_msg_s(&m, "])");
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    return nk_conv_check_common(op, t, "depthwise_conv2d", w->dims[3], NULL, err);
}

#if NK_OPS_MACS
static uint64_t nk_conv_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *w = &t[op->in[1]];
    uint64_t per_out = (uint64_t)w->dims[1] * (uint64_t)w->dims[2];
    if (op->type == NK_OP_CONV2D)
        per_out *= (uint64_t)w->dims[3];
    return (uint64_t)t[op->out[0]].elems * per_out;
}
#endif

nk_status nk_conv2d_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_conv_geom g;
    nk_ops_conv_geom(op, x->tensors, &g);
#if NETKIT_HOST_KERNELS
    /* packed at load, with the workspace sized there from this same geometry */
    if (NK_EXEC_HOST(x) != NULL && op->host_packed != NULL) {
        NK_EXEC_HOST(x)->conv2d_f32(nk_ops_in_f32(op, x, 0), (const float *)op->host_packed,
                                    nk_ops_in_f32(op, x, 2), nk_ops_out_f32(op, x), &g,
                                    (float *)x->workspace);
        return NK_OK;
    }
#endif
#if NK_FAST_F32
    if (nk_fast_conv2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_in_f32(op, x, 1), nk_ops_in_f32(op, x, 2),
                           nk_ops_out_f32(op, x), &g))
        return NK_OK;
#endif
    nk_ref_conv2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_in_f32(op, x, 1), nk_ops_in_f32(op, x, 2),
                      nk_ops_out_f32(op, x), &g);
    return NK_OK;
}

nk_status nk_depthwise_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_conv_geom g;
    nk_ops_conv_geom(op, x->tensors, &g);
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL && op->host_packed != NULL) {
        NK_EXEC_HOST(x)->depthwise_packed_f32(nk_ops_in_f32(op, x, 0),
                                              (const float *)op->host_packed,
                                              nk_ops_in_f32(op, x, 2), nk_ops_out_f32(op, x), &g,
                                              (float *)x->workspace);
        return NK_OK;
    }
    if (NK_EXEC_HOST(x) != NULL &&
        NK_EXEC_HOST(x)->depthwise_conv2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_in_f32(op, x, 1),
                                              nk_ops_in_f32(op, x, 2), nk_ops_out_f32(op, x), &g))
        return NK_OK;
#endif
#if NK_FAST_F32
    if (nk_fast_depthwise_conv2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_in_f32(op, x, 1),
                                     nk_ops_in_f32(op, x, 2), nk_ops_out_f32(op, x), &g))
        return NK_OK;
#endif
    nk_ref_depthwise_conv2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_in_f32(op, x, 1),
                                nk_ops_in_f32(op, x, 2), nk_ops_out_f32(op, x), &g);
    return NK_OK;
}

/* docs/MEMORY.md: raster order, blocks of up to NK_OVERLAP_BLOCK_* pixels. */
static int64_t nk_conv_out_shift(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ops_window win;
    nk_ops_conv_window(op, &t[op->in[1]], &win);
    return nk_ops_raster_shift(op, t, &win,
                               op->type == NK_OP_CONV2D ? NK_OVERLAP_BLOCK_CONV_F32
                                                        : NK_OVERLAP_BLOCK_DW_F32);
}

const nk_op_def nk_op_conv2d_f32 = {
    NK_OP_NAME("conv2d"), NK_OP_CONV2D, NK_F32, 0, 2, 3, 1, NK_CONV_PARAMS,
    nk_conv2d_validate, nk_ops_no_workspace, NK_OP_MACS(nk_conv_macs), nk_conv2d_eval,
    nk_conv_out_shift,
};

const nk_op_def nk_op_depthwise_conv2d_f32 = {
    NK_OP_NAME("depthwise_conv2d"), NK_OP_DEPTHWISE_CONV2D, NK_F32, 0, 2, 3, 1, NK_CONV_PARAMS,
    nk_depthwise_validate, nk_ops_no_workspace, NK_OP_MACS(nk_conv_macs), nk_depthwise_eval,
    nk_conv_out_shift,
};

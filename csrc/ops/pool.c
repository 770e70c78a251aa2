/* pool.c — MAX_POOL2D, AVG_POOL2D and GLOBAL_AVG_POOL over NHWC tensors.
 * params: kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left,
 * pad_bottom, pad_right, [count_include_pad (avg)], act_min, act_max,
 * [dilation_h, dilation_w (max, optional)]. */
#include "ops_common.h"

#define NK_MAXPOOL_PARAMS 10
#define NK_MAXPOOL_DILATED_PARAMS NK_OPS_MAX_POOL_DILATED_PARAMS
#define NK_AVGPOOL_PARAMS 11

static nk_status nk_pool_validate(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                  int32_t n_params, nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    nk_ops_window win;
    int32_t expected[4];
    nk_status s = nk_ops_check_io(op, t, name, 1, 1, NK_OPS_NO_OPTIONAL,
                                  op->n_params == NK_MAXPOOL_DILATED_PARAMS &&
                                          n_params == NK_MAXPOOL_PARAMS
                                      ? NK_MAXPOOL_DILATED_PARAMS
                                      : n_params,
                                  err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    out = &t[op->out[0]];
    if ((s = nk_ops_check_rank(name, "input", x, 4, err)) != NK_OK)
        return s;
    nk_ops_pool_window(op, &win);
    if ((s = nk_ops_window_check(name, x, &win, &expected[1], &expected[2], err)) != NK_OK)
        return s;
    /* A window made only of padding has no value to take. */
    if (win.pad_top >= win.k_h || win.pad_bottom >= win.k_h || win.pad_left >= win.k_w ||
        win.pad_right >= win.k_w) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "pads must be smaller than the kernel; got ");
        nk_ops_window_detail(&m, &win);
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    if ((s = nk_ops_pool_check_taps(name, x, &win, expected[1], expected[2], err)) != NK_OK)
        return s;
    expected[0] = x->dims[0];
    expected[3] = x->dims[3];
    if (!nk_ops_dims_equal(out, expected, 4)) {
        nk_msg d = NK_MSG_INIT;
        nk_ops_window_detail(&d, &win);
        return nk_ops_fail_out_dims(err, name, out, x, d.text, expected, 4);
    }
    return nk_ops_check_act(op, (uint32_t)n_params - 2, name, err); /* before any dilation */
}

static nk_status nk_max_pool_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    return nk_pool_validate(op, t, "max_pool2d", NK_MAXPOOL_PARAMS, err);
}

static nk_status nk_avg_pool_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    nk_status s = nk_pool_validate(op, t, "avg_pool2d", NK_AVGPOOL_PARAMS, err);
    if (s != NK_OK)
        return s;
    if (nk_param_i32(op, 8) != 0 && nk_param_i32(op, 8) != 1)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "avg_pool2d",
                           "count_include_pad must be 0 or 1");
    return NK_OK;
}

#if NK_OPS_MACS
static uint64_t nk_pool_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    return (uint64_t)t[op->out[0]].elems * (uint64_t)nk_param_i32(op, 0) *
           (uint64_t)nk_param_i32(op, 1);
}
#endif

static void nk_pool_geom(const nk_op_rt *op, const nk_exec *x, nk_ref_conv_geom *g) {
    const uint32_t act = op->type == NK_OP_AVG_POOL2D ? 9 : 8;
    nk_ops_window win;
    nk_ops_pool_window(op, &win);
    nk_ops_window_geom(op, x->tensors, &win, g);
    g->count_include_pad = op->type == NK_OP_AVG_POOL2D ? nk_param_i32(op, 8) : 0;
    g->act_min = nk_param_f32(op, act);
    g->act_max = nk_param_f32(op, act + 1);
}

nk_status nk_max_pool_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_conv_geom g;
    nk_pool_geom(op, x, &g);
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL &&
        NK_EXEC_HOST(x)->max_pool2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), &g))
        return NK_OK;
#endif
    nk_ref_max_pool2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), &g);
    return NK_OK;
}

nk_status nk_avg_pool_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_conv_geom g;
    nk_pool_geom(op, x, &g);
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL &&
        NK_EXEC_HOST(x)->avg_pool2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), &g))
        return NK_OK;
#endif
    nk_ref_avg_pool2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), &g);
    return NK_OK;
}

static nk_status nk_gap_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    int32_t expected[4];
    nk_status s = nk_ops_check_io(op, t, "global_avg_pool", 1, 1, NK_OPS_NO_OPTIONAL, 0, err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    out = &t[op->out[0]];
    if ((s = nk_ops_check_rank("global_avg_pool", "input", x, 4, err)) != NK_OK)
        return s;
    expected[0] = x->dims[0];
    expected[1] = 1;
    expected[2] = 1;
    expected[3] = x->dims[3];
    if (!nk_ops_dims_equal(out, expected, 4))
        return nk_ops_fail_out_dims(err, "global_avg_pool", out, x, NULL, expected, 4);
    return NK_OK;
}

nk_status nk_gap_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL &&
        NK_EXEC_HOST(x)->global_avg_pool_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x),
                                             in->dims[0],
                                             (size_t)in->dims[1] * (size_t)in->dims[2],
                                             in->dims[3]))
        return NK_OK;
#endif
    nk_ref_global_avg_pool_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), in->dims[0],
                               (size_t)in->dims[1] * (size_t)in->dims[2], in->dims[3]);
    return NK_OK;
}

/* docs/MEMORY.md: raster order, one pixel at a time. */
static int64_t nk_pool_out_shift(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ops_window win;
    nk_ops_pool_window(op, &win);
    return nk_ops_raster_shift(op, t, &win, NK_OVERLAP_BLOCK_POOL);
}

const nk_op_def nk_op_max_pool2d_f32 = {
    NK_OP_NAME("max_pool2d"), NK_OP_MAX_POOL2D, NK_F32, 0, 1, 1, 1, NK_MAXPOOL_PARAMS,
    nk_max_pool_validate, nk_ops_no_workspace, NK_OP_MACS(nk_pool_macs), nk_max_pool_eval,
    nk_pool_out_shift,
};

const nk_op_def nk_op_avg_pool2d_f32 = {
    NK_OP_NAME("avg_pool2d"), NK_OP_AVG_POOL2D, NK_F32, 0, 1, 1, 1, NK_AVGPOOL_PARAMS,
    nk_avg_pool_validate, nk_ops_no_workspace, NK_OP_MACS(nk_pool_macs), nk_avg_pool_eval,
    nk_pool_out_shift,
};

const nk_op_def nk_op_global_avg_pool_f32 = {
    NK_OP_NAME("global_avg_pool"), NK_OP_GLOBAL_AVG_POOL, NK_F32, 0, 1, 1, 1, 0,
    nk_gap_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_in_elems), nk_gap_eval,
    NULL,
};

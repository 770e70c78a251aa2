/* elementwise_i8.c — AVG_POOL2D_I8, MAX_POOL2D_I8, ADD_I8, MUL_I8,
 * SOFTMAX_I8, LOGISTIC_I8 and TANH_I8 (params in docs/NK_FORMAT.md). */
#include "ops_i8.h"

#define NK_POOL_I8_PARAMS 10
#define NK_ADD_I8_PARAMS 12
#define NK_MUL_I8_PARAMS 7
#define NK_SOFTMAX_I8_PARAMS 3
#define NK_ACTFN_I8_PARAMS 4

static const uint8_t nk_i8_dtype_i8[1] = {NK_I8};

/* ---- pools: kernel_h, kernel_w, stride_h, stride_w, pads (4), act_min, act_max,
 * [dilation_h, dilation_w (max, optional)] ---- */
static nk_status nk_pool_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                     nk_error_t *err) {
    const char *name = op->type == NK_OP_AVG_POOL2D_I8 ? "avg_pool2d_i8" : "max_pool2d_i8";
    const nk_tensor_rt *x, *out;
    nk_ops_window win;
    int32_t expected[4];
    const int dilated = op->type == NK_OP_MAX_POOL2D_I8 &&
                        op->n_params == NK_OPS_MAX_POOL_DILATED_PARAMS;
    nk_status s = nk_i8_check_io(op, t, name, 1, 1, NK_OPS_NO_OPTIONAL,
                                 dilated ? NK_OPS_MAX_POOL_DILATED_PARAMS : NK_POOL_I8_PARAMS,
                                 nk_i8_dtype_i8, 1, NK_I8, err);
    if (s != NK_OK)
        return s;
    x = &t[op->in[0]];
    out = &t[op->out[0]];
    if ((s = nk_ops_check_rank(name, "input", x, 4, err)) != NK_OK)
        return s;
    nk_ops_pool_window(op, &win);
    if ((s = nk_ops_window_check(name, x, &win, &expected[1], &expected[2], err)) != NK_OK)
        return s;
    /* every window then holds at least one input pixel */
    if (win.pad_top >= win.k_h || win.pad_bottom >= win.k_h || win.pad_left >= win.k_w ||
        win.pad_right >= win.k_w)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name, "pads must be smaller than the kernel");
    if ((s = nk_ops_pool_check_taps(name, x, &win, expected[1], expected[2], err)) != NK_OK)
        return s;
    if ((int64_t)win.k_h * win.k_w > NK_I8_MAX_POOL_TAPS)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name, "kernel above 2^24 taps");
    if ((s = nk_i8_check_clamp(name, nk_param_i32(op, 8), nk_param_i32(op, 9), err)) != NK_OK)
        return s;
    expected[0] = x->dims[0];
    expected[3] = x->dims[3];
    if (!nk_ops_dims_equal(out, expected, 4)) {
        nk_msg d = NK_MSG_INIT;
        nk_ops_window_detail(&d, &win);
        return nk_ops_fail_out_dims(err, name, out, x, d.text, expected, 4);
    }
    return NK_OK;
}

void nk_pool2d_i8_run(const nk_i8_pool_args *a, const int8_t *in, int8_t *out) {
#if NK_FAST_I8_POOL
    /* the fast kernels take undilated windows; dilated ones run portable */
    if (a->g->dil_h == 1 && a->g->dil_w == 1 &&
        nk_fast_pool2d_i8(in, out, a->g, a->act_min, a->act_max, a->is_max))
        return;
#endif
    if (a->is_max)
        nk_ref_max_pool2d_i8(in, out, a->g, a->act_min, a->act_max);
    else
        nk_ref_avg_pool2d_i8(in, out, a->g, a->act_min, a->act_max);
}

nk_status nk_pool_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_conv_geom g;
    nk_ops_window win;
    nk_i8_pool_args a;
    nk_ops_pool_window(op, &win);
    nk_ops_window_geom(op, x->tensors, &win, &g);
    a.g = &g;
    a.act_min = nk_param_i32(op, 8);
    a.act_max = nk_param_i32(op, 9);
    a.is_max = op->type != NK_OP_AVG_POOL2D_I8;
    nk_pool2d_i8_run(&a, nk_i8_in(op, x, 0), nk_i8_out(op, x));
    return NK_OK;
}

#if NK_OPS_MACS
static uint64_t nk_pool_i8_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    return (uint64_t)t[op->out[0]].elems * (uint64_t)nk_param_i32(op, 0) *
           (uint64_t)nk_param_i32(op, 1);
}
#endif

/* ---- add / mul, numpy broadcasting (the fast kernels take equal shapes) ---- */
static nk_status nk_binary_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                       nk_error_t *err) {
    const int is_add = op->type == NK_OP_ADD_I8;
    const char *name = is_add ? "add_i8" : "mul_i8";
    nk_status s = nk_i8_check_io(op, t, name, 2, 2, NK_OPS_NO_OPTIONAL,
                                 is_add ? NK_ADD_I8_PARAMS : NK_MUL_I8_PARAMS, nk_i8_dtype_i8, 1,
                                 NK_I8, err);
    int32_t k;
    if (s != NK_OK)
        return s;
    if ((s = nk_ops_check_broadcast(op, t, name, err)) != NK_OK)
        return s;
    if ((s = nk_i8_check_zp(name, "input 1 zero point", nk_param_i32(op, 0), err)) != NK_OK ||
        (s = nk_i8_check_zp(name, "input 2 zero point", nk_param_i32(op, 1), err)) != NK_OK ||
        (s = nk_i8_check_zp(name, "output zero point", nk_param_i32(op, 2), err)) != NK_OK)
        return s;
    if (is_add) {
        const int32_t ls = nk_param_i32(op, 3);
        static const char *const what[3] = {"input 1", "input 2", "output"};
        if (ls < 0 || ls > 23) {
            nk_msg m;
            nk_msg_begin(&m, name);
            nk_msg_s(&m, "left shift ");
            nk_msg_i(&m, ls);
            nk_msg_s(&m, " is outside 0..23");
            return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
        }
        for (k = 0; k < 3; k++)
            if ((s = nk_i8_check_mult(name, what[k], nk_param_i32(op, 4u + 2u * (uint32_t)k),
                                      nk_param_i32(op, 5u + 2u * (uint32_t)k), err)) != NK_OK)
                return s;
        s = nk_i8_check_clamp(name, nk_param_i32(op, 10), nk_param_i32(op, 11), err);
    } else {
        if ((s = nk_i8_check_mult(name, "output", nk_param_i32(op, 3), nk_param_i32(op, 4),
                                  err)) != NK_OK)
            return s;
        s = nk_i8_check_clamp(name, nk_param_i32(op, 5), nk_param_i32(op, 6), err);
    }
    return s;
}

/* A broadcast add or mul: the portable kernel over runs. */
static void nk_binary_i8_broadcast(const nk_op_rt *op, const nk_exec *x,
                                   const nk_ref_add_i8_params *add,
                                   const nk_ref_mul_i8_params *mul) {
    const nk_tensor_rt *a = nk_ops_tin(op, x, 0), *b = nk_ops_tin(op, x, 1);
    const nk_tensor_rt *y = nk_ops_tout(op, x);
    nk_ref_binary_i8_broadcast(add, mul, nk_i8_in(op, x, 0), a->dims, a->rank, nk_i8_in(op, x, 1),
                               b->dims, b->rank, nk_i8_out(op, x), y->dims, y->rank);
}

nk_status nk_add_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_add_i8_params p;
    p.in1_zp = nk_param_i32(op, 0);
    p.in2_zp = nk_param_i32(op, 1);
    p.out_zp = nk_param_i32(op, 2);
    p.left_shift = nk_param_i32(op, 3);
    p.m1 = nk_param_i32(op, 4);
    p.shift1 = nk_param_i32(op, 5);
    p.m2 = nk_param_i32(op, 6);
    p.shift2 = nk_param_i32(op, 7);
    p.m_out = nk_param_i32(op, 8);
    p.shift_out = nk_param_i32(op, 9);
    p.act_min = nk_param_i32(op, 10);
    p.act_max = nk_param_i32(op, 11);
    if (!nk_ops_no_broadcast(op, x->tensors)) {
        nk_binary_i8_broadcast(op, x, &p, NULL);
        return NK_OK;
    }
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL && NK_EXEC_HOST(x)->add_i8 != NULL) {
        NK_EXEC_HOST(x)->add_i8(nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), nk_i8_out(op, x),
                                nk_ops_tout(op, x)->elems, &p);
        return NK_OK;
    }
#endif
    nk_add_i8_run(&p, nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), nk_i8_out(op, x),
                  nk_ops_tout(op, x)->elems, x->workspace);
    return NK_OK;
}

void nk_add_i8_run(const nk_ref_add_i8_params *p, const int8_t *a, const int8_t *b, int8_t *y,
                   size_t n, void *workspace) {
#if NK_FAST_I8_ARMV7EM || NK_FAST_I8_MVE
    if (nk_fast_add_i8_ws(a, b, y, n, p, (int32_t *)workspace))
        return;
#endif
    (void)workspace;
    nk_ref_add_i8(a, b, y, n, p);
}

nk_status nk_mul_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_mul_i8_params p;
    p.in1_zp = nk_param_i32(op, 0);
    p.in2_zp = nk_param_i32(op, 1);
    p.out_zp = nk_param_i32(op, 2);
    p.mult = nk_param_i32(op, 3);
    p.shift = nk_param_i32(op, 4);
    p.act_min = nk_param_i32(op, 5);
    p.act_max = nk_param_i32(op, 6);
    if (!nk_ops_no_broadcast(op, x->tensors))
        nk_binary_i8_broadcast(op, x, NULL, &p);
    else
        nk_ref_mul_i8(nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), nk_i8_out(op, x),
                      nk_ops_tout(op, x)->elems, &p);
    return NK_OK;
}

/* ---- softmax over the last axis: M, shift, diff_min ---- */
static nk_status nk_softmax_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                        nk_error_t *err) {
    const char *name = "softmax_i8";
    int32_t mult, shift, diff_min;
    /* int8 output, or int16 (TFLite's int8 -> int16 softmax) */
    const uint8_t out_dt = op->n_out == 1 && t[op->out[0]].dtype == NK_I16 ? NK_I16 : NK_I8;
    nk_status s = nk_i8_check_io(op, t, name, 1, 1, NK_OPS_NO_OPTIONAL, NK_SOFTMAX_I8_PARAMS,
                                 nk_i8_dtype_i8, 1, out_dt, err);
    if (s != NK_OK)
        return s;
    if (t[op->in[0]].rank < 1)
        return nk_ops_fail(err, NK_ERR_SHAPE, name, "input must have rank >= 1");
    mult = nk_param_i32(op, 0);
    shift = nk_param_i32(op, 1);
    diff_min = nk_param_i32(op, 2);
    if ((mult != 0 && mult < (1 << 30)) || shift < 0 || shift > 31 || diff_min > 0) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "multiplier ");
        nk_msg_i(&m, mult);
        nk_msg_s(&m, " shift ");
        nk_msg_i(&m, shift);
        nk_msg_s(&m, " diff_min ");
        nk_msg_i(&m, diff_min);
        nk_msg_s(&m, ": want a multiplier 0 or in [2^30, 2^31), shift 0..31, diff_min <= 0");
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    return nk_ops_check_same_shape(op, t, name, err);
}

nk_status nk_softmax_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    const size_t cols = (size_t)in->dims[in->rank - 1];
    if (nk_ops_tout(op, x)->dtype == NK_I16)
        nk_ref_softmax_i8_i16(nk_i8_in(op, x, 0), (int16_t *)x->data[op->out[0]],
                              in->elems / cols, cols, nk_param_i32(op, 0), nk_param_i32(op, 1),
                              nk_param_i32(op, 2));
    else
        nk_ref_softmax_i8(nk_i8_in(op, x, 0), nk_i8_out(op, x), in->elems / cols, cols,
                          nk_param_i32(op, 0), nk_param_i32(op, 1), nk_param_i32(op, 2));
    return NK_OK;
}

/* ---- logistic / tanh: in_zp, M, shift, radius ---- */
static nk_status nk_actfn_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    const char *name = op->type == NK_OP_TANH_I8 ? "tanh_i8" : "logistic_i8";
    nk_status s = nk_i8_check_io(op, t, name, 1, 1, NK_OPS_NO_OPTIONAL, NK_ACTFN_I8_PARAMS,
                                 nk_i8_dtype_i8, 1, NK_I8, err);
    if (s != NK_OK)
        return s;
    if ((s = nk_i8_check_zp(name, "input zero point", nk_param_i32(op, 0), err)) != NK_OK ||
        (s = nk_i8_check_mult(name, "input", nk_param_i32(op, 1), nk_param_i32(op, 2), err)) !=
            NK_OK)
        return s;
    if (nk_param_i32(op, 3) < 0)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name, "radius must be >= 0");
    return nk_ops_check_same_shape(op, t, name, err);
}

/* A 256-entry table when the tensor has more values than that. */
static size_t nk_actfn_i8_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    return t[op->out[0]].elems > 256u ? 256u : 0u;
}

nk_status nk_actfn_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    const uint32_t n = nk_ops_tout(op, x)->elems;
    nk_ref_logistic_tanh_i8(nk_i8_in(op, x, 0), nk_i8_out(op, x), n, op->type == NK_OP_TANH_I8,
                            nk_param_i32(op, 0), nk_param_i32(op, 1), nk_param_i32(op, 2),
                            nk_param_i32(op, 3), n > 256u ? (int8_t *)x->workspace : NULL);
    return NK_OK;
}

/* docs/MEMORY.md: raster order, one pixel at a time. */
static int64_t nk_pool_i8_out_shift(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ops_window win;
    nk_ops_pool_window(op, &win);
    return nk_ops_raster_shift(op, t, &win, NK_OVERLAP_BLOCK_POOL);
}

const nk_op_def nk_op_avg_pool2d_i8 = {
    NK_OP_NAME("avg_pool2d_i8"), NK_OP_AVG_POOL2D_I8, NK_I8, 0, 1, 1, 1, NK_POOL_I8_PARAMS,
    nk_pool_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_pool_i8_macs), nk_pool_i8_eval,
    nk_pool_i8_out_shift,
};

const nk_op_def nk_op_max_pool2d_i8 = {
    NK_OP_NAME("max_pool2d_i8"), NK_OP_MAX_POOL2D_I8, NK_I8, 0, 1, 1, 1, NK_POOL_I8_PARAMS,
    nk_pool_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_pool_i8_macs), nk_pool_i8_eval,
    nk_pool_i8_out_shift,
};

/* The DSP add's tables (counted on every build: fast_i8.h). */
static size_t nk_add_i8_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    return nk_fast_add_i8_workspace(t[op->out[0]].elems);
}

const nk_op_def nk_op_add_i8 = {
    NK_OP_NAME("add_i8"), NK_OP_ADD_I8, NK_I8, NK_OPF_ELEMENTWISE, 2, 2, 1, NK_ADD_I8_PARAMS,
    nk_binary_i8_validate, nk_add_i8_workspace, NK_OP_MACS(nk_ops_out_elems), nk_add_i8_eval,
    NULL,
};

const nk_op_def nk_op_mul_i8 = {
    NK_OP_NAME("mul_i8"), NK_OP_MUL_I8, NK_I8, NK_OPF_ELEMENTWISE, 2, 2, 1, NK_MUL_I8_PARAMS,
    nk_binary_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_mul_i8_eval,
    NULL,
};

const nk_op_def nk_op_softmax_i8 = {
    NK_OP_NAME("softmax_i8"), NK_OP_SOFTMAX_I8, NK_I8, NK_OPF_ELEMENTWISE, 1, 1, 1, NK_SOFTMAX_I8_PARAMS,
    nk_softmax_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_softmax_i8_eval,
    NULL,
};

const nk_op_def nk_op_logistic_i8 = {
    NK_OP_NAME("logistic_i8"), NK_OP_LOGISTIC_I8, NK_I8, NK_OPF_ELEMENTWISE, 1, 1, 1, NK_ACTFN_I8_PARAMS,
    nk_actfn_i8_validate, nk_actfn_i8_workspace, NK_OP_MACS(nk_ops_out_elems), nk_actfn_i8_eval,
    NULL,
};

const nk_op_def nk_op_tanh_i8 = {
    NK_OP_NAME("tanh_i8"), NK_OP_TANH_I8, NK_I8, NK_OPF_ELEMENTWISE, 1, 1, 1, NK_ACTFN_I8_PARAMS,
    nk_actfn_i8_validate, nk_actfn_i8_workspace, NK_OP_MACS(nk_ops_out_elems), nk_actfn_i8_eval,
    NULL,
};

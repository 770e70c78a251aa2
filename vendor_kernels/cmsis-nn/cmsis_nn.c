/*
 * cmsis_nn.c — the CMSIS-NN backend: netkit's int8 op records mapped to
 * CMSIS-NN's s8 functions, compiled from a tree the user supplies
 * (-DNETKIT_CMSIS_NN_DIR=<CMSIS-NN tree>, docs/TARGETS.md).
 *
 * Every entry has a load-time supports() that accepts only parameters the
 * library computes exactly like the portable kernels (TFLite's int8
 * semantics); anything else stays on netkit's own kernels. Scratch comes
 * from the library's *_get_buffer_size functions, asked at load with the
 * op's real dimensions, and lives in the context's shared workspace.
 *
 * Rounding: CMSIS-NN requantizes with TFLite's double rounding unless
 * CMSIS_NN_USE_SINGLE_ROUNDING is defined; the build defines it for the
 * library and this file exactly when NETKIT_SINGLE_ROUNDING is on, and
 * the check below refuses a mismatch.
 *
 * Known library defects are routed around, not called (shared notes,
 * int8-semantics.md): the MVE 1xN conv path is wrong for stride >= 2 and
 * assumes TFLite's SAME split of the horizontal padding, so those convs go
 * to arm_convolve_s8; grouped convs always go to arm_convolve_s8 with its
 * own scratch size (v7.0.0 reports 0 for grouped 1x1); transpose conv is
 * not an op here.
 */
#ifndef NK_VENDOR_NAME /* else a renamed copy of the library includes this file (nmsis-nn) */
#define NK_VENDOR_NAME "cmsis-nn"
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

#if defined(NETKIT_SINGLE_ROUNDING) && NETKIT_SINGLE_ROUNDING
#ifndef CMSIS_NN_USE_SINGLE_ROUNDING
#error "NETKIT_SINGLE_ROUNDING needs CMSIS-NN built with CMSIS_NN_USE_SINGLE_ROUNDING"
#endif
#elif defined(CMSIS_NN_USE_SINGLE_ROUNDING)
#error "CMSIS_NN_USE_SINGLE_ROUNDING needs NETKIT_SINGLE_ROUNDING=1"
#endif
#endif

#include "backend.h"
#include "ops/ops_i8.h"

/* Per-tensor conv multipliers are widened to per-channel arrays after the
 * library's scratch, at this alignment. */
#define NK_CMSIS_ALIGN 16u

static size_t nk_cmsis_round_up(size_t n) {
    return (n + NK_CMSIS_ALIGN - 1u) & ~(size_t)(NK_CMSIS_ALIGN - 1u);
}

static cmsis_nn_dims nk_cmsis_dims4(const int32_t *d) {
    cmsis_nn_dims r;
    r.n = d[0];
    r.h = d[1];
    r.w = d[2];
    r.c = d[3];
    return r;
}

/* ---- conv and depthwise ---- */

/* Everything a conv or depthwise call takes, from the op record and the
 * tensors alone, so load (sizes) and eval (calls) agree. */
typedef struct nk_cmsis_conv {
    cmsis_nn_conv_params conv;
    cmsis_nn_dw_conv_params dw;
    cmsis_nn_dims in, filter, bias, out;
    nk_ops_window win;
    int32_t groups;   /* conv */
    int general;      /* conv: call arm_convolve_s8, not the wrapper */
    int per_channel;  /* multiplier tensor has one entry per output channel */
} nk_cmsis_conv;

static void nk_cmsis_conv_setup(const nk_op_rt *op, const nk_tensor_rt *t, nk_cmsis_conv *c) {
    const nk_tensor_rt *x = &t[op->in[0]], *w = &t[op->in[1]], *y = &t[op->out[0]];
    nk_ops_conv_window(op, w, &c->win);
    c->in = nk_cmsis_dims4(x->dims);
    c->out = nk_cmsis_dims4(y->dims);
    c->bias.n = c->bias.h = c->bias.w = 1;
    c->bias.c = y->dims[3];
    c->per_channel = t[op->in[3]].dims[0] > 1;
    c->groups = 1;
    if (op->type == NK_OP_CONV2D_I8) {
        c->groups = nk_param_i32(op, 8);
        c->filter = nk_cmsis_dims4(w->dims); /* [O, KH, KW, C/groups] */
        c->conv.input_offset = -nk_param_i32(op, 9);
        c->conv.output_offset = nk_param_i32(op, 10);
        c->conv.stride.h = c->win.stride_h;
        c->conv.stride.w = c->win.stride_w;
        c->conv.dilation.h = c->win.dil_h;
        c->conv.dilation.w = c->win.dil_w;
        /* the library takes the leading pads; the output dims imply the rest */
        c->conv.padding.h = c->win.pad_top;
        c->conv.padding.w = c->win.pad_left;
        c->conv.activation.min = nk_param_i32(op, 11);
        c->conv.activation.max = nk_param_i32(op, 12);
    } else {
        c->filter.n = 1;
        c->filter.h = w->dims[1];
        c->filter.w = w->dims[2];
        c->filter.c = w->dims[3];
        c->dw.input_offset = -nk_param_i32(op, 9);
        c->dw.output_offset = nk_param_i32(op, 10);
        c->dw.ch_mult = nk_param_i32(op, 8);
        c->dw.stride.h = c->win.stride_h;
        c->dw.stride.w = c->win.stride_w;
        c->dw.dilation.h = c->win.dil_h;
        c->dw.dilation.w = c->win.dil_w;
        c->dw.padding.h = c->win.pad_top;
        c->dw.padding.w = c->win.pad_left;
        c->dw.activation.min = nk_param_i32(op, 11);
        c->dw.activation.max = nk_param_i32(op, 12);
    }
    c->general = 0;
    if (op->type == NK_OP_CONV2D_I8) {
        const nk_ops_window *v = &c->win;
        if (c->groups > 1) {
            c->general = 1;
        } else if (arm_nn_is_convolve_1x1(&c->conv, &c->in, &c->filter)) {
            /* the 1x1 paths assume the output is the (strided) input grid */
            c->general = v->pad_bottom != 0 || v->pad_right != 0;
        } else if (arm_nn_is_convolve_1_x_n(&c->conv, &c->in, &c->filter)) {
            /* one output row only; on MVE also stride 1 and TFLite's SAME
             * split of the horizontal padding (the 1xN defects) */
            c->general = v->pad_top != 0 || v->pad_bottom != 0;
#if defined(ARM_MATH_MVEI)
            if (v->stride_w != 1 || (v->pad_right != v->pad_left && v->pad_right != v->pad_left + 1))
                c->general = 1;
#endif
        }
    }
}

static size_t nk_cmsis_conv_scratch(const nk_op_rt *op, const nk_cmsis_conv *c) {
    int32_t n;
    if (op->type == NK_OP_DEPTHWISE_CONV2D_I8)
        n = arm_depthwise_conv_wrapper_s8_get_buffer_size(&c->dw, &c->in, &c->filter, &c->out);
    else if (c->general)
        n = arm_convolve_s8_get_buffer_size(&c->in, &c->filter);
    else
        n = arm_convolve_wrapper_s8_get_buffer_size(&c->conv, &c->in, &c->filter, &c->out);
    return n > 0 ? (size_t)n : 0u;
}

static int nk_cmsis_conv_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_cmsis_conv c;
    nk_cmsis_conv_setup(op, t, &c);
    /* every path reads bias[c] without a NULL check somewhere */
    if (op->in[2] == NK_NONE)
        return 0;
    if (op->type == NK_OP_DEPTHWISE_CONV2D_I8) {
#if defined(ARM_MATH_MVEI)
        /* MVE turns these into a conv through the conv wrapper, where the
         * 1xN defects above are not guarded: keep one-row inputs off it */
        if (c.in.c == 1 && c.in.h == 1 &&
            c.out.c > CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD)
            return 0;
#endif
        return 1;
    }
    return 1;
}

static size_t nk_cmsis_conv_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_cmsis_conv c;
    size_t n;
    nk_cmsis_conv_setup(op, t, &c);
    n = nk_cmsis_conv_scratch(op, &c);
    if (!c.per_channel)
        n = nk_cmsis_round_up(n) + 2u * (size_t)c.out.c * sizeof(int32_t);
    return n;
}

static nk_status nk_cmsis_conv_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_cmsis_conv c;
    cmsis_nn_context ctx;
    cmsis_nn_per_channel_quant_params q;
    arm_cmsis_nn_status s;
    size_t scratch;
    nk_cmsis_conv_setup(op, x->tensors, &c);
    scratch = nk_cmsis_conv_scratch(op, &c);
    ctx.buf = scratch ? x->workspace : NULL;
    ctx.size = (int32_t)scratch;
    q.multiplier = (int32_t *)nk_i8_in_i32(op, x, 3);
    q.shift = (int32_t *)nk_i8_in_i32(op, x, 4);
    if (!c.per_channel) {
        /* the library wants one multiplier per channel */
        int32_t *m = (int32_t *)(void *)((char *)x->workspace + nk_cmsis_round_up(scratch));
        int32_t *sh = m + c.out.c, k;
        for (k = 0; k < c.out.c; k++) {
            m[k] = q.multiplier[0];
            sh[k] = q.shift[0];
        }
        q.multiplier = m;
        q.shift = sh;
    }
    if (op->type == NK_OP_DEPTHWISE_CONV2D_I8)
        s = arm_depthwise_conv_wrapper_s8(&ctx, &c.dw, &q, &c.in, nk_i8_in(op, x, 0), &c.filter,
                                          nk_i8_in(op, x, 1), &c.bias, nk_i8_in_i32(op, x, 2),
                                          &c.out, nk_i8_out(op, x));
    else if (c.general)
        s = arm_convolve_s8(&ctx, &c.conv, &q, &c.in, nk_i8_in(op, x, 0), &c.filter,
                            nk_i8_in(op, x, 1), &c.bias, nk_i8_in_i32(op, x, 2), NULL, &c.out,
                            nk_i8_out(op, x));
    else
        s = arm_convolve_wrapper_s8(&ctx, &c.conv, &q, &c.in, nk_i8_in(op, x, 0), &c.filter,
                                    nk_i8_in(op, x, 1), &c.bias, nk_i8_in_i32(op, x, 2), &c.out,
                                    nk_i8_out(op, x));
    /* supports() accepted these parameters: a refusal here is our bug */
    return s == ARM_CMSIS_NN_SUCCESS ? NK_OK : NK_ERR_UNSUPPORTED;
}

/* ---- dense ---- */

typedef struct nk_cmsis_fc {
    cmsis_nn_fc_params fc;
    cmsis_nn_dims in, filter, bias, out;
    int per_channel;
} nk_cmsis_fc;

static void nk_cmsis_fc_setup(const nk_op_rt *op, const nk_tensor_rt *t, nk_cmsis_fc *f) {
    const nk_tensor_rt *w = &t[op->in[1]];
    const int32_t depth = w->dims[1], units = w->dims[0];
    const int32_t rows = (int32_t)(t[op->in[0]].elems / (uint32_t)depth);
    f->fc.input_offset = -nk_param_i32(op, 0);
    f->fc.filter_offset = 0;
    f->fc.output_offset = nk_param_i32(op, 1);
    f->fc.activation.min = nk_param_i32(op, 2);
    f->fc.activation.max = nk_param_i32(op, 3);
    f->in.n = rows;
    f->in.h = f->in.w = 1;
    f->in.c = depth;
    f->filter.n = depth; /* [accumulation depth, output depth] */
    f->filter.h = f->filter.w = 1;
    f->filter.c = units;
    f->bias.n = f->bias.h = f->bias.w = 1;
    f->bias.c = units;
    f->out.n = rows;
    f->out.h = f->out.w = 1;
    f->out.c = units;
    f->per_channel = t[op->in[3]].dims[0] > 1;
}

static int nk_cmsis_fc_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    (void)t;
    return op->in[2] != NK_NONE;
}

static size_t nk_cmsis_fc_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_cmsis_fc f;
    int32_t n;
    nk_cmsis_fc_setup(op, t, &f);
    n = arm_fully_connected_s8_get_buffer_size(&f.filter);
    return n > 0 ? (size_t)n : 0u;
}

static nk_status nk_cmsis_fc_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_cmsis_fc f;
    cmsis_nn_context ctx;
    arm_cmsis_nn_status s;
    int32_t scratch;
    const int8_t *w = nk_i8_in(op, x, 1);
    const int32_t *bias = nk_i8_in_i32(op, x, 2);
    nk_cmsis_fc_setup(op, x->tensors, &f);
    scratch = arm_fully_connected_s8_get_buffer_size(&f.filter);
    ctx.buf = scratch > 0 ? x->workspace : NULL;
    ctx.size = scratch;
    if (scratch > 0) {
        /* MVE: the kernel sums (input offset times each row's weight sum,
         * plus bias) the library expects in its buffer, per invoke since
         * the workspace is shared */
        s = arm_vector_sum_s8((int32_t *)ctx.buf, f.filter.n, f.filter.c, w, f.fc.input_offset,
                              f.fc.filter_offset, bias);
        if (s != ARM_CMSIS_NN_SUCCESS)
            return NK_ERR_UNSUPPORTED;
    }
    if (f.per_channel) {
        cmsis_nn_per_channel_quant_params q;
        q.multiplier = (int32_t *)nk_i8_in_i32(op, x, 3);
        q.shift = (int32_t *)nk_i8_in_i32(op, x, 4);
        s = arm_fully_connected_per_channel_s8(&ctx, &f.fc, &q, &f.in, nk_i8_in(op, x, 0),
                                               &f.filter, w, &f.bias, bias, &f.out,
                                               nk_i8_out(op, x));
    } else {
        cmsis_nn_per_tensor_quant_params q;
        q.multiplier = nk_i8_in_i32(op, x, 3)[0];
        q.shift = nk_i8_in_i32(op, x, 4)[0];
        s = arm_fully_connected_s8(&ctx, &f.fc, &q, &f.in, nk_i8_in(op, x, 0), &f.filter, w,
                                   &f.bias, bias, &f.out, nk_i8_out(op, x));
    }
    return s == ARM_CMSIS_NN_SUCCESS ? NK_OK : NK_ERR_UNSUPPORTED;
}

/* ---- pools ---- */

typedef struct nk_cmsis_pool {
    cmsis_nn_pool_params p;
    cmsis_nn_dims in, filter, out;
} nk_cmsis_pool;

static void nk_cmsis_pool_setup(const nk_op_rt *op, const nk_tensor_rt *t, nk_cmsis_pool *p) {
    nk_ops_window win;
    nk_ops_pool_window(op, &win);
    p->in = nk_cmsis_dims4(t[op->in[0]].dims);
    p->out = nk_cmsis_dims4(t[op->out[0]].dims);
    p->filter.n = p->filter.c = 1;
    p->filter.h = win.k_h;
    p->filter.w = win.k_w;
    p->p.stride.h = win.stride_h;
    p->p.stride.w = win.stride_w;
    p->p.padding.h = win.pad_top;
    p->p.padding.w = win.pad_left;
    p->p.activation.min = nk_param_i32(op, 8);
    p->p.activation.max = nk_param_i32(op, 9);
}

static int nk_cmsis_pool_supports(const nk_op_rt *op, const nk_tensor_rt *t) {
    /* validate guarantees a valid tap in every window (pads < kernel):
     * the library's count == 0 case never arises; the library's pools have
     * no dilation (a dilated max pool carries two more words) */
    (void)t;
    return op->n_params == 10;
}

static size_t nk_cmsis_pool_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    int32_t n;
    if (op->type != NK_OP_AVG_POOL2D_I8)
        return 0;
    n = arm_avgpool_s8_get_buffer_size(t[op->out[0]].dims[2], t[op->in[0]].dims[3]);
    return n > 0 ? (size_t)n : 0u;
}

static nk_status nk_cmsis_pool_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_cmsis_pool p;
    cmsis_nn_context ctx;
    arm_cmsis_nn_status s;
    size_t scratch = nk_cmsis_pool_workspace(op, x->tensors);
    nk_cmsis_pool_setup(op, x->tensors, &p);
    ctx.buf = scratch ? x->workspace : NULL;
    ctx.size = (int32_t)scratch;
    if (op->type == NK_OP_AVG_POOL2D_I8)
        s = arm_avgpool_s8(&ctx, &p.p, &p.in, nk_i8_in(op, x, 0), &p.filter, &p.out,
                           nk_i8_out(op, x));
    else
        s = arm_max_pool_s8(&ctx, &p.p, &p.in, nk_i8_in(op, x, 0), &p.filter, &p.out,
                            nk_i8_out(op, x));
    return s == ARM_CMSIS_NN_SUCCESS ? NK_OK : NK_ERR_UNSUPPORTED;
}

/* ---- add, mul, softmax ---- */

static int nk_cmsis_always(const nk_op_rt *op, const nk_tensor_rt *t) {
    (void)op;
    (void)t;
    return 1;
}

static nk_status nk_cmsis_add_eval(const nk_op_rt *op, const nk_exec *x) {
    arm_cmsis_nn_status s = arm_elementwise_add_s8(
        nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), -nk_param_i32(op, 0), nk_param_i32(op, 4),
        nk_param_i32(op, 5), -nk_param_i32(op, 1), nk_param_i32(op, 6), nk_param_i32(op, 7),
        nk_param_i32(op, 3), nk_i8_out(op, x), nk_param_i32(op, 2), nk_param_i32(op, 8),
        nk_param_i32(op, 9), nk_param_i32(op, 10), nk_param_i32(op, 11),
        (int32_t)nk_ops_tout(op, x)->elems);
    return s == ARM_CMSIS_NN_SUCCESS ? NK_OK : NK_ERR_UNSUPPORTED;
}

static nk_status nk_cmsis_mul_eval(const nk_op_rt *op, const nk_exec *x) {
    arm_cmsis_nn_status s = arm_elementwise_mul_s8(
        nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), -nk_param_i32(op, 0), -nk_param_i32(op, 1),
        nk_i8_out(op, x), nk_param_i32(op, 2), nk_param_i32(op, 3), nk_param_i32(op, 4),
        nk_param_i32(op, 5), nk_param_i32(op, 6), (int32_t)nk_ops_tout(op, x)->elems);
    return s == ARM_CMSIS_NN_SUCCESS ? NK_OK : NK_ERR_UNSUPPORTED;
}

static nk_status nk_cmsis_softmax_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    const int32_t cols = in->dims[in->rank - 1];
    arm_softmax_s8(nk_i8_in(op, x, 0), (int32_t)(in->elems / (uint32_t)cols), cols,
                   nk_param_i32(op, 0), nk_param_i32(op, 1), nk_param_i32(op, 2),
                   nk_i8_out(op, x));
    return NK_OK;
}

/* ---- the table (csrc/backend.h) ---- */

#define NK_CMSIS_IMPL(var, op, sup, ws, ev) \
    static const nk_op_impl var = {NK_VENDOR_NAME, op, NK_I8, sup, ws, ev, NULL, NULL}

NK_CMSIS_IMPL(nk_cmsis_conv2d, NK_OP_CONV2D_I8, nk_cmsis_conv_supports, nk_cmsis_conv_workspace,
              nk_cmsis_conv_eval);
NK_CMSIS_IMPL(nk_cmsis_depthwise, NK_OP_DEPTHWISE_CONV2D_I8, nk_cmsis_conv_supports,
              nk_cmsis_conv_workspace, nk_cmsis_conv_eval);
NK_CMSIS_IMPL(nk_cmsis_dense, NK_OP_DENSE_I8, nk_cmsis_fc_supports, nk_cmsis_fc_workspace,
              nk_cmsis_fc_eval);
NK_CMSIS_IMPL(nk_cmsis_avg_pool, NK_OP_AVG_POOL2D_I8, nk_cmsis_pool_supports,
              nk_cmsis_pool_workspace, nk_cmsis_pool_eval);
NK_CMSIS_IMPL(nk_cmsis_max_pool, NK_OP_MAX_POOL2D_I8, nk_cmsis_pool_supports,
              nk_cmsis_pool_workspace, nk_cmsis_pool_eval);
NK_CMSIS_IMPL(nk_cmsis_add, NK_OP_ADD_I8, nk_ops_no_broadcast, NULL, nk_cmsis_add_eval);
NK_CMSIS_IMPL(nk_cmsis_mul, NK_OP_MUL_I8, nk_ops_no_broadcast, NULL, nk_cmsis_mul_eval);
NK_CMSIS_IMPL(nk_cmsis_softmax, NK_OP_SOFTMAX_I8, nk_cmsis_always, NULL, nk_cmsis_softmax_eval);

const nk_op_impl *const nk_backend_impls[] = {
    &nk_cmsis_conv2d, &nk_cmsis_depthwise, &nk_cmsis_dense, &nk_cmsis_avg_pool,
    &nk_cmsis_max_pool, &nk_cmsis_add, &nk_cmsis_mul, &nk_cmsis_softmax, NULL,
};

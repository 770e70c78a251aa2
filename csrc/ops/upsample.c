/* upsample.c — RESIZE2D and CONV_TRANSPOSE2D over NHWC float32 tensors
 * (docs/NK_FORMAT.md). Neither can overlap its input: both read input
 * pixels after writing output pixels past them (out_shift NULL). */
#include "ops_common.h"

#define NK_RESIZE_PARAMS 7
#define NK_RESIZE_CUBIC_WORDS 2 /* cubic: + cubic_a (f32), exclude_outside (i32) */
#define NK_RESIZE_CROP_WORDS 5  /* tf_crop_and_resize: + crop box (4 f32), extrapolation (f32) */
#define NK_CONV_T_PARAMS 10

/* ---- resize2d: mode, coord, rounding, out_h, out_w (i32); scale_h, scale_w (f32);
 * cubic only: cubic_a (f32), exclude_outside (i32); tf_crop_and_resize only:
 * crop_h0, crop_h1, crop_w0, crop_w1, extrapolation (f32) ---- */

/* The index of the first crop word: after the cubic words, if any. */
static uint32_t nk_resize_crop_at(const nk_op_rt *op) {
    return NK_RESIZE_PARAMS + (nk_param_i32(op, 0) == NK_RESIZE_CUBIC ? NK_RESIZE_CUBIC_WORDS : 0u);
}

static nk_status nk_resize_fail_param(nk_error_t *err, const char *what, int32_t v,
                                      const char *allowed) {
    nk_msg m;
    nk_msg_begin(&m, "resize2d");
    nk_msg_s(&m, what);
    nk_msg_s(&m, " ");
    nk_msg_i(&m, v);
    nk_msg_s(&m, " is not ");
    nk_msg_s(&m, allowed);
    return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
}

static nk_status nk_resize2d_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    int32_t expected[4], k;
    uint32_t want_params;
    nk_status s = nk_ops_check_io(op, t, "resize2d", 1, 1, NK_OPS_NO_OPTIONAL, -1, err);
    if (s != NK_OK)
        return s;
    want_params = NK_RESIZE_PARAMS;
    if (op->n_params >= 2) {
        want_params = nk_resize_crop_at(op);
        if (nk_param_i32(op, 1) == NK_RESIZE_TF_CROP_AND_RESIZE)
            want_params += NK_RESIZE_CROP_WORDS;
    }
    if (op->n_params != want_params) {
        nk_msg m;
        nk_msg_begin(&m, "resize2d");
        nk_msg_s(&m, "has ");
        nk_msg_i(&m, (int32_t)op->n_params);
        nk_msg_s(&m, " parameter words, expected 7 (+2 for cubic, +5 for tf_crop_and_resize)");
        return nk_msg_fail(&m, err, NK_ERR_FORMAT);
    }
    x = nk_ops_in(op, t, 0);
    out = &t[op->out[0]];
    if ((s = nk_ops_check_rank("resize2d", "input", x, 4, err)) != NK_OK)
        return s;
    if ((uint32_t)nk_param_i32(op, 0) > NK_RESIZE_CUBIC)
        return nk_resize_fail_param(err, "mode", nk_param_i32(op, 0),
                                    "0 (nearest), 1 (bilinear) or 2 (cubic)");
    if (nk_param_i32(op, 0) == NK_RESIZE_CUBIC) {
        if (!nk_ops_finite(nk_param_f32(op, 7)))
            return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "resize2d", "cubic_a is not finite");
        if ((uint32_t)nk_param_i32(op, 8) > 1)
            return nk_resize_fail_param(err, "exclude_outside", nk_param_i32(op, 8), "0 or 1");
    }
    if ((uint32_t)nk_param_i32(op, 1) > NK_RESIZE_TF_CROP_AND_RESIZE)
        return nk_resize_fail_param(err, "coordinate transform", nk_param_i32(op, 1), "0..5");
    if (nk_param_i32(op, 1) == NK_RESIZE_TF_CROP_AND_RESIZE) {
        for (k = 0; k < (int32_t)NK_RESIZE_CROP_WORDS; k++)
            if (!nk_ops_finite(nk_param_f32(op, nk_resize_crop_at(op) + (uint32_t)k)))
                return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "resize2d",
                                   "crop box and extrapolation value must be finite");
    }
    if ((uint32_t)nk_param_i32(op, 2) > NK_RESIZE_CEIL)
        return nk_resize_fail_param(err, "nearest rounding", nk_param_i32(op, 2), "0..3");
    for (k = 0; k < 2; k++) {
        const int32_t o = nk_param_i32(op, 3u + (uint32_t)k);
        const float sc = nk_param_f32(op, 5u + (uint32_t)k);
        if (o < 1 || o > (1 << 24))
            return nk_resize_fail_param(err, k ? "out_w" : "out_h", o, "in 1..2^24");
        if (!nk_ops_finite(sc) || !(sc > 0.0f)) {
            nk_msg m;
            nk_msg_begin(&m, "resize2d");
            nk_msg_s(&m, k ? "scale_w " : "scale_h ");
            nk_msg_f(&m, sc);
            nk_msg_s(&m, " is not a positive finite number");
            return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
        }
    }
    expected[0] = x->dims[0];
    expected[1] = nk_param_i32(op, 3);
    expected[2] = nk_param_i32(op, 4);
    expected[3] = x->dims[3];
    if (!nk_ops_dims_equal(out, expected, 4))
        return nk_ops_fail_out_dims(err, "resize2d", out, x, " with out_h, out_w", expected, 4);
    return NK_OK;
}

/* On i8 (TFLite's int8 RESIZE_NEAREST_NEIGHBOR) nearest only: it copies
 * bytes, so input and output share their quantization. */
static nk_status nk_resize2d_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                         nk_error_t *err) {
    nk_status s;
    if (op->n_in != 1 || op->n_out != 1 || op->in[0] == NK_NONE || op->out[0] == NK_NONE ||
        t[op->in[0]].dtype != NK_I8 || t[op->out[0]].dtype != NK_I8)
        return nk_ops_fail(err, NK_ERR_DTYPE, "resize2d", "on i8 takes one i8 input and output");
    if (op->n_params >= 1 && nk_param_i32(op, 0) != NK_RESIZE_NEAREST)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "resize2d", "on i8 is nearest only");
    if (op->n_params >= 2 && nk_param_i32(op, 1) == NK_RESIZE_TF_CROP_AND_RESIZE)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "resize2d",
                           "on i8 has no tf_crop_and_resize (a float extrapolation value)");
    /* the float checks for the rest: relabel the dtypes */
    {
        nk_tensor_rt tt[2];
        nk_op_rt o = *op;
        const uint32_t ids[2] = {0, 1};
        tt[0] = t[op->in[0]];
        tt[1] = t[op->out[0]];
        tt[0].dtype = tt[1].dtype = NK_F32;
        o.in = &ids[0];
        o.out = &ids[1];
        s = nk_resize2d_validate(&o, tt, err);
    }
    return s;
}

nk_status nk_resize2d_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0), *out = nk_ops_tout(op, x);
    nk_ref_resize_geom g;
    g.batch = in->dims[0];
    g.in_h = in->dims[1];
    g.in_w = in->dims[2];
    g.channels = in->dims[3];
    g.out_h = out->dims[1];
    g.out_w = out->dims[2];
    g.mode = nk_param_i32(op, 0);
    g.coord = nk_param_i32(op, 1);
    g.rounding = nk_param_i32(op, 2);
    g.scale_h = nk_param_f32(op, 5);
    g.scale_w = nk_param_f32(op, 6);
    g.cubic_a = g.mode == NK_RESIZE_CUBIC ? nk_param_f32(op, 7) : 0.0f;
    g.exclude_outside = g.mode == NK_RESIZE_CUBIC ? nk_param_i32(op, 8) : 0;
    g.crop_h[0] = g.crop_h[1] = g.crop_w[0] = g.crop_w[1] = g.extrapolation = 0.0f;
    if (g.coord == NK_RESIZE_TF_CROP_AND_RESIZE) {
        const uint32_t at = nk_resize_crop_at(op);
        g.crop_h[0] = nk_param_f32(op, at);
        g.crop_h[1] = nk_param_f32(op, at + 1u);
        g.crop_w[0] = nk_param_f32(op, at + 2u);
        g.crop_w[1] = nk_param_f32(op, at + 3u);
        g.extrapolation = nk_param_f32(op, at + 4u);
    }
    if (out->dtype == NK_I8)
        nk_ref_resize2d_nearest(x->data[op->in[0]], x->data[op->out[0]], &g, 1);
    else
        nk_ref_resize2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x), &g);
    return NK_OK;
}

/* ---- conv_transpose2d: stride_h, stride_w, dilation_h, dilation_w, pad_top,
 * pad_left, pad_bottom, pad_right (i32); act_min, act_max (f32) ---- */

static void nk_conv_t_geom(const nk_op_rt *op, const nk_tensor_rt *t, nk_ref_conv_geom *g) {
    const nk_tensor_rt *x = &t[op->in[0]], *w = &t[op->in[1]], *out = &t[op->out[0]];
    g->batch = x->dims[0];
    g->in_h = x->dims[1];
    g->in_w = x->dims[2];
    g->in_c = x->dims[3];
    g->out_h = out->dims[1];
    g->out_w = out->dims[2];
    g->out_c = out->dims[3];
    g->k_h = w->dims[1];
    g->k_w = w->dims[2];
    g->stride_h = nk_param_i32(op, 0);
    g->stride_w = nk_param_i32(op, 1);
    g->dil_h = nk_param_i32(op, 2);
    g->dil_w = nk_param_i32(op, 3);
    g->pad_top = nk_param_i32(op, 4);
    g->pad_left = nk_param_i32(op, 5);
    g->groups = 1;
    g->multiplier = 1;
    g->count_include_pad = 0;
    g->act_min = nk_param_f32(op, 8);
    g->act_max = nk_param_f32(op, 9);
}

static nk_status nk_conv_t_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *x, *w, *out;
    int32_t expected[4], k;
    nk_status s = nk_ops_check_io(op, t, "conv_transpose2d", 2, 3, 2, NK_CONV_T_PARAMS, err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    w = nk_ops_in(op, t, 1);
    out = &t[op->out[0]];
    if ((s = nk_ops_check_rank("conv_transpose2d", "input", x, 4, err)) != NK_OK ||
        (s = nk_ops_check_rank("conv_transpose2d", "weights", w, 4, err)) != NK_OK)
        return s;
    if (w->dims[3] != x->dims[3]) {
        nk_msg m;
        nk_ops_msg_weights_misfit(&m, "conv_transpose2d", w, x, "groups", 1);
        nk_msg_s(&m, " (expected [O,KH,KW,");
        nk_msg_i(&m, x->dims[3]);
        nk_msg_s(&m, "])");
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    if ((s = nk_ops_check_bias(nk_ops_in(op, t, 2), "conv_transpose2d", w->dims[0],
                               "output channels", err)) != NK_OK)
        return s;
    expected[0] = x->dims[0];
    expected[3] = w->dims[0];
    for (k = 0; k < 2; k++) {
        const int32_t stride = nk_param_i32(op, (uint32_t)k), dil = nk_param_i32(op, 2u + (uint32_t)k);
        const int32_t before = nk_param_i32(op, 4u + (uint32_t)k);
        const int32_t after = nk_param_i32(op, 6u + (uint32_t)k);
        int64_t full, o;
        /* after < 0 extends the output (ONNX output_padding) */
        if (stride < 1 || stride > (1 << 24) || dil < 1 || dil > (1 << 24) || before < 0 ||
            before > (1 << 24) || after < -(1 << 24) || after > (1 << 24))
            return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "conv_transpose2d",
                               "stride and dilation must be 1..2^24, pad_top/left 0..2^24, "
                               "pad_bottom/right -2^24..2^24");
        full = (int64_t)(x->dims[1 + k] - 1) * stride + (int64_t)(w->dims[1 + k] - 1) * dil + 1;
        o = full - before - after;
        if (o < 1 || o > (1 << 24)) {
            nk_msg m;
            nk_msg_begin(&m, "conv_transpose2d");
            nk_msg_s(&m, "pads ");
            nk_msg_i(&m, before);
            nk_msg_s(&m, ",");
            nk_msg_i(&m, after);
            nk_msg_s(&m, " leave no output of the ");
            nk_msg_i(&m, full);
            nk_msg_s(&m, k ? " columns" : " rows");
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
        expected[1 + k] = (int32_t)o;
    }
    if (!nk_ops_dims_equal(out, expected, 4))
        return nk_ops_fail_out_dims(err, "conv_transpose2d", out, x, " with the given window",
                                    expected, 4);
    return nk_ops_check_act(op, 8, "conv_transpose2d", err);
}

/* Each input pixel meets each weight tap once. */
#if NK_OPS_MACS
static uint64_t nk_conv_t_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *w = &t[op->in[1]];
    return (uint64_t)t[op->in[0]].elems * (uint64_t)w->dims[0] * (uint64_t)w->dims[1] *
           (uint64_t)w->dims[2];
}
#endif

nk_status nk_conv_transpose2d_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_conv_geom g;
    nk_conv_t_geom(op, x->tensors, &g);
    nk_ref_conv_transpose2d_f32(nk_ops_in_f32(op, x, 0), nk_ops_in_f32(op, x, 1),
                                nk_ops_in_f32(op, x, 2), nk_ops_out_f32(op, x), &g);
    return NK_OK;
}

const nk_op_def nk_op_resize2d_f32 = {
    NK_OP_NAME("resize2d"), NK_OP_RESIZE2D, NK_F32, 0, 1, 1, 1, NK_RESIZE_PARAMS,
    nk_resize2d_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_resize2d_eval,
    NULL,
};

const nk_op_def nk_op_resize2d_i8 = {
    NK_OP_NAME("resize2d"), NK_OP_RESIZE2D, NK_I8, 0, 1, 1, 1, NK_RESIZE_PARAMS,
    nk_resize2d_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_resize2d_eval,
    NULL,
};

const nk_op_def nk_op_conv_transpose2d_f32 = {
    NK_OP_NAME("conv_transpose2d"), NK_OP_CONV_TRANSPOSE2D, NK_F32, 0, 2, 3, 1, NK_CONV_T_PARAMS,
    nk_conv_t_validate, nk_ops_no_workspace, NK_OP_MACS(nk_conv_t_macs), nk_conv_transpose2d_eval,
    NULL,
};

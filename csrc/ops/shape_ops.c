/* shape_ops.c — CONCAT, RESHAPE, PAD, TRANSPOSE and SLICE: data movement. The
 * evals move elements of the output's dtype size, and the validators check
 * every tensor against input 0's dtype, so the i8 entries of all five
 * (at the end) share both. PAD's value word is an i32 in -128..127 for i8. */
#include "ops_i8.h" /* the i8 entries at the end */

/* The dtype an op's tensors must all have: input 0's when it is i8 (the
 * i8 entry was chosen by it), else f32. */
static uint8_t nk_shape_dtype(const nk_op_rt *op, const nk_tensor_rt *t) {
    return op->n_in > 0 && op->in[0] != NK_NONE && t[op->in[0]].dtype == NK_I8 ? NK_I8 : NK_F32;
}

/* ---- concat: axis (non-negative) ---- */
static nk_status nk_concat_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                    nk_error_t *err) {
    const nk_tensor_rt *out, *x0;
    int32_t axis, d;
    int64_t sum = 0;
    uint32_t i;
    nk_status s = nk_ops_check_io_as(op, t, "concat", 1, NK_OP_MAX_IN, NK_OPS_NO_OPTIONAL, 1,
                                    nk_shape_dtype(op, t), err);
    if (s != NK_OK)
        return s;
    out = &t[op->out[0]];
    x0 = &t[op->in[0]];
    axis = nk_param_i32(op, 0);
    if (axis < 0 || axis >= (int32_t)x0->rank) {
        nk_msg m;
        nk_msg_begin(&m, "concat");
        nk_msg_s(&m, "axis ");
        nk_msg_i(&m, axis);
        nk_msg_s(&m, " is outside rank ");
        nk_msg_i(&m, x0->rank);
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    for (i = 0; i < op->n_in; i++) {
        const nk_tensor_rt *xi = &t[op->in[i]];
        int ok = xi->rank == x0->rank && out->rank == x0->rank;
        for (d = 0; ok && d < (int32_t)x0->rank; d++)
            if (d != axis && (xi->dims[d] != x0->dims[d] || out->dims[d] != x0->dims[d]))
                ok = 0;
        if (!ok) {
            nk_msg m;
            nk_msg_begin(&m, "concat");
            nk_msg_s(&m, "input ");
            nk_msg_i(&m, i);
            nk_msg_s(&m, " ");
            nk_msg_dims(&m, xi->dims, xi->rank);
            nk_msg_s(&m, " does not match ");
            nk_msg_dims(&m, x0->dims, x0->rank);
            nk_msg_s(&m, " / output ");
            nk_msg_dims(&m, out->dims, out->rank);
            nk_msg_s(&m, " outside axis ");
            nk_msg_i(&m, axis);
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
        sum += xi->dims[axis];
    }
    if (sum != out->dims[axis]) {
        nk_msg m;
        nk_msg_begin(&m, "concat");
        nk_msg_s(&m, "output dims ");
        nk_msg_dims(&m, out->dims, out->rank);
        nk_msg_s(&m, " have ");
        nk_msg_i(&m, out->dims[axis]);
        nk_msg_s(&m, " on axis ");
        nk_msg_i(&m, axis);
        nk_msg_s(&m, ", inputs sum to ");
        nk_msg_i(&m, sum);
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    return NK_OK;
}

nk_status nk_ops_concat_eval(const nk_op_rt *op, const nk_exec *x) {
    const void *xs[NK_OP_MAX_IN];
    int32_t axis_dims[NK_OP_MAX_IN];
    const nk_tensor_rt *out = nk_ops_tout(op, x);
    const int32_t axis = nk_param_i32(op, 0);
    size_t outer = 1, inner = 1;
    int32_t d;
    uint32_t i;
    for (d = 0; d < axis; d++)
        outer *= (size_t)out->dims[d];
    for (d = axis + 1; d < (int32_t)out->rank; d++)
        inner *= (size_t)out->dims[d];
    for (i = 0; i < op->n_in; i++) {
        xs[i] = x->data[op->in[i]];
        axis_dims[i] = nk_ops_tin(op, x, i)->dims[axis];
    }
    nk_ref_concat(xs, axis_dims, (int32_t)op->n_in, x->data[op->out[0]], outer, inner,
                  nk_ops_elem_size(out));
    return NK_OK;
}

/* ---- reshape (also flatten): output dims come from the output tensor ---- */
static nk_status nk_reshape_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                     nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    nk_status s = nk_ops_check_io_as(op, t, "reshape", 1, 1, NK_OPS_NO_OPTIONAL, 0,
                                    nk_shape_dtype(op, t), err);
    if (s != NK_OK)
        return s;
    x = &t[op->in[0]];
    out = &t[op->out[0]];
    if (x->elems != out->elems) {
        nk_msg m;
        nk_msg_begin(&m, "reshape");
        nk_msg_s(&m, "output dims ");
        nk_msg_dims(&m, out->dims, out->rank);
        nk_msg_s(&m, " hold ");
        nk_msg_i(&m, out->elems);
        nk_msg_s(&m, " elements, input ");
        nk_msg_dims(&m, x->dims, x->rank);
        nk_msg_s(&m, " holds ");
        nk_msg_i(&m, x->elems);
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    return NK_OK;
}

/* The planner normally aliases the output to the input (NK_OPF_ALIAS), so
 * this is a no-op; it copies only when they were given separate memory. */
nk_status nk_ops_reshape_eval(const nk_op_rt *op, const nk_exec *x) {
    const void *src = x->data[op->in[0]];
    void *dst = x->data[op->out[0]];
    if (dst != src)
        memmove(dst, src, nk_tensor_bytes(nk_ops_tout(op, x)));
    return NK_OK;
}

/* ---- pad: mode, value, before[rank], after[rank] ---- */
static nk_status nk_pad_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    int32_t expected[NK_MAX_DIMS], d, mode;
    nk_status s = nk_ops_check_io_as(op, t, "pad", 1, 1, NK_OPS_NO_OPTIONAL, -1,
                                    nk_shape_dtype(op, t), err);
    if (s != NK_OK)
        return s;
    x = &t[op->in[0]];
    out = &t[op->out[0]];
    if (op->n_params != 2u + 2u * x->rank) {
        nk_msg m;
        nk_msg_begin(&m, "pad");
        nk_msg_s(&m, "has ");
        nk_msg_i(&m, op->n_params);
        nk_msg_s(&m, " parameter words, expected ");
        nk_msg_i(&m, 2 + 2 * x->rank);
        nk_msg_s(&m, " for rank ");
        nk_msg_i(&m, x->rank);
        return nk_msg_fail(&m, err, NK_ERR_FORMAT);
    }
    mode = nk_param_i32(op, 0);
    if (mode != NK_PAD_CONSTANT && mode != NK_PAD_REFLECT && mode != NK_PAD_EDGE) {
        nk_msg m;
        nk_msg_begin(&m, "pad");
        nk_msg_s(&m, "mode ");
        nk_msg_i(&m, mode);
        nk_msg_s(&m, " is not 0 (constant), 1 (reflect) or 2 (edge)");
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    if (x->dtype == NK_I8) {
        const int32_t v = nk_param_i32(op, 1);
        if (v < -128 || v > 127) {
            nk_msg m;
            nk_msg_begin(&m, "pad");
            nk_msg_s(&m, "i8 pad value ");
            nk_msg_i(&m, v);
            nk_msg_s(&m, " is outside -128..127");
            return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
        }
    } else if (mode == NK_PAD_CONSTANT && nk_param_f32(op, 1) != nk_param_f32(op, 1)) {
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "pad", "constant value is NaN");
    }
    for (d = 0; d < (int32_t)x->rank; d++) {
        const int32_t b = nk_param_i32(op, 2u + (uint32_t)d);
        const int32_t a = nk_param_i32(op, 2u + x->rank + (uint32_t)d);
        const int32_t n = x->dims[d];
        const int64_t o = (int64_t)n + b + a;
        /* reflect mirrors once without repeating the edge: |pad| <= n-1;
         * any mode may crop (negative pads) as long as something is left. */
        const int32_t lim = mode == NK_PAD_REFLECT ? n - 1 : (1 << 24);
        if (b > lim || a > lim || b < -n || a < -n || o < 1) {
            nk_msg m;
            nk_msg_begin(&m, "pad");
            nk_msg_s(&m, "pads ");
            nk_msg_i(&m, b);
            nk_msg_s(&m, ",");
            nk_msg_i(&m, a);
            nk_msg_s(&m, " on dim ");
            nk_msg_i(&m, d);
            nk_msg_s(&m, " of size ");
            nk_msg_i(&m, n);
            nk_msg_s(&m, mode == NK_PAD_REFLECT ? " are out of range for reflect (|pad| <= size-1)"
                                                : " are out of range");
            return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
        }
        expected[d] = (int32_t)o;
    }
    if (!nk_ops_dims_equal(out, expected, x->rank))
        return nk_ops_fail_out_dims(err, "pad", out, x, "with the given pads", expected, x->rank);
    return NK_OK;
}

/* The constant is the f32 value word, or for i8 an i32 in -128..127. */
nk_status nk_ops_pad_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0), *out = nk_ops_tout(op, x);
    const float value_f32 = nk_param_f32(op, 1);
    const int8_t value_i8 = (int8_t)nk_param_i32(op, 1);
    int32_t before[NK_MAX_DIMS], d;
    for (d = 0; d < (int32_t)in->rank; d++)
        before[d] = nk_param_i32(op, 2u + (uint32_t)d);
    nk_ref_pad(x->data[op->in[0]], in->dims, in->rank, before, x->data[op->out[0]], out->dims,
               nk_param_i32(op, 0),
               out->dtype == NK_I8 ? (const void *)&value_i8 : (const void *)&value_f32,
               nk_ops_elem_size(out));
    return NK_OK;
}

/* ---- transpose: perm[rank] ---- */
static nk_status nk_transpose_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                       nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    int32_t expected[NK_MAX_DIMS], d;
    unsigned seen = 0;
    nk_status s = nk_ops_check_io_as(op, t, "transpose", 1, 1, NK_OPS_NO_OPTIONAL, -1,
                                    nk_shape_dtype(op, t), err);
    if (s != NK_OK)
        return s;
    x = &t[op->in[0]];
    out = &t[op->out[0]];
    if (op->n_params != x->rank) {
        nk_msg m;
        nk_msg_begin(&m, "transpose");
        nk_msg_s(&m, "has ");
        nk_msg_i(&m, op->n_params);
        nk_msg_s(&m, " perm entries for rank ");
        nk_msg_i(&m, x->rank);
        return nk_msg_fail(&m, err, NK_ERR_FORMAT);
    }
    for (d = 0; d < (int32_t)x->rank; d++) {
        const int32_t p = nk_param_i32(op, (uint32_t)d);
        if (p < 0 || p >= (int32_t)x->rank || (seen >> p) & 1u) {
            nk_msg m;
            nk_msg_begin(&m, "transpose");
            nk_msg_s(&m, "perm entry ");
            nk_msg_i(&m, d);
            nk_msg_s(&m, " = ");
            nk_msg_i(&m, p);
            nk_msg_s(&m, " is not a permutation of 0..");
            nk_msg_i(&m, (int64_t)x->rank - 1);
            return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
        }
        seen |= 1u << p;
        expected[d] = x->dims[p];
    }
    if (!nk_ops_dims_equal(out, expected, x->rank))
        return nk_ops_fail_out_dims(err, "transpose", out, x, "with the given perm", expected,
                                    x->rank);
    return NK_OK;
}

nk_status nk_ops_transpose_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    int32_t perm[NK_MAX_DIMS], d;
    for (d = 0; d < (int32_t)in->rank; d++)
        perm[d] = nk_param_i32(op, (uint32_t)d);
    nk_ref_transpose(x->data[op->in[0]], in->dims, in->rank, perm, x->data[op->out[0]],
                     nk_ops_elem_size(in));
    return NK_OK;
}

/* ---- slice: begin[rank], step[rank] (step != 0; output dims from the
 * output tensor; every index read is inside the input) ---- */
static nk_status nk_slice_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    int32_t d;
    nk_status s = nk_ops_check_io_as(op, t, "slice", 1, 1, NK_OPS_NO_OPTIONAL, -1,
                                    nk_shape_dtype(op, t), err);
    if (s != NK_OK)
        return s;
    x = &t[op->in[0]];
    out = &t[op->out[0]];
    if (op->n_params != 2u * x->rank || out->rank != x->rank) {
        nk_msg m;
        nk_msg_begin(&m, "slice");
        nk_msg_s(&m, "has ");
        nk_msg_i(&m, op->n_params);
        nk_msg_s(&m, " params and a rank-");
        nk_msg_i(&m, out->rank);
        nk_msg_s(&m, " output for a rank-");
        nk_msg_i(&m, x->rank);
        nk_msg_s(&m, " input (want begin and step per dim, same rank)");
        return nk_msg_fail(&m, err, NK_ERR_FORMAT);
    }
    for (d = 0; d < (int32_t)x->rank; d++) {
        const int64_t begin = nk_param_i32(op, (uint32_t)d);
        const int64_t step = nk_param_i32(op, x->rank + (uint32_t)d);
        const int64_t last = begin + (int64_t)(out->dims[d] - 1) * step;
        if (step == 0 || begin < 0 || begin >= x->dims[d] || last < 0 || last >= x->dims[d]) {
            nk_msg m;
            nk_msg_begin(&m, "slice");
            nk_msg_s(&m, "dim ");
            nk_msg_i(&m, d);
            nk_msg_s(&m, ": begin ");
            nk_msg_i(&m, begin);
            nk_msg_s(&m, " step ");
            nk_msg_i(&m, step);
            nk_msg_s(&m, " for ");
            nk_msg_i(&m, out->dims[d]);
            nk_msg_s(&m, " outputs leaves input ");
            nk_msg_dims(&m, x->dims, x->rank);
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
    }
    return NK_OK;
}

nk_status nk_ops_slice_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    int32_t begin[NK_MAX_DIMS], step[NK_MAX_DIMS], d;
    for (d = 0; d < (int32_t)in->rank; d++) {
        begin[d] = nk_param_i32(op, (uint32_t)d);
        step[d] = nk_param_i32(op, in->rank + (uint32_t)d);
    }
    nk_ref_slice(x->data[op->in[0]], in->dims, in->rank, begin, step, x->data[op->out[0]],
                 nk_ops_tout(op, x)->dims, nk_ops_elem_size(in));
    return NK_OK;
}

const nk_op_def nk_op_concat_f32 = {
    NK_OP_NAME("concat"), NK_OP_CONCAT, NK_F32, 0, 1, NK_OP_MAX_IN, 1, 1,
    nk_concat_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_concat_eval,
    NULL,
};

const nk_op_def nk_op_reshape_f32 = {
    NK_OP_NAME("reshape"), NK_OP_RESHAPE, NK_F32, NK_OPF_ALIAS, 1, 1, 1, 0,
    nk_reshape_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_reshape_eval,
    NULL,
};

const nk_op_def nk_op_pad_f32 = {
    NK_OP_NAME("pad"), NK_OP_PAD, NK_F32, 0, 1, 1, 1, 2,
    nk_pad_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_pad_eval,
    NULL,
};

const nk_op_def nk_op_transpose_f32 = {
    NK_OP_NAME("transpose"), NK_OP_TRANSPOSE, NK_F32, 0, 1, 1, 1, 0,
    nk_transpose_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_transpose_eval,
    NULL,
};

const nk_op_def nk_op_slice_f32 = {
    NK_OP_NAME("slice"), NK_OP_SLICE, NK_F32, 0, 1, 1, 1, 0,
    nk_slice_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_slice_eval,
    NULL,
};

const nk_op_def nk_op_concat_i8 = {
    NK_OP_NAME("concat"), NK_OP_CONCAT, NK_I8, 0, 1, NK_OP_MAX_IN, 1, 1,
    nk_concat_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_concat_eval,
    NULL,
};

const nk_op_def nk_op_reshape_i8 = {
    NK_OP_NAME("reshape"), NK_OP_RESHAPE, NK_I8, NK_OPF_ALIAS, 1, 1, 1, 0,
    nk_reshape_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_reshape_eval,
    NULL,
};

const nk_op_def nk_op_pad_i8 = {
    NK_OP_NAME("pad"), NK_OP_PAD, NK_I8, 0, 1, 1, 1, 2,
    nk_pad_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_pad_eval,
    NULL,
};

const nk_op_def nk_op_slice_i8 = {
    NK_OP_NAME("slice"), NK_OP_SLICE, NK_I8, 0, 1, 1, 1, 0,
    nk_slice_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_slice_eval,
    NULL,
};

const nk_op_def nk_op_transpose_i8 = {
    NK_OP_NAME("transpose"), NK_OP_TRANSPOSE, NK_I8, 0, 1, 1, 1, 0,
    nk_transpose_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_transpose_eval,
    NULL,
};

/* quantize_i8.c — QUANTIZE (f32 -> i8 from the output's QUANT record, or
 * i8 -> i8 with M, shift, in_zp, out_zp) and DEQUANTIZE (i8 -> f32 from
 * the input's QUANT record). */
#include "ops_i8.h"

static const uint8_t nk_i8_dtype_f32[1] = {NK_F32};
static const uint8_t nk_i8_dtype_i8_only[1] = {NK_I8};

static nk_status nk_quantize_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    const int from_f32 = t[op->in[0]].dtype == NK_F32;
    nk_status s = nk_i8_check_io(op, t, "quantize", 1, 1, NK_OPS_NO_OPTIONAL, from_f32 ? 0 : 4,
                                 from_f32 ? nk_i8_dtype_f32 : nk_i8_dtype_i8_only, 1, NK_I8,
                                 err);
    if (s != NK_OK)
        return s;
    if (from_f32) {
        if (t[op->out[0]].quant == NK_NONE)
            return nk_ops_fail(err, NK_ERR_FORMAT, "quantize",
                               "output has no quantization record");
    } else if ((s = nk_i8_check_mult("quantize", "requantize", nk_param_i32(op, 0),
                                     nk_param_i32(op, 1), err)) != NK_OK ||
               (s = nk_i8_check_zp("quantize", "input zero point", nk_param_i32(op, 2), err)) !=
                   NK_OK ||
               (s = nk_i8_check_zp("quantize", "output zero point", nk_param_i32(op, 3), err)) !=
                   NK_OK) {
        return s;
    }
    return nk_ops_check_same_shape(op, t, "quantize", err);
}

static nk_status nk_dequantize_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                        nk_error_t *err) {
    nk_status s = nk_i8_check_io(op, t, "dequantize", 1, 1, NK_OPS_NO_OPTIONAL, 0,
                                 nk_i8_dtype_i8_only, 1, NK_F32, err);
    if (s != NK_OK)
        return s;
    if (t[op->in[0]].quant == NK_NONE)
        return nk_ops_fail(err, NK_ERR_FORMAT, "dequantize", "input has no quantization record");
    return nk_ops_check_same_shape(op, t, "dequantize", err);
}

/* The QUANT record of tensor `tt` and the element stride of its axis. */
static void nk_i8_quant_of(const nk_exec *x, const nk_tensor_rt *tt, nk_quant_rt *q,
                           size_t *inner) {
    int32_t d;
    nk_format_quant(x->img, tt->quant, q);
    *inner = 1;
    if (q->axis >= 0)
        for (d = q->axis + 1; d < (int32_t)tt->rank; d++)
            *inner *= (size_t)tt->dims[d];
}

nk_status nk_quantize_f32_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *out = nk_ops_tout(op, x);
    nk_quant_rt q;
    size_t inner;
    nk_i8_quant_of(x, out, &q, &inner);
    nk_ref_quantize_f32_i8(nk_ops_in_f32(op, x, 0), nk_i8_out(op, x), out->elems, q.scale,
                           q.zero_point, q.count, inner);
    return NK_OK;
}

nk_status nk_quantize_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_requantize_i8(nk_i8_in(op, x, 0), nk_i8_out(op, x), nk_ops_tout(op, x)->elems,
                         nk_param_i32(op, 0), nk_param_i32(op, 1), nk_param_i32(op, 2),
                         nk_param_i32(op, 3));
    return NK_OK;
}

nk_status nk_dequantize_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    nk_quant_rt q;
    size_t inner;
    nk_i8_quant_of(x, in, &q, &inner);
    nk_ref_dequantize_i8_f32(nk_i8_in(op, x, 0), nk_ops_out_f32(op, x), in->elems, q.scale,
                             q.zero_point, q.count, inner);
    return NK_OK;
}

const nk_op_def nk_op_quantize_f32 = {
    "quantize", NK_OP_QUANTIZE, NK_F32, 0, 1, 1, 1, 0,
    nk_quantize_validate, nk_ops_no_workspace, nk_ops_out_elems, nk_quantize_f32_eval,
    NULL,
};

const nk_op_def nk_op_quantize_i8 = {
    "quantize", NK_OP_QUANTIZE, NK_I8, NK_OPF_ELEMENTWISE, 1, 1, 1, 4,
    nk_quantize_validate, nk_ops_no_workspace, nk_ops_out_elems, nk_quantize_i8_eval,
    NULL,
};

const nk_op_def nk_op_dequantize_i8 = {
    "dequantize", NK_OP_DEQUANTIZE, NK_I8, 0, 1, 1, 1, 0,
    nk_dequantize_validate, nk_ops_no_workspace, nk_ops_out_elems, nk_dequantize_eval,
    NULL,
};

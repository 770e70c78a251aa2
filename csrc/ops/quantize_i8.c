/* quantize_i8.c — QUANTIZE (f32 -> i8 from the output's QUANT record, or
 * i8 or i16 -> i8, i16 or i32 with M, shift, in_zp, out_zp) and DEQUANTIZE (i8 -> f32 from
 * the input's QUANT record). */
#include "ops_i8.h"

static const uint8_t nk_i8_dtype_i8_only[1] = {NK_I8};

/* The zero point range of an integer dtype (int32: any). */
static nk_status nk_quantize_check_zp(const char *what, int32_t zp, uint8_t dtype,
                                      nk_error_t *err) {
    if (dtype == NK_I8)
        return nk_i8_check_zp("quantize", what, zp, err);
    if (dtype == NK_I16 && (zp < -32768 || zp > 32767))
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "quantize", "an int16 zero point is outside int16");
    return NK_OK;
}

/* f32 -> i8 from the output's QUANT record; i8 or i16 -> i8, i16 or i32
 * with M, shift, in_zp, out_zp (TFLite's Requantize). */
static nk_status nk_quantize_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    const uint8_t in_dt = t[op->in[0]].dtype;
    const int from_f32 = in_dt == NK_F32;
    const uint8_t out_dt = from_f32 || op->n_out != 1 ? NK_I8 : t[op->out[0]].dtype;
    nk_status s;
    if (!from_f32 && out_dt != NK_I8 && out_dt != NK_I16 && out_dt != NK_I32)
        return nk_ops_fail_dtype(err, "quantize", "output", -1, out_dt, NK_I8);
    s = nk_i8_check_io(op, t, "quantize", 1, 1, NK_OPS_NO_OPTIONAL, from_f32 ? 0 : 4, &in_dt, 1,
                       out_dt, err);
    if (s != NK_OK)
        return s;
    if (from_f32) {
        if (t[op->out[0]].quant == NK_NONE)
            return nk_ops_fail(err, NK_ERR_FORMAT, "quantize",
                               "output has no quantization record");
    } else if ((s = nk_i8_check_mult("quantize", "requantize", nk_param_i32(op, 0),
                                     nk_param_i32(op, 1), err)) != NK_OK ||
               (s = nk_quantize_check_zp("input zero point", nk_param_i32(op, 2), in_dt, err)) !=
                   NK_OK ||
               (s = nk_quantize_check_zp("output zero point", nk_param_i32(op, 3), out_dt,
                                         err)) != NK_OK) {
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
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0), *out = nk_ops_tout(op, x);
    if (in->dtype == NK_I8 && out->dtype == NK_I8)
        nk_ref_requantize_i8(nk_i8_in(op, x, 0), nk_i8_out(op, x), out->elems, nk_param_i32(op, 0),
                             nk_param_i32(op, 1), nk_param_i32(op, 2), nk_param_i32(op, 3));
    else
        nk_ref_requantize_int(x->data[op->in[0]], in->dtype == NK_I8 ? 1u : 2u, x->data[op->out[0]],
                              out->dtype == NK_I8 ? 1u : out->dtype == NK_I16 ? 2u : 4u, out->elems,
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
    NK_OP_NAME("quantize"), NK_OP_QUANTIZE, NK_F32, 0, 1, 1, 1, 0,
    nk_quantize_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_quantize_f32_eval,
    NULL,
};

const nk_op_def nk_op_quantize_i8 = {
    NK_OP_NAME("quantize"), NK_OP_QUANTIZE, NK_I8, NK_OPF_ELEMENTWISE, 1, 1, 1, 4,
    nk_quantize_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_quantize_i8_eval,
    NULL,
};

/* int16 input: its output is never the input's size (i8, i32) or may
 * alias it (i16), so no in-place flag is needed */
const nk_op_def nk_op_quantize_i16 = {
    NK_OP_NAME("quantize"), NK_OP_QUANTIZE, NK_I16, 0, 1, 1, 1, 4,
    nk_quantize_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_quantize_i8_eval,
    NULL,
};

const nk_op_def nk_op_dequantize_i8 = {
    NK_OP_NAME("dequantize"), NK_OP_DEQUANTIZE, NK_I8, 0, 1, 1, 1, 0,
    nk_dequantize_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_dequantize_eval,
    NULL,
};

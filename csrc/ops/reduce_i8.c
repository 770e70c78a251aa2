/* reduce_i8.c — REDUCE_MEAN_I8: TFLite Micro's int8 MEAN over any set of
 * axes. params: axes mask (bit d reduces dim d), in_zp, out_zp, M, shift
 * (s_in / s_out with 1/count folded in by the converter: internal/quant
 * Mean). The output keeps the rank, as REDUCE_MEAN's. Not in place: each
 * output reads inputs spread over the whole tensor. */
#include "ops_i8.h"

static nk_status nk_reduce_mean_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                            nk_error_t *err) {
    static const uint8_t dts[] = {NK_I8};
    const int32_t m = nk_param_i32(op, 3), shift = nk_param_i32(op, 4);
    nk_status s = nk_i8_check_io(op, t, "reduce_mean_i8", 1, 1, NK_OPS_NO_OPTIONAL, 5, dts, 1,
                                 NK_I8, err);
    if (s != NK_OK || (s = nk_reduce_check_shape(op, t, "reduce_mean_i8", err)) != NK_OK ||
        (s = nk_i8_check_zp("reduce_mean_i8", "input zero point", nk_param_i32(op, 1), err)) !=
            NK_OK ||
        (s = nk_i8_check_zp("reduce_mean_i8", "output zero point", nk_param_i32(op, 2), err)) !=
            NK_OK)
        return s;
    /* the folded multiplier need not be normalized */
    if (m < 0 || shift < -31 || shift > 30)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, "reduce_mean_i8",
                           "multiplier must be >= 0 and shift in -31..30");
    return NK_OK;
}

nk_status nk_reduce_mean_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    nk_ref_reduce_mean_i8(nk_i8_in(op, x, 0), in->dims, in->rank, op->params[0],
                          nk_param_i32(op, 1), nk_param_i32(op, 2), nk_param_i32(op, 3),
                          nk_param_i32(op, 4), nk_i8_out(op, x));
    return NK_OK;
}

const nk_op_def nk_op_reduce_mean_i8 = {
    NK_OP_NAME("reduce_mean_i8"), NK_OP_REDUCE_MEAN_I8, NK_I8, 0, 1, 1, 1, 5,
    nk_reduce_mean_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_in_elems), nk_reduce_mean_i8_eval,
    NULL,
};

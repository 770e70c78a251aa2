/* lut_i8.c — LUT_I8: y = table[x + 128], a 256-entry int8 table computed by
 * the converter from the input and output quantization (TFLite's int8 GELU,
 * and any other fixed int8 -> int8 function). */
#include "ops_i8.h"

static const uint8_t nk_lut_dtypes[1] = {NK_I8};

static nk_status nk_lut_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *table;
    nk_status s = nk_i8_check_io(op, t, "lut_i8", 2, 2, NK_OPS_NO_OPTIONAL, 0, nk_lut_dtypes, 1,
                                 NK_I8, err);
    if (s != NK_OK)
        return s;
    table = &t[op->in[1]];
    if (table->elems != 256 || !table->is_const)
        return nk_ops_fail(err, NK_ERR_SHAPE, "lut_i8", "table (input 1) must be a constant of 256 values");
    return nk_ops_check_same_shape(op, t, "lut_i8", err);
}

nk_status nk_lut_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_lut_i8(nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), nk_i8_out(op, x), nk_ops_tout(op, x)->elems);
    return NK_OK;
}

const nk_op_def nk_op_lut_i8 = {
    NK_OP_NAME("lut_i8"), NK_OP_LUT_I8, NK_I8, NK_OPF_ELEMENTWISE, 2, 2, 1, 0,
    nk_lut_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_lut_i8_eval,
    NULL,
};

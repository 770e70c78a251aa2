/* elementwise_typed.c — ADD, MUL, SUB, DIV, MAXIMUM and MINIMUM on the
 * dtypes other than f32: the graph I/O of ONNX models with integer, float16
 * or double tensors. One table entry per op type serves them all
 * (NK_OP_ANY_DTYPE); the kernel is nk_ref_binary_typed. In place as the
 * float ops (elementwise.c): y[i] reads a[i] before writing it. */
#include "ops_common.h"

/* Integers on every op, float16 and double on MAXIMUM and MINIMUM only; one
 * dtype for both inputs and the output, no clamp (the two clamp words are
 * -inf, +inf). No quantization on the arithmetic (quantized int8 arithmetic
 * is ADD_I8 / MUL_I8); MAXIMUM and MINIMUM of quantized i8 compare the raw
 * values, as TFLite Micro's int8 kernels do (the converter gives all three
 * tensors one quantization). nk_ref_binary_typed says what the integer ops
 * do. */
static nk_status nk_typed_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const char *name = nk_ops_def_name(op);
    const uint8_t dt = t[op->in[0]].dtype;
    uint32_t k;
    nk_status s = nk_ops_check_io_as(op, t, name, 2, 2, NK_OPS_NO_OPTIONAL, 2, dt, err);
    if (s != NK_OK || (s = nk_ops_check_broadcast(op, t, name, err)) != NK_OK)
        return s;
    if ((dt == NK_F16 || dt == NK_F64) && op->type != NK_OP_MAXIMUM && op->type != NK_OP_MINIMUM)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                           "float16 and double tensors run maximum and minimum only");
    /* the words of -inf and +inf */
    if ((uint32_t)nk_param_i32(op, 0) != 0xFF800000u || (uint32_t)nk_param_i32(op, 1) != 0x7F800000u)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                           "an op on integer, float16 or double tensors takes no clamp");
    for (k = 0; k < 3 && op->type != NK_OP_MAXIMUM && op->type != NK_OP_MINIMUM; k++)
        if (t[k < 2 ? op->in[k] : op->out[0]].quant != NK_NONE)
            return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                               "a quantized tensor runs the int8 ops (add_i8, mul_i8)");
    return NK_OK;
}

nk_status nk_typed_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *a = nk_ops_tin(op, x, 0), *b = nk_ops_tin(op, x, 1);
    const nk_tensor_rt *y = nk_ops_tout(op, x);
    const uint8_t dt = a->dtype;
    const nk_ref_num num = dt == NK_F16 || dt == NK_F64                              ? NK_NUM_FLOAT
                           : dt == NK_I8 || dt == NK_I16 || dt == NK_I32 || dt == NK_I64 ? NK_NUM_SIGNED
                                                                                     : NK_NUM_UNSIGNED;
    nk_ref_binary_typed(nk_ops_binop_of(op->type), num, nk_dtype_bytes(dt), x->data[op->in[0]], a->dims,
                        a->rank, x->data[op->in[1]], b->dims, b->rank, x->data[op->out[0]], y->dims,
                        y->rank);
    return NK_OK;
}

const nk_op_def nk_op_add_typed = {
    NK_OP_NAME("add"), NK_OP_ADD, NK_OP_ANY_DTYPE, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_typed_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_typed_eval,
    NULL,
};

const nk_op_def nk_op_mul_typed = {
    NK_OP_NAME("mul"), NK_OP_MUL, NK_OP_ANY_DTYPE, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_typed_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_typed_eval,
    NULL,
};

const nk_op_def nk_op_sub_typed = {
    NK_OP_NAME("sub"), NK_OP_SUB, NK_OP_ANY_DTYPE, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_typed_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_typed_eval,
    NULL,
};

const nk_op_def nk_op_div_typed = {
    NK_OP_NAME("div"), NK_OP_DIV, NK_OP_ANY_DTYPE, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_typed_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_typed_eval,
    NULL,
};

const nk_op_def nk_op_maximum_typed = {
    NK_OP_NAME("maximum"), NK_OP_MAXIMUM, NK_OP_ANY_DTYPE, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_typed_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_typed_eval,
    NULL,
};

const nk_op_def nk_op_minimum_typed = {
    NK_OP_NAME("minimum"), NK_OP_MINIMUM, NK_OP_ANY_DTYPE, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_typed_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_typed_eval,
    NULL,
};

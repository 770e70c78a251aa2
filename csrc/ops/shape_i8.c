/* shape_i8.c — CONCAT, RESHAPE, PAD and TRANSPOSE on i8 tensors. Their
 * shape and parameter rules are the float ops' (shape_ops.c): validation
 * checks the dtypes, then runs the f32 entry's validate on a copy of the
 * op's tensor records relabelled f32. PAD's value word is an i32 in
 * -128..127 here. The evals are the float ops' (they move elements of the
 * tensor's dtype size). */
#include "ops_i8.h"

#define NK_I8_MAX_SHAPE_PARAMS (2 + 2 * NK_MAX_DIMS)

static nk_status nk_shape_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    const nk_op_def *f32 = nk_op_lookup(op->type, NK_F32);
    const char *name = f32 != NULL ? f32->name : "shape op";
    nk_tensor_rt lt[NK_OP_MAX_IN + 1];
    uint32_t ids[NK_OP_MAX_IN + 1], params[NK_I8_MAX_SHAPE_PARAMS], i;
    nk_op_rt lop = *op;
    if (f32 == NULL || op->n_in < 1 || op->n_in > NK_OP_MAX_IN || op->n_out != 1)
        return nk_ops_fail(err, NK_ERR_FORMAT, name, "wrong number of inputs or outputs");
    for (i = 0; i <= op->n_in; i++) {
        const uint32_t id = i < op->n_in ? op->in[i] : op->out[0];
        if (id == NK_NONE)
            return nk_ops_fail(err, NK_ERR_FORMAT, name, "a required tensor is absent");
        if (t[id].dtype != NK_I8) {
            nk_msg m;
            nk_msg_begin(&m, name);
            nk_msg_s(&m, i < op->n_in ? "input " : "output ");
            if (i < op->n_in)
                nk_msg_i(&m, i);
            nk_msg_s(&m, i < op->n_in ? " is " : "is ");
            nk_msg_s(&m, nk_dtype_str((nk_dtype)t[id].dtype));
            nk_msg_s(&m, ", expected i8 like input 0");
            return nk_msg_fail(&m, err, NK_ERR_DTYPE);
        }
        lt[i] = t[id];
        lt[i].dtype = NK_F32;
        ids[i] = i;
    }
    lop.in = ids;
    lop.out = ids + op->n_in;
    if (op->type == NK_OP_PAD && op->n_params >= 2 && op->n_params <= NK_I8_MAX_SHAPE_PARAMS) {
        const int32_t v = nk_param_i32(op, 1);
        if (v < -128 || v > 127) {
            nk_msg m;
            nk_msg_begin(&m, name);
            nk_msg_s(&m, "i8 pad value ");
            nk_msg_i(&m, v);
            nk_msg_s(&m, " is outside -128..127");
            return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
        }
        memcpy(params, op->params, (size_t)op->n_params * 4u);
        params[1] = 0; /* the f32 rule only refuses a NaN value */
        lop.params = params;
    }
    return f32->validate(&lop, lt, err);
}

const nk_op_def nk_op_concat_i8 = {
    "concat", NK_OP_CONCAT, NK_I8, 0, 1, NK_OP_MAX_IN, 1, 1,
    nk_shape_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_concat_eval,
    NULL,
};

const nk_op_def nk_op_reshape_i8 = {
    "reshape", NK_OP_RESHAPE, NK_I8, NK_OPF_ALIAS, 1, 1, 1, 0,
    nk_shape_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_reshape_eval,
    NULL,
};

const nk_op_def nk_op_pad_i8 = {
    "pad", NK_OP_PAD, NK_I8, 0, 1, 1, 1, 2,
    nk_shape_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_pad_eval,
    NULL,
};

const nk_op_def nk_op_transpose_i8 = {
    "transpose", NK_OP_TRANSPOSE, NK_I8, 0, 1, 1, 1, 0,
    nk_shape_i8_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_no_macs), nk_ops_transpose_eval,
    NULL,
};

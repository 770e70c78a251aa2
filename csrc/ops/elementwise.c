/* elementwise.c — the float32 binary ops ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM
 * and POW with numpy broadcasting (rank <= 6), e.g. a per-channel [C] operand against
 * [N,H,W,C] (params: act_min, act_max), and the unary math ops EXP, SQRT,
 * NEG, ABS and RECIPROCAL (no params; in place like the activations).
 *
 * In place: the planner may alias the output to input 0 only when their byte
 * sizes are equal. Under broadcasting that means the output shape is input
 * 0's shape (up to leading 1s), so every y[i] reads a[i] at the same index
 * before writing it: the ref kernel is safe with y == a. */
#include "ops_common.h"

static nk_status nk_binary_validate(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                    nk_error_t *err) {
    nk_status s = nk_ops_check_io(op, t, name, 2, 2, NK_OPS_NO_OPTIONAL, 2, err);
    if (s != NK_OK || (s = nk_ops_check_broadcast(op, t, name, err)) != NK_OK)
        return s;
    return nk_ops_check_act(op, 0, name, err);
}

static nk_status nk_add_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    return nk_binary_validate(op, t, "add", err);
}

static nk_status nk_mul_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    return nk_binary_validate(op, t, "mul", err);
}

nk_status nk_add_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *a = nk_ops_tin(op, x, 0), *b = nk_ops_tin(op, x, 1);
    const nk_tensor_rt *y = nk_ops_tout(op, x);
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL &&
        NK_EXEC_HOST(x)->add_f32(nk_ops_in_f32(op, x, 0), a->dims, a->rank, nk_ops_in_f32(op, x, 1),
                                b->dims, b->rank, nk_ops_out_f32(op, x), y->dims, y->rank,
                                nk_param_f32(op, 0), nk_param_f32(op, 1)))
        return NK_OK;
#endif
    nk_ref_add_f32(nk_ops_in_f32(op, x, 0), a->dims, a->rank, nk_ops_in_f32(op, x, 1), b->dims,
                   b->rank, nk_ops_out_f32(op, x), y->dims, y->rank, nk_param_f32(op, 0),
                   nk_param_f32(op, 1));
    return NK_OK;
}

nk_status nk_mul_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *a = nk_ops_tin(op, x, 0), *b = nk_ops_tin(op, x, 1);
    const nk_tensor_rt *y = nk_ops_tout(op, x);
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL &&
        NK_EXEC_HOST(x)->mul_f32(nk_ops_in_f32(op, x, 0), a->dims, a->rank, nk_ops_in_f32(op, x, 1),
                                b->dims, b->rank, nk_ops_out_f32(op, x), y->dims, y->rank,
                                nk_param_f32(op, 0), nk_param_f32(op, 1)))
        return NK_OK;
#endif
    nk_ref_mul_f32(nk_ops_in_f32(op, x, 0), a->dims, a->rank, nk_ops_in_f32(op, x, 1), b->dims,
                   b->rank, nk_ops_out_f32(op, x), y->dims, y->rank, nk_param_f32(op, 0),
                   nk_param_f32(op, 1));
    return NK_OK;
}

const char *nk_ops_def_name(const nk_op_rt *op) {
    return op->def != NULL ? op->def->name : "elementwise";
}

/* SUB, DIV, MAXIMUM, MINIMUM, POW: the portable kernel only (no host path). */
static nk_status nk_binop_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    return nk_binary_validate(op, t, nk_ops_def_name(op), err);
}

nk_ref_binop nk_ops_binop_of(uint32_t type) {
    switch (type) {
    case NK_OP_ADD:
        return NK_BINOP_ADD;
    case NK_OP_MUL:
        return NK_BINOP_MUL;
    case NK_OP_SUB:
        return NK_BINOP_SUB;
    case NK_OP_DIV:
        return NK_BINOP_DIV;
    case NK_OP_MAXIMUM:
        return NK_BINOP_MAX;
    case NK_OP_MINIMUM:
        return NK_BINOP_MIN;
    default:
        return NK_BINOP_POW;
    }
}

nk_status nk_binop_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *a = nk_ops_tin(op, x, 0), *b = nk_ops_tin(op, x, 1);
    const nk_tensor_rt *y = nk_ops_tout(op, x);
    nk_ref_binary_f32(nk_ops_binop_of(op->type), nk_ops_in_f32(op, x, 0), a->dims, a->rank,
                      nk_ops_in_f32(op, x, 1), b->dims, b->rank, nk_ops_out_f32(op, x), y->dims,
                      y->rank, nk_param_f32(op, 0), nk_param_f32(op, 1));
    return NK_OK;
}

static nk_status nk_unop_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const char *name = nk_ops_def_name(op);
    nk_status s = nk_ops_check_io(op, t, name, 1, 1, NK_OPS_NO_OPTIONAL, 0, err);
    if (s != NK_OK)
        return s;
    return nk_ops_check_same_shape(op, t, name, err);
}

static nk_ref_unop nk_unop_of(uint32_t type) {
    switch (type) {
    case NK_OP_EXP:
        return NK_UNOP_EXP;
    case NK_OP_SQRT:
        return NK_UNOP_SQRT;
    case NK_OP_NEG:
        return NK_UNOP_NEG;
    case NK_OP_ABS:
        return NK_UNOP_ABS;
    default:
        return NK_UNOP_RECIPROCAL;
    }
}

nk_status nk_unop_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_unary_f32(nk_unop_of(op->type), nk_ops_in_f32(op, x, 0), nk_ops_out_f32(op, x),
                     nk_ops_tin(op, x, 0)->elems);
    return NK_OK;
}

const nk_op_def nk_op_add_f32 = {
    NK_OP_NAME("add"), NK_OP_ADD, NK_F32, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_add_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_add_eval,
    NULL,
};

const nk_op_def nk_op_mul_f32 = {
    NK_OP_NAME("mul"), NK_OP_MUL, NK_F32, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_mul_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_mul_eval,
    NULL,
};

const nk_op_def nk_op_sub_f32 = {
    NK_OP_NAME("sub"), NK_OP_SUB, NK_F32, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_binop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_binop_eval,
    NULL,
};

const nk_op_def nk_op_div_f32 = {
    NK_OP_NAME("div"), NK_OP_DIV, NK_F32, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_binop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_binop_eval,
    NULL,
};

const nk_op_def nk_op_maximum_f32 = {
    NK_OP_NAME("maximum"), NK_OP_MAXIMUM, NK_F32, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_binop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_binop_eval,
    NULL,
};

const nk_op_def nk_op_minimum_f32 = {
    NK_OP_NAME("minimum"), NK_OP_MINIMUM, NK_F32, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_binop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_binop_eval,
    NULL,
};

const nk_op_def nk_op_pow_f32 = {
    NK_OP_NAME("pow"), NK_OP_POW, NK_F32, NK_OPF_ELEMENTWISE, 2, 2, 1, 2,
    nk_binop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_binop_eval,
    NULL,
};

const nk_op_def nk_op_exp_f32 = {
    NK_OP_NAME("exp"), NK_OP_EXP, NK_F32, NK_OPF_ELEMENTWISE, 1, 1, 1, 0,
    nk_unop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_unop_eval,
    NULL,
};

const nk_op_def nk_op_sqrt_f32 = {
    NK_OP_NAME("sqrt"), NK_OP_SQRT, NK_F32, NK_OPF_ELEMENTWISE, 1, 1, 1, 0,
    nk_unop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_unop_eval,
    NULL,
};

const nk_op_def nk_op_neg_f32 = {
    NK_OP_NAME("neg"), NK_OP_NEG, NK_F32, NK_OPF_ELEMENTWISE, 1, 1, 1, 0,
    nk_unop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_unop_eval,
    NULL,
};

const nk_op_def nk_op_abs_f32 = {
    NK_OP_NAME("abs"), NK_OP_ABS, NK_F32, NK_OPF_ELEMENTWISE, 1, 1, 1, 0,
    nk_unop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_unop_eval,
    NULL,
};

const nk_op_def nk_op_reciprocal_f32 = {
    NK_OP_NAME("reciprocal"), NK_OP_RECIPROCAL, NK_F32, NK_OPF_ELEMENTWISE, 1, 1, 1, 0,
    nk_unop_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_out_elems), nk_unop_eval,
    NULL,
};

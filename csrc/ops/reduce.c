/* reduce.c — REDUCE_MEAN, REDUCE_SUM and REDUCE_MAX over any set of axes.
 * params: axes mask (i32; bit d reduces dim d). The output keeps the rank
 * (reduced dims become 1); the importer drops them with a RESHAPE when the
 * source op does not keep them. Not in place: the kernel accumulates into
 * the output while it still reads the input. */
#include "ops_common.h"

nk_status (nk_reduce_check_shape)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                nk_error_t *err) {
    const nk_tensor_rt *x, *out;
    int32_t expected[NK_MAX_DIMS], d;
    uint32_t mask;
    x = &t[op->in[0]];
    out = &t[op->out[0]];
    mask = op->params[0];
    if (x->rank < 32 && (mask >> x->rank) != 0) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "axes mask ");
        nk_msg_i(&m, (int64_t)mask);
        nk_msg_s(&m, " names dims beyond rank ");
        nk_msg_i(&m, x->rank);
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    for (d = 0; d < (int32_t)x->rank; d++)
        expected[d] = (mask >> d) & 1u ? 1 : x->dims[d];
    if (!nk_ops_dims_equal(out, expected, x->rank))
        return nk_ops_fail_out_dims(err, name, out, x, "reduced over the axes mask", expected,
                                    x->rank);
    return NK_OK;
}

static nk_status nk_reduce_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const char *name = nk_ops_def_name(op);
    nk_status s = nk_ops_check_io(op, t, name, 1, 1, NK_OPS_NO_OPTIONAL, 1, err);
    return s != NK_OK ? s : nk_reduce_check_shape(op, t, name, err);
}

nk_status nk_reduce_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *in = nk_ops_tin(op, x, 0);
    const nk_ref_reduce kind = op->type == NK_OP_REDUCE_MAX   ? NK_REDUCE_MAX
                               : op->type == NK_OP_REDUCE_SUM ? NK_REDUCE_SUM
                                                              : NK_REDUCE_MEAN;
    nk_ref_reduce_f32(kind, nk_ops_in_f32(op, x, 0), in->dims, in->rank, op->params[0],
                      nk_ops_out_f32(op, x));
    return NK_OK;
}

const nk_op_def nk_op_reduce_mean_f32 = {
    NK_OP_NAME("reduce_mean"), NK_OP_REDUCE_MEAN, NK_F32, 0, 1, 1, 1, 1,
    nk_reduce_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_in_elems), nk_reduce_eval,
    NULL,
};

const nk_op_def nk_op_reduce_sum_f32 = {
    NK_OP_NAME("reduce_sum"), NK_OP_REDUCE_SUM, NK_F32, 0, 1, 1, 1, 1,
    nk_reduce_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_in_elems), nk_reduce_eval,
    NULL,
};

const nk_op_def nk_op_reduce_max_f32 = {
    NK_OP_NAME("reduce_max"), NK_OP_REDUCE_MAX, NK_F32, 0, 1, 1, 1, 1,
    nk_reduce_validate, nk_ops_no_workspace, NK_OP_MACS(nk_ops_in_elems), nk_reduce_eval,
    NULL,
};

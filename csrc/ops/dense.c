/* dense.c — DENSE (fully connected): x [..., K], W [N, K], bias [N] -> [..., N];
 * MATMUL: a [..., M, K] @ b [..., K, N] with both operands computed (or
 * constant) and numpy broadcasting of the batch dims. params: act_min,
 * act_max. */
#include "ops_common.h"
#include "../kernels/fast_f32.h"

static nk_status nk_dense_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *x, *w, *bias, *out;
    int32_t expected[NK_MAX_DIMS], i;
    nk_status s = nk_ops_check_io(op, t, "dense", 2, 3, 2, 2, err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    w = nk_ops_in(op, t, 1);
    bias = nk_ops_in(op, t, 2);
    out = &t[op->out[0]];
    if (x->rank < 1)
        return nk_ops_fail(err, NK_ERR_SHAPE, "dense", "input must have rank >= 1");
    if (w->rank != 2 || w->dims[1] != x->dims[x->rank - 1]) {
        nk_msg m;
        nk_msg_begin(&m, "dense");
        nk_msg_s(&m, "weights ");
        nk_msg_dims(&m, w->dims, w->rank);
        nk_msg_s(&m, " do not fit input ");
        nk_msg_dims(&m, x->dims, x->rank);
        nk_msg_s(&m, " (expected [N,");
        nk_msg_i(&m, x->dims[x->rank - 1]);
        nk_msg_s(&m, "])");
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    if ((s = nk_ops_check_bias(bias, "dense", w->dims[0], "output features", err)) != NK_OK)
        return s;
    for (i = 0; i < x->rank; i++)
        expected[i] = x->dims[i];
    expected[x->rank - 1] = w->dims[0];
    if (!nk_ops_dims_equal(out, expected, x->rank))
        return nk_ops_fail_out_dims(err, "dense", out, x, "with weights [N,K]", expected,
                                    x->rank);
    return nk_ops_check_act(op, 0, "dense", err);
}

#if NK_OPS_MACS
static uint64_t nk_dense_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *w = &t[op->in[1]];
    return (uint64_t)t[op->out[0]].elems * (uint64_t)w->dims[1];
}
#endif

void nk_dense_f32_run(const float *x, const float *w, const float *bias, float *y, size_t rows,
                      int32_t in_features, int32_t out_features, float act_min, float act_max) {
#if NK_FAST_F32_DENSE
    if (nk_fast_dense_f32(x, w, bias, y, rows, in_features, out_features, act_min, act_max))
        return;
#endif
    nk_ref_dense_f32(x, w, bias, y, rows, in_features, out_features, act_min, act_max);
}

nk_status nk_dense_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *w = nk_ops_tin(op, x, 1);
    const int32_t k = w->dims[1], n = w->dims[0];
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL && op->host_packed != NULL) {
        NK_EXEC_HOST(x)->dense_f32(nk_ops_in_f32(op, x, 0), (const float *)op->host_packed,
                                   nk_ops_in_f32(op, x, 2), nk_ops_out_f32(op, x),
                                   nk_ops_tin(op, x, 0)->elems / (uint32_t)k, k, n,
                                   nk_param_f32(op, 0), nk_param_f32(op, 1));
        return NK_OK;
    }
#endif
    nk_dense_f32_run(nk_ops_in_f32(op, x, 0), nk_ops_in_f32(op, x, 1), nk_ops_in_f32(op, x, 2),
                     nk_ops_out_f32(op, x), nk_ops_tin(op, x, 0)->elems / (uint32_t)k, k, n,
                     nk_param_f32(op, 0), nk_param_f32(op, 1));
    return NK_OK;
}

const nk_op_def nk_op_dense_f32 = {
    NK_OP_NAME("dense"), NK_OP_DENSE, NK_F32, 0, 2, 3, 1, 2,
    nk_dense_validate, nk_ops_no_workspace, NK_OP_MACS(nk_dense_macs), nk_dense_eval,
    NULL,
};

static nk_status nk_matmul_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const nk_tensor_rt *a, *b, *out;
    int32_t expected[NK_MAX_DIMS], rank, d;
    nk_status s = nk_ops_check_io(op, t, "matmul", 2, 2, NK_OPS_NO_OPTIONAL, 2, err);
    if (s != NK_OK)
        return s;
    a = &t[op->in[0]];
    b = &t[op->in[1]];
    out = &t[op->out[0]];
    if (a->rank < 2 || b->rank < 2 || a->dims[a->rank - 1] != b->dims[b->rank - 2])
        return nk_ops_fail_inputs(err, "matmul", a, b,
                                  " are not [..., M, K] and [..., K, N] (rank 2 or more)");
    rank = a->rank > b->rank ? a->rank : b->rank;
    for (d = 0; d < rank - 2; d++) {
        const int32_t ia = d - (rank - a->rank), ib = d - (rank - b->rank);
        const int32_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return nk_ops_fail_inputs(err, "matmul", a, b, ": batch dims do not broadcast");
        expected[d] = da > db ? da : db;
    }
    expected[rank - 2] = a->dims[a->rank - 2];
    expected[rank - 1] = b->dims[b->rank - 1];
    if (!nk_ops_dims_equal(out, expected, rank))
        return nk_ops_fail_out_dims(err, "matmul", out, a, "times the right-hand side", expected,
                                    rank);
    return nk_ops_check_act(op, 0, "matmul", err);
}

#if NK_OPS_MACS
static uint64_t nk_matmul_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *a = &t[op->in[0]];
    return (uint64_t)t[op->out[0]].elems * (uint64_t)a->dims[a->rank - 1];
}
#endif

nk_status nk_matmul_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *a = nk_ops_tin(op, x, 0), *b = nk_ops_tin(op, x, 1);
    const nk_tensor_rt *y = nk_ops_tout(op, x);
    nk_ref_matmul_f32(nk_ops_in_f32(op, x, 0), a->dims, a->rank, nk_ops_in_f32(op, x, 1), b->dims,
                      b->rank, nk_ops_out_f32(op, x), y->dims, y->rank, nk_param_f32(op, 0),
                      nk_param_f32(op, 1));
    return NK_OK;
}

const nk_op_def nk_op_matmul_f32 = {
    NK_OP_NAME("matmul"), NK_OP_MATMUL, NK_F32, 0, 2, 2, 1, 2,
    nk_matmul_validate, nk_ops_no_workspace, NK_OP_MACS(nk_matmul_macs), nk_matmul_eval,
    NULL,
};

/* svdf_i8.c — SVDF_I8: TFLite's integer SVDF, one time step per invoke.
 *
 * Inputs: x i8 [B, I], weights_feature i8 [F, I], weights_time i8 or i16
 * [F, M], bias i32 [F / rank] (or absent), state [B, F * M] of weights_time's
 * dtype: a STATE tensor the op reads and overwrites, so a stream of invokes
 * carries the memory across them (docs/MEMORY.md). Output i8 [B, F / rank].
 * Params (docs/NK_FORMAT.md): rank, M1, shift1, M2, shift2, input zero
 * point, state zero point, output zero point. */
#include "ops_i8.h"

#define NK_SVDF_PARAMS 8u

static void nk_svdf_params_of(const nk_op_rt *op, const nk_tensor_rt *t, nk_ref_svdf_params *p) {
    const nk_tensor_rt *x = &t[op->in[0]], *wt = &t[op->in[2]];
    p->batch = x->dims[0];
    p->input = x->dims[1];
    p->filters = wt->dims[0];
    p->memory = wt->dims[1];
    p->rank = nk_param_i32(op, 0);
    p->state_i16 = wt->dtype == NK_I16;
    p->mult1 = nk_param_i32(op, 1);
    p->shift1 = nk_param_i32(op, 2);
    p->mult2 = nk_param_i32(op, 3);
    p->shift2 = nk_param_i32(op, 4);
    p->in_zp = nk_param_i32(op, 5);
    p->state_zp = nk_param_i32(op, 6);
    p->out_zp = nk_param_i32(op, 7);
}

static nk_status nk_svdf_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    static const char *const names[] = {"x", "weights_feature", "weights_time", "bias", "state"};
    const char *name = "svdf_i8";
    static const uint8_t dts[] = {NK_I8, NK_I8, NK_I8, NK_I32, NK_I8};
    uint8_t want_dt[5];
    int32_t want[5][2], out_want[2];
    const nk_tensor_rt *wt, *st;
    nk_ref_svdf_params p;
    nk_status s;
    uint32_t k;
    if (op->n_in != 5 || op->n_out != 1 || op->n_params != NK_SVDF_PARAMS)
        return nk_ops_fail(err, NK_ERR_FORMAT, name,
                           "want 5 inputs (bias may be absent), 1 output, 8 parameter words");
    for (k = 0; k < 5; k++)
        if (op->in[k] == NK_NONE && k != 3)
            return nk_ops_fail(err, NK_ERR_FORMAT, name, "a required input is absent");
    wt = &t[op->in[2]];
    st = &t[op->in[4]];
    memcpy(want_dt, dts, sizeof want_dt);
    if (wt->dtype == NK_I16)
        want_dt[2] = want_dt[4] = NK_I16;
    if ((s = nk_ops_check_tensors(op, t, name, 3, 4, want_dt, 5, NK_I8, err)) != NK_OK)
        return s;
    for (k = 0; k < 5; k++)
        if (op->in[k] != NK_NONE && t[op->in[k]].rank != (k == 3 ? 1 : 2))
            return nk_ops_fail(err, NK_ERR_SHAPE, name,
                               "x, weights and state must have rank 2, bias rank 1");
    if (!st->is_state || st->is_const)
        return nk_ops_fail(err, NK_ERR_FORMAT, name, "the state (input 4) must be a STATE tensor");
    nk_svdf_params_of(op, t, &p);
    if (p.rank < 1 || p.filters % p.rank != 0)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                           "rank must be >= 1 and divide the filter count");
    if (p.input > NK_I8_MAX_ACCUM_DEPTH || p.memory > NK_I8_MAX_ACCUM_DEPTH / p.rank)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                           "input or rank * memory too deep for an int32 accumulator");
    want[1][0] = p.filters, want[1][1] = p.input;
    want[2][0] = p.filters, want[2][1] = p.memory;
    want[3][0] = p.filters / p.rank;
    want[4][0] = p.batch, want[4][1] = p.filters * p.memory;
    for (k = 1; k < 5; k++) {
        const nk_tensor_rt *in = nk_ops_in(op, t, k);
        if (in != NULL && !nk_ops_dims_equal(in, want[k], k == 3 ? 1 : 2)) {
            nk_msg m;
            nk_msg_begin(&m, name);
            nk_msg_s(&m, names[k]);
            nk_msg_s(&m, " ");
            nk_msg_dims(&m, in->dims, in->rank);
            nk_msg_s(&m, " is not ");
            nk_msg_dims(&m, want[k], k == 3 ? 1 : 2);
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
    }
    out_want[0] = p.batch, out_want[1] = p.filters / p.rank;
    if (!nk_ops_dims_equal(&t[op->out[0]], out_want, 2))
        return nk_ops_fail_out_dims(err, name, &t[op->out[0]], &t[op->in[0]],
                                    "[batch, filters / rank]", out_want, 2);
    if ((s = nk_i8_check_mult(name, "feature", p.mult1, p.shift1, err)) != NK_OK ||
        (s = nk_i8_check_mult(name, "time", p.mult2, p.shift2, err)) != NK_OK ||
        (s = nk_i8_check_zp(name, "input zero point", p.in_zp, err)) != NK_OK ||
        (s = nk_i8_check_zp(name, "output zero point", p.out_zp, err)) != NK_OK)
        return s;
    if (p.state_i16 ? (p.state_zp < -32768 || p.state_zp > 32767)
                    : (p.state_zp < -128 || p.state_zp > 127))
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                           "state zero point outside the state dtype's range");
    return NK_OK;
}

#if NK_OPS_MACS
static uint64_t nk_svdf_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ref_svdf_params p;
    nk_svdf_params_of(op, t, &p);
    return (uint64_t)p.batch * (uint64_t)p.filters * ((uint64_t)p.input + (uint64_t)p.memory);
}
#endif

nk_status nk_svdf_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_svdf_params p;
    nk_svdf_params_of(op, x->tensors, &p);
    nk_ref_svdf_i8(&p, nk_i8_in(op, x, 0), nk_i8_in(op, x, 1), x->data[op->in[2]],
                   nk_i8_in_i32(op, x, 3), x->data[op->in[4]], nk_i8_out(op, x));
    return NK_OK;
}

const nk_op_def nk_op_svdf_i8 = {
    NK_OP_NAME("svdf_i8"), NK_OP_SVDF_I8, NK_I8, 0, 5, 5, 1, NK_SVDF_PARAMS,
    nk_svdf_validate, nk_ops_no_workspace, NK_OP_MACS(nk_svdf_macs), nk_svdf_i8_eval,
    NULL,
};

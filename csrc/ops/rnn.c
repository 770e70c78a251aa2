/* rnn.c — LSTM and GRU (float32, ONNX semantics) over a whole sequence.
 *
 * Inputs: x, W [D,G*H,I], R [D,G*H,H], then optional B [D,2*G*H], initial_h
 * and (LSTM) initial_c [D,B,H], peepholes P [D,3H] (LSTM); G is 4 (LSTM:
 * gates i, o, f, c) or 3 (GRU: z, r, h), D 2 when bidirectional. Outputs:
 * Y, Y_h and (LSTM) Y_c. Layout 0: x [T,B,I], Y [T,D,B,H], states [D,B,H];
 * layout 1 (batch first): x [B,T,I], Y [B,T,D,H], states [B,D,H].
 * Params (docs/NK_FORMAT.md): direction, layout, clip, linear_before_reset,
 * six activations (kind, alpha, beta: f, g, h of direction 0, then of
 * direction 1), then optionally one sequence length per batch entry.
 *
 * An initial state may be the Y_h / Y_c tensor itself: a persistent state
 * tensor (docs/MEMORY.md) the op reads and overwrites, so a stream of
 * invokes carries the state across them. */
#include "ops_common.h"

#define NK_RNN_PARAMS 22u /* words before the optional sequence lengths */
#define NK_RNN_P_DIRECTION 0u
#define NK_RNN_P_LAYOUT 1u
#define NK_RNN_P_CLIP 2u
#define NK_RNN_P_LBR 3u
#define NK_RNN_P_ACT 4u

static int nk_rnn_is_lstm(const nk_op_rt *op) { return op->type == NK_OP_LSTM; }
static int32_t nk_rnn_gates(const nk_op_rt *op) { return nk_rnn_is_lstm(op) ? 4 : 3; }
static const char *nk_rnn_name(const nk_op_rt *op) { return nk_rnn_is_lstm(op) ? "lstm" : "gru"; }

/* T, B, I, H and D from x, W and the params (validated). */
typedef struct nk_rnn_dims {
    int32_t seq, batch, input, hidden, dirs, batch_first;
} nk_rnn_dims;

static void nk_rnn_dims_of(const nk_op_rt *op, const nk_tensor_rt *t, nk_rnn_dims *d) {
    const nk_tensor_rt *x = &t[op->in[0]], *w = &t[op->in[1]];
    d->batch_first = nk_param_i32(op, NK_RNN_P_LAYOUT);
    d->seq = x->dims[d->batch_first ? 1 : 0];
    d->batch = x->dims[d->batch_first ? 0 : 1];
    d->input = x->dims[2];
    d->dirs = nk_param_i32(op, NK_RNN_P_DIRECTION) == 2 ? 2 : 1;
    d->hidden = w->rank == 3 ? w->dims[1] / nk_rnn_gates(op) : 0;
}

/* "<op>: <what> [..] is not [..]" */
static nk_status nk_rnn_fail_dims(nk_error_t *err, const nk_op_rt *op, const char *what,
                                  const nk_tensor_rt *got, const int32_t *want, int32_t rank) {
    nk_msg m;
    nk_msg_begin(&m, nk_rnn_name(op));
    nk_msg_s(&m, what);
    nk_msg_s(&m, " ");
    nk_msg_dims(&m, got->dims, got->rank);
    nk_msg_s(&m, " is not ");
    nk_msg_dims(&m, want, rank);
    return nk_msg_fail(&m, err, NK_ERR_SHAPE);
}

static nk_status nk_rnn_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    static const uint8_t f32 = NK_F32;
    static const char *const in_names[] = {"x", "W", "R", "B", "initial_h", "initial_c", "P"};
    static const char *const out_names[] = {"Y", "Y_h", "Y_c"};
    const char *name = nk_rnn_name(op);
    const int32_t g = nk_rnn_gates(op);
    const nk_tensor_rt *x = &t[op->in[0]];
    nk_rnn_dims d;
    int32_t want[NK_OP_MAX_IN][4], out_want[3][4], state[3], i;
    uint32_t k;
    float clip;
    nk_status s = nk_ops_check_tensors(op, t, name, 3, UINT32_MAX, &f32, 1, NK_F32, err);
    if (s != NK_OK)
        return s;
    for (k = 1; k < op->n_out; k++) {
        if (op->out[k] == NK_NONE)
            return nk_ops_fail(err, NK_ERR_FORMAT, name, "an output is absent");
        if (t[op->out[k]].dtype != NK_F32)
            return nk_ops_fail_dtype(err, name, "output", k, t[op->out[k]].dtype, NK_F32);
    }
    if (nk_param_i32(op, NK_RNN_P_DIRECTION) < 0 || nk_param_i32(op, NK_RNN_P_DIRECTION) > 2 ||
        nk_param_i32(op, NK_RNN_P_LAYOUT) < 0 || nk_param_i32(op, NK_RNN_P_LAYOUT) > 1 ||
        nk_param_i32(op, NK_RNN_P_LBR) < 0 || nk_param_i32(op, NK_RNN_P_LBR) > 1)
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                           "direction must be 0..2, layout and linear_before_reset 0 or 1");
    clip = nk_param_f32(op, NK_RNN_P_CLIP);
    if (!(clip > 0.0f))
        return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name, "clip must be > 0 (+inf: none)");
    for (i = 0; i < 6; i++) {
        const uint32_t p = NK_RNN_P_ACT + 3u * (uint32_t)i;
        if (nk_param_i32(op, p) < 0 || nk_param_i32(op, p) >= NK_RNN_ACT_COUNT ||
            !nk_ops_finite(nk_param_f32(op, p + 1)) || !nk_ops_finite(nk_param_f32(op, p + 2)))
            return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                               "unknown activation kind or non-finite alpha/beta");
    }
    if (x->rank != 3)
        return nk_ops_fail(err, NK_ERR_SHAPE, name, "x must have rank 3");
    nk_rnn_dims_of(op, t, &d);
    if (t[op->in[1]].rank != 3 || d.hidden < 1 || t[op->in[1]].dims[1] != g * d.hidden) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "W ");
        nk_msg_dims(&m, t[op->in[1]].dims, t[op->in[1]].rank);
        nk_msg_s(&m, " is not [directions, gates*hidden, input] with ");
        nk_msg_i(&m, g);
        nk_msg_s(&m, " gates");
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    state[0] = d.batch_first ? d.batch : d.dirs;
    state[1] = d.batch_first ? d.dirs : d.batch;
    state[2] = d.hidden;
    want[1][0] = d.dirs, want[1][1] = g * d.hidden, want[1][2] = d.input;
    want[2][0] = d.dirs, want[2][1] = g * d.hidden, want[2][2] = d.hidden;
    want[3][0] = d.dirs, want[3][1] = 2 * g * d.hidden;
    memcpy(want[4], state, sizeof state);
    memcpy(want[5], state, sizeof state);
    want[6][0] = d.dirs, want[6][1] = 3 * d.hidden;
    for (k = 1; k < op->n_in; k++) {
        /* GRU has no initial_c nor P: its input 5 and 6 are refused by max_in */
        const int32_t rank = k == 3 || k == 6 ? 2 : 3;
        const nk_tensor_rt *p = nk_ops_in(op, t, k);
        if (p != NULL && !nk_ops_dims_equal(p, want[k], rank))
            return nk_rnn_fail_dims(err, op, in_names[k], p, want[k], rank);
    }
    if (d.batch_first) {
        out_want[0][0] = d.batch, out_want[0][1] = d.seq;
    } else {
        out_want[0][0] = d.seq, out_want[0][1] = d.dirs;
    }
    out_want[0][2] = d.batch_first ? d.dirs : d.batch;
    out_want[0][3] = d.hidden;
    memcpy(out_want[1], state, sizeof state);
    memcpy(out_want[2], state, sizeof state);
    for (k = 0; k < op->n_out; k++)
        if (!nk_ops_dims_equal(&t[op->out[k]], out_want[k], k == 0 ? 4 : 3))
            return nk_rnn_fail_dims(err, op, out_names[k], &t[op->out[k]], out_want[k],
                                    k == 0 ? 4 : 3);
    if (op->n_params != NK_RNN_PARAMS && op->n_params != NK_RNN_PARAMS + (uint32_t)d.batch)
        return nk_ops_fail(err, NK_ERR_FORMAT, name,
                           "params must be 22 words, or 22 plus one sequence length per batch");
    for (k = NK_RNN_PARAMS; k < op->n_params; k++)
        if (nk_param_i32(op, k) < 1 || nk_param_i32(op, k) > d.seq)
            return nk_ops_fail(err, NK_ERR_UNSUPPORTED, name,
                               "a sequence length is outside 1..sequence");
    return NK_OK;
}

static size_t nk_rnn_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_rnn_dims d;
    nk_rnn_dims_of(op, t, &d);
    return (size_t)2 * (size_t)nk_rnn_gates(op) * (size_t)d.hidden * sizeof(float);
}

#if NK_OPS_MACS
static uint64_t nk_rnn_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_rnn_dims d;
    nk_rnn_dims_of(op, t, &d);
    return (uint64_t)d.seq * (uint64_t)d.batch * (uint64_t)d.dirs * (uint64_t)nk_rnn_gates(op) *
           (uint64_t)d.hidden * (uint64_t)(d.input + d.hidden);
}
#endif

nk_status nk_rnn_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_rnn_args a;
    nk_rnn_dims d;
    int32_t i;
    nk_rnn_dims_of(op, x->tensors, &d);
    memset(&a, 0, sizeof a);
    a.cell = nk_rnn_is_lstm(op) ? NK_RNN_LSTM : NK_RNN_GRU;
    a.seq = d.seq, a.batch = d.batch, a.input = d.input, a.hidden = d.hidden, a.dirs = d.dirs;
    a.reverse = nk_param_i32(op, NK_RNN_P_DIRECTION) == 1;
    a.batch_first = d.batch_first;
    a.linear_before_reset = nk_param_i32(op, NK_RNN_P_LBR);
    a.clip = nk_param_f32(op, NK_RNN_P_CLIP);
    for (i = 0; i < 6; i++) {
        a.act[i].kind = nk_param_i32(op, NK_RNN_P_ACT + 3u * (uint32_t)i);
        a.act[i].alpha = nk_param_f32(op, NK_RNN_P_ACT + 3u * (uint32_t)i + 1u);
        a.act[i].beta = nk_param_f32(op, NK_RNN_P_ACT + 3u * (uint32_t)i + 2u);
    }
    a.x = nk_ops_in_f32(op, x, 0);
    a.w = nk_ops_in_f32(op, x, 1);
    a.r = nk_ops_in_f32(op, x, 2);
    a.b = nk_ops_in_f32(op, x, 3);
    a.h0 = nk_ops_in_f32(op, x, 4);
    a.c0 = nk_ops_in_f32(op, x, 5);
    a.p = nk_ops_in_f32(op, x, 6);
    a.seq_lens = op->n_params > NK_RNN_PARAMS ? (const int32_t *)(op->params + NK_RNN_PARAMS) : NULL;
    a.y = (float *)x->data[op->out[0]];
    a.y_h = (float *)x->data[op->out[1]];
    a.y_c = op->n_out > 2 ? (float *)x->data[op->out[2]] : NULL;
    a.work = (float *)x->workspace;
    a.dense = nk_dense_f32_run;
    nk_ref_rnn_f32(&a);
    return NK_OK;
}

const nk_op_def nk_op_lstm_f32 = {
    NK_OP_NAME("lstm"), NK_OP_LSTM, NK_F32, 0, 3, 7, 3, NK_RNN_PARAMS,
    nk_rnn_validate, nk_rnn_workspace, NK_OP_MACS(nk_rnn_macs), nk_rnn_eval,
    NULL,
};

const nk_op_def nk_op_gru_f32 = {
    NK_OP_NAME("gru"), NK_OP_GRU, NK_F32, 0, 3, 5, 2, NK_RNN_PARAMS,
    nk_rnn_validate, nk_rnn_workspace, NK_OP_MACS(nk_rnn_macs), nk_rnn_eval,
    NULL,
};

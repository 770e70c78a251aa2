/* ref_rnn.c — LSTM and GRU over a whole sequence (ONNX semantics), built
 * from the dense and activation kernels: one matrix-vector product per gate
 * block and step, the gate activations over each block. */
#include "ref_kernels.h"

#include <math.h>
#include <string.h>

void nk_ref_rnn_activate(nk_ref_rnn_act a, const float *x, float *y, size_t n) {
    switch (a.kind) {
    case NK_RNN_ACT_TANH:
        nk_ref_tanh_f32(x, y, n);
        break;
    case NK_RNN_ACT_RELU:
        nk_ref_relu_f32(x, y, n);
        break;
    case NK_RNN_ACT_HARD_SIGMOID:
        nk_ref_hard_sigmoid_f32(x, y, n, a.alpha, a.beta);
        break;
    case NK_RNN_ACT_LEAKY_RELU:
        nk_ref_leaky_relu_f32(x, y, n, a.alpha);
        break;
    default:
        nk_ref_sigmoid_f32(x, y, n);
        break;
    }
}

/* Clamps the pre-activations to [-clip, clip] (ONNX's cell clip); clip
 * +inf leaves them alone. */
static void nk_rnn_clip(float *g, size_t n, float clip) {
    size_t i;
    if (clip == INFINITY)
        return;
    for (i = 0; i < n; i++)
        g[i] = g[i] < -clip ? -clip : g[i] > clip ? clip : g[i];
}

/* Offset, in elements, of row (t, dir, b) of Y and of state (dir, b). */
static size_t nk_rnn_y_at(const nk_ref_rnn_args *a, int32_t t, int32_t d, int32_t b) {
    const size_t h = (size_t)a->hidden;
    if (a->batch_first)
        return (((size_t)b * a->seq + t) * a->dirs + d) * h;
    return (((size_t)t * a->dirs + d) * a->batch + b) * h;
}
static size_t nk_rnn_state_at(const nk_ref_rnn_args *a, int32_t d, int32_t b) {
    const size_t h = (size_t)a->hidden;
    return a->batch_first ? ((size_t)b * a->dirs + d) * h : ((size_t)d * a->batch + b) * h;
}
static size_t nk_rnn_x_at(const nk_ref_rnn_args *a, int32_t t, int32_t b) {
    const size_t in = (size_t)a->input;
    return a->batch_first ? ((size_t)b * a->seq + t) * in : ((size_t)t * a->batch + b) * in;
}

/* One LSTM step of one sequence: h, c updated in place. gates: 4H
 * scratch, tmp: 4H scratch. W, R rows in ONNX order i, o, f, c. */
static void nk_lstm_step(const nk_ref_rnn_args *a, int32_t d, const float *x, float *h, float *c,
                         float *gates, float *tmp) {
    const int32_t hs = a->hidden, g4 = 4 * hs;
    const float *w = a->w + (size_t)d * g4 * a->input, *r = a->r + (size_t)d * g4 * hs;
    const float *wb = a->b != NULL ? a->b + (size_t)d * 2 * g4 : NULL;
    const float *p = a->p != NULL ? a->p + (size_t)d * 3 * hs : NULL;
    const nk_ref_rnn_act *act = a->act + 3 * d;
    float *gi = gates, *go = gates + hs, *gf = gates + 2 * hs, *gc = gates + 3 * hs;
    const nk_ref_dense_f32_fn dense = a->dense != NULL ? a->dense : nk_ref_dense_f32;
    int32_t k;
    dense(x, w, wb, gates, 1, a->input, g4, -INFINITY, INFINITY);
    dense(h, r, wb != NULL ? wb + g4 : NULL, tmp, 1, hs, g4, -INFINITY, INFINITY);
    for (k = 0; k < g4; k++)
        gates[k] += tmp[k];
    if (p != NULL)
        for (k = 0; k < hs; k++) {
            gi[k] += p[k] * c[k];
            gf[k] += p[2 * hs + k] * c[k];
        }
    nk_rnn_clip(gi, (size_t)hs, a->clip);
    nk_rnn_clip(gf, (size_t)hs, a->clip);
    nk_rnn_clip(gc, (size_t)hs, a->clip);
    nk_ref_rnn_activate(act[0], gi, gi, (size_t)hs);
    nk_ref_rnn_activate(act[0], gf, gf, (size_t)hs);
    nk_ref_rnn_activate(act[1], gc, gc, (size_t)hs);
    for (k = 0; k < hs; k++)
        c[k] = gf[k] * c[k] + gi[k] * gc[k];
    if (p != NULL)
        for (k = 0; k < hs; k++)
            go[k] += p[hs + k] * c[k];
    nk_rnn_clip(go, (size_t)hs, a->clip);
    nk_ref_rnn_activate(act[0], go, go, (size_t)hs);
    nk_ref_rnn_activate(act[2], c, tmp, (size_t)hs);
    for (k = 0; k < hs; k++)
        h[k] = go[k] * tmp[k];
}

/* One GRU step: h updated in place. gates: 3H scratch, tmp: 3H scratch.
 * W, R rows in ONNX order z, r, h. */
static void nk_gru_step(const nk_ref_rnn_args *a, int32_t d, const float *x, float *h,
                        float *gates, float *tmp) {
    const int32_t hs = a->hidden, g3 = 3 * hs;
    const float *w = a->w + (size_t)d * g3 * a->input, *r = a->r + (size_t)d * g3 * hs;
    const float *wb = a->b != NULL ? a->b + (size_t)d * 2 * g3 : NULL;
    const float *rb = wb != NULL ? wb + g3 : NULL;
    const nk_ref_rnn_act *act = a->act + 3 * d;
    float *gz = gates, *gr = gates + hs, *gh = gates + 2 * hs, *th = tmp + 2 * hs;
    const nk_ref_dense_f32_fn dense = a->dense != NULL ? a->dense : nk_ref_dense_f32;
    int32_t k;
    dense(x, w, wb, gates, 1, a->input, g3, -INFINITY, INFINITY);
    /* z and r: x part + R h; the candidate's R product depends on the mode */
    dense(h, r, rb, tmp, 1, hs, 2 * hs, -INFINITY, INFINITY);
    for (k = 0; k < 2 * hs; k++)
        gates[k] += tmp[k];
    nk_rnn_clip(gates, (size_t)2 * hs, a->clip);
    nk_ref_rnn_activate(act[0], gz, gz, (size_t)2 * hs);
    if (a->linear_before_reset) {
        dense(h, r + (size_t)2 * hs * hs, rb != NULL ? rb + 2 * hs : NULL, th, 1, hs, hs,
              -INFINITY, INFINITY);
        for (k = 0; k < hs; k++)
            gh[k] += gr[k] * th[k];
    } else {
        for (k = 0; k < hs; k++)
            tmp[k] = gr[k] * h[k];
        dense(tmp, r + (size_t)2 * hs * hs, rb != NULL ? rb + 2 * hs : NULL, th, 1, hs, hs,
              -INFINITY, INFINITY);
        for (k = 0; k < hs; k++)
            gh[k] += th[k];
    }
    nk_rnn_clip(gh, (size_t)hs, a->clip);
    nk_ref_rnn_activate(act[1], gh, gh, (size_t)hs);
    for (k = 0; k < hs; k++)
        h[k] = (1.0f - gz[k]) * gh[k] + gz[k] * h[k];
}

void nk_ref_rnn_f32(const nk_ref_rnn_args *a) {
    const size_t hs = (size_t)a->hidden;
    const int lstm = a->cell == NK_RNN_LSTM;
    float *gates = a->work, *tmp = a->work + (lstm ? 4 : 3) * hs;
    int32_t d, b, t;
    for (d = 0; d < a->dirs; d++) {
        const int reverse = d == 1 || a->reverse;
        for (b = 0; b < a->batch; b++) {
            const size_t s = nk_rnn_state_at(a, d, b);
            const int32_t len = a->seq_lens != NULL ? a->seq_lens[b] : a->seq;
            float *h = a->y_h + s, *c = lstm ? a->y_c + s : NULL;
            /* the state may be the initial one itself (a persistent state
             * tensor read and written by the op): memmove */
            if (a->h0 != NULL)
                memmove(h, a->h0 + s, hs * sizeof(float));
            else
                memset(h, 0, hs * sizeof(float));
            if (lstm) {
                if (a->c0 != NULL)
                    memmove(c, a->c0 + s, hs * sizeof(float));
                else
                    memset(c, 0, hs * sizeof(float));
            }
            for (t = 0; t < a->seq; t++) {
                const int32_t ts = reverse ? len - 1 - t : t;
                if (t >= len) {
                    /* past this sequence's length: Y is zero */
                    if (a->y != NULL)
                        memset(a->y + nk_rnn_y_at(a, t, d, b), 0, hs * sizeof(float));
                    continue;
                }
                if (lstm)
                    nk_lstm_step(a, d, a->x + nk_rnn_x_at(a, ts, b), h, c, gates, tmp);
                else
                    nk_gru_step(a, d, a->x + nk_rnn_x_at(a, ts, b), h, gates, tmp);
                if (a->y != NULL)
                    memcpy(a->y + nk_rnn_y_at(a, ts, d, b), h, hs * sizeof(float));
            }
        }
    }
}

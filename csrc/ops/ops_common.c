/* ops_common.c — helpers shared by the op families (see ops_common.h). */
#include "ops_common.h"

void (nk_msg_begin)(nk_msg *m, const char *op) {
    m->len = 0;
    m->text[0] = '\0';
    nk_msg_s(m, op);
    nk_msg_s(m, ": ");
}

void nk_msg_f(nk_msg *m, float v) {
    if (v != v) {
        nk_msg_s(m, "nan");
        return;
    }
    if (v < 0.0f) {
        nk_msg_s(m, "-");
        v = -v;
    }
    if (v > 1e18f) {
        nk_msg_s(m, v > 3.4e38f ? "inf" : "huge");
        return;
    }
    {
        uint64_t ip = (uint64_t)v;
        uint64_t frac = (uint64_t)(((double)v - (double)ip) * 1e6 + 0.5);
        char digits[8];
        int i;
        if (frac >= 1000000u) {
            ip++;
            frac -= 1000000u;
        }
        nk_msg_i(m, (int64_t)ip);
        if (frac == 0)
            return;
        for (i = 5; i >= 0; i--) {
            digits[i] = (char)('0' + frac % 10u);
            frac /= 10u;
        }
        i = 6;
        while (i > 1 && digits[i - 1] == '0')
            i--;
        digits[i] = '\0';
        nk_msg_s(m, ".");
        nk_msg_s(m, digits);
    }
}

void nk_msg_dims(nk_msg *m, const int32_t *dims, int32_t rank) {
    int32_t i;
    nk_msg_s(m, "[");
    for (i = 0; i < rank; i++) {
        if (i)
            nk_msg_s(m, ",");
        nk_msg_i(m, dims[i]);
    }
    nk_msg_s(m, "]");
}

nk_status nk_msg_fail(nk_msg *m, nk_error_t *err, nk_status s) {
    return nk_fail(err, s, -1, m->text);
}

nk_status (nk_ops_fail)(nk_error_t *err, nk_status s, const char *op, const char *what) {
    nk_msg m;
    nk_msg_begin(&m, op);
    nk_msg_s(&m, what);
    return nk_msg_fail(&m, err, s);
}

const nk_tensor_rt *nk_ops_in(const nk_op_rt *op, const nk_tensor_rt *t, uint32_t i) {
    if (i >= op->n_in || op->in[i] == NK_NONE)
        return NULL;
    return &t[op->in[i]];
}

static nk_status nk_ops_fail_count(nk_error_t *err, const char *name, const char *what,
                                   int64_t got, int64_t lo, int64_t hi) {
    nk_msg m;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, "has ");
    nk_msg_i(&m, got);
    nk_msg_s(&m, " ");
    nk_msg_s(&m, what);
    nk_msg_s(&m, ", expected ");
    nk_msg_i(&m, lo);
    if (hi != lo) {
        nk_msg_s(&m, "..");
        nk_msg_i(&m, hi);
    }
    return nk_msg_fail(&m, err, NK_ERR_FORMAT);
}

nk_status (nk_ops_fail_dtype)(nk_error_t *err, const char *name, const char *what, int64_t index,
                            uint8_t got, uint8_t want) {
    nk_msg m;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, what);
    if (index >= 0) {
        nk_msg_s(&m, " ");
        nk_msg_i(&m, index);
    }
    nk_msg_s(&m, " is ");
    nk_msg_s(&m, nk_dtype_str((nk_dtype)got));
    nk_msg_s(&m, ", expected ");
    nk_msg_s(&m, nk_dtype_str((nk_dtype)want));
    return nk_msg_fail(&m, err, NK_ERR_DTYPE);
}

nk_status (nk_ops_check_tensors)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                               uint32_t opt_lo, uint32_t opt_hi, const uint8_t *in_dt,
                               uint32_t n_dt, uint8_t out_dt, nk_error_t *err) {
    uint32_t i;
    for (i = 0; i < op->n_in; i++) {
        const uint8_t want = in_dt[i < n_dt ? i : n_dt - 1];
        if (op->in[i] == NK_NONE) {
            if (i < opt_lo || i >= opt_hi) {
                nk_msg m;
                nk_msg_begin(&m, name);
                nk_msg_s(&m, "required input ");
                nk_msg_i(&m, i);
                nk_msg_s(&m, " is absent");
                return nk_msg_fail(&m, err, NK_ERR_FORMAT);
            }
            continue;
        }
        if (t[op->in[i]].dtype != want)
            return nk_ops_fail_dtype(err, name, "input", i, t[op->in[i]].dtype, want);
    }
    if (op->out[0] == NK_NONE)
        return nk_ops_fail(err, NK_ERR_FORMAT, name, "output is absent");
    if (t[op->out[0]].dtype != out_dt)
        return nk_ops_fail_dtype(err, name, "output", -1, t[op->out[0]].dtype, out_dt);
    return NK_OK;
}

nk_status (nk_ops_check_io)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                          uint32_t min_in, uint32_t max_in, uint32_t first_optional,
                          int32_t n_params, nk_error_t *err) {
    return nk_ops_check_io_as(op, t, name, min_in, max_in, first_optional, n_params, NK_F32, err);
}

nk_status (nk_ops_check_io_as)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                             uint32_t min_in, uint32_t max_in, uint32_t first_optional,
                             int32_t n_params, uint8_t dtype, nk_error_t *err) {
    if (op->n_in < min_in || op->n_in > max_in)
        return nk_ops_fail_count(err, name, "inputs", op->n_in, min_in, max_in);
    if (op->n_out != 1)
        return nk_ops_fail_count(err, name, "outputs", op->n_out, 1, 1);
    if (n_params >= 0 && op->n_params != (uint32_t)n_params)
        return nk_ops_fail_count(err, name, "parameter words", op->n_params, n_params, n_params);
    return nk_ops_check_tensors(op, t, name, first_optional, UINT32_MAX, &dtype, 1, dtype, err);
}

int nk_ops_dims_equal(const nk_tensor_rt *o, const int32_t *dims, int32_t rank) {
    int32_t i;
    if ((int32_t)o->rank != rank)
        return 0;
    for (i = 0; i < rank; i++)
        if (o->dims[i] != dims[i])
            return 0;
    return 1;
}

nk_status (nk_ops_fail_out_dims)(nk_error_t *err, const char *op, const nk_tensor_rt *out,
                               const nk_tensor_rt *in, const char *detail,
                               const int32_t *expected, int32_t rank) {
    nk_msg m;
    nk_msg_begin(&m, op);
    nk_msg_s(&m, "output dims ");
    nk_msg_dims(&m, out->dims, out->rank);
    nk_msg_s(&m, " do not match input ");
    nk_msg_dims(&m, in->dims, in->rank);
    if (detail) {
        nk_msg_s(&m, " ");
        nk_msg_s(&m, detail);
    }
    nk_msg_s(&m, " (expected ");
    nk_msg_dims(&m, expected, rank);
    nk_msg_s(&m, ")");
    return nk_msg_fail(&m, err, NK_ERR_SHAPE);
}

int nk_ops_finite(float v) {
    return v == v && v - v == 0.0f;
}

nk_status (nk_ops_check_act)(const nk_op_rt *op, uint32_t k, const char *name, nk_error_t *err) {
    float lo = nk_param_f32(op, k), hi = nk_param_f32(op, k + 1);
    if (lo != lo || hi != hi || lo > hi) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "activation clamp [");
        nk_msg_f(&m, lo);
        nk_msg_s(&m, ", ");
        nk_msg_f(&m, hi);
        nk_msg_s(&m, "] is empty or NaN");
        return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
    }
    return NK_OK;
}

nk_status (nk_ops_check_same_shape)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                  nk_error_t *err) {
    const nk_tensor_rt *in = &t[op->in[0]], *out = &t[op->out[0]];
    if (!nk_ops_dims_equal(out, in->dims, in->rank))
        return nk_ops_fail_out_dims(err, name, out, in, NULL, in->dims, in->rank);
    return NK_OK;
}

nk_status (nk_ops_check_broadcast)(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                  nk_error_t *err) {
    const nk_tensor_rt *a = &t[op->in[0]], *b = &t[op->in[1]], *out = &t[op->out[0]];
    int32_t expected[NK_MAX_DIMS], rank, d;
    rank = a->rank > b->rank ? a->rank : b->rank;
    for (d = 0; d < rank; d++) {
        const int32_t ia = d - (rank - a->rank), ib = d - (rank - b->rank);
        const int32_t da = ia >= 0 ? a->dims[ia] : 1;
        const int32_t db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return nk_ops_fail_inputs(err, name, a, b, " do not broadcast");
        expected[d] = da > db ? da : db;
    }
    if (!nk_ops_dims_equal(out, expected, rank)) {
        nk_msg d2 = NK_MSG_INIT;
        nk_msg_s(&d2, "broadcast with ");
        nk_msg_dims(&d2, b->dims, b->rank);
        return nk_ops_fail_out_dims(err, name, out, a, d2.text, expected, rank);
    }
    return NK_OK;
}

int nk_ops_no_broadcast(const nk_op_rt *op, const nk_tensor_rt *t) {
    const uint32_t n = t[op->out[0]].elems;
    return t[op->in[0]].elems == n && t[op->in[1]].elems == n;
}

size_t nk_ops_no_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    (void)op;
    (void)t;
    return 0;
}

uint64_t nk_ops_no_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    (void)op;
    (void)t;
    return 0;
}

uint64_t nk_ops_out_elems(const nk_op_rt *op, const nk_tensor_rt *t) {
    return t[op->out[0]].elems;
}

uint64_t nk_ops_in_elems(const nk_op_rt *op, const nk_tensor_rt *t) {
    return t[op->in[0]].elems;
}

#define NK_OPS_DIM_LIMIT (1 << 24)

static nk_status nk_ops_fail_param(nk_error_t *err, const char *name, const char *what,
                                   int64_t v, const char *rule) {
    nk_msg m;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, what);
    nk_msg_s(&m, " ");
    nk_msg_i(&m, v);
    nk_msg_s(&m, " ");
    nk_msg_s(&m, rule);
    return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
}

nk_status (nk_ops_window_check)(const char *name, const nk_tensor_rt *x, const nk_ops_window *w,
                              int32_t *out_h, int32_t *out_w, nk_error_t *err) {
    static const char *const names[10] = {"kernel_h", "kernel_w", "stride_h", "stride_w",
                                          "dilation_h", "dilation_w", "pad_top", "pad_left",
                                          "pad_bottom", "pad_right"};
    const int32_t v[10] = {w->k_h, w->k_w, w->stride_h, w->stride_w, w->dil_h, w->dil_w,
                           w->pad_top, w->pad_left, w->pad_bottom, w->pad_right};
    int64_t eff_h, eff_w, span_h, span_w;
    int i;
    for (i = 0; i < 10; i++) {
        const int32_t lo = i < 6 ? 1 : 0;
        if (v[i] < lo)
            return nk_ops_fail_param(err, name, names[i], v[i],
                                     lo ? "must be >= 1" : "must be >= 0");
        if (v[i] > NK_OPS_DIM_LIMIT)
            return nk_ops_fail_param(err, name, names[i], v[i], "is out of range");
    }
    eff_h = (int64_t)(w->k_h - 1) * w->dil_h + 1;
    eff_w = (int64_t)(w->k_w - 1) * w->dil_w + 1;
    span_h = (int64_t)x->dims[1] + w->pad_top + w->pad_bottom;
    span_w = (int64_t)x->dims[2] + w->pad_left + w->pad_right;
    if (eff_h > span_h || eff_w > span_w) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "kernel ");
        nk_msg_i(&m, eff_h);
        nk_msg_s(&m, "x");
        nk_msg_i(&m, eff_w);
        nk_msg_s(&m, " (dilated) does not fit padded input ");
        nk_msg_i(&m, span_h);
        nk_msg_s(&m, "x");
        nk_msg_i(&m, span_w);
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    /* 0 <= span - eff < 2^31 + 2^25: dividing in 32 bits keeps libgcc's
     * 64-bit division out of firmware */
    *out_h = (int32_t)((uint32_t)(span_h - eff_h) / (uint32_t)w->stride_h + 1u);
    *out_w = (int32_t)((uint32_t)(span_w - eff_w) / (uint32_t)w->stride_w + 1u);
    return NK_OK;
}

void nk_ops_window_detail(nk_msg *m, const nk_ops_window *w) {
    nk_msg_s(m, "with kernel ");
    nk_msg_i(m, w->k_h);
    nk_msg_s(m, "x");
    nk_msg_i(m, w->k_w);
    nk_msg_s(m, " stride ");
    nk_msg_i(m, w->stride_h);
    if (w->stride_w != w->stride_h) {
        nk_msg_s(m, "x");
        nk_msg_i(m, w->stride_w);
    }
    if (w->dil_h != 1 || w->dil_w != 1) {
        nk_msg_s(m, " dilation ");
        nk_msg_i(m, w->dil_h);
        nk_msg_s(m, "x");
        nk_msg_i(m, w->dil_w);
    }
    nk_msg_s(m, " pads ");
    nk_msg_i(m, w->pad_top);
    nk_msg_s(m, ",");
    nk_msg_i(m, w->pad_left);
    nk_msg_s(m, ",");
    nk_msg_i(m, w->pad_bottom);
    nk_msg_s(m, ",");
    nk_msg_i(m, w->pad_right);
}

nk_status (nk_ops_check_rank)(const char *name, const char *what, const nk_tensor_rt *x,
                            int32_t rank, nk_error_t *err) {
    nk_msg m;
    if ((int32_t)x->rank == rank)
        return NK_OK;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, what);
    nk_msg_s(&m, " ");
    nk_msg_dims(&m, x->dims, x->rank);
    nk_msg_s(&m, " must have rank ");
    nk_msg_i(&m, rank);
    if (rank == 4)
        nk_msg_s(&m, " (NHWC)");
    return nk_msg_fail(&m, err, NK_ERR_SHAPE);
}

void nk_ops_conv_window(const nk_op_rt *op, const nk_tensor_rt *w, nk_ops_window *win) {
    win->k_h = w->dims[1];
    win->k_w = w->dims[2];
    win->stride_h = nk_param_i32(op, 0);
    win->stride_w = nk_param_i32(op, 1);
    win->dil_h = nk_param_i32(op, 2);
    win->dil_w = nk_param_i32(op, 3);
    win->pad_top = nk_param_i32(op, 4);
    win->pad_left = nk_param_i32(op, 5);
    win->pad_bottom = nk_param_i32(op, 6);
    win->pad_right = nk_param_i32(op, 7);
}

void nk_ops_pool_window(const nk_op_rt *op, nk_ops_window *win) {
    win->k_h = nk_param_i32(op, 0);
    win->k_w = nk_param_i32(op, 1);
    win->stride_h = nk_param_i32(op, 2);
    win->stride_w = nk_param_i32(op, 3);
    /* the max pools may carry dilation_h, dilation_w after act_min, act_max */
    const int dilated = (op->type == NK_OP_MAX_POOL2D || op->type == NK_OP_MAX_POOL2D_I8) &&
                        op->n_params == NK_OPS_MAX_POOL_DILATED_PARAMS;
    win->dil_h = dilated ? nk_param_i32(op, 10) : 1;
    win->dil_w = dilated ? nk_param_i32(op, 11) : 1;
    win->pad_top = nk_param_i32(op, 4);
    win->pad_left = nk_param_i32(op, 5);
    win->pad_bottom = nk_param_i32(op, 6);
    win->pad_right = nk_param_i32(op, 7);
}

/* Whether every window along one axis has a tap inside the input. */
static int nk_ops_pool_axis_covered(int32_t in, int32_t out, int32_t k, int32_t stride,
                                    int32_t dil, int32_t pad) {
    int32_t o, lo, hi;
    for (o = 0; o < out; o++) {
        nk_ref_pool_range_dil(o * stride - pad, k, dil, in, &lo, &hi);
        if (lo >= hi)
            return 0;
    }
    return 1;
}

nk_status (nk_ops_pool_check_taps)(const char *name, const nk_tensor_rt *x,
                                   const nk_ops_window *win, int32_t out_h, int32_t out_w,
                                   nk_error_t *err) {
    nk_msg m;
    if (nk_ops_pool_axis_covered(x->dims[1], out_h, win->k_h, win->stride_h, win->dil_h,
                                 win->pad_top) &&
        nk_ops_pool_axis_covered(x->dims[2], out_w, win->k_w, win->stride_w, win->dil_w,
                                 win->pad_left))
        return NK_OK;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, "a dilated window lands only on padding; got ");
    nk_ops_window_detail(&m, win);
    return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
}

void nk_ops_window_geom(const nk_op_rt *op, const nk_tensor_rt *t, const nk_ops_window *win,
                        nk_ref_conv_geom *g) {
    const nk_tensor_rt *in = &t[op->in[0]], *out = &t[op->out[0]];
    g->batch = in->dims[0];
    g->in_h = in->dims[1];
    g->in_w = in->dims[2];
    g->in_c = in->dims[3];
    g->out_h = out->dims[1];
    g->out_w = out->dims[2];
    g->out_c = out->dims[3];
    g->k_h = win->k_h;
    g->k_w = win->k_w;
    g->stride_h = win->stride_h;
    g->stride_w = win->stride_w;
    g->dil_h = win->dil_h;
    g->dil_w = win->dil_w;
    g->pad_top = win->pad_top;
    g->pad_left = win->pad_left;
    g->groups = 1;
    g->multiplier = 1;
    g->count_include_pad = 0;
    g->act_min = 0.0f;
    g->act_max = 0.0f;
}

void nk_ops_conv_geom(const nk_op_rt *op, const nk_tensor_rt *t, nk_ref_conv_geom *g) {
    nk_ops_window win;
    nk_ops_conv_window(op, &t[op->in[1]], &win);
    nk_ops_window_geom(op, t, &win, g);
    if (op->type == NK_OP_CONV2D || op->type == NK_OP_CONV2D_I8)
        g->groups = nk_param_i32(op, 8);
    else
        g->multiplier = nk_param_i32(op, 8);
    if (op->type == NK_OP_CONV2D || op->type == NK_OP_DEPTHWISE_CONV2D) {
        /* float: the fused clamp (int8 ops clamp in their quantization) */
        g->act_min = nk_param_f32(op, 9);
        g->act_max = nk_param_f32(op, 10);
    }
}

/* nk_i8_conv_stage's shift for `slots` slots. */
static int64_t nk_i8_stage_shift(const nk_ref_conv_geom *g, int32_t band, uint32_t slots) {
    const uint32_t n = (uint32_t)g->batch * nk_i8_stage_bands_per_image(g, band);
    const int64_t in_row = (int64_t)g->in_w * g->in_c, out_row = (int64_t)g->out_w * g->out_c;
    int64_t shift = (int64_t)g->batch * g->in_h * in_row;
    uint32_t j;
    for (j = slots; j < n; j++) {
        int32_t img, r0, rows, pimg, pr0, prows;
        int64_t v, iy;
        nk_i8_stage_band(g, band, j, &img, &r0, &rows);
        nk_i8_stage_band(g, band, j - slots, &pimg, &pr0, &prows);
        iy = (int64_t)r0 * g->stride_h - g->pad_top;
        iy = iy < 0 ? 0 : iy > g->in_h ? g->in_h : iy;
        v = ((int64_t)img * g->in_h + iy) * in_row - ((int64_t)pimg * g->out_h + pr0 + prows) * out_row;
        if (v < shift) shift = v;
    }
    return shift;
}

int nk_i8_conv_stage(const nk_ref_conv_geom *g, int is_dw, nk_i8_stage *s) {
    const int64_t span = (int64_t)(g->k_h - 1) * g->dil_h + 1;
    const int32_t band = !is_dw && (g->out_w & 1) && g->out_h > 1 ? 2 : 1;
    const int32_t max_slots = ((span < 8 ? (int32_t)span : 8) + band - 1) / band;
    int32_t j, m;
    if (g->batch < 1 || g->out_h < 1 || g->out_w < 1 || g->out_c < 1 || g->in_h < 1) return 0;
    /* every band reads an input row: its kernel call needs one */
    for (j = 0; j * band < g->out_h; j++) {
        int32_t img, r0, rows;
        int64_t top, end;
        nk_i8_stage_band(g, band, (uint32_t)j, &img, &r0, &rows);
        top = (int64_t)r0 * g->stride_h - g->pad_top;
        end = top + (int64_t)(rows - 1) * g->stride_h + span;
        if ((end < g->in_h ? end : g->in_h) <= (top > 0 ? top : 0)) return 0;
    }
    s->band = band;
    s->slots = 1;
    s->shift = nk_i8_stage_shift(g, band, 1);
    for (m = 2; s->shift < 0 && m <= max_slots; m++) {
        const int64_t v = nk_i8_stage_shift(g, band, (uint32_t)m);
        if (v >= 0) {
            s->slots = m;
            s->shift = v;
        }
    }
    s->staging = nk_i8_stage_bytes(band, s->slots, (size_t)g->out_w * (size_t)g->out_c);
    return 1;
}

int64_t nk_ops_staged_shift(const nk_op_rt *op, const nk_tensor_rt *t, size_t *staging) {
    nk_ref_conv_geom g;
    nk_i8_stage s;
    if ((op->type != NK_OP_CONV2D_I8 && op->type != NK_OP_DEPTHWISE_CONV2D_I8) ||
        t[op->in[0]].rank != 4 || t[op->out[0]].rank != 4)
        return NK_SHIFT_NONE;
    nk_ops_conv_geom(op, t, &g);
    if (!nk_i8_conv_stage(&g, op->type != NK_OP_CONV2D_I8, &s)) return NK_SHIFT_NONE;
    *staging = s.staging;
    return s.shift;
}

nk_status (nk_ops_check_bias)(const nk_tensor_rt *bias, const char *name, int32_t n,
                            const char *unit, nk_error_t *err) {
    nk_msg m;
    if (bias == NULL || (bias->rank == 1 && bias->dims[0] == n))
        return NK_OK;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, "bias ");
    nk_msg_dims(&m, bias->dims, bias->rank);
    nk_msg_s(&m, " does not match ");
    nk_msg_i(&m, n);
    nk_msg_s(&m, " ");
    nk_msg_s(&m, unit);
    return nk_msg_fail(&m, err, NK_ERR_SHAPE);
}

nk_status (nk_ops_fail_inputs)(nk_error_t *err, const char *name, const nk_tensor_rt *a,
                             const nk_tensor_rt *b, const char *tail) {
    nk_msg m;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, "inputs ");
    nk_msg_dims(&m, a->dims, a->rank);
    nk_msg_s(&m, " and ");
    nk_msg_dims(&m, b->dims, b->rank);
    nk_msg_s(&m, tail);
    return nk_msg_fail(&m, err, NK_ERR_SHAPE);
}

void (nk_ops_msg_weights_misfit)(nk_msg *m, const char *name, const nk_tensor_rt *w,
                               const nk_tensor_rt *x, const char *what, int32_t k) {
    nk_msg_begin(m, name);
    nk_msg_s(m, "weights ");
    nk_msg_dims(m, w->dims, w->rank);
    nk_msg_s(m, " do not fit input ");
    nk_msg_dims(m, x->dims, x->rank);
    nk_msg_s(m, " with ");
    nk_msg_s(m, what);
    nk_msg_s(m, " ");
    nk_msg_i(m, k);
}

const nk_op_def *nk_op_lookup_in(const nk_op_def *const *table, size_t n, uint32_t type,
                                 uint32_t dtype) {
    size_t i;
    for (i = 0; i < n; i++)
        if (table[i]->type == type && table[i]->dtype == dtype)
            return table[i];
    for (i = 0; dtype != NK_F32 && i < n; i++)
        if (table[i]->type == type && table[i]->dtype == NK_OP_ANY_DTYPE)
            return table[i];
    return NULL;
}

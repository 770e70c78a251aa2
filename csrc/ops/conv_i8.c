/* conv_i8.c — CONV2D_I8, DEPTHWISE_CONV2D_I8 and DENSE_I8.
 * inputs: x i8, W i8, bias i32 (optional), multiplier i32 [O] or [1],
 * shift i32 (same); conv params: stride_h, stride_w, dilation_h,
 * dilation_w, pad_top, pad_left, pad_bottom, pad_right, groups or
 * multiplier, in_zp, out_zp, act_min, act_max; dense: in_zp, out_zp,
 * act_min, act_max. */
#include "ops_i8.h"

#define NK_CONV_I8_PARAMS 13
#define NK_DENSE_I8_PARAMS 4

static const uint8_t nk_i8_wb_dtypes[5] = {NK_I8, NK_I8, NK_I32, NK_I32, NK_I32};

static nk_status nk_i8_fail_depth(nk_error_t *err, const char *name, int64_t depth) {
    nk_msg m;
    nk_msg_begin(&m, name);
    nk_msg_s(&m, "accumulation depth ");
    nk_msg_i(&m, depth);
    nk_msg_s(&m, " is above ");
    nk_msg_i(&m, NK_I8_MAX_ACCUM_DEPTH);
    return nk_msg_fail(&m, err, NK_ERR_UNSUPPORTED);
}

/* zero points and clamp at params k (in_zp), k+1 (out_zp), k+2, k+3 */
static nk_status nk_i8_check_out_params(const nk_op_rt *op, uint32_t k, const char *name,
                                        nk_error_t *err) {
    nk_status s;
    if ((s = nk_i8_check_zp(name, "input zero point", nk_param_i32(op, k), err)) != NK_OK ||
        (s = nk_i8_check_zp(name, "output zero point", nk_param_i32(op, k + 1), err)) != NK_OK)
        return s;
    return nk_i8_check_clamp(name, nk_param_i32(op, k + 2), nk_param_i32(op, k + 3), err);
}

/* What conv, depthwise and dense check alike once their shapes fit: the
 * bias, multiplier and shift for out_c channels, the accumulation depth,
 * and the zero points and clamp at params k.. (nk_i8_check_out_params). */
static nk_status nk_i8_check_requant_op(const nk_op_rt *op, const nk_tensor_rt *t, const char *name,
                                        int32_t out_c, int64_t depth, uint32_t k, nk_error_t *err) {
    nk_status s;
    if ((s = nk_ops_check_bias(nk_ops_in(op, t, 2), name, out_c, "output channels", err)) != NK_OK ||
        (s = nk_i8_check_per_channel(op, t, name, out_c, err)) != NK_OK)
        return s;
    if (depth > NK_I8_MAX_ACCUM_DEPTH)
        return nk_i8_fail_depth(err, name, depth);
    return nk_i8_check_out_params(op, k, name, err);
}

static nk_status nk_conv_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t, nk_error_t *err) {
    const int is_dw = op->type == NK_OP_DEPTHWISE_CONV2D_I8;
    const char *name = is_dw ? "depthwise_conv2d_i8" : "conv2d_i8";
    const nk_tensor_rt *x, *w, *out;
    nk_ops_window win;
    int32_t expected[4], out_c, k8;
    int64_t depth;
    nk_status s = nk_i8_check_io(op, t, name, 5, 5, 2, NK_CONV_I8_PARAMS, nk_i8_wb_dtypes, 5,
                                 NK_I8, err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    w = nk_ops_in(op, t, 1);
    out = &t[op->out[0]];
    if ((s = nk_ops_check_rank(name, "input", x, 4, err)) != NK_OK ||
        (s = nk_ops_check_rank(name, "weights", w, 4, err)) != NK_OK)
        return s;
    k8 = nk_param_i32(op, 8);
    if (is_dw) {
        if (k8 < 1 || w->dims[0] != 1 || (int64_t)w->dims[3] != (int64_t)x->dims[3] * k8) {
            nk_msg m;
            nk_ops_msg_weights_misfit(&m, name, w, x, "multiplier", k8);
            nk_msg_s(&m, " (expected [1,KH,KW,C*multiplier])");
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
        out_c = w->dims[3];
        depth = (int64_t)w->dims[1] * w->dims[2];
    } else {
        if (k8 < 1 || x->dims[3] % k8 != 0 || w->dims[0] % k8 != 0 ||
            w->dims[3] != x->dims[3] / k8) {
            nk_msg m;
            nk_ops_msg_weights_misfit(&m, name, w, x, "groups", k8);
            nk_msg_s(&m, " (expected [O,KH,KW,C/groups], groups dividing C and O)");
            return nk_msg_fail(&m, err, NK_ERR_SHAPE);
        }
        out_c = w->dims[0];
        depth = (int64_t)w->dims[1] * w->dims[2] * w->dims[3];
    }
    nk_ops_conv_window(op, w, &win);
    if ((s = nk_ops_window_check(name, x, &win, &expected[1], &expected[2], err)) != NK_OK ||
        (s = nk_i8_check_requant_op(op, t, name, out_c, depth, 9, err)) != NK_OK)
        return s;
    expected[0] = x->dims[0];
    expected[3] = out_c;
    if (!nk_ops_dims_equal(out, expected, 4)) {
        nk_msg d = NK_MSG_INIT;
        nk_ops_window_detail(&d, &win);
        return nk_ops_fail_out_dims(err, name, out, x, d.text, expected, 4);
    }
    return NK_OK;
}

static void nk_i8_quant_params(const nk_op_rt *op, const nk_exec *x, uint32_t k,
                               nk_ref_i8_quant *q) {
    q->in_zp = nk_param_i32(op, k);
    q->out_zp = nk_param_i32(op, k + 1);
    q->act_min = nk_param_i32(op, k + 2);
    q->act_max = nk_param_i32(op, k + 3);
    q->mult = nk_i8_in_i32(op, x, 3);
    q->shift = nk_i8_in_i32(op, x, 4);
    q->per_channel = nk_ops_tin(op, x, 3)->dims[0] > 1;
#if NK_FAST_I8_ARMV7EM
    /* once per op, not once per staged band's kernel call */
    q->rq_right = nk_i8_rq_right(q, (int32_t)nk_ops_tin(op, x, 3)->dims[0]);
#else
    q->rq_right = 0; /* nothing here reads it */
#endif
}

/* One band (or the whole op) of a conv or depthwise: the kernel over
 * geometry g from `in` to `out` with the op's own workspace `ws`. */
typedef void (*nk_i8_band_fn)(void *ctx, const nk_ref_conv_geom *g, const int8_t *in, int8_t *out,
                              void *ws);

/* Runs `fn` over the staged rows' bands (nk_i8_conv_stage, as the plan
 * recorded them): band j into slot j % slots, copied to its place just
 * before band j + slots is computed, the last ones after every read. Each
 * call sees one image, the rows of its band and the input rows its windows
 * touch, with the top padding that band sees: the bytes are the whole
 * op's. In 32 bits: band counts fit a tensor's element count. */
static void nk_i8_conv_staged(const nk_ref_conv_geom *g, int32_t band, int32_t slots, const int8_t *in,
                              int8_t *out, void *workspace, nk_i8_band_fn fn, void *ctx) {
    const size_t in_row = (size_t)g->in_w * (size_t)g->in_c, out_row = (size_t)g->out_w * (size_t)g->out_c;
    const size_t slot = (size_t)band * out_row;
    const int32_t span = (g->k_h - 1) * g->dil_h + 1;
    const uint32_t n = (uint32_t)g->batch * nk_i8_stage_bands_per_image(g, band);
    int8_t *mem = (int8_t *)workspace, *own_ws = mem + nk_i8_stage_bytes(band, slots, out_row);
    nk_ref_conv_geom one = *g;
    uint32_t j;
    one.batch = 1;
    for (j = 0; j < n + (uint32_t)slots; j++) {
        int32_t img, r0, rows;
        if (j >= (uint32_t)slots) { /* band j - slots leaves its slot for its place */
            const uint32_t done = j - (uint32_t)slots;
            nk_i8_stage_band(g, band, done, &img, &r0, &rows);
            memcpy(out + ((size_t)img * (size_t)g->out_h + (size_t)r0) * out_row,
                   mem + (size_t)(done % (uint32_t)slots) * slot, (size_t)rows * out_row);
        }
        if (j < n) {
            int32_t top, a, e;
            nk_i8_stage_band(g, band, j, &img, &r0, &rows);
            top = r0 * g->stride_h - g->pad_top;
            a = top > 0 ? top : 0;
            e = top + (rows - 1) * g->stride_h + span;
            if (e > g->in_h) e = g->in_h;
            if (e <= a) continue; /* reads no input row: only a forged plan stages such an op */
            one.out_h = rows;
            one.in_h = e - a;
            one.pad_top = a - top;
            fn(ctx, &one, in + ((size_t)img * (size_t)g->in_h + (size_t)a) * in_row,
               mem + (size_t)(j % (uint32_t)slots) * slot, own_ws);
        }
    }
}
/* What a band of the entry points needs: the op's arguments, and what
 * the op's previous band left in the workspace, so that it is made once
 * per call however many bands run: nothing, the portable kernels' weight
 * sums, or the DSP conv's own (its widened weights; its windows take the
 * sums' place). */
enum { NK_I8_KEPT_NONE, NK_I8_KEPT_WSUM, NK_I8_KEPT_FAST };
typedef struct nk_i8_band_ctx {
    const nk_i8_conv_args *a;
    int kept;
} nk_i8_band_ctx;

static void nk_conv2d_i8_band(void *ctx, const nk_ref_conv_geom *g, const int8_t *in, int8_t *out,
                              void *ws) {
    nk_i8_band_ctx *c = (nk_i8_band_ctx *)ctx;
    const nk_i8_conv_args *a = c->a;
    /* the weight sums for windows inside the input */
    int32_t *wsum = (int32_t *)ws;
#if NK_FAST_I8_ARMV7EM
    if (nk_fast_conv2d_i8_ws(in, a->w, a->bias, out, g, &a->q, (int32_t *)ws, a->ws_bytes,
                             c->kept == NK_I8_KEPT_FAST)) {
        c->kept = NK_I8_KEPT_FAST;
        return;
    }
#elif NK_FAST_I8
    if (nk_fast_conv2d_i8(in, a->w, a->bias, out, g, &a->q))
        return;
#endif
    if (c->kept != NK_I8_KEPT_WSUM)
        nk_ref_conv_wsum_i8(a->w, g->out_c, (size_t)g->k_h * (size_t)g->k_w * (size_t)(g->in_c / g->groups),
                            wsum);
    c->kept = NK_I8_KEPT_WSUM;
    nk_ref_conv2d_i8(in, a->w, a->bias, out, g, &a->q, wsum);
}

static void nk_depthwise_i8_band(void *ctx, const nk_ref_conv_geom *g, const int8_t *in, int8_t *out,
                                 void *ws) {
    nk_i8_band_ctx *c = (nk_i8_band_ctx *)ctx;
    const nk_i8_conv_args *a = c->a;
    int32_t *wsum = (int32_t *)ws;
#if NK_FAST_I8_ARMV7EM
    /* vertical tap pairs need no weight sums, and take their place */
    if (nk_fast_depthwise_vpair_i8(in, a->w, a->bias, out, g, &a->q, wsum, a->ws_bytes)) {
        c->kept = NK_I8_KEPT_NONE;
        return;
    }
#endif
    if (c->kept != NK_I8_KEPT_WSUM) nk_ref_depthwise_wsum_i8(a->w, g->k_h * g->k_w, g->out_c, wsum);
    c->kept = NK_I8_KEPT_WSUM;
#if NK_FAST_I8_ARMV7EM
    /* the DSP 3x3 path's staged rows follow the sums */
    if (nk_fast_depthwise_conv2d_i8_ws(in, a->w, a->bias, out, g, &a->q, wsum,
                                       nk_fast_depthwise_i8_workspace(g) ? wsum + g->out_c : NULL))
        return;
#elif NK_FAST_I8
    if (nk_fast_depthwise_conv2d_i8(in, a->w, a->bias, out, g, &a->q, wsum))
        return;
#endif
    nk_ref_depthwise_conv2d_i8(in, a->w, a->bias, out, g, &a->q, wsum);
}

/* What an op asks for at load from its geometry: one int32 weight sum
 * per output channel, or the DSP conv's windows; depthwise: the sums,
 * then the DSP 3x3 path's staged rows (counted on every build:
 * fast_i8.h). */
static size_t nk_conv_i8_ws_of(const nk_ref_conv_geom *g, int is_dw) {
    const size_t wsum = (size_t)g->out_c * sizeof(int32_t);
    if (!is_dw) {
        const size_t win = nk_fast_conv2d_i8_workspace(g);
        return win > wsum ? win : wsum;
    }
    return wsum + nk_fast_depthwise_i8_workspace(g);
}

#if NK_FAST_I8_ARMV7EM
/* The whole workspace of a staged op (its slots too), for a kernel that
 * runs in place instead of the band loop. */
static size_t nk_i8_whole_ws(const nk_i8_conv_args *a, int is_dw) {
    return (a->ws_bytes ? a->ws_bytes : nk_conv_i8_ws_of(a->g, is_dw)) +
           nk_i8_stage_bytes(a->band, a->slots, (size_t)a->g->out_w * (size_t)a->g->out_c);
}
#endif

void nk_conv2d_i8_run(const nk_i8_conv_args *a, const int8_t *in, int8_t *out,
                      void *workspace) {
    nk_i8_band_ctx c;
    c.a = a;
    c.kept = NK_I8_KEPT_NONE;
#if NK_FAST_I8_ARMV7EM
    /* staged, but on its own input: a pointwise conv of equal channels
     * runs in place (fast_i8.h) */
    if (a->band && in == out &&
        nk_fast_pointwise_i8_in_place(out, a->w, a->bias, a->g, &a->q, (int32_t *)workspace,
                                      nk_i8_whole_ws(a, 0)))
        return;
#endif
    if (a->band)
        nk_i8_conv_staged(a->g, a->band, a->slots, in, out, workspace, nk_conv2d_i8_band, &c);
    else
        nk_conv2d_i8_band(&c, a->g, in, out, workspace);
}

void nk_depthwise_i8_run(const nk_i8_conv_args *a, const int8_t *in, int8_t *out,
                         void *workspace) {
    nk_i8_band_ctx c;
    c.a = a;
    c.kept = NK_I8_KEPT_NONE;
#if NK_FAST_I8_ARMV7EM
    /* staged rows whose output sits on its input: vertical tap pairs run
     * in place, in the whole workspace (the slots too), where their rows
     * fit */
    if (a->band && in == out &&
        nk_fast_depthwise_vpair_i8(in, a->w, a->bias, out, a->g, &a->q, (int32_t *)workspace,
                                   nk_i8_whole_ws(a, 1)))
        return;
#endif
    if (a->band)
        nk_i8_conv_staged(a->g, a->band, a->slots, in, out, workspace, nk_depthwise_i8_band, &c);
    else
        nk_depthwise_i8_band(&c, a->g, in, out, workspace);
}

#if NETKIT_HOST_KERNELS
/* The host SIMD kernels over the weights packed at load (host.h), as a band. */
typedef struct nk_i8_host_ctx {
    const nk_op_rt *op;
    const nk_exec *x;
    const nk_i8_conv_args *a;
} nk_i8_host_ctx;

static void nk_i8_host_band(void *ctx, const nk_ref_conv_geom *g, const int8_t *in, int8_t *out,
                            void *ws) {
    const nk_i8_host_ctx *c = (const nk_i8_host_ctx *)ctx;
    if (c->op->type == NK_OP_CONV2D_I8)
        NK_EXEC_HOST(c->x)->conv2d_i8(in, c->op->host_packed, out, g, &c->a->q, ws);
    else
        NK_EXEC_HOST(c->x)->depthwise_i8(in, c->a->w, c->op->host_packed, out, g, &c->a->q);
}
#endif

nk_status nk_conv_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    nk_ref_conv_geom g;
    nk_i8_conv_args a;
    nk_ops_conv_geom(op, x->tensors, &g);
    a.g = &g;
    a.w = nk_i8_in(op, x, 1);
    a.bias = nk_i8_in_i32(op, x, 2);
    nk_i8_quant_params(op, x, 9, &a.q);
    /* staged rows: the plan's band and slots (0 for in_place 0..2) */
    a.band = (int16_t)nk_i8_stage_in_place_band(op->in_place);
    a.slots = (int16_t)nk_i8_stage_in_place_slots(op->in_place);
    a.ws_bytes = (uint32_t)(x->workspace_size -
                            (a.band ? nk_i8_stage_bytes(a.band, a.slots, (size_t)g.out_w * (size_t)g.out_c)
                                    : 0));
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL && op->host_packed != NULL) {
        nk_i8_host_ctx c;
        c.op = op;
        c.x = x;
        c.a = &a;
        if (a.band)
            nk_i8_conv_staged(&g, a.band, a.slots, nk_i8_in(op, x, 0), nk_i8_out(op, x), x->workspace,
                              nk_i8_host_band, &c);
        else
            nk_i8_host_band(&c, &g, nk_i8_in(op, x, 0), nk_i8_out(op, x), x->workspace);
        return NK_OK;
    }
#endif
    if (op->type == NK_OP_CONV2D_I8)
        nk_conv2d_i8_run(&a, nk_i8_in(op, x, 0), nk_i8_out(op, x), x->workspace);
    else
        nk_depthwise_i8_run(&a, nk_i8_in(op, x, 0), nk_i8_out(op, x), x->workspace);
    return NK_OK;
}

static size_t nk_conv_i8_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ref_conv_geom g;
    nk_ops_conv_geom(op, t, &g);
    return nk_conv_i8_ws_of(&g, op->type != NK_OP_CONV2D_I8);
}

#if NK_OPS_MACS
static uint64_t nk_conv_i8_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    const nk_tensor_rt *w = &t[op->in[1]];
    uint64_t per_out = (uint64_t)w->dims[1] * (uint64_t)w->dims[2];
    if (op->type == NK_OP_CONV2D_I8)
        per_out *= (uint64_t)w->dims[3];
    return (uint64_t)t[op->out[0]].elems * per_out;
}
#endif

static nk_status nk_dense_i8_validate(const nk_op_rt *op, const nk_tensor_rt *t,
                                      nk_error_t *err) {
    const char *name = "dense_i8";
    const nk_tensor_rt *x, *w, *out;
    int32_t expected[NK_MAX_DIMS], d;
    nk_status s = nk_i8_check_io(op, t, name, 5, 5, 2, NK_DENSE_I8_PARAMS, nk_i8_wb_dtypes, 5,
                                 NK_I8, err);
    if (s != NK_OK)
        return s;
    x = nk_ops_in(op, t, 0);
    w = nk_ops_in(op, t, 1);
    out = &t[op->out[0]];
    if (x->rank < 1 || w->rank != 2 || w->dims[1] != x->dims[x->rank - 1]) {
        nk_msg m;
        nk_msg_begin(&m, name);
        nk_msg_s(&m, "weights ");
        nk_msg_dims(&m, w->dims, w->rank);
        nk_msg_s(&m, " do not fit input ");
        nk_msg_dims(&m, x->dims, x->rank);
        nk_msg_s(&m, " (expected x [...,K] and W [N,K])");
        return nk_msg_fail(&m, err, NK_ERR_SHAPE);
    }
    if ((s = nk_i8_check_requant_op(op, t, name, w->dims[0], w->dims[1], 0, err)) != NK_OK)
        return s;
    for (d = 0; d + 1 < (int32_t)x->rank; d++)
        expected[d] = x->dims[d];
    expected[x->rank - 1] = w->dims[0];
    if (!nk_ops_dims_equal(out, expected, x->rank))
        return nk_ops_fail_out_dims(err, name, out, x, NULL, expected, x->rank);
    return NK_OK;
}

void nk_dense_i8_run(const nk_i8_dense_args *a, const int8_t *in, int8_t *out, void *workspace) {
#if NK_FAST_I8_ARMV7EM
    if (nk_fast_dense_i8_ws(in, a->w, a->bias, out, a->rows, a->k, a->n, &a->q,
                            (int32_t *)workspace, a->ws_bytes))
        return;
#elif NK_FAST_I8
    if (nk_fast_dense_i8(in, a->w, a->bias, out, a->rows, a->k, a->n, &a->q))
        return;
#endif
    (void)workspace;
    nk_ref_dense_i8(in, a->w, a->bias, out, a->rows, a->k, a->n, &a->q);
}

nk_status nk_dense_i8_eval(const nk_op_rt *op, const nk_exec *x) {
    const nk_tensor_rt *w = nk_ops_tin(op, x, 1);
    nk_i8_dense_args a;
    a.w = nk_i8_in(op, x, 1);
    a.bias = nk_i8_in_i32(op, x, 2);
    a.k = w->dims[1];
    a.n = w->dims[0];
    a.rows = nk_ops_tin(op, x, 0)->elems / (uint32_t)a.k;
    nk_i8_quant_params(op, x, 0, &a.q);
    a.ws_bytes = (uint32_t)x->workspace_size;
#if NETKIT_HOST_KERNELS
    if (NK_EXEC_HOST(x) != NULL && op->host_packed != NULL) {
        /* a 1x1 conv over the rows (the geometry the weights were packed for) */
        nk_ref_conv_geom g;
        nk_host_dense_i8_geom(&g, (int32_t)a.rows, a.k, a.n);
        NK_EXEC_HOST(x)->conv2d_i8(nk_i8_in(op, x, 0), op->host_packed, nk_i8_out(op, x), &g,
                                   &a.q, x->workspace);
        return NK_OK;
    }
#endif
    nk_dense_i8_run(&a, nk_i8_in(op, x, 0), nk_i8_out(op, x), x->workspace);
    return NK_OK;
}

/* The DSP dense's windows (counted on every build: fast_i8.h). */
static size_t nk_dense_i8_workspace(const nk_op_rt *op, const nk_tensor_rt *t) {
    const int32_t k = t[op->in[1]].dims[1];
    return nk_fast_dense_i8_workspace(t[op->in[0]].elems / (uint32_t)k, k);
}

#if NK_OPS_MACS
static uint64_t nk_dense_i8_macs(const nk_op_rt *op, const nk_tensor_rt *t) {
    return (uint64_t)t[op->out[0]].elems * (uint64_t)t[op->in[1]].dims[1];
}
#endif

/* docs/MEMORY.md: raster order, blocks of up to NK_OVERLAP_BLOCK_* pixels. */
static int64_t nk_conv_i8_out_shift(const nk_op_rt *op, const nk_tensor_rt *t) {
    nk_ops_window win;
    nk_ops_conv_window(op, &t[op->in[1]], &win);
    /* Helium depthwise (kernels/mve) writes a whole output row for 8
     * channels before it reads that row's windows for the next 8: a block
     * of one row. Taken on every target, so a plan (and `aot --lower`)
     * holds whichever kernel set runs it. */
    int32_t dw_block = t[op->out[0]].dims[2];
    if (dw_block < NK_OVERLAP_BLOCK_DW_I8) dw_block = NK_OVERLAP_BLOCK_DW_I8;
    return nk_ops_raster_shift(op, t, &win,
                               op->type == NK_OP_CONV2D_I8 ? NK_OVERLAP_BLOCK_CONV_I8 : dw_block);
}

const nk_op_def nk_op_conv2d_i8 = {
    NK_OP_NAME("conv2d_i8"), NK_OP_CONV2D_I8, NK_I8, NK_OPF_I8_REQUANT, 5, 5, 1, NK_CONV_I8_PARAMS,
    nk_conv_i8_validate, nk_conv_i8_workspace, NK_OP_MACS(nk_conv_i8_macs), nk_conv_i8_eval,
    nk_conv_i8_out_shift,
};

const nk_op_def nk_op_depthwise_conv2d_i8 = {
    NK_OP_NAME("depthwise_conv2d_i8"), NK_OP_DEPTHWISE_CONV2D_I8, NK_I8, NK_OPF_I8_REQUANT, 5, 5, 1, NK_CONV_I8_PARAMS,
    nk_conv_i8_validate, nk_conv_i8_workspace, NK_OP_MACS(nk_conv_i8_macs), nk_conv_i8_eval,
    nk_conv_i8_out_shift,
};

const nk_op_def nk_op_dense_i8 = {
    NK_OP_NAME("dense_i8"), NK_OP_DENSE_I8, NK_I8, NK_OPF_I8_REQUANT, 5, 5, 1, NK_DENSE_I8_PARAMS,
    nk_dense_i8_validate, nk_dense_i8_workspace, NK_OP_MACS(nk_dense_i8_macs), nk_dense_i8_eval,
    NULL,
};

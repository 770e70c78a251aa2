/* ops_i8_test.c — the int8 op table entries: their shape, flags and
 * callbacks, validate's rejections (dtypes, shapes, parameter ranges,
 * multiplier tensors) and small cases worked out by hand. Bit-exactness
 * against the TFLite oracle on random cases is internal/int8ref's
 * kernels_test.go (Go, through the nk package). */
#include "op_test.h"

typedef struct nkt_expect_i8 {
    uint32_t type;
    uint8_t dtype;
    const char *name;
    uint8_t flags, min_in, max_in, min_params;
} nkt_expect_i8;

static const nkt_expect_i8 nkt_i8_table[] = {
    {64, NK_I8, "conv2d_i8", NK_OPF_I8_REQUANT, 5, 5, 13},
    {65, NK_I8, "depthwise_conv2d_i8", NK_OPF_I8_REQUANT, 5, 5, 13},
    {66, NK_I8, "dense_i8", NK_OPF_I8_REQUANT, 5, 5, 4},
    {67, NK_I8, "avg_pool2d_i8", 0, 1, 1, 10},
    {68, NK_I8, "max_pool2d_i8", 0, 1, 1, 10},
    {69, NK_I8, "add_i8", NK_OPF_ELEMENTWISE, 2, 2, 12},
    {70, NK_I8, "mul_i8", NK_OPF_ELEMENTWISE, 2, 2, 7},
    {71, NK_I8, "softmax_i8", NK_OPF_ELEMENTWISE, 1, 1, 3},
    {72, NK_I8, "logistic_i8", NK_OPF_ELEMENTWISE, 1, 1, 4},
    {73, NK_I8, "tanh_i8", NK_OPF_ELEMENTWISE, 1, 1, 4},
    {74, NK_F32, "quantize", 0, 1, 1, 0},
    {74, NK_I8, "quantize", NK_OPF_ELEMENTWISE, 1, 1, 4},
    {75, NK_I8, "dequantize", 0, 1, 1, 0},
    {17, NK_I8, "concat", 0, 1, 8, 1},
    {18, NK_I8, "reshape", NK_OPF_ALIAS, 1, 1, 0},
    {19, NK_I8, "pad", 0, 1, 1, 2},
    {20, NK_I8, "transpose", 0, 1, 1, 0},
    {76, NK_I8, "lut_i8", NK_OPF_ELEMENTWISE, 2, 2, 0},
    {77, NK_I8, "svdf_i8", 0, 5, 5, 8},
    {74, NK_I16, "quantize", 0, 1, 1, 4},
    {40, NK_I8, "resize2d", 0, 1, 1, 7},
    {78, NK_I8, "reduce_mean_i8", 0, 1, 1, 5},
    {36, NK_I8, "slice", 0, 1, 1, 0},
};

/* ---- a hand-built one-op graph with typed tensors ---- */
typedef struct nkt_g8 {
    nk_tensor_rt t[NK_OP_MAX_IN + 1];
    uint32_t in_ids[NK_OP_MAX_IN], out_id, params[32];
    void *payload[NK_OP_MAX_IN + 1]; /* constants' bytes, as a loaded model's data table */
    nk_op_rt op;
} nkt_g8;

static void nkt_t(nkt_g8 *g, uint32_t i, uint8_t dtype, int32_t rank, int32_t d0, int32_t d1,
                  int32_t d2, int32_t d3, const void *data) {
    const int32_t dims[4] = {d0, d1, d2, d3};
    nk_tensor_rt *t = &g->t[i];
    g->payload[i] = (void *)(uintptr_t)data;
    memset(t, 0, sizeof *t);
    t->name = NK_NONE;
    t->dtype = dtype;
    t->rank = (uint8_t)rank;
    memcpy(t->dims, dims, sizeof(int32_t) * (size_t)rank);
    t->elems = nkt_elems(dims, rank);
    t->quant = NK_NONE;
    t->is_const = data != NULL;
}

static void nkt_g8_init(nkt_g8 *g, uint16_t type, int32_t n_in, const int32_t *params,
                        int32_t n_params) {
    int32_t i;
    g->op.type = type;
    g->op.n_in = (uint8_t)n_in;
    g->op.n_out = 1;
    g->op.n_params = (uint16_t)n_params;
    g->op.name = "";
    for (i = 0; i < n_in; i++)
        g->in_ids[i] = (uint32_t)i;
    g->out_id = (uint32_t)n_in;
    if (n_params > 0)
        memcpy(g->params, params, sizeof(int32_t) * (size_t)n_params);
    g->op.in = g->in_ids;
    g->op.out = &g->out_id;
    g->op.params = g->params;
}

static nk_status nkt_g8_validate(const nkt_g8 *g, nk_error_t *err) {
    const nk_op_def *def = nk_op_lookup(g->op.type, g->t[0].dtype);
    nk_status s;
    memset(err, 0, sizeof *err);
    if (!def)
        return NK_ERR_UNSUPPORTED;
    /* what the loader checks: the records, then the requantization values */
    s = def->validate(&g->op, g->t, err);
    return s == NK_OK ? nk_op_check_requant(&g->op, def, g->t, g->payload, 0, err) : s;
}

/* Runs the op on the given data pointers (index = tensor id). */
static void nkt_g8_eval(const nkt_g8 *g, void **data) {
    const nk_op_def *def = nk_op_lookup(g->op.type, g->t[0].dtype);
    const size_t ws = def->workspace_size(&g->op, g->t);
    nk_exec x;
    memset(&x, 0, sizeof x);
    x.tensors = g->t;
    x.data = data;
    x.workspace = ws ? malloc(ws) : NULL;
    x.workspace_size = ws;
    def->eval(&g->op, &x);
    free(x.workspace);
}

#define NKT_EXPECT(g, want, what)                                                              \
    do {                                                                                       \
        nk_error_t e_;                                                                         \
        nk_status s_ = nkt_g8_validate(g, &e_);                                                \
        NKT_CHECK(s_ == (want), "%s: status %d (%s)", what, (int)s_, e_.message);             \
    } while (0)

/* conv2d_i8 over x [1,3,3,2], W [3,2,2,2] (3 output channels), per-channel
 * multipliers: a valid graph each rejection case breaks in one place. */
static const int32_t nkt_mult3[3] = {1 << 30, 1518500250, 0};
static const int32_t nkt_shift3[3] = {0, -3, 0};
static const int32_t nkt_bias3[3] = {1, 2, 3};
static const int8_t nkt_w_conv[24] = {0};

static void nkt_conv_graph(nkt_g8 *g, const int32_t *mult, const int32_t *shift) {
    /* stride 1, dilation 1, pads 0, groups 1, in_zp, out_zp, clamp */
    static const int32_t p[13] = {1, 1, 1, 1, 0, 0, 0, 0, 1, -3, 5, -128, 127};
    memset(g, 0, sizeof *g);
    nkt_g8_init(g, NK_OP_CONV2D_I8, 5, p, 13);
    nkt_t(g, 0, NK_I8, 4, 1, 3, 3, 2, NULL);
    nkt_t(g, 1, NK_I8, 4, 3, 2, 2, 2, nkt_w_conv);
    nkt_t(g, 2, NK_I32, 1, 3, 0, 0, 0, nkt_bias3);
    nkt_t(g, 3, NK_I32, 1, 3, 0, 0, 0, mult);
    nkt_t(g, 4, NK_I32, 1, 3, 0, 0, 0, shift);
    nkt_t(g, 5, NK_I8, 4, 1, 2, 2, 3, NULL);
}

/* reduce_mean_i8 of x [1,3,3,2] over H and W: params mask, in_zp, out_zp,
 * M (not normalized: 1/9 folded in), shift. */
static void nkt_mean_graph(nkt_g8 *g, const int32_t *p) {
    memset(g, 0, sizeof *g);
    nkt_g8_init(g, NK_OP_REDUCE_MEAN_I8, 1, p, 5);
    nkt_t(g, 0, NK_I8, 4, 1, 3, 3, 2, NULL);
    nkt_t(g, 1, NK_I8, 4, 1, 1, 1, 2, NULL);
}

static void nkt_mean_rejections(void) {
    const int32_t ok[5] = {6, -3, 5, 954437176, -2};
    int32_t p[5];
    nkt_g8 g;
    nkt_mean_graph(&g, ok);
    NKT_EXPECT(&g, NK_OK, "valid mean");
    memcpy(p, ok, sizeof p);
    p[0] = 1 << 4;
    nkt_mean_graph(&g, p);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "mean axes mask past the rank");
    nkt_mean_graph(&g, ok);
    g.t[1].dims[2] = 3;
    g.t[1].elems = 6;
    NKT_EXPECT(&g, NK_ERR_SHAPE, "mean output keeps W");
    memcpy(p, ok, sizeof p);
    p[1] = 128;
    nkt_mean_graph(&g, p);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "mean input zero point 128");
    memcpy(p, ok, sizeof p);
    p[3] = -1;
    nkt_mean_graph(&g, p);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "mean negative multiplier");
    memcpy(p, ok, sizeof p);
    p[4] = 31;
    nkt_mean_graph(&g, p);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "mean shift 31");
    nkt_mean_graph(&g, ok);
    g.t[1].dtype = NK_I16;
    NKT_EXPECT(&g, NK_ERR_DTYPE, "mean to i16");
}

static void nkt_validate_rejections(void) {
    static const int32_t bad_mult[3] = {1 << 30, (1 << 30) - 1, 0};
    static const int32_t bad_shift[3] = {0, 31, 0};
    static const int32_t neg_mult[3] = {1 << 30, -(1 << 30), 0};
    nkt_g8 g;

    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    NKT_EXPECT(&g, NK_OK, "valid conv");
    g.in_ids[2] = NK_NONE;
    NKT_EXPECT(&g, NK_OK, "conv without bias");
    g.in_ids[3] = NK_NONE;
    NKT_EXPECT(&g, NK_ERR_FORMAT, "conv without multipliers");

    nkt_conv_graph(&g, bad_mult, nkt_shift3);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "multiplier below 2^30");
    nkt_conv_graph(&g, neg_mult, nkt_shift3);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "negative multiplier");
    nkt_conv_graph(&g, nkt_mult3, bad_shift);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "shift 31");

    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[3].is_const = 0;
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "runtime multiplier tensor");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[3].dims[0] = g.t[4].dims[0] = 2;
    NKT_EXPECT(&g, NK_ERR_SHAPE, "two multipliers for three channels");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[4].dims[0] = 1;
    NKT_EXPECT(&g, NK_ERR_SHAPE, "multiplier and shift of different lengths");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[3].dims[0] = g.t[4].dims[0] = 1; /* per-tensor: fine */
    NKT_EXPECT(&g, NK_OK, "per-tensor multiplier");

    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[1].dtype = NK_I16;
    NKT_EXPECT(&g, NK_ERR_DTYPE, "i16 weights");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[2].dtype = NK_F32;
    NKT_EXPECT(&g, NK_ERR_DTYPE, "f32 bias");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[5].dtype = NK_F32;
    NKT_EXPECT(&g, NK_ERR_DTYPE, "f32 output");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[0].dtype = NK_F32;
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "f32 input: no conv2d_i8 entry");

    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.params[9] = 128;
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "input zero point 128");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.params[10] = -129;
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "output zero point -129");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.params[11] = 10;
    g.params[12] = 9;
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "empty clamp");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.params[12] = 128;
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "clamp past 127");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.params[8] = 2; /* groups 2: W would be [O,2,2,1] */
    NKT_EXPECT(&g, NK_ERR_SHAPE, "groups that do not fit W");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.t[5].dims[1] = 3;
    NKT_EXPECT(&g, NK_ERR_SHAPE, "wrong output height");
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    g.op.n_params = 12;
    NKT_EXPECT(&g, NK_ERR_FORMAT, "12 params");

    /* accumulation depth: W [1, 256, 1, 257] over x [1,256,1,257] */
    nkt_conv_graph(&g, nkt_mult3, nkt_shift3);
    nkt_t(&g, 0, NK_I8, 4, 1, 256, 1, 257, NULL);
    nkt_t(&g, 1, NK_I8, 4, 1, 256, 1, 257, nkt_w_conv);
    g.t[2].dims[0] = g.t[3].dims[0] = g.t[4].dims[0] = 1;
    nkt_t(&g, 5, NK_I8, 4, 1, 1, 1, 1, NULL);
    NKT_EXPECT(&g, NK_ERR_UNSUPPORTED, "depth 65792 > 65536");
    nkt_t(&g, 0, NK_I8, 4, 1, 256, 1, 256, NULL);
    nkt_t(&g, 1, NK_I8, 4, 1, 256, 1, 256, nkt_w_conv);
    NKT_EXPECT(&g, NK_OK, "depth 65536");

    /* softmax: shift 0..31, diff_min <= 0 */
    {
        const int32_t p[3] = {1 << 30, 31, -5};
        nkt_g8 s;
        memset(&s, 0, sizeof s);
        nkt_g8_init(&s, NK_OP_SOFTMAX_I8, 1, p, 3);
        nkt_t(&s, 0, NK_I8, 2, 2, 10, 0, 0, NULL);
        nkt_t(&s, 1, NK_I8, 2, 2, 10, 0, 0, NULL);
        NKT_EXPECT(&s, NK_OK, "softmax shift 31");
        s.params[1] = 32;
        NKT_EXPECT(&s, NK_ERR_UNSUPPORTED, "softmax shift 32");
        s.params[1] = 3;
        s.params[2] = 1;
        NKT_EXPECT(&s, NK_ERR_UNSUPPORTED, "softmax diff_min 1");
    }
    /* add: left shift 0..23, numpy broadcasting */
    {
        const int32_t p[12] = {0, 0, 0, 20, 1 << 30, -1, 1 << 30, -1, 1 << 30, -18, -128, 127};
        nkt_g8 a;
        memset(&a, 0, sizeof a);
        nkt_g8_init(&a, NK_OP_ADD_I8, 2, p, 12);
        nkt_t(&a, 0, NK_I8, 2, 3, 4, 0, 0, NULL);
        nkt_t(&a, 1, NK_I8, 2, 3, 4, 0, 0, NULL);
        nkt_t(&a, 2, NK_I8, 2, 3, 4, 0, 0, NULL);
        NKT_EXPECT(&a, NK_OK, "add");
        a.params[3] = 24;
        NKT_EXPECT(&a, NK_ERR_UNSUPPORTED, "add left shift 24");
        a.params[3] = 20;
        a.t[1].dims[0] = 1;
        NKT_EXPECT(&a, NK_OK, "add [3,4] + [1,4]");
        a.t[1].dims[0] = 2;
        NKT_EXPECT(&a, NK_ERR_SHAPE, "add [3,4] + [2,4]: no broadcast");
        a.t[1].dims[0] = 1;
        a.t[2].dims[0] = 1;
        NKT_EXPECT(&a, NK_ERR_SHAPE, "add to [1,4]: not the broadcast shape");
    }
    /* i8 pad: value word is an i32 in -128..127 */
    {
        const int32_t p[6] = {0, -7, 1, 0, 2, 1};
        nkt_g8 q;
        memset(&q, 0, sizeof q);
        nkt_g8_init(&q, NK_OP_PAD, 1, p, 6);
        nkt_t(&q, 0, NK_I8, 2, 2, 3, 0, 0, NULL);
        nkt_t(&q, 1, NK_I8, 2, 5, 4, 0, 0, NULL);
        NKT_EXPECT(&q, NK_OK, "pad -7 (a NaN as f32)");
        q.params[1] = 128;
        NKT_EXPECT(&q, NK_ERR_UNSUPPORTED, "pad value 128");
        q.params[1] = 0;
        q.t[1].dims[0] = 4;
        NKT_EXPECT(&q, NK_ERR_SHAPE, "pad output dims");
        q.t[1].dims[0] = 5;
        q.t[1].dtype = NK_F32;
        NKT_EXPECT(&q, NK_ERR_DTYPE, "pad i8 -> f32");
    }
    /* quantize f32 -> i8 needs the output's QUANT record; dequantize the input's */
    {
        nkt_g8 q;
        memset(&q, 0, sizeof q);
        nkt_g8_init(&q, NK_OP_QUANTIZE, 1, NULL, 0);
        nkt_t(&q, 0, NK_F32, 1, 8, 0, 0, 0, NULL);
        nkt_t(&q, 1, NK_I8, 1, 8, 0, 0, 0, NULL);
        NKT_EXPECT(&q, NK_ERR_FORMAT, "quantize without QUANT");
        q.t[1].quant = 0;
        NKT_EXPECT(&q, NK_OK, "quantize");
        q.t[1].dtype = NK_I16;
        NKT_EXPECT(&q, NK_ERR_DTYPE, "quantize to i16");
        nkt_g8_init(&q, NK_OP_DEQUANTIZE, 1, NULL, 0);
        nkt_t(&q, 0, NK_I8, 1, 8, 0, 0, 0, NULL);
        nkt_t(&q, 1, NK_F32, 1, 8, 0, 0, 0, NULL);
        NKT_EXPECT(&q, NK_ERR_FORMAT, "dequantize without QUANT");
        q.t[0].quant = 0;
        NKT_EXPECT(&q, NK_OK, "dequantize");
    }
}

/* ---- hand cases ---- */

/* 1x1 conv, one channel: out = requantize((x - in_zp) * w + bias) + out_zp
 * with M = 2^30 (one half), shift 0. x = 10: (10-2)*3 + 4 = 28 -> 14 -> 13.
 * x = -5: (-7)*3 + 4 = -17 -> -8.5, which TFLite's doubling high multiply
 * rounds half up to -8 -> -9. */
static void nkt_conv_hand(void) {
    static const int32_t p[13] = {1, 1, 1, 1, 0, 0, 0, 0, 1, 2, -1, -128, 127};
    static const int8_t w[1] = {3};
    static const int32_t bias[1] = {4}, m[1] = {1 << 30}, sh[1] = {0};
    int8_t x[2] = {10, -5}, y[2] = {0, 0};
    void *data[6];
    nkt_g8 g;
    memset(&g, 0, sizeof g);
    nkt_g8_init(&g, NK_OP_CONV2D_I8, 5, p, 13);
    nkt_t(&g, 0, NK_I8, 4, 1, 1, 2, 1, NULL);
    nkt_t(&g, 1, NK_I8, 4, 1, 1, 1, 1, w);
    nkt_t(&g, 2, NK_I32, 1, 1, 0, 0, 0, bias);
    nkt_t(&g, 3, NK_I32, 1, 1, 0, 0, 0, m);
    nkt_t(&g, 4, NK_I32, 1, 1, 0, 0, 0, sh);
    nkt_t(&g, 5, NK_I8, 4, 1, 1, 2, 1, NULL);
    NKT_EXPECT(&g, NK_OK, "hand conv");
    data[0] = x;
    data[1] = (void *)(uintptr_t)w;
    data[2] = (void *)(uintptr_t)bias;
    data[3] = (void *)(uintptr_t)m;
    data[4] = (void *)(uintptr_t)sh;
    data[5] = y;
    nkt_g8_eval(&g, data);
    NKT_CHECK(y[0] == 13 && y[1] == -9, "hand conv: %d %d, want 13 -9", y[0], y[1]);

    /* Padding contributes nothing: a 3x1 kernel of ones over one pixel x = 7
     * with one row of padding above and below, in_zp 3: (7 - 3) = 4, not
     * 4 + 2 * (0 - 3). M = 2^30 with shift 1 is exactly 1. Depthwise and
     * conv agree. */
    {
        static const int32_t pp[13] = {1, 1, 1, 1, 1, 0, 1, 0, 1, 3, 0, -128, 127};
        static const int8_t ones[3] = {1, 1, 1};
        static const int32_t one_sh[1] = {1};
        int8_t px[1] = {7}, py[1] = {0};
        int k;
        for (k = 0; k < 2; k++) {
            memset(&g, 0, sizeof g);
            nkt_g8_init(&g, k ? NK_OP_DEPTHWISE_CONV2D_I8 : NK_OP_CONV2D_I8, 5, pp, 13);
            nkt_t(&g, 0, NK_I8, 4, 1, 1, 1, 1, NULL);
            nkt_t(&g, 1, NK_I8, 4, 1, 3, 1, 1, ones);
            nkt_t(&g, 2, NK_I32, 1, 1, 0, 0, 0, bias);
            nkt_t(&g, 3, NK_I32, 1, 1, 0, 0, 0, m);
            nkt_t(&g, 4, NK_I32, 1, 1, 0, 0, 0, one_sh);
            nkt_t(&g, 5, NK_I8, 4, 1, 1, 1, 1, NULL);
            g.in_ids[2] = NK_NONE;
            NKT_EXPECT(&g, NK_OK, "padded conv");
            data[0] = px;
            data[1] = (void *)(uintptr_t)ones;
            data[3] = (void *)(uintptr_t)m;
            data[4] = (void *)(uintptr_t)one_sh;
            data[5] = py;
            py[0] = 0;
            nkt_g8_eval(&g, data);
            NKT_CHECK(py[0] == 4, "padded %s: %d, want 4", k ? "depthwise" : "conv", py[0]);
        }
    }
}

/* Average pool rounds half away from zero over the valid taps only: a 2x2
 * window with padding over x = {1, 2} (one row) gives 3/2 -> 2, and
 * {-1, -2} gives -3/2 -> -2. Max pool then clamps to [act_min, act_max]. */
static void nkt_pool_hand(void) {
    /* kernel 1x2, stride 1x2, no pads; clamp [-128, 127] */
    static const int32_t p[10] = {1, 2, 1, 2, 0, 0, 0, 0, -128, 127};
    int8_t x[4] = {1, 2, -1, -2}, y[2] = {0, 0};
    void *data[2];
    nkt_g8 g;
    memset(&g, 0, sizeof g);
    nkt_g8_init(&g, NK_OP_AVG_POOL2D_I8, 1, p, 10);
    nkt_t(&g, 0, NK_I8, 4, 1, 1, 4, 1, NULL);
    nkt_t(&g, 1, NK_I8, 4, 1, 1, 2, 1, NULL);
    NKT_EXPECT(&g, NK_OK, "avg pool");
    data[0] = x;
    data[1] = y;
    nkt_g8_eval(&g, data);
    NKT_CHECK(y[0] == 2 && y[1] == -2, "avg pool: %d %d, want 2 -2", y[0], y[1]);
    /* padded window: kernel 1x3 with a pad on the left over {5, 6, ...}:
     * the first window holds 5 and 6 only: 11/2 -> 6 (not 11/3 -> 4) */
    {
        static const int32_t pp[10] = {1, 3, 1, 2, 0, 1, 0, 0, -128, 127};
        int8_t px[3] = {5, 6, 9}, py[2] = {0, 0};
        memset(&g, 0, sizeof g);
        nkt_g8_init(&g, NK_OP_AVG_POOL2D_I8, 1, pp, 10);
        nkt_t(&g, 0, NK_I8, 4, 1, 1, 3, 1, NULL);
        nkt_t(&g, 1, NK_I8, 4, 1, 1, 1, 1, NULL);
        NKT_EXPECT(&g, NK_OK, "padded avg pool");
        data[0] = px;
        data[1] = py;
        nkt_g8_eval(&g, data);
        NKT_CHECK(py[0] == 6, "padded avg pool: %d, want 6", py[0]);
    }
    {
        static const int32_t mp[10] = {1, 2, 1, 2, 0, 0, 0, 0, -1, 1};
        int8_t mx[4] = {-7, -9, 100, 3}, my[2] = {0, 0};
        memset(&g, 0, sizeof g);
        nkt_g8_init(&g, NK_OP_MAX_POOL2D_I8, 1, mp, 10);
        nkt_t(&g, 0, NK_I8, 4, 1, 1, 4, 1, NULL);
        nkt_t(&g, 1, NK_I8, 4, 1, 1, 2, 1, NULL);
        NKT_EXPECT(&g, NK_OK, "max pool");
        data[0] = mx;
        data[1] = my;
        nkt_g8_eval(&g, data);
        NKT_CHECK(my[0] == -1 && my[1] == 1, "max pool: %d %d, want -1 1", my[0], my[1]);
    }
    {
        /* dilation 2 along W: the window {0, 2} then {1, 3}; 12 words */
        static const int32_t dp[12] = {1, 2, 1, 1, 0, 0, 0, 0, -128, 127, 1, 2};
        int8_t dx[4] = {-7, 100, 3, -9}, dy[2] = {0, 0};
        memset(&g, 0, sizeof g);
        nkt_g8_init(&g, NK_OP_MAX_POOL2D_I8, 1, dp, 12);
        nkt_t(&g, 0, NK_I8, 4, 1, 1, 4, 1, NULL);
        nkt_t(&g, 1, NK_I8, 4, 1, 1, 2, 1, NULL);
        NKT_EXPECT(&g, NK_OK, "dilated max pool");
        data[0] = dx;
        data[1] = dy;
        nkt_g8_eval(&g, data);
        NKT_CHECK(dy[0] == 3 && dy[1] == 100, "dilated max pool: %d %d, want 3 100", dy[0], dy[1]);
        /* the average pool has no dilation words */
        g.op.type = NK_OP_AVG_POOL2D_I8;
        NKT_EXPECT(&g, NK_ERR_FORMAT, "avg pool with 12 words");
    }
}

/* i8 pad with a negative quantized value, and transpose. */
static void nkt_shape_hand(void) {
    static const int32_t p[6] = {0, -7, 1, 0, 0, 1}; /* one row before, one column after */
    static const int32_t perm[2] = {1, 0};
    const int8_t x[4] = {1, 2, 3, 4};
    int8_t y[9], t[4];
    const int8_t want[9] = {-7, -7, -7, 1, 2, -7, 3, 4, -7};
    void *data[2];
    nkt_g8 g;
    int i;
    memset(&g, 0, sizeof g);
    nkt_g8_init(&g, NK_OP_PAD, 1, p, 6);
    nkt_t(&g, 0, NK_I8, 2, 2, 2, 0, 0, NULL);
    nkt_t(&g, 1, NK_I8, 2, 3, 3, 0, 0, NULL);
    NKT_EXPECT(&g, NK_OK, "pad");
    data[0] = (void *)(uintptr_t)x;
    data[1] = y;
    nkt_g8_eval(&g, data);
    for (i = 0; i < 9; i++)
        NKT_CHECK(y[i] == want[i], "pad [%d]: %d, want %d", i, y[i], want[i]);
    memset(&g, 0, sizeof g);
    nkt_g8_init(&g, NK_OP_TRANSPOSE, 1, perm, 2);
    nkt_t(&g, 0, NK_I8, 2, 2, 2, 0, 0, NULL);
    nkt_t(&g, 1, NK_I8, 2, 2, 2, 0, 0, NULL);
    NKT_EXPECT(&g, NK_OK, "transpose");
    data[1] = t;
    nkt_g8_eval(&g, data);
    NKT_CHECK(t[0] == 1 && t[1] == 3 && t[2] == 2 && t[3] == 4, "transpose: %d %d %d %d", t[0],
              t[1], t[2], t[3]);
}

/* LUT_I8 maps every int8 value through its table; the table must be a
 * constant of 256 values. */
static void nkt_lut_hand(void) {
    static int8_t table[256];
    int8_t x[256], y[256];
    void *data[3];
    nkt_g8 g;
    int i;
    for (i = 0; i < 256; i++) {
        table[i] = (int8_t)(127 - i); /* x -> -1 - x */
        x[i] = (int8_t)(i - 128);
    }
    memset(&g, 0, sizeof g);
    nkt_g8_init(&g, NK_OP_LUT_I8, 2, NULL, 0);
    nkt_t(&g, 0, NK_I8, 2, 16, 16, 0, 0, NULL);
    nkt_t(&g, 1, NK_I8, 1, 256, 0, 0, 0, table);
    nkt_t(&g, 2, NK_I8, 2, 16, 16, 0, 0, NULL);
    NKT_EXPECT(&g, NK_OK, "lut_i8");
    data[0] = x;
    data[1] = table;
    data[2] = y;
    nkt_g8_eval(&g, data);
    for (i = 0; i < 256; i++)
        NKT_CHECK(y[i] == (int8_t)(-1 - x[i]), "lut_i8 [%d]: %d", i, y[i]);
    nkt_t(&g, 1, NK_I8, 1, 256, 0, 0, 0, NULL);
    NKT_EXPECT(&g, NK_ERR_SHAPE, "lut_i8 with a computed table");
    nkt_t(&g, 1, NK_I8, 1, 255, 0, 0, 0, table);
    NKT_EXPECT(&g, NK_ERR_SHAPE, "lut_i8 with 255 entries");
}

int main(void) {
    size_t i;
    for (i = 0; i < NKT_COUNT(nkt_i8_table); i++) {
        const nkt_expect_i8 *e = &nkt_i8_table[i];
        const nk_op_def *d = nk_op_lookup(e->type, e->dtype);
        NKT_CHECK(d != NULL, "type %u has no %s entry", e->type,
                  nk_dtype_str((nk_dtype)e->dtype));
        if (!d)
            continue;
        NKT_CHECK(strcmp(d->name, e->name) == 0, "type %u named %s", e->type, d->name);
        NKT_CHECK(d->flags == e->flags, "%s flags %u", d->name, d->flags);
        NKT_CHECK(d->min_in == e->min_in && d->max_in == e->max_in, "%s inputs", d->name);
        NKT_CHECK(d->n_out == 1 && d->min_params == e->min_params, "%s params", d->name);
        NKT_CHECK(d->validate && d->workspace_size && (d->macs != NULL) == NK_OPS_MACS && d->eval, "%s callbacks",
                  d->name);
    }
    for (i = 64; i <= 73; i++)
        NKT_CHECK(nk_op_lookup((uint32_t)i, NK_F32) == NULL, "type %u has an f32 entry",
                  (unsigned)i);
    NKT_CHECK(nk_op_lookup(79, NK_I8) == NULL, "type 79");
    NKT_CHECK(nk_op_lookup(78, NK_F32) == NULL, "reduce_mean_i8 of f32");
    NKT_CHECK(nk_op_lookup(77, NK_I16) == NULL, "svdf_i8 of i16");
    NKT_CHECK(nk_op_lookup(76, NK_F32) == NULL, "lut_i8 of f32");
    NKT_CHECK(nk_op_lookup(75, NK_F32) == NULL, "dequantize of f32");
    nkt_validate_rejections();
    nkt_mean_rejections();
    nkt_conv_hand();
    nkt_pool_hand();
    nkt_shape_hand();
    nkt_lut_hand();
    return nkt_finish("ops_i8");
}

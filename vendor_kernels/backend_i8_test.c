/*
 * backend_i8_test.c — every int8 entry of the build's vendor backend
 * (nk_backend_impls, csrc/backend.h) against the core's portable kernel on
 * random one-op cases: shapes, strides, dilations, pads (TFLite's SAME and
 * VALID splits and arbitrary ones), groups, multipliers, zero points and
 * clamps from a fixed seed. The portable kernels are the oracle (they are
 * bit-exact with TFLite, checked elsewhere against TFLite's reference);
 * every output byte must match wherever supports() accepts the case, and
 * each entry must accept some cases, so the test cannot pass by refusing.
 * Built with the backend's option (CMakeLists.txt), on the host and on the
 * cross targets under QEMU, where the library's DSP/MVE paths run.
 */
#include "backend.h"
#include "ops/ops_i8.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef NKB_CASES
#define NKB_CASES 300 /* per op */
#endif

static int nkb_failures;

static uint32_t nkb_rng = 0x6e6b7631u;
static uint32_t nkb_next(void) { /* xorshift32 */
    nkb_rng ^= nkb_rng << 13;
    nkb_rng ^= nkb_rng >> 17;
    nkb_rng ^= nkb_rng << 5;
    return nkb_rng;
}
static int32_t nkb_between(int32_t lo, int32_t hi) {
    return lo + (int32_t)(nkb_next() % (uint32_t)(hi - lo + 1));
}
static int nkb_chance(int percent) { return nkb_between(1, 100) <= percent; }

/* One op over tensors 0..n_in-1 (inputs) and n_in (output). */
typedef struct nkb_case {
    nk_tensor_rt t[NK_OP_MAX_IN + 1];
    uint32_t in_ids[NK_OP_MAX_IN], out_id;
    uint32_t params[16];
    nk_op_rt op;
    void *data[NK_OP_MAX_IN + 1];
} nkb_case;

static void nkb_tensor(nkb_case *c, uint32_t id, uint8_t dtype, int32_t rank, const int32_t *dims) {
    nk_tensor_rt *t = &c->t[id];
    int32_t i;
    memset(t, 0, sizeof *t);
    t->name = NK_NONE;
    t->dtype = dtype;
    t->rank = (uint8_t)rank;
    t->elems = 1;
    for (i = 0; i < rank; i++) {
        t->dims[i] = dims[i];
        t->elems *= (uint32_t)dims[i];
    }
    t->quant = NK_NONE;
    c->data[id] = malloc(nk_tensor_bytes(t) ? nk_tensor_bytes(t) : 1u); /* nk-alloc-ok: test program, not the library */
    if (id < c->op.n_in) {
        uint32_t k;
        t->is_const = id > 0;
        for (k = 0; k < nk_tensor_bytes(t); k++)
            ((uint8_t *)c->data[id])[k] = (uint8_t)nkb_next();
    }
}

static void nkb_begin(nkb_case *c, uint16_t type, uint8_t n_in, uint16_t n_params) {
    uint32_t i;
    memset(c, 0, sizeof *c);
    c->op.type = type;
    c->op.n_in = n_in;
    c->op.n_out = 1;
    c->op.n_params = n_params;
    c->op.name = "";
    for (i = 0; i < n_in; i++)
        c->in_ids[i] = i;
    c->out_id = n_in;
    c->op.in = c->in_ids;
    c->op.out = &c->out_id;
    c->op.params = c->params;
}

static void nkb_end(nkb_case *c) {
    uint32_t i;
    for (i = 0; i <= c->op.n_in; i++)
        free(c->data[i]); /* nk-alloc-ok: test program, not the library */
}

/* A requantization multiplier in [2^30, 2^31) and shift. */
static void nkb_mult(int32_t *m, int32_t *shift, int32_t lo, int32_t hi) {
    *m = (int32_t)((1u << 30) | (nkb_next() & ((1u << 30) - 1u)));
    *shift = nkb_between(lo, hi);
}

/* Output zero point and clamp: none, relu-like or a random window. */
static void nkb_out_params(uint32_t *p) {
    int32_t zp = nkb_between(-128, 127), lo = -128, hi = 127;
    int kind = nkb_between(0, 2);
    if (kind == 1)
        lo = zp;
    else if (kind == 2) {
        lo = nkb_between(-128, 100);
        hi = nkb_between(lo, 127);
    }
    p[0] = (uint32_t)zp;
    p[1] = (uint32_t)lo;
    p[2] = (uint32_t)hi;
}

/* A window along one axis: kernel, stride, dilation, pads, giving out >= 1. */
static int nkb_axis(int32_t in, int32_t k, int32_t s, int32_t d, int32_t *pa, int32_t *pb,
                    int32_t *out) {
    const int32_t ek = d * (k - 1) + 1;
    int mode = nkb_between(0, 2);
    if (mode == 0) { /* VALID */
        *pa = *pb = 0;
    } else if (mode == 1) { /* SAME: TFLite's split, the odd one after */
        int32_t o = (in + s - 1) / s, total = (o - 1) * s + ek - in;
        if (total < 0)
            total = 0;
        *pa = total / 2;
        *pb = total - *pa;
    } else { /* arbitrary */
        *pa = nkb_between(0, k);
        *pb = nkb_between(0, k);
    }
    if (in + *pa + *pb < ek)
        return 0;
    *out = (in + *pa + *pb - ek) / s + 1;
    return 1;
}

/* conv2d_i8 / depthwise_conv2d_i8 */
static int nkb_make_conv(nkb_case *c, uint16_t type) {
    const int dw = type == NK_OP_DEPTHWISE_CONV2D_I8;
    int32_t n = nkb_chance(15) ? 2 : 1, h = nkb_chance(25) ? 1 : nkb_between(1, 10),
            w = nkb_between(1, 10), cin, cout, kh, kw, sh, sw, dh, dw_, pt, pb, pl, pr, oh, ow,
            groups = 1, mult = 1, depth, i;
    int32_t dx[4], dwt[4], dc[1], dy[4];
    int per_channel = nkb_chance(80);
    kh = h == 1 ? 1 : nkb_between(1, 4);
    kw = nkb_between(1, 4);
    if (nkb_chance(20))
        kh = kw = 1;
    sh = nkb_between(1, 3);
    sw = nkb_between(1, 3);
    dh = nkb_chance(15) ? 2 : 1;
    dw_ = nkb_chance(15) ? 2 : 1;
    if (!nkb_axis(h, kh, sh, dh, &pt, &pb, &oh) || !nkb_axis(w, kw, sw, dw_, &pl, &pr, &ow))
        return 0;
    if (dw) {
        cin = nkb_chance(20) ? 1 : nkb_between(1, 12); /* MVE turns C=1 into a conv */
        mult = nkb_chance(70) ? 1 : nkb_between(2, 3);
        cout = cin * mult;
        depth = kh * kw;
    } else {
        groups = nkb_chance(15) ? nkb_between(2, 3) : 1;
        cin = groups * nkb_between(1, 8);
        cout = groups * nkb_between(1, 6);
        depth = kh * kw * (cin / groups);
    }
    nkb_begin(c, type, 5, 13);
    c->params[0] = (uint32_t)sh;
    c->params[1] = (uint32_t)sw;
    c->params[2] = (uint32_t)dh;
    c->params[3] = (uint32_t)dw_;
    c->params[4] = (uint32_t)pt;
    c->params[5] = (uint32_t)pl;
    c->params[6] = (uint32_t)pb;
    c->params[7] = (uint32_t)pr;
    c->params[8] = (uint32_t)(dw ? mult : groups);
    c->params[9] = (uint32_t)nkb_between(-128, 127);
    nkb_out_params(&c->params[10]);
    dx[0] = n, dx[1] = h, dx[2] = w, dx[3] = cin;
    if (dw)
        dwt[0] = 1, dwt[1] = kh, dwt[2] = kw, dwt[3] = cout;
    else
        dwt[0] = cout, dwt[1] = kh, dwt[2] = kw, dwt[3] = cin / groups;
    dc[0] = per_channel ? cout : 1;
    dy[0] = n, dy[1] = oh, dy[2] = ow, dy[3] = cout;
    nkb_tensor(c, 0, NK_I8, 4, dx);
    nkb_tensor(c, 1, NK_I8, 4, dwt);
    if (nkb_chance(90)) {
        int32_t db[1];
        db[0] = cout;
        nkb_tensor(c, 2, NK_I32, 1, db);
        for (i = 0; i < cout; i++) /* bias of the size TFLite's have */
            ((int32_t *)c->data[2])[i] = nkb_between(-20000, 20000);
    } else {
        c->in_ids[2] = NK_NONE;
    }
    nkb_tensor(c, 3, NK_I32, 1, dc);
    nkb_tensor(c, 4, NK_I32, 1, dc);
    for (i = 0; i < dc[0]; i++) {
        /* about 2^14 * depth of accumulator onto the int8 range, spread */
        int32_t lg = 0;
        while ((1 << lg) < depth)
            lg++;
        nkb_mult(&((int32_t *)c->data[3])[i], &((int32_t *)c->data[4])[i], -(lg + 9), -(lg + 4));
    }
    nkb_tensor(c, 5, NK_I8, 4, dy);
    return 1;
}

static int nkb_make_dense(nkb_case *c) {
    int32_t rows = nkb_between(1, 3), depth = nkb_between(1, 80), units = nkb_between(1, 24), i,
            lg = 0;
    int32_t dx[2], dwt[2], db[1], dc[1], dy[2];
    dx[0] = rows, dx[1] = depth;
    dwt[0] = units, dwt[1] = depth;
    db[0] = units;
    dc[0] = nkb_chance(50) ? units : 1;
    dy[0] = rows, dy[1] = units;
    nkb_begin(c, NK_OP_DENSE_I8, 5, 4);
    c->params[0] = (uint32_t)nkb_between(-128, 127);
    nkb_out_params(&c->params[1]);
    nkb_tensor(c, 0, NK_I8, 2, dx);
    nkb_tensor(c, 1, NK_I8, 2, dwt);
    if (nkb_chance(90)) {
        nkb_tensor(c, 2, NK_I32, 1, db);
        for (i = 0; i < units; i++)
            ((int32_t *)c->data[2])[i] = nkb_between(-20000, 20000);
    } else {
        c->in_ids[2] = NK_NONE;
    }
    nkb_tensor(c, 3, NK_I32, 1, dc);
    nkb_tensor(c, 4, NK_I32, 1, dc);
    while ((1 << lg) < depth)
        lg++;
    for (i = 0; i < dc[0]; i++)
        nkb_mult(&((int32_t *)c->data[3])[i], &((int32_t *)c->data[4])[i], -(lg + 9), -(lg + 4));
    nkb_tensor(c, 5, NK_I8, 2, dy);
    return 1;
}

static int nkb_make_pool(nkb_case *c, uint16_t type) {
    int32_t n = nkb_chance(15) ? 2 : 1, h = nkb_between(1, 10), w = nkb_between(1, 10),
            ch = nkb_between(1, 12), kh = nkb_between(1, 4), kw = nkb_between(1, 4),
            sh = nkb_between(1, 3), sw = nkb_between(1, 3), pt, pb, pl, pr, oh, ow;
    int32_t dx[4], dy[4];
    if (!nkb_axis(h, kh, sh, 1, &pt, &pb, &oh) || !nkb_axis(w, kw, sw, 1, &pl, &pr, &ow) ||
        pt >= kh || pb >= kh || pl >= kw || pr >= kw)
        return 0;
    nkb_begin(c, type, 1, 10);
    c->params[0] = (uint32_t)kh;
    c->params[1] = (uint32_t)kw;
    c->params[2] = (uint32_t)sh;
    c->params[3] = (uint32_t)sw;
    c->params[4] = (uint32_t)pt;
    c->params[5] = (uint32_t)pl;
    c->params[6] = (uint32_t)pb;
    c->params[7] = (uint32_t)pr;
    {
        uint32_t o[3];
        nkb_out_params(o);
        c->params[8] = o[1];
        c->params[9] = o[2];
    }
    dx[0] = n, dx[1] = h, dx[2] = w, dx[3] = ch;
    dy[0] = n, dy[1] = oh, dy[2] = ow, dy[3] = ch;
    nkb_tensor(c, 0, NK_I8, 4, dx);
    nkb_tensor(c, 1, NK_I8, 4, dy);
    return 1;
}

static int nkb_make_binary(nkb_case *c, uint16_t type) {
    int32_t d[2];
    uint32_t o[3];
    d[0] = nkb_between(1, 4);
    d[1] = nkb_between(1, 40);
    if (type == NK_OP_ADD_I8) {
        int32_t m, s;
        nkb_begin(c, type, 2, 12);
        c->params[0] = (uint32_t)nkb_between(-128, 127);
        c->params[1] = (uint32_t)nkb_between(-128, 127);
        nkb_out_params(o);
        c->params[2] = o[0];
        c->params[3] = 20; /* TFLite's left shift for int8 */
        nkb_mult(&m, &s, -3, 0);
        c->params[4] = (uint32_t)m, c->params[5] = (uint32_t)s;
        nkb_mult(&m, &s, -3, 0);
        c->params[6] = (uint32_t)m, c->params[7] = (uint32_t)s;
        nkb_mult(&m, &s, -22, -17);
        c->params[8] = (uint32_t)m, c->params[9] = (uint32_t)s;
        c->params[10] = o[1];
        c->params[11] = o[2];
    } else {
        int32_t m, s;
        nkb_begin(c, type, 2, 7);
        c->params[0] = (uint32_t)nkb_between(-128, 127);
        c->params[1] = (uint32_t)nkb_between(-128, 127);
        nkb_out_params(o);
        c->params[2] = o[0];
        nkb_mult(&m, &s, -10, -5);
        c->params[3] = (uint32_t)m, c->params[4] = (uint32_t)s;
        c->params[5] = o[1];
        c->params[6] = o[2];
    }
    nkb_tensor(c, 0, NK_I8, 2, d);
    nkb_tensor(c, 1, NK_I8, 2, d);
    c->t[1].is_const = 0; /* an activation, like input 0 */
    nkb_tensor(c, 2, NK_I8, 2, d);
    return 1;
}

static int nkb_make_softmax(nkb_case *c) {
    int32_t d[2], m, s, diff_min;
    d[0] = nkb_between(1, 4);
    d[1] = nkb_between(1, 40);
    /* TFLite's parameters for beta 1 and an input scale in ~[1/512, 1/4]:
     * multiplier >= 2^30 with shift 17..24 (scale * 2^26), and the radius */
    m = (int32_t)((1u << 30) | (nkb_next() & ((1u << 30) - 1u)));
    s = nkb_between(17, 24);
    diff_min = -(int32_t)(((int64_t)31 << 26) >> s);
    nkb_begin(c, NK_OP_SOFTMAX_I8, 1, 3);
    c->params[0] = (uint32_t)m;
    c->params[1] = (uint32_t)s;
    c->params[2] = (uint32_t)diff_min;
    nkb_tensor(c, 0, NK_I8, 2, d);
    nkb_tensor(c, 1, NK_I8, 2, d);
    return 1;
}

static int nkb_make(nkb_case *c, uint16_t type) {
    switch (type) {
    case NK_OP_CONV2D_I8:
    case NK_OP_DEPTHWISE_CONV2D_I8:
        return nkb_make_conv(c, type);
    case NK_OP_DENSE_I8:
        return nkb_make_dense(c);
    case NK_OP_AVG_POOL2D_I8:
    case NK_OP_MAX_POOL2D_I8:
        return nkb_make_pool(c, type);
    case NK_OP_ADD_I8:
    case NK_OP_MUL_I8:
        return nkb_make_binary(c, type);
    case NK_OP_SOFTMAX_I8:
        return nkb_make_softmax(c);
    default:
        return -1; /* no generator: the test fails, so a new entry gets one */
    }
}

static void nkb_print_case(const nkb_case *c) {
    uint32_t i;
    fprintf(stderr, "  params");
    for (i = 0; i < c->op.n_params; i++)
        fprintf(stderr, " %ld", (long)(int32_t)c->params[i]);
    for (i = 0; i <= c->op.n_in; i++) {
        const nk_tensor_rt *t = &c->t[i];
        int32_t k;
        if (i < c->op.n_in && c->in_ids[i] == NK_NONE)
            continue;
        fprintf(stderr, "\n  tensor %lu [", (unsigned long)i);
        for (k = 0; k < t->rank; k++)
            fprintf(stderr, "%s%ld", k ? "," : "", (long)t->dims[k]);
        fprintf(stderr, "]");
    }
    fprintf(stderr, "\n");
}

/* Runs one eval with a fresh workspace of ws bytes; returns its status. */
static nk_status nkb_eval(const nkb_case *c, nk_status (*eval)(const nk_op_rt *, const nk_exec *),
                          size_t ws, void *out) {
    void *data[NK_OP_MAX_IN + 1];
    nk_exec x;
    nk_status s;
    memcpy(data, c->data, sizeof data);
    data[c->op.n_in] = out;
    memset(&x, 0, sizeof x);
    x.tensors = c->t;
    x.data = data;
    x.workspace = ws ? malloc(ws) : NULL; /* nk-alloc-ok: test program, not the library */
    x.workspace_size = ws;
    if (ws)
        memset(x.workspace, 0xA5, ws); /* no reliance on zeroed scratch */
    s = eval(&c->op, &x);
    free(x.workspace); /* nk-alloc-ok: test program, not the library */
    return s;
}

static void nkb_run(const nk_op_impl *impl) {
    const nk_op_def *def = nk_op_lookup(impl->type, impl->dtype);
    int made = 0, supported = 0, mismatched = 0, i;
    if (!def) {
        fprintf(stderr, "%s: no core entry for op %u\n", impl->backend, (unsigned)impl->type);
        nkb_failures++;
        return;
    }
    for (i = 0; i < NKB_CASES * 4 && made < NKB_CASES; i++) {
        nkb_case c;
        nk_error_t err;
        int r = nkb_make(&c, impl->type);
        const nk_tensor_rt *y;
        int8_t *want, *got;
        nk_status s;
        if (r < 0) {
            fprintf(stderr, "%s %s: no case generator\n", impl->backend, def->name);
            nkb_failures++;
            return;
        }
        if (r == 0)
            continue;
        memset(&err, 0, sizeof err);
        if (def->validate(&c.op, c.t, &err) != NK_OK) {
            nkb_end(&c);
            continue;
        }
        made++;
        if (!impl->supports(&c.op, c.t)) {
            nkb_end(&c);
            continue;
        }
        supported++;
        y = &c.t[c.out_id];
        want = (int8_t *)malloc(nk_tensor_bytes(y)); /* nk-alloc-ok: test program, not the library */
        got = (int8_t *)malloc(nk_tensor_bytes(y)); /* nk-alloc-ok: test program, not the library */
        memset(want, 0x55, nk_tensor_bytes(y));
        memset(got, 0xAA, nk_tensor_bytes(y));
        nkb_eval(&c, def->eval, def->workspace_size(&c.op, c.t), want);
        s = nkb_eval(&c, impl->eval, impl->workspace_size ? impl->workspace_size(&c.op, c.t) : 0,
                     got);
        if (s != NK_OK || memcmp(want, got, nk_tensor_bytes(y)) != 0) {
            uint32_t k = 0;
            while (k < nk_tensor_bytes(y) && want[k] == got[k])
                k++;
            if (mismatched++ < 3) {
                fprintf(stderr, "%s %s: case %d: status %d, ", impl->backend, def->name, made,
                        (int)s);
                if (k < nk_tensor_bytes(y))
                    fprintf(stderr, "byte %lu of %lu is %d, portable %d\n", (unsigned long)k,
                            (unsigned long)nk_tensor_bytes(y), got[k], want[k]);
                else
                    fprintf(stderr, "outputs equal\n");
                nkb_print_case(&c);
            }
        }
        free(want); /* nk-alloc-ok: test program, not the library */
        free(got); /* nk-alloc-ok: test program, not the library */
        nkb_end(&c);
    }
    printf("%s %-22s %3d cases, %3d through the backend, %d differ\n", impl->backend, def->name,
           made, supported, mismatched);
    if (mismatched || supported == 0)
        nkb_failures++;
}

int main(void) {
    const nk_op_impl *const *p;
    int n = 0;
    for (p = nk_backend_impls; *p; p++) {
        if ((*p)->dtype != NK_I8)
            continue;
        nkb_run(*p);
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "the backend has no int8 entries\n");
        return 1;
    }
    printf("%s\n", nkb_failures ? "FAIL" : "PASS");
    return nkb_failures ? 1 : 0;
}

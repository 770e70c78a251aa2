/*
 * host_i8_test.c — the int8 kernels of every host SIMD table this CPU runs
 * (x86-64: avx2, avx512, avx512vnni) against the portable int8 kernels, the
 * oracle, on random shapes: conv2d (strides, dilation, padding, batches,
 * 1x1 and general windows), dense (as a 1x1 conv over rows), depthwise and
 * add, with per-channel and per-tensor requantization, positive and
 * negative shifts, random zero points and clamps. Every output byte must be
 * equal, every output written, nothing past the end. Built against the
 * library (its rounding mode) and once more from the unity build with
 * NETKIT_SINGLE_ROUNDING=1, so both rounding modes are checked.
 */
#include "../../../csrc/nk_internal.h"
#include "../../../csrc/kernels/ref/ref_i8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if NETKIT_HOST_KERNELS && defined(__x86_64__)
#include "../../../csrc/kernels/host/host.h"

static int failures = 0, checks = 0;
static uint32_t rng = 0x2468ace1u;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static int32_t rint_(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }

#define GUARD 64
static const int8_t canary = 0x5a;

static int8_t *rand_i8(size_t n) {
    int8_t *p = (int8_t *)malloc(n + 1);
    size_t i;
    for (i = 0; i < n; i++) p[i] = (int8_t)rint_(-128, 127);
    return p;
}
static int8_t *out_buf(size_t n) {
    int8_t *p = (int8_t *)malloc(n + GUARD);
    memset(p, canary, n + GUARD);
    return p;
}

/* per-channel (or one) multipliers and shifts giving outputs around the
 * int8 range for accumulators of `depth` terms; in one case of eight some
 * positive shifts (multipliers above one: single rounding declines them) */
typedef struct quant_case {
    int32_t mult[256], shift[256], bias[256];
    nk_ref_i8_quant q;
} quant_case;

static void rand_quant(quant_case *c, int32_t out_c, size_t depth) {
    const int per_channel = (int)(rnd() % 2u), allow_left = rnd() % 8u == 0;
    const int base = -(int)floor(log2(sqrt((double)depth + 1.0) * 9000.0 / 40.0));
    int32_t i;
    for (i = 0; i < out_c; i++) {
        c->mult[i] = (int32_t)(0x40000000u + rnd() % 0x40000000u);
        c->shift[i] = base + rint_(-2, 2);
        if (allow_left && rnd() % 4u == 0) c->shift[i] = rint_(1, 3); /* saturates; the left shift */
        if (rnd() % 32u == 0) c->mult[i] = 0;
        c->bias[i] = rint_(-20000, 20000);
    }
    c->q.in_zp = rint_(-128, 127);
    c->q.out_zp = rint_(-128, 127);
    c->q.act_min = rint_(-128, 0);
    c->q.act_max = rint_(c->q.act_min, 127);
    if (rnd() % 3u == 0) {
        c->q.act_min = -128;
        c->q.act_max = 127;
    }
    c->q.mult = c->mult;
    c->q.shift = c->shift;
    c->q.per_channel = per_channel;
    c->q.rq_right = 0;
}

static void compare(const char *isa, const char *what, int iter, const int8_t *got,
                    const int8_t *want, size_t n) {
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (bad < 3)
                fprintf(stderr, "%s %s #%d: [%zu] got %d want %d\n", isa, what, iter, i, got[i],
                        want[i]);
            bad++;
        }
    for (i = 0; i < GUARD; i++)
        if (got[n + i] != canary) {
            fprintf(stderr, "%s %s #%d: wrote past the end (+%zu)\n", isa, what, iter, i);
            bad++;
            break;
        }
    checks++;
    if (bad) failures++;
}

/* the single-rounding build declines positive shifts: count how often */
static int declined = 0;

/* the arena's alignment (16) is all the kernels may assume */
static void *aligned_block(size_t n) { return malloc(n == 0 ? 1 : n); }

static void run_conv(const nk_host_kernels *h, const nk_ref_conv_geom *g, const char *what,
                     int iter) {
    const size_t k_n = (size_t)g->k_h * (size_t)g->k_w * (size_t)g->in_c;
    const size_t xn = (size_t)g->batch * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    const size_t yn = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w * (size_t)g->out_c;
    quant_case c;
    int8_t *x = rand_i8(xn), *w = rand_i8(k_n * (size_t)g->out_c);
    int8_t *want = out_buf(yn), *got = out_buf(yn);
    const int32_t *bias;
    size_t ps, ws;
    void *packed, *work;
    rand_quant(&c, g->out_c, k_n);
    bias = rnd() % 4u == 0 ? NULL : c.bias;
    ps = h->conv2d_i8_pack_size(g, &c.q);
    if (ps == 0) {
        declined++;
        free(x); free(w); free(want); free(got);
        return;
    }
    nk_ref_conv2d_i8(x, w, bias, want, g, &c.q, NULL);
    packed = aligned_block(ps);
    ws = h->conv2d_i8_workspace(g);
    work = aligned_block(ws);
    h->conv2d_i8_pack(w, bias, g, &c.q, packed);
    h->conv2d_i8(x, packed, got, g, &c.q, work);
    compare(h->name, what, iter, got, want, yn);
    free(x); free(w); free(want); free(got); free(packed); free(work);
}

static void rand_window(nk_ref_conv_geom *g, int32_t max_k) {
    int32_t ext_h, ext_w;
    g->batch = rint_(1, 2);
    g->k_h = rint_(1, max_k);
    g->k_w = rint_(1, max_k);
    g->stride_h = rint_(1, 3);
    g->stride_w = rint_(1, 3);
    g->dil_h = rnd() % 4u == 0 ? 2 : 1;
    g->dil_w = rnd() % 4u == 0 ? 2 : 1;
    g->in_h = rint_(1, 10);
    g->in_w = rint_(1, 10);
    g->pad_top = rint_(0, g->k_h - 1);
    g->pad_left = rint_(0, g->k_w - 1);
    ext_h = (g->k_h - 1) * g->dil_h + 1;
    ext_w = (g->k_w - 1) * g->dil_w + 1;
    g->out_h = (g->in_h + 2 * g->pad_top - ext_h) / g->stride_h + 1;
    g->out_w = (g->in_w + 2 * g->pad_left - ext_w) / g->stride_w + 1;
    if (g->out_h < 1) g->out_h = 1;
    if (g->out_w < 1) g->out_w = 1;
}

static void test_conv2d(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        nk_ref_conv_geom g;
        memset(&g, 0, sizeof g);
        rand_window(&g, 5);
        if (it % 3 == 0) { /* 1x1, the GEMM case of pointwise layers */
            g.k_h = g.k_w = 1;
            g.pad_top = g.pad_left = 0;
            g.out_h = (g.in_h - 1) / g.stride_h + 1;
            g.out_w = (g.in_w - 1) / g.stride_w + 1;
        }
        g.in_c = rint_(1, it % 5 == 0 ? 80 : 20);
        g.out_c = rint_(4, it % 7 == 0 ? 100 : 40);
        g.groups = 1;
        g.multiplier = 1;
        run_conv(h, &g, "conv2d", it);
    }
    {
        /* groups other than 1 are declined */
        nk_ref_conv_geom g;
        quant_case c;
        memset(&g, 0, sizeof g);
        rand_window(&g, 3);
        g.in_c = 4;
        g.out_c = 4;
        g.groups = 2;
        rand_quant(&c, 4, 8);
        checks++;
        if (h->conv2d_i8_pack_size(&g, &c.q) != 0) {
            failures++;
            fprintf(stderr, "%s: grouped conv not declined\n", h->name);
        }
        /* one output channel would pack mostly zero panels */
        nk_host_dense_i8_geom(&g, 1, 4096, 1);
        checks++;
        if (h->conv2d_i8_pack_size(&g, &c.q) != 0) {
            failures++;
            fprintf(stderr, "%s: dense with one output not declined\n", h->name);
        }
    }
}

static void test_dense(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        nk_ref_conv_geom g;
        const int32_t rows = rint_(1, 9), k = rint_(1, it % 4 == 0 ? 700 : 120);
        const int32_t n = rint_(4, 70);
        nk_host_dense_i8_geom(&g, rows, k, n);
        run_conv(h, &g, "dense", it);
    }
}

static void test_depthwise(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        nk_ref_conv_geom g;
        size_t xn, yn, taps;
        quant_case c;
        int8_t *x, *w, *want, *got;
        const int32_t *bias;
        size_t ps;
        void *packed;
        memset(&g, 0, sizeof g);
        rand_window(&g, 5);
        g.in_c = rint_(1, it % 5 == 0 ? 70 : 24);
        g.groups = 1;
        g.multiplier = 1;
        g.out_c = g.in_c;
        taps = (size_t)g.k_h * (size_t)g.k_w;
        xn = (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)g.in_c;
        yn = (size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w * (size_t)g.out_c;
        rand_quant(&c, g.out_c, taps);
        bias = rnd() % 4u == 0 ? NULL : c.bias;
        ps = h->depthwise_i8_pack_size(&g, &c.q);
        if (ps == 0) {
            declined++;
            continue;
        }
        x = rand_i8(xn);
        w = rand_i8(taps * (size_t)g.out_c);
        want = out_buf(yn);
        got = out_buf(yn);
        nk_ref_depthwise_conv2d_i8(x, w, bias, want, &g, &c.q, NULL);
        packed = aligned_block(ps);
        h->depthwise_i8_pack(w, bias, &g, &c.q, packed);
        h->depthwise_i8(x, w, packed, got, &g, &c.q);
        compare(h->name, "depthwise", it, got, want, yn);
        free(x); free(w); free(want); free(got); free(packed);
    }
    {
        nk_ref_conv_geom g;
        quant_case c;
        memset(&g, 0, sizeof g);
        rand_window(&g, 3);
        g.in_c = 3;
        g.multiplier = 2;
        g.out_c = 6;
        rand_quant(&c, 6, 9);
        checks++;
        if (h->depthwise_i8_pack_size(&g, &c.q) != 0) {
            failures++;
            fprintf(stderr, "%s: depthwise multiplier 2 not declined\n", h->name);
        }
    }
}

static void test_add(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        const size_t n = (size_t)rint_(1, it % 4 == 0 ? 300 : 40);
        nk_ref_add_i8_params p;
        int8_t *a = rand_i8(n), *b = rand_i8(n), *want = out_buf(n), *got = out_buf(n);
        const int in_place = it % 5 == 0;
        p.in1_zp = rint_(-128, 127);
        p.in2_zp = rint_(-128, 127);
        p.out_zp = rint_(-128, 127);
        p.left_shift = 20;
        p.m1 = (int32_t)(0x40000000u + rnd() % 0x40000000u);
        p.m2 = (int32_t)(0x40000000u + rnd() % 0x40000000u);
        p.m_out = (int32_t)(0x40000000u + rnd() % 0x40000000u);
        p.shift1 = rint_(-3, 0);
        p.shift2 = rint_(-3, 0);
        p.shift_out = rint_(-22, -17);
        p.act_min = rint_(-128, 0);
        p.act_max = rint_(p.act_min, 127);
        nk_ref_add_i8(a, b, want, n, &p);
        if (in_place) { /* y == a, as the planner runs it */
            memcpy(got, a, n);
            h->add_i8(got, b, got, n, &p);
        } else {
            h->add_i8(a, b, got, n, &p);
        }
        compare(h->name, "add", it, got, want, n);
        free(a); free(b); free(want); free(got);
    }
}

int main(void) {
    static const char *const names[] = {"avx2", "avx512", "avx512vnni"};
    size_t i;
    int tables = 0;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const nk_host_kernels *h = nk_host_find(names[i]);
        if (h == NULL) {
            printf("%s: not in this build or not supported by this CPU\n", names[i]);
            continue;
        }
        tables++;
        test_conv2d(h, 300);
        test_dense(h, 300);
        test_depthwise(h, 300);
        test_add(h, 200);
        printf("%s: int8 kernels byte-identical to the portable ones\n", h->name);
    }
    if (tables == 0) {
        printf("no host kernel table runs here\n");
        return 77;
    }
    printf("host_i8_test (%s rounding): %d checks, %d failures, %d cases declined\n",
           NETKIT_SINGLE_ROUNDING ? "single" : "double", checks, failures, declined);
    return failures ? 1 : 0;
}
#else
int main(void) {
    printf("built without x86-64 host kernels\n");
    return 77;
}
#endif

/*
 * host_kernels_test.c — every host SIMD kernel table this CPU runs (x86-64:
 * avx2, avx512; aarch64: neon, also under qemu-aarch64) against the
 * portable kernels, the oracle, on random shapes: rows and channel counts
 * that are not multiples of any vector width (tails shorter than a vector),
 * strides, padding, dilation, batches, clamps, in-place add/mul, and the
 * parameters a table declines (grouped conv, depthwise multiplier 2,
 * general broadcasts), which must leave the output untouched. Outputs must
 * match within 1e-5 relative plus 1e-6 of the case's largest magnitude (the
 * per-op tests' tolerance), every output written, nothing past the end.
 * Sums (dense, convs, pools) are reassociated and fused, so where terms
 * cancel, the 1e-6 part is of the output's sum of |terms| (the same kernel
 * run on |x|, |w|, |bias|): the rounding error both orders carry.
 */
#include "../../../csrc/nk_internal.h"
#include "../../../csrc/kernels/ref/ref_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if NETKIT_HOST_KERNELS
#include "../../../csrc/kernels/host/host.h"

static int failures = 0, checks = 0;
static uint32_t rng = 0x12345678u;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
/* uniform in [lo, hi] */
static int32_t rint_(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }
static float rflt(void) { return (float)(rnd() % 20001u) / 10000.0f - 1.0f; }

#define GUARD 64 /* floats past each output that must stay untouched */
static const float canary = -12345.5f;

static float *rand_buf(size_t n) {
    float *p = (float *)malloc((n + 1) * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++) p[i] = rflt();
    return p;
}
/* an output block: NaN (so an unwritten value fails) then the guard */
static float *out_buf(size_t n) {
    float *p = (float *)malloc((n + GUARD) * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++) p[i] = NAN;
    for (i = 0; i < GUARD; i++) p[n + i] = canary;
    return p;
}

static void clamps(float *lo, float *hi) {
    switch (rnd() % 3u) {
    case 0: *lo = -INFINITY; *hi = INFINITY; break;
    case 1: *lo = 0.0f; *hi = INFINITY; break;
    default: *lo = -0.3f; *hi = 0.4f; break;
    }
}

/* |p[0..n)| in a new block (NULL stays NULL) */
static float *abs_copy(const float *p, size_t n) {
    float *q;
    size_t i;
    if (p == NULL) return NULL;
    q = (float *)malloc((n + 1) * sizeof(float));
    for (i = 0; i < n; i++) q[i] = fabsf(p[i]);
    return q;
}

/* mag: per output, the sum of |terms| (or NULL: none cancel) */
static void compare_mag(const char *isa, const char *what, int iter, const float *got,
                        const float *want, const float *mag, size_t n) {
    float scale = 1.0f;
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        if (fabsf(want[i]) > scale) scale = fabsf(want[i]);
    for (i = 0; i < n; i++) {
        const float tol = 1e-5f * fabsf(want[i]) + 1e-6f * (mag && mag[i] > scale ? mag[i] : scale);
        if (!(fabsf(got[i] - want[i]) <= tol)) {
            if (bad < 3)
                fprintf(stderr, "  %s %s #%d: [%zu] got %.9g want %.9g\n", isa, what, iter, i,
                        (double)got[i], (double)want[i]);
            bad++;
        }
    }
    for (i = 0; i < GUARD; i++)
        if (got[n + i] != canary) {
            bad++;
            fprintf(stderr, "  %s %s #%d: wrote past the output\n", isa, what, iter);
            break;
        }
    checks++;
    if (bad) {
        failures++;
        fprintf(stderr, "%s %s #%d: %zu of %zu values differ\n", isa, what, iter, bad, n);
    }
}

static void compare(const char *isa, const char *what, int iter, const float *got,
                    const float *want, size_t n) {
    compare_mag(isa, what, iter, got, want, NULL, n);
}

static void test_dense(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        const size_t rows = (size_t)rint_(1, 14);
        const int32_t k = rint_(1, 80), n = rint_(1, 70);
        float lo, hi, *x = rand_buf(rows * (size_t)k), *w = rand_buf((size_t)n * (size_t)k);
        float *b = (rnd() & 1u) ? rand_buf((size_t)n) : NULL;
        float *want = out_buf(rows * (size_t)n), *got = out_buf(rows * (size_t)n);
        float *packed = (float *)malloc(h->dense_pack_size(k, n));
        float *ax = abs_copy(x, rows * (size_t)k), *aw = abs_copy(w, (size_t)n * (size_t)k);
        float *ab = abs_copy(b, (size_t)n), *mag = out_buf(rows * (size_t)n);
        clamps(&lo, &hi);
        h->dense_pack(w, k, n, packed);
        nk_ref_dense_f32(x, w, b, want, rows, k, n, lo, hi);
        nk_ref_dense_f32(ax, aw, ab, mag, rows, k, n, -INFINITY, INFINITY);
        h->dense_f32(x, packed, b, got, rows, k, n, lo, hi);
        compare_mag(h->name, "dense", it, got, want, mag, rows * (size_t)n);
        free(x); free(w); free(b); free(want); free(got); free(packed);
        free(ax); free(aw); free(ab); free(mag);
    }
}

/* A random window over a random NHWC input whose output is at least 1x1. */
static void rand_geom(nk_ref_conv_geom *g, int32_t max_k, int pool) {
    memset(g, 0, sizeof *g);
    for (;;) {
        int32_t pb, pr, eh, ew;
        g->batch = rint_(1, 2);
        g->in_h = rint_(1, 13);
        g->in_w = rint_(1, 19);
        g->in_c = rint_(1, 37);
        g->k_h = rint_(1, max_k);
        g->k_w = rint_(1, max_k);
        g->stride_h = rint_(1, 3);
        g->stride_w = rint_(1, 3);
        g->dil_h = pool ? 1 : rint_(1, 2);
        g->dil_w = pool ? 1 : rint_(1, 2);
        /* pools: pads below the kernel, so every window holds a pixel */
        g->pad_top = rint_(0, pool ? g->k_h - 1 : 2);
        g->pad_left = rint_(0, pool ? g->k_w - 1 : 2);
        pb = rint_(0, pool ? g->k_h - 1 : 2);
        pr = rint_(0, pool ? g->k_w - 1 : 2);
        eh = (g->k_h - 1) * g->dil_h + 1;
        ew = (g->k_w - 1) * g->dil_w + 1;
        if (g->in_h + g->pad_top + pb < eh || g->in_w + g->pad_left + pr < ew) continue;
        g->out_h = (g->in_h + g->pad_top + pb - eh) / g->stride_h + 1;
        g->out_w = (g->in_w + g->pad_left + pr - ew) / g->stride_w + 1;
        break;
    }
    g->groups = 1;
    g->multiplier = 1;
    g->count_include_pad = (int32_t)(rnd() & 1u);
    clamps(&g->act_min, &g->act_max);
}

static size_t in_elems(const nk_ref_conv_geom *g) {
    return (size_t)g->batch * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
}
static size_t out_elems(const nk_ref_conv_geom *g) {
    return (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w * (size_t)g->out_c;
}

static void test_conv2d(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        nk_ref_conv_geom g;
        size_t nw, ws_n;
        float *x, *w, *b, *want, *got, *packed, *ws;
        rand_geom(&g, 4, 0);
        if (it % 4 == 0) { /* 1x1 and 3x3, the shapes models use most */
            g.k_h = g.k_w = (it % 8 == 0) ? 1 : 3;
            g.dil_h = g.dil_w = 1;
            g.pad_top = g.pad_left = g.k_h / 2;
            g.out_h = (g.in_h + 2 * g.pad_top - g.k_h) / g.stride_h + 1;
            g.out_w = (g.in_w + 2 * g.pad_left - g.k_w) / g.stride_w + 1;
        }
        g.in_c = rint_(1, 12);
        g.out_c = rint_(1, 40);
        if (it % 32 == 6) { /* the Fashion CNN's second conv, 14x14 16->32 (Winograd on AVX2) */
            g.in_h = g.in_w = g.out_h = g.out_w = 14;
            g.k_h = g.k_w = 3;
            g.stride_h = g.stride_w = g.dil_h = g.dil_w = 1;
            g.pad_top = g.pad_left = 1;
            g.in_c = 16;
            g.out_c = 32;
        }
        if (it % 8 == 2) { /* one-channel stems: 3 undilated columns at stride 1 */
            const int32_t pad = rint_(0, 2);
            g.in_c = 1;
            g.k_w = 3;
            g.dil_w = g.stride_w = 1;
            g.in_w = rint_(1, 40);
            g.pad_left = pad;
            if (g.in_w + 2 * pad < 3) g.in_w = 3;
            g.out_w = g.in_w + 2 * pad - 2;
            if (it % 32 == 2) { /* the Fashion CNN's stem, 28x28 1->16 */
                g.in_h = g.in_w = 28;
                g.k_h = 3;
                g.dil_h = g.stride_h = 1;
                g.pad_top = g.pad_left = 1;
                g.out_h = g.out_w = 28;
                g.out_c = 16;
            }
        }
        nw = (size_t)g.out_c * (size_t)g.k_h * (size_t)g.k_w * (size_t)g.in_c;
        x = rand_buf(in_elems(&g));
        w = rand_buf(nw);
        b = (rnd() & 1u) ? rand_buf((size_t)g.out_c) : NULL;
        want = out_buf(out_elems(&g));
        got = out_buf(out_elems(&g));
        packed = (float *)malloc(h->conv2d_pack_size(&g));
        ws_n = h->conv2d_workspace(&g);
        ws = ws_n ? (float *)malloc(ws_n) : NULL;
        h->conv2d_pack(w, &g, packed);
        nk_ref_conv2d_f32(x, w, b, want, &g);
        h->conv2d_f32(x, packed, b, got, &g, ws);
        {
            nk_ref_conv_geom ga = g;
            float *ax = abs_copy(x, in_elems(&g)), *aw = abs_copy(w, nw);
            float *ab = abs_copy(b, (size_t)g.out_c), *mag = out_buf(out_elems(&g));
            ga.act_min = -INFINITY;
            ga.act_max = INFINITY;
            nk_ref_conv2d_f32(ax, aw, ab, mag, &ga);
            compare_mag(h->name, "conv2d", it, got, want, mag, out_elems(&g));
            free(ax); free(aw); free(ab); free(mag);
        }
        free(x); free(w); free(b); free(want); free(got); free(packed); free(ws);
    }
    { /* grouped: no packed kernel, the op runs the portable one */
        nk_ref_conv_geom g;
        rand_geom(&g, 3, 0);
        g.groups = 2;
        checks++;
        if (h->conv2d_pack_size(&g) != 0) {
            failures++;
            fprintf(stderr, "%s conv2d: a grouped conv got a packed kernel\n", h->name);
        }
    }
}

static void test_depthwise(const nk_host_kernels *h, int iters) {
    int it, flat_runs = 0;
    for (it = 0; it < iters; it++) {
        nk_ref_conv_geom g;
        float *x, *w, *b, *want, *got;
        int handled;
        rand_geom(&g, 4, 0);
        /* every fifth: 3x3, stride_w 1 and 8 to 24 channels, the flat-row
         * kernel's register-resident case (3x3, period of up to 3 vectors) */
        while (it % 5 == 4 && (g.k_h != 3 || g.k_w != 3 || g.stride_w != 1)) rand_geom(&g, 4, 0);
        if (it % 5 == 4) {
            static const int32_t chans[] = {8, 12, 24, 6, 3, 20};
            g.in_c = chans[(it / 5) % 6];
        }
        g.multiplier = (it % 10 == 9) ? 2 : 1;
        g.out_c = g.in_c * g.multiplier;
        x = rand_buf(in_elems(&g));
        w = rand_buf((size_t)g.k_h * (size_t)g.k_w * (size_t)g.out_c);
        b = (rnd() & 1u) ? rand_buf((size_t)g.out_c) : NULL;
        want = out_buf(out_elems(&g));
        got = out_buf(out_elems(&g));
        nk_ref_depthwise_conv2d_f32(x, w, b, want, &g);
        handled = h->depthwise_conv2d_f32(x, w, b, got, &g);
        if (g.multiplier == 1) {
            checks++;
            if (!handled) {
                failures++;
                fprintf(stderr, "%s depthwise #%d: declined multiplier 1\n", h->name, it);
            }
            nk_ref_conv_geom ga = g;
            const size_t nw = (size_t)g.k_h * (size_t)g.k_w * (size_t)g.out_c;
            float *ax = abs_copy(x, in_elems(&g)), *aw = abs_copy(w, nw);
            float *ab = abs_copy(b, (size_t)g.out_c), *mag = out_buf(out_elems(&g));
            ga.act_min = -INFINITY;
            ga.act_max = INFINITY;
            nk_ref_depthwise_conv2d_f32(ax, aw, ab, mag, &ga);
            compare_mag(h->name, "depthwise", it, got, want, mag, out_elems(&g));
            if (h->depthwise_pack_size(&g) != 0) { /* few channels: the flat-row kernel */
                float *packed = (float *)malloc(h->depthwise_pack_size(&g));
                float *ws = (float *)malloc(h->depthwise_workspace(&g));
                float *flat = out_buf(out_elems(&g));
                h->depthwise_pack(w, &g, packed);
                h->depthwise_packed_f32(x, packed, b, flat, &g, ws);
                compare_mag(h->name, "depthwise (packed)", it, flat, want, mag, out_elems(&g));
                flat_runs++;
                free(packed); free(ws); free(flat);
            }
            free(ax); free(aw); free(ab); free(mag);
        } else {
            checks++;
            if (handled || !isnan(got[0])) {
                failures++;
                fprintf(stderr, "%s depthwise #%d: multiplier 2 must be declined untouched\n",
                        h->name, it);
            }
        }
        free(x); free(w); free(b); free(want); free(got);
    }
    checks++;
    if (flat_runs == 0) { /* the geometries must reach the packed kernel */
        failures++;
        fprintf(stderr, "%s depthwise: no geometry took the packed kernel\n", h->name);
    }
}

static void test_pools(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        nk_ref_conv_geom g;
        float *x, *want, *got;
        const int is_max = it & 1;
        rand_geom(&g, 4, 1);
        if (it % 6 == 1) { /* 2x2 max at stride 2, windows inside: the straight path */
            g.k_h = g.k_w = g.stride_h = g.stride_w = 2;
            g.pad_top = g.pad_left = 0;
            if (it % 24 == 1) { /* the Fashion CNN's first pool, 28x28x16 */
                g.in_h = g.in_w = 28;
                g.in_c = 16;
            }
            if (g.in_h < 2) g.in_h = 2;
            if (g.in_w < 2) g.in_w = 2;
            g.out_h = g.in_h / 2;
            g.out_w = g.in_w / 2;
        }
        g.out_c = g.in_c;
        x = rand_buf(in_elems(&g));
        want = out_buf(out_elems(&g));
        got = out_buf(out_elems(&g));
        if (is_max) {
            nk_ref_max_pool2d_f32(x, want, &g);
            h->max_pool2d_f32(x, got, &g);
        } else {
            nk_ref_avg_pool2d_f32(x, want, &g);
            h->avg_pool2d_f32(x, got, &g);
        }
        compare(h->name, is_max ? "max_pool2d" : "avg_pool2d", it, got, want, out_elems(&g));
        free(x); free(want); free(got);
    }
    for (it = 0; it < iters; it++) {
        const int32_t batch = rint_(1, 3), c = rint_(1, 40);
        const size_t hw = (size_t)rint_(1, 60);
        float *x = rand_buf((size_t)batch * hw * (size_t)c);
        float *want = out_buf((size_t)batch * (size_t)c), *got = out_buf((size_t)batch * (size_t)c);
        nk_ref_global_avg_pool_f32(x, want, batch, hw, c);
        h->global_avg_pool_f32(x, got, batch, hw, c);
        compare(h->name, "global_avg_pool", it, got, want, (size_t)batch * (size_t)c);
        free(x); free(want); free(got);
    }
}

static size_t dims_elems(const int32_t *d, int32_t r) {
    size_t n = 1;
    int32_t i;
    for (i = 0; i < r; i++) n *= (size_t)d[i];
    return n;
}

static void test_binary(const nk_host_kernels *h, int iters) {
    int it;
    for (it = 0; it < iters; it++) {
        const int is_mul = it & 1, kind = (it / 2) % 6;
        int32_t yd[4], ad[4], bd[4], r = rint_(1, 4), ar, br, i;
        size_t yn, an, bn;
        float lo, hi, *a, *b, *want, *got;
        int handled, expect = 1, in_place = 0;
        for (i = 0; i < r; i++) yd[i] = rint_(1, 7);
        yd[r - 1] = rint_(1, 45);
        memcpy(ad, yd, sizeof yd);
        memcpy(bd, yd, sizeof yd);
        ar = br = r;
        switch (kind) {
        case 0: break;                          /* equal shapes */
        case 1: br = 1; bd[0] = 1; break;       /* scalar */
        case 2: br = 1; bd[0] = yd[r - 1]; break; /* per channel */
        case 3: ar = 1; ad[0] = yd[r - 1]; break; /* per channel, first operand */
        case 4: in_place = 1; break;            /* y is a */
        default:                                /* a broadcast the table declines */
            if (r < 2 || yd[0] < 2 || yd[r - 1] < 2) { br = 1; bd[0] = 1; break; }
            ad[0] = 1;
            bd[r - 1] = 1;
            expect = 0;
            break;
        }
        yn = dims_elems(yd, r);
        an = dims_elems(ad, ar);
        bn = dims_elems(bd, br);
        clamps(&lo, &hi);
        a = rand_buf(an);
        b = rand_buf(bn);
        want = out_buf(yn);
        if (is_mul)
            nk_ref_mul_f32(a, ad, ar, b, bd, br, want, yd, r, lo, hi);
        else
            nk_ref_add_f32(a, ad, ar, b, bd, br, want, yd, r, lo, hi);
        got = out_buf(yn);
        if (in_place) memcpy(got, a, yn * sizeof(float));
        handled = (is_mul ? h->mul_f32 : h->add_f32)(in_place ? got : a, ad, ar, b, bd, br, got,
                                                    yd, r, lo, hi);
        checks++;
        if (handled != expect) {
            failures++;
            fprintf(stderr, "%s %s #%d: handled %d, expected %d\n", h->name,
                    is_mul ? "mul" : "add", it, handled, expect);
        } else if (expect) {
            compare(h->name, is_mul ? "mul" : "add", it, got, want, yn);
        } else if (!isnan(got[0])) {
            failures++;
            fprintf(stderr, "%s: a declined broadcast wrote the output\n", h->name);
        }
        free(a); free(b); free(want); free(got);
    }
}

int main(void) {
    static const char *const names[] = {"avx2", "avx512", "neon"};
    size_t i;
    int tables = 0;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const nk_host_kernels *h = nk_host_find(names[i]);
        if (h == NULL) {
            printf("%s: not in this build or not supported by this CPU\n", names[i]);
            continue;
        }
        tables++;
        test_dense(h, 400);
        test_conv2d(h, 400);
        test_depthwise(h, 300);
        test_pools(h, 300);
        test_binary(h, 400);
        printf("%s: checked against the portable kernels\n", h->name);
    }
    if (tables == 0) {
        printf("no host kernel table runs here\n");
        return 77;
    }
    printf("host_kernels_test: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
#else
int main(void) {
    printf("built without host kernels (NETKIT_HOST_KERNELS=0)\n");
    return 77;
}
#endif

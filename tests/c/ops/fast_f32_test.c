/* fast_f32_test.c — the build's fast float32 kernels (kernels/fast_f32.h:
 * the Cortex-M FPU set on M4F, M7, M33 and M55) against the portable
 * kernels on random one-op cases: conv2d with any kernel, stride, padding
 * (windows with no valid tap among them), vertical dilation, channel
 * counts around the blocks of eight and four and runs around the steps of
 * four floats; dense with several rows; biases or none, clamps or none.
 *
 * The two sum in different orders, so an output may differ from the
 * portable one by a few roundings of its terms: each must lie within
 * 1e-5 of the sum of its terms' magnitudes (|bias| + sum |x*w|), every
 * output must be written, bytes past the output must stay untouched, and
 * each kernel must take some cases. Windows and weights hold NaN-free
 * values of mixed signs and magnitudes from 1e-3 to 1e3.
 *
 * The kernels are compiled into this program; on the host the same code
 * runs over the C model of the asm block (NETKIT_EMULATE_DSP=1, the
 * ops_fast_f32_test_emulated test). Builds without the set exit 77. */
#include "kernels/ref/ref_conv.c"
#include "kernels/ref/ref_dense.c"
#include "kernels/armv7em/fpu_f32.c"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if NK_FAST_F32

#define NKF_CASES 120
#define NKF_BUF 12288
#define NKF_GUARD 16

static float nkf_x[NKF_BUF], nkf_w[NKF_BUF], nkf_b[256], nkf_mag[NKF_BUF];
static float nkf_y_ref[NKF_BUF + NKF_GUARD], nkf_y_fast[NKF_BUF + NKF_GUARD];
static int nkf_failures;

static uint32_t nkf_rng = 0x66333221u;
static uint32_t nkf_next(void) { /* xorshift32 */
    nkf_rng ^= nkf_rng << 13;
    nkf_rng ^= nkf_rng >> 17;
    nkf_rng ^= nkf_rng << 5;
    return nkf_rng;
}
static int32_t nkf_between(int32_t lo, int32_t hi) {
    return lo + (int32_t)(nkf_next() % (uint32_t)(hi - lo + 1));
}
static int nkf_chance(int percent) { return nkf_between(1, 100) <= percent; }

/* mixed signs, magnitudes 1e-3 .. 1e3 */
static void nkf_fill(float *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        const float m = (float)nkf_between(1, 1000) / 1000.0f;
        const float scale = nkf_chance(10) ? 1000.0f : nkf_chance(10) ? 0.001f : 1.0f;
        p[i] = (nkf_chance(50) ? -m : m) * scale;
    }
}

/* a NaN pattern the kernels never write: what the guard holds */
static void nkf_clear(size_t n) {
    size_t i;
    for (i = 0; i < n + NKF_GUARD; i++)
        nkf_y_ref[i] = nkf_y_fast[i] = NAN;
}

static void nkf_compare(const char *what, int n_case, size_t n) {
    size_t i;
    for (i = 0; i < n + NKF_GUARD; i++) {
        const float r = nkf_y_ref[i], f = nkf_y_fast[i];
        int bad;
        if (i >= n)
            bad = !isnan(f);
        else
            bad = isnan(f) || fabsf(f - r) > 1e-5f * nkf_mag[i] + 1e-30f;
        if (bad) {
            if (nkf_failures < 10)
                fprintf(stderr, "%s case %d: element %u of %u: portable %.9g, fast %.9g (bound %.3g)\n",
                        what, n_case, (unsigned)i, (unsigned)n, (double)r, (double)f,
                        (double)(i < n ? 1e-5f * nkf_mag[i] : 0));
            nkf_failures++;
            return;
        }
    }
}

/* nkf_mag[o] = |bias| + sum |x*w| over the valid taps: the portable
 * kernel (conv2d, or depthwise) on magnitudes (its own rounding is far
 * below 1e-5) */
static void nkf_conv_mag(const nk_ref_conv_geom *g, const float *bias, int depthwise) {
    static float ax[NKF_BUF], aw[NKF_BUF], ab[256];
    const size_t nx = (size_t)g->batch * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    const size_t nw = (size_t)g->out_c * (size_t)g->k_h * (size_t)g->k_w *
                      (depthwise ? 1u : (size_t)g->in_c);
    nk_ref_conv_geom a = *g;
    size_t i;
    for (i = 0; i < nx; i++)
        ax[i] = fabsf(nkf_x[i]);
    for (i = 0; i < nw; i++)
        aw[i] = fabsf(nkf_w[i]);
    for (i = 0; i < (size_t)g->out_c; i++)
        ab[i] = bias ? fabsf(bias[i]) : 0.0f;
    a.act_min = -INFINITY;
    a.act_max = INFINITY;
    if (depthwise)
        nk_ref_depthwise_conv2d_f32(ax, aw, ab, nkf_mag, &a);
    else
        nk_ref_conv2d_f32(ax, aw, ab, nkf_mag, &a);
}

/* A random window geometry into g (its channels already set): kernels of
 * up to max_k, strides up to 3, dilations 1 or 2 (horizontal ones only
 * with dil_w), pads up to the kernel (some windows have no valid tap).
 * Returns 0 when the output is empty. */
static int nkf_window(nk_ref_conv_geom *g, int32_t max_k, int dil_w) {
    g->batch = nkf_between(1, 2);
    g->in_h = nkf_between(1, 9);
    g->in_w = nkf_between(1, 9);
    g->k_h = nkf_between(1, max_k);
    g->k_w = nkf_between(1, max_k);
    g->stride_h = nkf_between(1, 3);
    g->stride_w = nkf_between(1, 3);
    g->dil_h = nkf_chance(20) ? 2 : 1;
    g->dil_w = dil_w && nkf_chance(20) ? 2 : 1;
    g->pad_top = nkf_between(0, g->k_h);
    g->pad_left = nkf_between(0, g->k_w);
    g->out_h = (g->in_h + 2 * g->pad_top - ((g->k_h - 1) * g->dil_h + 1)) / g->stride_h + 1;
    g->out_w = (g->in_w + 2 * g->pad_left - ((g->k_w - 1) * g->dil_w + 1)) / g->stride_w + 1;
    return g->out_h > 0 && g->out_w > 0;
}

/* the clamp of a case: none (every float), a ReLU, or a random range */
static void nkf_act(float *lo, float *hi) {
    const int k = nkf_between(0, 2);
    *lo = k == 0 ? -INFINITY : k == 1 ? 0.0f : -(float)nkf_between(0, 50);
    *hi = k == 0 ? INFINITY : k == 1 ? INFINITY : (float)nkf_between(1, 50);
}

/* A random conv2d, or (depthwise) a random depthwise conv of multiplier 1,
 * or 2, which the fast kernel leaves to the portable one; returns 1 when
 * the fast kernel took it. Depthwise channel counts run from 1 to 40:
 * blocks of 8, 4 and single channels. */
static int nkf_conv(int n_case, int depthwise) {
    nk_ref_conv_geom g;
    const float *bias = nkf_chance(80) ? nkf_b : NULL;
    size_t nx, nw, ny;
    int took;
    memset(&g, 0, sizeof g);
    for (;;) {
        if (depthwise) {
            g.in_c = nkf_between(1, 40);
            g.multiplier = nkf_chance(10) ? 2 : 1;
            g.out_c = g.in_c * g.multiplier;
            g.groups = g.in_c;
        } else {
            g.in_c = nkf_chance(30) ? nkf_between(1, 3) : nkf_between(4, 24);
            g.out_c = nkf_chance(50) ? 8 * nkf_between(1, 3) : nkf_between(1, 21);
            g.groups = 1;
            g.multiplier = 1;
        }
        if (!nkf_window(&g, depthwise ? 5 : 4, depthwise))
            continue;
        nx = (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)g.in_c;
        nw = (size_t)g.out_c * (size_t)g.k_h * (size_t)g.k_w * (depthwise ? 1u : (size_t)g.in_c);
        ny = (size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w * (size_t)g.out_c;
        if (nx <= NKF_BUF && nw <= NKF_BUF && ny <= NKF_BUF)
            break;
    }
    nkf_act(&g.act_min, &g.act_max);
    nkf_fill(nkf_x, nx);
    nkf_fill(nkf_w, nw);
    nkf_fill(nkf_b, (size_t)g.out_c);
    nkf_clear(ny);
    if (depthwise) {
        nk_ref_depthwise_conv2d_f32(nkf_x, nkf_w, bias, nkf_y_ref, &g);
        took = nk_fast_depthwise_conv2d_f32(nkf_x, nkf_w, bias, nkf_y_fast, &g);
    } else {
        nk_ref_conv2d_f32(nkf_x, nkf_w, bias, nkf_y_ref, &g);
        took = nk_fast_conv2d_f32(nkf_x, nkf_w, bias, nkf_y_fast, &g);
    }
    if (!took)
        return 0;
    nkf_conv_mag(&g, bias, depthwise);
    nkf_compare(depthwise ? "depthwise" : "conv2d", n_case, ny);
    return 1;
}

/* A random dense of several rows; returns 1 when the fast kernel took it. */
static int nkf_dense(int n_case) {
    const size_t rows = (size_t)nkf_between(1, 3);
    const int32_t k = nkf_chance(50) ? nkf_between(1, 9) : nkf_between(10, 400);
    const int32_t n = nkf_between(1, 27);
    const float *bias = nkf_chance(80) ? nkf_b : NULL;
    float lo, hi;
    size_t r;
    int32_t o, i;
    nkf_act(&lo, &hi);
    nkf_fill(nkf_x, rows * (size_t)k);
    nkf_fill(nkf_w, (size_t)n * (size_t)k);
    nkf_fill(nkf_b, (size_t)n);
    nkf_clear(rows * (size_t)n);
    nk_ref_dense_f32(nkf_x, nkf_w, bias, nkf_y_ref, rows, k, n, lo, hi);
#if NK_FAST_F32_DENSE
    if (!nk_fast_dense_f32(nkf_x, nkf_w, bias, nkf_y_fast, rows, k, n, lo, hi))
        return 0;
#else
    return 0;
#endif
    for (r = 0; r < rows; r++)
        for (o = 0; o < n; o++) {
            float m = bias ? fabsf(bias[o]) : 0.0f;
            for (i = 0; i < k; i++)
                m += fabsf(nkf_x[r * (size_t)k + (size_t)i] * nkf_w[(size_t)o * (size_t)k + (size_t)i]);
            nkf_mag[r * (size_t)n + (size_t)o] = m;
        }
    nkf_compare("dense", n_case, rows * (size_t)n);
    return 1;
}

int main(void) {
    int i, took_conv = 0, took_dw = 0, took_dense = 0;
    for (i = 0; i < NKF_CASES; i++) {
        took_conv += nkf_conv(i, 0);
        took_dw += nkf_conv(i, 1);
        took_dense += nkf_dense(i);
    }
    printf("fast_f32_test (%s): fast kernels took conv2d %d, depthwise %d, dense %d of %d cases "
           "each; %d failures\n",
           NK_FAST_F32_NATIVE ? "FPU" : "C model", took_conv, took_dw, took_dense, NKF_CASES,
           nkf_failures);
    if (took_conv == 0 || took_dw == 0 || (NK_FAST_F32_DENSE && took_dense == 0)) {
        fprintf(stderr, "a fast kernel took no case\n");
        return 1;
    }
    return nkf_failures ? 1 : 0;
}
#else
int main(void) {
    printf("fast_f32_test: no fast float32 set in this build (skipped)\n");
    return 77;
}
#endif

/* ref_small_test.c — the portable int8 depthwise kernel built with
 * NK_REF_SMALL=1 (as -Os firmware builds it: multipliers > 1 through the
 * per-channel loop, no four-lane block) gives the same bytes as the
 * library's build of it, on random geometries with multipliers 1..4,
 * strides, dilations, padding, per-tensor and per-channel requantization,
 * with and without the weight sums. The library's kernel is checked
 * against TFLite's outputs elsewhere (ops_i8_test, int8-cross.sh). When
 * the library itself is built with -Os both are the small one. */
#define NK_REF_SMALL 1
#define nk_ref_conv2d_i8 nk_small_conv2d_i8
#define nk_ref_conv_wsum_i8 nk_small_conv_wsum_i8
#define nk_ref_depthwise_conv2d_i8 nk_small_depthwise_conv2d_i8
#define nk_ref_depthwise_wsum_i8 nk_small_depthwise_wsum_i8
#define nk_ref_dense_i8 nk_small_dense_i8
#include "kernels/ref/ref_i8_conv.c"
#undef nk_ref_conv2d_i8
#undef nk_ref_conv_wsum_i8
#undef nk_ref_depthwise_conv2d_i8
#undef nk_ref_depthwise_wsum_i8
#undef nk_ref_dense_i8

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the library's build (ref_i8.h declared the renamed ones above) */
void nk_ref_depthwise_conv2d_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                                const int32_t *NK_RESTRICT bias, int8_t *y,
                                const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                const int32_t *NK_RESTRICT wsum);

static uint32_t nks_state = 12345u;
static int32_t nks_rand(int32_t n) { /* 0..n-1 */
    nks_state = nks_state * 1664525u + 1013904223u;
    return (int32_t)((nks_state >> 8) % (uint32_t)n);
}

int main(void) {
    static int8_t x[2 * 8 * 8 * 8], w[3 * 3 * 32], y_small[2 * 8 * 8 * 32], y_lib[2 * 8 * 8 * 32];
    static int32_t bias[32], mult[32], shift[32], wsum[32];
    int it, cases = 0, by_lanes = 0, failures = 0;
    for (it = 0; it < 2000; it++) {
        nk_ref_conv_geom g;
        nk_ref_i8_quant q;
        int32_t i, span_h, span_w, use_wsum;
        memset(&g, 0, sizeof g);
        g.multiplier = 1 + nks_rand(4);
        g.in_c = 1 + nks_rand(8);
        g.out_c = g.in_c * g.multiplier;
        g.batch = 1 + nks_rand(2);
        g.in_h = 1 + nks_rand(8);
        g.in_w = 1 + nks_rand(8);
        g.k_h = 1 + nks_rand(3);
        g.k_w = 1 + nks_rand(3);
        g.stride_h = 1 + nks_rand(2);
        g.stride_w = 1 + nks_rand(2);
        g.dil_h = 1 + nks_rand(2);
        g.dil_w = 1 + nks_rand(2);
        g.pad_top = nks_rand(2);
        g.pad_left = nks_rand(2);
        g.groups = 1;
        span_h = (g.k_h - 1) * g.dil_h + 1;
        span_w = (g.k_w - 1) * g.dil_w + 1;
        g.out_h = (g.in_h + 2 * g.pad_top - span_h) / g.stride_h + 1;
        g.out_w = (g.in_w + 2 * g.pad_left - span_w) / g.stride_w + 1;
        if (g.in_h + 2 * g.pad_top < span_h || g.in_w + 2 * g.pad_left < span_w) continue;
        for (i = 0; i < (int32_t)sizeof x; i++) x[i] = (int8_t)(nks_rand(256) - 128);
        for (i = 0; i < (int32_t)sizeof w; i++) w[i] = (int8_t)(nks_rand(256) - 128);
        for (i = 0; i < 32; i++) {
            bias[i] = nks_rand(4001) - 2000;
            mult[i] = (1 << 30) + nks_rand(1 << 30);
            shift[i] = -nks_rand(10);
        }
        q.in_zp = nks_rand(256) - 128;
        q.out_zp = nks_rand(256) - 128;
        q.act_min = -128 + nks_rand(20);
        q.act_max = 127 - nks_rand(20);
        q.mult = mult;
        q.shift = shift;
        q.per_channel = nks_rand(2);
        q.rq_right = 0;
        use_wsum = nks_rand(2);
        nk_small_depthwise_wsum_i8(w, g.k_h * g.k_w, g.out_c, wsum);
        memset(y_small, 0x55, sizeof y_small);
        memset(y_lib, 0x55, sizeof y_lib);
        nk_small_depthwise_conv2d_i8(x, w, bias, y_small, &g, &q, use_wsum ? wsum : NULL);
        nk_ref_depthwise_conv2d_i8(x, w, bias, y_lib, &g, &q, use_wsum ? wsum : NULL);
        cases++;
        if (g.multiplier > 1 && g.out_c >= 4) by_lanes++;
        if (memcmp(y_small, y_lib, sizeof y_small) != 0) {
            if (failures++ < 5)
                fprintf(stderr, "case %d: multiplier %d, %d channels, %dx%d kernel: outputs differ\n",
                        it, (int)g.multiplier, (int)g.in_c, (int)g.k_h, (int)g.k_w);
        }
    }
    printf("%d cases (%d with multiplier > 1 and 4+ output channels), %d differ\n", cases, by_lanes,
           failures);
    /* the cases must reach the block NK_REF_SMALL leaves out */
    return failures != 0 || by_lanes < 100;
}

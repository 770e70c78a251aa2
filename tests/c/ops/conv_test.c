/* conv_test.c — CONV2D and DEPTHWISE_CONV2D against PyTorch vectors, and
 * validate rejections. */
#include "op_test.h"

#include "../../../testdata/op_vectors/conv.h"

#define CASES nkt_conv_cases

/* fixtures: "conv2d 3x3 s2 p1" is x [1,7,7,2], W [5,3,3,2], out [1,4,4,5] */
static void out_h_wrong(nkt_graph *g) { g->t[3].dims[1] = 3; }
static void stride_zero(nkt_graph *g) { nkt_set_i32(g, 0, 0); }
static void dilation_zero(nkt_graph *g) { nkt_set_i32(g, 3, 0); }
static void pad_negative(nkt_graph *g) { nkt_set_i32(g, 6, -1); }
static void groups_not_dividing(nkt_graph *g) { nkt_set_i32(g, 8, 3); }
static void groups_zero(nkt_graph *g) { nkt_set_i32(g, 8, 0); }
static void weights_channels(nkt_graph *g) { g->t[1].dims[3] = 3; }
static void weights_rank3(nkt_graph *g) { g->t[1].rank = 3; }
static void input_rank3(nkt_graph *g) { g->t[0].rank = 3; }
static void kernel_too_big(nkt_graph *g) {
    g->t[1].dims[1] = 10; /* 10 > 7 + 1 + 1 */
}
static void bias_wrong(nkt_graph *g) { g->t[2].dims[0] = 4; }
static void stride_huge(nkt_graph *g) { nkt_set_i32(g, 1, 0x40000000); }
static void dilation_huge(nkt_graph *g) { nkt_set_i32(g, 2, 0x7fffffff); }
static void ten_params(nkt_graph *g) { g->op.n_params = 10; }
static void batch_wrong(nkt_graph *g) { g->t[3].dims[0] = 2; }

/* depthwise fixture: "depthwise 3x3 m2 s2 p1" x [1,7,7,3], W [1,3,3,6] */
static void mult_wrong(nkt_graph *g) { nkt_set_i32(g, 8, 3); }
static void mult_zero(nkt_graph *g) { nkt_set_i32(g, 8, 0); }
static void dw_w_first(nkt_graph *g) { g->t[1].dims[0] = 2; }
static void dw_out_c(nkt_graph *g) { g->t[3].dims[3] = 3; }

int main(void) {
    const nkt_case *c = nkt_find(CASES, NKT_COUNT(CASES), "conv2d 3x3 s2 p1");
    const nkt_case *d = nkt_find(CASES, NKT_COUNT(CASES), "depthwise 3x3 m2 s2 p1");
    const nkt_case *gr = nkt_find(CASES, NKT_COUNT(CASES), "conv2d groups 2");
    nkt_run_cases(CASES, NKT_COUNT(CASES));
#if defined(NETKIT_BACKEND) && NETKIT_BACKEND
    NKT_CHECK(nkt_backend_runs == NKT_COUNT(CASES), "backend ran %d of %d cases", nkt_backend_runs,
              (int)NKT_COUNT(CASES));
#endif
    /* out [1,4,4,5], 3x3 taps over 2 channels: 80 * 18; groups 2 of 4 channels,
     * out [1,6,6,6]: 216 * 3*3*2; depthwise out [1,4,4,6]: 96 * 9 */
#if NK_OPS_MACS
    NKT_CHECK(nkt_macs(c) == 1440, "conv2d macs %llu", (unsigned long long)nkt_macs(c));
    NKT_CHECK(nkt_macs(gr) == 3888, "grouped conv2d macs %llu", (unsigned long long)nkt_macs(gr));
    NKT_CHECK(nkt_macs(d) == 864, "depthwise macs %llu", (unsigned long long)nkt_macs(d));
#endif
    NKT_CHECK(nkt_workspace(c) == 0 && nkt_workspace(d) == 0, "conv workspace");

    nkt_expect_reject(c, out_h_wrong, NK_ERR_SHAPE,
                      "conv2d: output dims [1,3,4,5] do not match input [1,7,7,2] with kernel "
                      "3x3 stride 2 pads 1,1,1,1 (expected [1,4,4,5])",
                      "conv2d wrong output height");
    nkt_expect_reject(c, batch_wrong, NK_ERR_SHAPE, "(expected [1,4,4,5])", "conv2d batch");
    nkt_expect_reject(c, stride_zero, NK_ERR_UNSUPPORTED, "stride_h 0 must be >= 1",
                      "conv2d stride 0");
    nkt_expect_reject(c, dilation_zero, NK_ERR_UNSUPPORTED, "dilation_w 0", "conv2d dilation 0");
    nkt_expect_reject(c, pad_negative, NK_ERR_UNSUPPORTED, "pad_bottom -1", "conv2d pad < 0");
    nkt_expect_reject(c, groups_not_dividing, NK_ERR_UNSUPPORTED, "groups 3 must divide",
                      "conv2d groups 3 of 2 channels");
    nkt_expect_reject(c, groups_zero, NK_ERR_UNSUPPORTED, "groups 0", "conv2d groups 0");
    nkt_expect_reject(gr, groups_not_dividing, NK_ERR_UNSUPPORTED, "groups 3",
                      "conv2d groups 3 of 4 channels");
    nkt_expect_reject(c, weights_channels, NK_ERR_SHAPE, "weights [5,3,3,3] do not fit",
                      "conv2d weight channels");
    nkt_expect_reject(c, weights_rank3, NK_ERR_SHAPE, "must have rank 4", "conv2d W rank 3");
    nkt_expect_reject(c, input_rank3, NK_ERR_SHAPE, "input [1,7,7] must have rank 4",
                      "conv2d x rank 3");
    nkt_expect_reject(c, kernel_too_big, NK_ERR_SHAPE, "does not fit padded input 9x9",
                      "conv2d kernel too big");
    nkt_expect_reject(c, bias_wrong, NK_ERR_SHAPE, "bias [4] does not match 5",
                      "conv2d bias");
    nkt_expect_reject(c, stride_huge, NK_ERR_UNSUPPORTED, "stride_w 1073741824 is out of range",
                      "conv2d stride 2^30");
    nkt_expect_reject(c, dilation_huge, NK_ERR_UNSUPPORTED, "dilation_h 2147483647 is out of range",
                      "conv2d dilation INT_MAX");
    nkt_expect_reject(c, ten_params, NK_ERR_FORMAT, "has 10 parameter words, expected 11",
                      "conv2d params");

    nkt_expect_reject(d, mult_wrong, NK_ERR_SHAPE, "multiplier 3", "depthwise multiplier");
    nkt_expect_reject(d, mult_zero, NK_ERR_UNSUPPORTED, "multiplier", "depthwise mult 0");
    nkt_expect_reject(d, dw_w_first, NK_ERR_SHAPE, "(expected [1,KH,KW,6])",
                      "depthwise W dim 0");
    nkt_expect_reject(d, dw_out_c, NK_ERR_SHAPE, "(expected [1,4,4,6])",
                      "depthwise output channels");
    nkt_expect_reject(d, stride_zero, NK_ERR_UNSUPPORTED, "stride_h 0", "depthwise stride 0");
    return nkt_finish("conv");
}

/* pool_test.c — MAX_POOL2D, AVG_POOL2D, GLOBAL_AVG_POOL against PyTorch
 * vectors, and validate rejections. */
#include "op_test.h"

#include "../../../testdata/op_vectors/pool.h"

#define CASES nkt_pool_cases

/* fixture "max_pool 3x3 s2 p1": x [2,7,7,2] -> [2,4,4,2] */
static void out_w_wrong(nkt_graph *g) { g->t[1].dims[2] = 3; }
static void kernel_zero(nkt_graph *g) { nkt_set_i32(g, 1, 0); }
static void stride_zero(nkt_graph *g) { nkt_set_i32(g, 3, 0); }
static void pad_ge_kernel(nkt_graph *g) {
    nkt_set_i32(g, 4, 3); /* pad_top 3 with kernel 3: a window of padding only */
    g->t[1].dims[1] = 5;
}
static void channels_wrong(nkt_graph *g) { g->t[1].dims[3] = 3; }
static void rank2(nkt_graph *g) { g->t[0].rank = 2; }
static void cip_two(nkt_graph *g) { nkt_set_i32(g, 8, 2); }
static void avg_ten_params(nkt_graph *g) { g->op.n_params = 10; }
static void gap_out(nkt_graph *g) { g->t[1].dims[1] = 4; }
static void gap_params(nkt_graph *g) { g->op.n_params = 1; }

/* ONNX's maxpool_2d_dilations: 4x4 of 1..16, kernel 2x2 dilation 2 -> the
 * max of rows/columns {i, i+2}. */
static uint32_t dil_params[12];
static const float dil_x[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const float dil_want[4] = {11, 12, 15, 16};
/* dilation 5 with pad_top 1: the two rows read -1 and 4, both outside */
static void dil_only_padding(nkt_graph *g) {
    nkt_set_i32(g, 4, 1);
    nkt_set_i32(g, 6, 1);
    nkt_set_i32(g, 10, 5);
    nkt_set_i32(g, 11, 1);
    g->t[1].dims[1] = 1;
    g->t[1].dims[2] = 3;
}
static void dil_eleven_params(nkt_graph *g) { g->op.n_params = 11; }

static void max_pool_dilated(void) {
    static const int32_t p[8] = {2, 2, 1, 1, 0, 0, 0, 0};
    nkt_case c;
    int i;
    for (i = 0; i < 8; i++)
        dil_params[i] = (uint32_t)p[i];
    dil_params[8] = nkt_f32_word(-INFINITY);
    dil_params[9] = nkt_f32_word(INFINITY);
    dil_params[10] = dil_params[11] = 2;
    memset(&c, 0, sizeof c);
    c.name = "max_pool 2x2 dilation 2";
    c.op = NK_OP_MAX_POOL2D;
    c.n_in = 1;
    c.in[0] = (nkt_tensor){4, {1, 4, 4, 1}, dil_x};
    c.out = (nkt_tensor){4, {1, 2, 2, 1}, dil_want};
    c.n_params = 12;
    c.params = dil_params;
    nkt_run_case(&c);
    nkt_expect_reject(&c, dil_only_padding, NK_ERR_UNSUPPORTED, "lands only on padding",
                      "max_pool dilated window of padding");
    nkt_expect_reject(&c, dil_eleven_params, NK_ERR_FORMAT, "expected 10", "max_pool 11 params");
}

int main(void) {
    const nkt_case *mp = nkt_find(CASES, NKT_COUNT(CASES), "max_pool 3x3 s2 p1");
    const nkt_case *ap =
        nkt_find(CASES, NKT_COUNT(CASES), "avg_pool 3x3 s1 p1 count_include_pad=0");
    const nkt_case *gp = nkt_find(CASES, NKT_COUNT(CASES), "global_avg_pool (1, 4, 4, 3)");
    nkt_run_cases(CASES, NKT_COUNT(CASES));
    max_pool_dilated();
#if defined(NETKIT_BACKEND) && NETKIT_BACKEND
    {
        /* what the backend must leave to netkit: XNNPACK has no 1x1 pooling
         * window, and its average pooling leaves padding out of the count */
        nkt_graph g;
        nkt_graph_from_case(&g, mp);
        NKT_CHECK(nkt_backend_takes(&g), "backend: max_pool 3x3 s2 p1 not taken");
        nkt_set_i32(&g, 0, 1);
        nkt_set_i32(&g, 1, 1);
        nkt_set_i32(&g, 4, 0);
        nkt_set_i32(&g, 5, 0);
        nkt_set_i32(&g, 6, 0);
        nkt_set_i32(&g, 7, 0);
        NKT_CHECK(!nkt_backend_takes(&g), "backend: took a 1x1 max pool");
        nkt_graph_from_case(&g, nkt_find(CASES, NKT_COUNT(CASES), "avg_pool 3x3 s1 p1 count_include_pad=1"));
        NKT_CHECK(!nkt_backend_takes(&g), "backend: took count_include_pad=1 with padding");
        nkt_graph_from_case(&g, ap);
        NKT_CHECK(nkt_backend_takes(&g), "backend: avg_pool count_include_pad=0 not taken");
        NKT_CHECK(nkt_backend_runs >= 9, "backend ran %d pool cases", nkt_backend_runs);
    }
#endif
    /* max pool out [2,4,4,2] * 3x3; avg pool out [1,5,5,2] * 3x3; gap reads 48 */
#if NK_OPS_MACS
    NKT_CHECK(nkt_macs(mp) == 576, "max_pool macs %llu", (unsigned long long)nkt_macs(mp));
    NKT_CHECK(nkt_macs(ap) == 450, "avg_pool macs %llu", (unsigned long long)nkt_macs(ap));
    NKT_CHECK(nkt_macs(gp) == 48, "gap macs %llu", (unsigned long long)nkt_macs(gp));
#endif

    nkt_expect_reject(mp, out_w_wrong, NK_ERR_SHAPE,
                      "max_pool2d: output dims [2,4,3,2] do not match input [2,7,7,2] with "
                      "kernel 3x3 stride 2 pads 1,1,1,1 (expected [2,4,4,2])",
                      "max_pool wrong width");
    nkt_expect_reject(mp, kernel_zero, NK_ERR_UNSUPPORTED, "kernel_w 0", "max_pool kernel 0");
    nkt_expect_reject(mp, stride_zero, NK_ERR_UNSUPPORTED, "stride_w 0", "max_pool stride 0");
    nkt_expect_reject(mp, pad_ge_kernel, NK_ERR_UNSUPPORTED, "smaller than the kernel",
                      "max_pool pad >= kernel");
    nkt_expect_reject(mp, channels_wrong, NK_ERR_SHAPE, "(expected [2,4,4,2])",
                      "max_pool channels");
    nkt_expect_reject(mp, rank2, NK_ERR_SHAPE, "rank 4", "max_pool rank 2");
    nkt_expect_reject(ap, cip_two, NK_ERR_UNSUPPORTED, "count_include_pad", "avg_pool cip 2");
    nkt_expect_reject(ap, avg_ten_params, NK_ERR_FORMAT, "expected 11", "avg_pool params");
    nkt_expect_reject(ap, out_w_wrong, NK_ERR_SHAPE, "(expected [1,5,5,2])", "avg_pool out");
    nkt_expect_reject(gp, gap_out, NK_ERR_SHAPE, "(expected [1,1,1,3])", "gap out dims");
    nkt_expect_reject(gp, gap_params, NK_ERR_FORMAT, "parameter words", "gap params");
    nkt_expect_reject(gp, rank2, NK_ERR_SHAPE, "rank 4", "gap rank 2");
    return nkt_finish("pool");
}

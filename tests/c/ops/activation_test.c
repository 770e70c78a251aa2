/* activation_test.c — RELU, CLIP, LEAKY_RELU, SIGMOID, TANH, GELU (both
 * forms), SOFTMAX and BATCH_NORM against PyTorch vectors (out of place and
 * in place), and validate rejections. */
#include "op_test.h"

#include "../../../testdata/op_vectors/activation.h"

#define CASES nkt_activation_cases

static void out_shape(nkt_graph *g) { g->t[1].dims[3] = 4; }
static void out_rank(nkt_graph *g) { g->t[1].rank = 3; }
static void one_param(nkt_graph *g) { g->op.n_params = 1; }
static void clip_inverted(nkt_graph *g) {
    nkt_set_f32(g, 0, 6.0f);
    nkt_set_f32(g, 1, 0.0f);
}
static void gelu_two(nkt_graph *g) { nkt_set_i32(g, 0, 2); }
static void nan_param(nkt_graph *g) { nkt_set_f32(g, 0, NAN); }
static void inf_param(nkt_graph *g) { nkt_set_f32(g, 0, INFINITY); }
static void bn_var_len(nkt_graph *g) { g->t[4].dims[0] = 4; }
static void bn_gamma_rank(nkt_graph *g) { g->t[1].rank = 2; g->t[1].dims[1] = 1; }
static void bn_neg_eps(nkt_graph *g) { nkt_set_f32(g, 0, -1e-3f); }
static void bn_four_inputs(nkt_graph *g) { g->op.n_in = 4; }
static void i32_output(nkt_graph *g) { g->t[1].dtype = NK_I32; }

int main(void) {
    const nkt_case *relu = nkt_find(CASES, NKT_COUNT(CASES), "relu nhwc");
    const nkt_case *clip = nkt_find(CASES, NKT_COUNT(CASES), "clip 0..6 nhwc");
    const nkt_case *gelu = nkt_find(CASES, NKT_COUNT(CASES), "gelu erf nhwc");
    const nkt_case *leaky = nkt_find(CASES, NKT_COUNT(CASES), "leaky_relu 0.1 nhwc");
    const nkt_case *sm = nkt_find(CASES, NKT_COUNT(CASES), "softmax [1,2,2,7] beta 0.5");
    const nkt_case *bn = nkt_find(CASES, NKT_COUNT(CASES), "batch_norm (2, 3, 4, 5) eps 1e-05");
    nkt_run_cases(CASES, NKT_COUNT(CASES));

    nkt_expect_reject(relu, out_shape, NK_ERR_SHAPE,
                      "relu: output dims [2,5,5,4] do not match input [2,5,5,3] (expected "
                      "[2,5,5,3])",
                      "relu shape");
    nkt_expect_reject(relu, out_rank, NK_ERR_SHAPE, "relu: output dims [2,5,5]", "relu rank");
    nkt_expect_reject(relu, one_param, NK_ERR_FORMAT, "parameter words", "relu params");
    nkt_expect_reject(relu, i32_output, NK_ERR_DTYPE, "output is i32", "relu i32 output");
    nkt_expect_reject(clip, clip_inverted, NK_ERR_UNSUPPORTED, "[6, 0]", "clip min > max");
    nkt_expect_reject(clip, nan_param, NK_ERR_UNSUPPORTED, "NaN", "clip NaN");
    nkt_expect_reject(clip, one_param, NK_ERR_FORMAT, "expected 2", "clip params");
    nkt_expect_reject(gelu, gelu_two, NK_ERR_UNSUPPORTED, "approximate 2", "gelu mode 2");
    nkt_expect_reject(leaky, nan_param, NK_ERR_UNSUPPORTED, "alpha", "leaky NaN alpha");
    nkt_expect_reject(leaky, inf_param, NK_ERR_UNSUPPORTED, "alpha", "leaky inf alpha");
    nkt_expect_reject(sm, inf_param, NK_ERR_UNSUPPORTED, "beta", "softmax inf beta");
    nkt_expect_reject(sm, out_shape, NK_ERR_SHAPE, "(expected [1,2,2,7])", "softmax shape");
    nkt_expect_reject(bn, bn_var_len, NK_ERR_SHAPE, "var [4] does not match the 5 channels",
                      "batch_norm var length");
    nkt_expect_reject(bn, bn_gamma_rank, NK_ERR_SHAPE, "gamma [5,1]", "batch_norm gamma rank");
    nkt_expect_reject(bn, bn_neg_eps, NK_ERR_UNSUPPORTED, "epsilon", "batch_norm eps < 0");
    nkt_expect_reject(bn, bn_four_inputs, NK_ERR_FORMAT, "has 4 inputs", "batch_norm 4 inputs");
    return nkt_finish("activation");
}

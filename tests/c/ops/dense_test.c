/* dense_test.c — DENSE against PyTorch vectors, and validate rejections. */
#include "op_test.h"

#include "../../../testdata/op_vectors/dense.h"

#define CASES nkt_dense_cases

static void wrong_k(nkt_graph *g) { g->t[1].dims[1] = 15; }
static void wrong_out(nkt_graph *g) { g->t[3].dims[1] = 7; }
static void wrong_bias(nkt_graph *g) { g->t[2].dims[0] = 9; }
static void too_few_params(nkt_graph *g) { g->op.n_params = 1; }
static void empty_clamp(nkt_graph *g) {
    nkt_set_f32(g, 0, 1.0f);
    nkt_set_f32(g, 1, 0.0f);
}
static void nan_clamp(nkt_graph *g) { nkt_set_f32(g, 1, NAN); }
static void int8_input(nkt_graph *g) { g->t[0].dtype = NK_I8; }
static void missing_weights(nkt_graph *g) { g->in_ids[1] = NK_NONE; }
static void one_input(nkt_graph *g) { g->op.n_in = 1; }

int main(void) {
    const nkt_case *c = nkt_find(CASES, NKT_COUNT(CASES), "dense 1x16->8 bias");
    nkt_run_cases(CASES, NKT_COUNT(CASES));
#if defined(NETKIT_BACKEND) && NETKIT_BACKEND
    NKT_CHECK(nkt_backend_runs == NKT_COUNT(CASES), "backend ran %d of %d cases", nkt_backend_runs,
              (int)NKT_COUNT(CASES));
#endif
    /* 1x16 -> 8: 16 * 8 multiply-accumulates; [2,3,10] -> 4: 6 rows * 10 * 4 */
#if NK_OPS_MACS
    NKT_CHECK(nkt_macs(c) == 128, "dense macs %llu", (unsigned long long)nkt_macs(c));
    NKT_CHECK(nkt_macs(nkt_find(CASES, NKT_COUNT(CASES), "dense [2,3,10]->4 bias absent clamp")) ==
                  240,
              "dense rank-3 macs");
#endif
    NKT_CHECK(nkt_workspace(c) == 0, "dense workspace");

    nkt_expect_reject(c, wrong_k, NK_ERR_SHAPE, "weights [8,15] do not fit input [1,16]",
                      "dense wrong K");
    nkt_expect_reject(c, wrong_out, NK_ERR_SHAPE,
                      "output dims [1,7] do not match input [1,16]", "dense wrong output");
    nkt_expect_reject(c, wrong_bias, NK_ERR_SHAPE, "bias [9]", "dense wrong bias");
    nkt_expect_reject(c, too_few_params, NK_ERR_FORMAT, "parameter words", "dense params");
    nkt_expect_reject(c, empty_clamp, NK_ERR_UNSUPPORTED, "clamp", "dense empty clamp");
    nkt_expect_reject(c, nan_clamp, NK_ERR_UNSUPPORTED, "clamp", "dense NaN clamp");
    nkt_expect_reject(c, int8_input, NK_ERR_DTYPE, "input 0 is", "dense int8 input");
    nkt_expect_reject(c, missing_weights, NK_ERR_FORMAT, "required input 1",
                      "dense absent weights");
    nkt_expect_reject(c, one_input, NK_ERR_FORMAT, "inputs", "dense one input");
    return nkt_finish("dense");
}

/* elementwise_test.c — ADD and MUL with broadcasting against PyTorch
 * vectors (in place where the output has input 0's shape), and validate
 * rejections. */
#include "op_test.h"

#include "../../../testdata/op_vectors/elementwise.h"

#define CASES nkt_binary_cases

static void b_mismatch(nkt_graph *g) { g->t[1].dims[0] = 4; }
static void out_wrong(nkt_graph *g) { g->t[2].dims[3] = 1; }
static void out_rank(nkt_graph *g) {
    g->t[2].rank = 5;
    g->t[2].dims[4] = 1;
}
static void three_inputs(nkt_graph *g) { g->op.n_in = 3; }
static void inverted_clamp(nkt_graph *g) {
    nkt_set_f32(g, 0, 1.0f);
    nkt_set_f32(g, 1, -1.0f);
}

int main(void) {
    const nkt_case *pc = nkt_find(CASES, NKT_COUNT(CASES), "add per-channel [3]");
    const nkt_case *mc = nkt_find(CASES, NKT_COUNT(CASES), "mul per-channel [3]");
    nkt_run_cases(CASES, NKT_COUNT(CASES));
#if defined(NETKIT_BACKEND) && NETKIT_BACKEND
    {
        /* XNNPACK reads past an operand's end: a constant operand (no slack
         * after its payload) stays on netkit's kernels */
        nkt_graph g;
        nkt_graph_from_case(&g, pc);
        NKT_CHECK(nkt_backend_takes(&g), "backend: add per-channel not taken");
        g.t[1].is_const = 1;
        NKT_CHECK(!nkt_backend_takes(&g), "backend: took an add of a constant");
        NKT_CHECK(nkt_backend_runs == 10, "backend ran %d cases, want the 10 adds", nkt_backend_runs);
    }
#endif

    nkt_expect_reject(pc, b_mismatch, NK_ERR_SHAPE,
                      "add: inputs [1,4,4,3] and [4] do not broadcast", "add [1,4,4,3]+[4]");
    nkt_expect_reject(mc, b_mismatch, NK_ERR_SHAPE, "mul: inputs", "mul [1,4,4,3]*[4]");
    nkt_expect_reject(pc, out_wrong, NK_ERR_SHAPE,
                      "add: output dims [1,4,4,1] do not match input [1,4,4,3] broadcast with "
                      "[3] (expected [1,4,4,3])",
                      "add output");
    nkt_expect_reject(pc, out_rank, NK_ERR_SHAPE, "(expected [1,4,4,3])", "add output rank");
    nkt_expect_reject(pc, three_inputs, NK_ERR_FORMAT, "has 3 inputs", "add 3 inputs");
    nkt_expect_reject(mc, inverted_clamp, NK_ERR_UNSUPPORTED, "clamp", "mul clamp");
    return nkt_finish("elementwise");
}

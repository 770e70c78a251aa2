/* validate_fuzz_test.c — the contract eval relies on: whatever validate
 * accepts, eval runs without touching memory outside the tensors. Every
 * vector case is mutated at random (dims, ranks, param words, input count,
 * absent inputs); when validate accepts the result, eval runs over
 * exact-size heap buffers, so ASan (ctest's sanitizer build) flags any
 * overrun. Also checks that a rejection always fills err. Deterministic. */
#include "op_test.h"

#include "../../../testdata/op_vectors/activation.h"
#include "../../../testdata/op_vectors/conv.h"
#include "../../../testdata/op_vectors/dense.h"
#include "../../../testdata/op_vectors/elementwise.h"
#include "../../../testdata/op_vectors/pool.h"
#include "../../../testdata/op_vectors/shape_ops.h"

#ifndef NKT_MUTATIONS /* per case; override with -D for a longer local run */
#define NKT_MUTATIONS 1500
#endif
#ifndef NKT_SEED
#define NKT_SEED 0x9E3779B97F4A7C15ull
#endif
#define NKT_MAX_EVAL_ELEMS (1u << 18)

static uint64_t nkt_rng = NKT_SEED;

static uint32_t nkt_rand(void) {
    /* xorshift64* */
    nkt_rng ^= nkt_rng >> 12;
    nkt_rng ^= nkt_rng << 25;
    nkt_rng ^= nkt_rng >> 27;
    return (uint32_t)((nkt_rng * 2685821657736338717ull) >> 32);
}

static int32_t nkt_small(void) {
    static const int32_t v[] = {-3, -1, 0, 1, 1, 2, 2, 3, 4, 5, 7, 8, 16, 1 << 24, 0x7fffffff,
                                (int32_t)0x80000000};
    return v[nkt_rand() % (sizeof v / sizeof v[0])];
}

static void nkt_refresh(nk_tensor_rt *t) {
    uint64_t n = 1;
    int32_t i;
    for (i = 0; i < t->rank; i++)
        n *= (uint64_t)t->dims[i];
    /* the loader rejects element counts past u32; keep the mutation legal */
    t->elems = n > 0xFFFFFFFFull / 4 ? 0 : (uint32_t)n;
}

static void nkt_mutate(nkt_graph *g, uint32_t n_tensors) {
    uint32_t k, steps = 1 + nkt_rand() % 3;
    for (k = 0; k < steps; k++) {
        nk_tensor_rt *t = &g->t[nkt_rand() % n_tensors];
        switch (nkt_rand() % 7) {
        case 0:
        case 1: /* one dim: a legal .nk dim is 1..2^24 */
            if (t->rank) {
                int32_t v = nkt_small();
                t->dims[nkt_rand() % t->rank] = v < 1 ? 1 : v > (1 << 24) ? 1 << 24 : v;
            }
            break;
        case 2: /* rank */
        {
            uint8_t r = (uint8_t)(nkt_rand() % (NK_MAX_DIMS + 1)), i;
            for (i = t->rank; i < r; i++)
                t->dims[i] = 1 + (int32_t)(nkt_rand() % 4);
            t->rank = r;
            break;
        }
        case 3:
        case 4: /* a param word: small ints or raw bits (NaN, inf, huge) */
            if (g->op.n_params) {
                uint32_t w = nkt_rand() % 2 ? (uint32_t)nkt_small() : nkt_rand();
                g->params[nkt_rand() % g->op.n_params] = w;
            }
            break;
        case 5: /* parameter count */
            g->op.n_params = (uint16_t)(nkt_rand() % 14);
            break;
        case 6: /* input count or an absent input (ids stay valid, as the loader ensures) */
            if (nkt_rand() % 2 && g->op.n_in > 1)
                g->op.n_in--;
            else if (g->op.n_in)
                g->in_ids[nkt_rand() % g->op.n_in] = NK_NONE;
            break;
        }
    }
    for (k = 0; k < n_tensors; k++)
        nkt_refresh(&g->t[k]);
}

static uint32_t nkt_accepted = 0, nkt_evaluated = 0;

static void nkt_fuzz_case(const nkt_case *c) {
    uint32_t m, i;
    for (m = 0; m < NKT_MUTATIONS; m++) {
        nkt_graph g;
        nk_error_t err;
        nk_status s;
        const nk_op_def *def = nk_op_lookup(c->op, NK_F32);
        uint32_t n_tensors = (uint32_t)c->n_in + 1, total = 0;
        int legal = 1;
        nkt_graph_from_case(&g, c);
        /* absent inputs of the case get a harmless tensor so ids stay valid */
        for (i = 0; i < (uint32_t)c->n_in; i++)
            if (g.in_ids[i] == NK_NONE) {
                int32_t one = 1;
                nkt_tensor_set(&g.t[i], &one, 1);
            }
        nkt_mutate(&g, n_tensors);
        for (i = 0; i < n_tensors; i++)
            if (g.t[i].elems == 0)
                legal = 0;
        if (!legal)
            continue;
        memset(&err, 0, sizeof err);
        s = def->validate(&g.op, g.t, &err);
        if (s != NK_OK) {
            NKT_CHECK(err.status == (int32_t)s && err.message[0] != '\0',
                      "%s: rejection %d without a message", c->name, (int)s);
            continue;
        }
        nkt_accepted++;
        for (i = 0; i < n_tensors; i++)
            total += g.t[i].elems;
        if (total > NKT_MAX_EVAL_ELEMS)
            continue;
        {
            void *data[NK_OP_MAX_IN + 1] = {0};
            nk_exec x;
            size_t ws = def->workspace_size(&g.op, g.t);
            for (i = 0; i < n_tensors; i++) {
                uint32_t j;
                float *p = (float *)malloc(nk_tensor_bytes(&g.t[i]));
                for (j = 0; j < g.t[i].elems; j++)
                    p[j] = (float)((int32_t)(nkt_rand() % 2001) - 1000) / 100.0f;
                data[i] = p;
            }
            memset(&x, 0, sizeof x); /* portable kernels: the fuzz targets validate */
            x.tensors = g.t;
            x.data = data;
            x.workspace = ws ? malloc(ws) : NULL;
            x.workspace_size = ws;
#if NK_OPS_MACS
            (void)def->macs(&g.op, g.t);
#endif
            s = def->eval(&g.op, &x);
            NKT_CHECK(s == NK_OK, "%s: eval of an accepted mutation failed", c->name);
            nkt_evaluated++;
            /* and in place, as the planner would run it */
            if ((def->flags & (NK_OPF_ELEMENTWISE | NK_OPF_ALIAS)) && g.op.in[0] != NK_NONE &&
                nk_tensor_bytes(&g.t[0]) == nk_tensor_bytes(&g.t[c->n_in])) {
                void *own = data[c->n_in];
                data[c->n_in] = data[0];
                s = def->eval(&g.op, &x);
                NKT_CHECK(s == NK_OK, "%s: in-place eval failed", c->name);
                data[c->n_in] = own;
            }
            for (i = 0; i < n_tensors; i++)
                free(data[i]);
            free(x.workspace);
        }
    }
}

int main(void) {
    static const struct {
        const nkt_case *cases;
        size_t n;
    } tables[] = {
        {nkt_dense_cases, NKT_COUNT(nkt_dense_cases)},
        {nkt_conv_cases, NKT_COUNT(nkt_conv_cases)},
        {nkt_pool_cases, NKT_COUNT(nkt_pool_cases)},
        {nkt_activation_cases, NKT_COUNT(nkt_activation_cases)},
        {nkt_binary_cases, NKT_COUNT(nkt_binary_cases)},
        {nkt_shape_cases, NKT_COUNT(nkt_shape_cases)},
    };
    size_t t, i;
    for (t = 0; t < NKT_COUNT(tables); t++)
        for (i = 0; i < tables[t].n; i++)
            nkt_fuzz_case(&tables[t].cases[i]);
    printf("validate fuzz: %u mutations accepted, %u evaluated\n", nkt_accepted, nkt_evaluated);
    NKT_CHECK(nkt_evaluated > 1000, "too few accepted mutations were evaluated");
    return nkt_finish("validate_fuzz");
}

/* op_table_test.c — nk_op_lookup: every op id of docs/NK_FORMAT.md has a
 * float32 entry with the documented name, counts and planner flags. */
#include "op_test.h"

typedef struct nkt_expect {
    uint32_t type;
    const char *name;
    uint8_t flags, min_in, max_in, min_params;
} nkt_expect;

static const nkt_expect nkt_table[] = {
    {1, "dense", 0, 2, 3, 2},
    {2, "conv2d", 0, 2, 3, 11},
    {3, "depthwise_conv2d", 0, 2, 3, 11},
    {4, "max_pool2d", 0, 1, 1, 10},
    {5, "avg_pool2d", 0, 1, 1, 11},
    {6, "global_avg_pool", 0, 1, 1, 0},
    {7, "batch_norm", NK_OPF_ELEMENTWISE, 5, 5, 1},
    {8, "relu", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {9, "clip", NK_OPF_ELEMENTWISE, 1, 1, 2},
    {10, "leaky_relu", NK_OPF_ELEMENTWISE, 1, 1, 1},
    {11, "sigmoid", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {12, "tanh", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {13, "gelu", NK_OPF_ELEMENTWISE, 1, 1, 1},
    {14, "softmax", NK_OPF_ELEMENTWISE, 1, 1, 1},
    {15, "add", NK_OPF_ELEMENTWISE, 2, 2, 2},
    {16, "mul", NK_OPF_ELEMENTWISE, 2, 2, 2},
    {17, "concat", 0, 1, 8, 1},
    {18, "reshape", NK_OPF_ALIAS, 1, 1, 0},
    {19, "pad", 0, 1, 1, 2},
    {20, "transpose", 0, 1, 1, 0},
    {21, "sub", NK_OPF_ELEMENTWISE, 2, 2, 2},
    {22, "div", NK_OPF_ELEMENTWISE, 2, 2, 2},
    {23, "maximum", NK_OPF_ELEMENTWISE, 2, 2, 2},
    {24, "minimum", NK_OPF_ELEMENTWISE, 2, 2, 2},
    {25, "pow", NK_OPF_ELEMENTWISE, 2, 2, 2},
    {26, "exp", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {27, "sqrt", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {28, "neg", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {29, "abs", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {30, "reciprocal", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {31, "hard_sigmoid", NK_OPF_ELEMENTWISE, 1, 1, 2},
    {32, "hard_swish", NK_OPF_ELEMENTWISE, 1, 1, 0},
    {33, "reduce_mean", 0, 1, 1, 1},
    {34, "reduce_sum", 0, 1, 1, 1},
    {35, "reduce_max", 0, 1, 1, 1},
    {36, "slice", 0, 1, 1, 0},
    {37, "matmul", 0, 2, 2, 2},
    {38, "layer_norm", NK_OPF_ELEMENTWISE, 2, 3, 2},
    {40, "resize2d", 0, 1, 1, 7},
    {41, "conv_transpose2d", 0, 2, 3, 10},
    {42, "lstm", 0, 3, 7, 22},
    {43, "gru", 0, 3, 5, 22},
};

/* The generated list (internal/nkfile/ops.tsv): every op has a table entry
 * for some dtype, and every entry carries the list's name, which Go's
 * OpType.String also gives, so inspect and errors name ops as Go does. */
typedef struct nkt_listed {
    uint32_t type;
    const char *name;
} nkt_listed;

#define NKT_LISTED(type, name) {type, name},
static const nkt_listed nkt_list[] = {NK_OP_LIST(NKT_LISTED)};

static void nkt_check_names(void) {
    static const uint32_t dtypes[] = {NK_F32, NK_I8, NK_I16, NK_I32};
    size_t i, k;
    for (i = 0; i < NKT_COUNT(nkt_list); i++) {
        int entries = 0;
        for (k = 0; k < NKT_COUNT(dtypes); k++) {
            const nk_op_def *d = nk_op_lookup(nkt_list[i].type, dtypes[k]);
            if (!d)
                continue;
            entries++;
            NKT_CHECK(strcmp(d->name, nkt_list[i].name) == 0, "type %u named %s, the list says %s",
                      nkt_list[i].type, d->name, nkt_list[i].name);
        }
        NKT_CHECK(entries > 0, "%s (type %u) has no op table entry", nkt_list[i].name,
                  nkt_list[i].type);
    }
}

int main(void) {
    size_t i;
    nkt_check_names();
    for (i = 0; i < NKT_COUNT(nkt_table); i++) {
        const nkt_expect *e = &nkt_table[i];
        const nk_op_def *d = nk_op_lookup(e->type, NK_F32);
        NKT_CHECK(d != NULL, "type %u has no f32 entry", e->type);
        if (!d)
            continue;
        NKT_CHECK(d->type == e->type && d->dtype == NK_F32, "type %u entry", e->type);
        NKT_CHECK(strcmp(d->name, e->name) == 0, "type %u named %s", e->type, d->name);
        NKT_CHECK(d->flags == e->flags, "%s flags %u", d->name, d->flags);
        NKT_CHECK(d->min_in == e->min_in && d->max_in == e->max_in, "%s inputs", d->name);
        /* LSTM: Y, Y_h, Y_c; GRU: Y, Y_h */
        NKT_CHECK(d->n_out == (e->type == 42 ? 3 : e->type == 43 ? 2 : 1), "%s outputs", d->name);
        NKT_CHECK(d->min_params == e->min_params, "%s params %u", d->name, d->min_params);
        NKT_CHECK(d->validate && d->workspace_size && (d->macs != NULL) == NK_OPS_MACS && d->eval, "%s callbacks",
                  d->name);
        NKT_CHECK(strlen(d->name) < sizeof(((nk_op_info_t *)0)->op), "%s fits nk_op_info_t",
                  d->name);
        /* only the byte-moving ops also run on i8 (op_table_i8_test.c), and
         * the typed binary ops on every dtype but f32 (plain integers) */
        {
            const int typed = e->type == 15 || e->type == 16 || (e->type >= 21 && e->type <= 24);
            const nk_op_def *i8 = nk_op_lookup(e->type, NK_I8);
            NKT_CHECK((i8 != NULL) == ((e->type >= 17 && e->type <= 20) || e->type == 36 || e->type == 40 || typed),
                      "%s i8 entry", d->name);
            NKT_CHECK(!typed || (i8 != NULL && i8->dtype == NK_OP_ANY_DTYPE && i8 != d &&
                                 nk_op_lookup(e->type, NK_U64) == i8 && nk_op_lookup(e->type, NK_F16) == i8),
                      "%s typed entry", d->name);
        }
    }
    NKT_CHECK(nk_op_lookup(0, NK_F32) == NULL, "type 0");
    NKT_CHECK(nk_op_lookup(NK_OP_TYPE_COUNT, NK_F32) == NULL, "one past the last float op");
    NKT_CHECK(nk_op_lookup(64, NK_F32) == NULL, "type 64");
    NKT_CHECK(nk_op_lookup(0xFFFFu, NK_F32) == NULL, "type 0xFFFF");
    NKT_CHECK(nk_op_lookup(1, NK_DTYPE_INVALID) == NULL, "dtype 0");
    return nkt_finish("op_table");
}

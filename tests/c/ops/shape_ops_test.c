/* shape_ops_test.c — CONCAT, RESHAPE, PAD, TRANSPOSE against PyTorch/numpy
 * vectors (reshape also aliased: out == in), and validate rejections; the
 * upsampling ops RESIZE2D and CONV_TRANSPOSE2D worked by hand. */
#include "op_test.h"
#include "kernels/ref/ref_kernels.h"

#include "../../../testdata/op_vectors/shape_ops.h"

#define CASES nkt_shape_cases

/* concat fixture "concat channels": [1,3,3,2],[1,3,3,3],[1,3,3,1] -> [1,3,3,6] */
static void cat_axis_sum(nkt_graph *g) { g->t[3].dims[3] = 5; }
static void cat_other_dim(nkt_graph *g) { g->t[1].dims[1] = 4; }
static void cat_axis_big(nkt_graph *g) { nkt_set_i32(g, 0, 4); }
static void cat_axis_neg(nkt_graph *g) { nkt_set_i32(g, 0, -1); }
static void cat_rank(nkt_graph *g) { g->t[2].rank = 3; }
static void cat_absent(nkt_graph *g) { g->in_ids[2] = NK_NONE; }
/* reshape fixture [1,2,3,4] -> [1,24] */
static void rs_elems(nkt_graph *g) {
    g->t[1].dims[1] = 23;
    g->t[1].elems = 23;
}
/* pad fixtures */
static void pad_mode(nkt_graph *g) { nkt_set_i32(g, 0, 3); }
static void pad_params(nkt_graph *g) { g->op.n_params = 9; }
static void pad_out(nkt_graph *g) { g->t[1].dims[1] = 5; }
static void reflect_too_far(nkt_graph *g) {
    /* "pad reflect rank 3": x [2,4,5]; before[1] = 4 >= dim 4 */
    nkt_set_i32(g, 3, 4);
    g->t[1].dims[1] += 1;
}
static void crop_all(nkt_graph *g) {
    /* "pad constant rank 1": x [5]; before -5 after -1 leaves nothing */
    nkt_set_i32(g, 2, -5);
    nkt_set_i32(g, 3, -1);
}
/* transpose fixture "transpose nhwc->nchw": [1,3,4,5] perm 0,3,1,2 */
static void tr_dup(nkt_graph *g) { nkt_set_i32(g, 1, 1); }
static void tr_range(nkt_graph *g) { nkt_set_i32(g, 2, 4); }
static void tr_params(nkt_graph *g) { g->op.n_params = 3; }
static void tr_out(nkt_graph *g) { g->t[1].dims[1] = 4; }

/* RESIZE2D and CONV_TRANSPOSE2D worked by hand (ONNX's own node tests
 * cover every mode through the converter: internal/graph's conformance). */
#define W_I32(v) ((uint32_t)(int32_t)(v))
static uint32_t rz_params[7], ct_params[10];
static const float up_x[4] = {1, 2, 3, 4};
/* [1,2,2,1] -> [1,4,4,1] nearest asymmetric floor: each pixel repeated 2x2 */
static const float rz_want[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
/* stride 2, 3x3 ones, pads 0,0,1,1: rows take input rows {0},{0},{0,1},{1} */
static const float ct_w[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
static const float ct_want[16] = {1, 1, 3, 2, 1, 1, 3, 2, 4, 4, 10, 6, 3, 3, 7, 4};
static void rz_mode(nkt_graph *g) { nkt_set_i32(g, 0, 3); }
/* cubic takes two more words (cubic_a, exclude_outside) than the 7 here */
static void rz_cubic_short(nkt_graph *g) { nkt_set_i32(g, 0, 2); }
static void rz_scale(nkt_graph *g) { nkt_set_f32(g, 5, 0.0f); }
static void rz_out(nkt_graph *g) { g->t[1].dims[2] = 5; }
static void ct_stride(nkt_graph *g) { nkt_set_i32(g, 0, 0); }
static void ct_weights(nkt_graph *g) { g->t[1].dims[3] = 2; }
static void ct_crop_all(nkt_graph *g) { nkt_set_i32(g, 6, 5); }
static void ct_out(nkt_graph *g) { g->t[3].dims[1] = 5; }

/* tf_crop_and_resize, linear, by hand: a 2x2 input {1,2,3,4} to 3x3 over the
 * box rows 0..2 (past the input: source rows 0, 1, 2) and columns 0..1
 * (source columns 0, 0.5, 1); row 2's source lies outside, so it takes the
 * extrapolation value 10. */
static uint32_t crop_params[12];
static const float crop_want[9] = {1, 1.5f, 2, 3, 3.5f, 4, 10, 10, 10};
static void crop_short(nkt_graph *g) { g->op.n_params = 7; }
static void crop_nan(nkt_graph *g) { nkt_set_f32(g, 11, NAN); }

static void resize_crop(void) {
    static const float box_and_value[5] = {0, 2, 0, 1, 10};
    nkt_case r;
    int i;
    crop_params[0] = 1; /* linear */
    crop_params[1] = 5; /* tf_crop_and_resize */
    crop_params[2] = 0;
    crop_params[3] = crop_params[4] = 3;
    crop_params[5] = crop_params[6] = nkt_f32_word(1.5f);
    for (i = 0; i < 5; i++)
        crop_params[7 + i] = nkt_f32_word(box_and_value[i]);
    memset(&r, 0, sizeof r);
    r.name = "resize2d tf_crop_and_resize linear";
    r.op = NK_OP_RESIZE2D;
    r.n_in = 1;
    r.in[0] = (nkt_tensor){4, {1, 2, 2, 1}, up_x};
    r.out = (nkt_tensor){4, {1, 3, 3, 1}, crop_want};
    r.n_params = 12;
    r.params = crop_params;
    nkt_run_case(&r);
    nkt_expect_reject(&r, crop_short, NK_ERR_FORMAT, "+5 for tf_crop_and_resize", "resize crop params");
    nkt_expect_reject(&r, crop_nan, NK_ERR_UNSUPPORTED, "must be finite", "resize crop NaN");
}

static void upsample_hand(void) {
    static const uint32_t rz[7] = {0, 2, 2, 4, 4, 0, 0};
    static const uint32_t ct[8] = {2, 2, 1, 1, 0, 0, 1, 1};
    nkt_case r, c;
    int i;
    memcpy(rz_params, rz, sizeof rz);
    rz_params[5] = rz_params[6] = nkt_f32_word(2.0f);
    for (i = 0; i < 8; i++)
        ct_params[i] = W_I32(ct[i]);
    ct_params[8] = nkt_f32_word(-INFINITY);
    ct_params[9] = nkt_f32_word(INFINITY);
    memset(&r, 0, sizeof r);
    r.name = "resize2d nearest 2x";
    r.op = NK_OP_RESIZE2D;
    r.n_in = 1;
    r.in[0] = (nkt_tensor){4, {1, 2, 2, 1}, up_x};
    r.out = (nkt_tensor){4, {1, 4, 4, 1}, rz_want};
    r.n_params = 7;
    r.params = rz_params;
    memset(&c, 0, sizeof c);
    c.name = "conv_transpose2d stride 2 3x3";
    c.op = NK_OP_CONV_TRANSPOSE2D;
    c.n_in = 3;
    c.in[0] = (nkt_tensor){4, {1, 2, 2, 1}, up_x};
    c.in[1] = (nkt_tensor){4, {1, 3, 3, 1}, ct_w};
    c.in[2] = (nkt_tensor){-1, {0}, NULL};
    c.out = (nkt_tensor){4, {1, 4, 4, 1}, ct_want};
    c.n_params = 10;
    c.params = ct_params;
    nkt_run_case(&r);
    nkt_run_case(&c);
    nkt_expect_reject(&r, rz_mode, NK_ERR_UNSUPPORTED, "mode 3", "resize mode");
    nkt_expect_reject(&r, rz_cubic_short, NK_ERR_FORMAT, "(+2 for cubic", "resize cubic params");
    resize_crop();
    nkt_expect_reject(&r, rz_scale, NK_ERR_UNSUPPORTED, "scale_h", "resize scale 0");
    nkt_expect_reject(&r, rz_out, NK_ERR_SHAPE, "(expected [1,4,4,1])", "resize output");
    nkt_expect_reject(&c, ct_stride, NK_ERR_UNSUPPORTED, "stride", "conv_transpose stride 0");
    nkt_expect_reject(&c, ct_weights, NK_ERR_SHAPE, "weights", "conv_transpose weights");
    nkt_expect_reject(&c, ct_crop_all, NK_ERR_SHAPE, "leave no output", "conv_transpose crop");
    nkt_expect_reject(&c, ct_out, NK_ERR_SHAPE, "(expected [1,4,4,1])", "conv_transpose output");
}

/* The data-movement kernels move any element size; no dtype uses 2 bytes
 * yet, so check that size directly (expected values worked by hand). Both
 * bytes of every value differ from the 0xEE filler y starts with. */
#define K(n) (uint16_t)(0x1100 + (n))
static void expect_u16(const uint16_t *y, const uint16_t *want, int n, const char *what) {
    int i;
    for (i = 0; i < n; i++)
        NKT_CHECK(y[i] == want[i], "%s [%d]: %u, want %u", what, i, y[i], want[i]);
}

static void byte_kernels_2byte(void) {
    static const uint16_t x23[6] = {K(1), K(2), K(3), K(4), K(5), K(6)};
    static const uint16_t x22[4] = {K(1), K(2), K(3), K(4)};
    static const uint16_t x3[3] = {K(1), K(2), K(3)};
    static const uint16_t cat_a[2] = {K(1), K(2)}, cat_b[4] = {K(3), K(4), K(5), K(6)};
    static const int32_t d23[2] = {2, 3}, d22[2] = {2, 2}, d34[2] = {3, 4}, d3[1] = {3},
                         d6[1] = {6}, perm[2] = {1, 0}, b11[2] = {1, 1}, b2[1] = {2},
                         cat_dims[2] = {1, 2};
    static const uint16_t want_tr[6] = {K(1), K(4), K(2), K(5), K(3), K(6)};
    static const uint16_t V = 0xABCD;
    static const uint16_t want_const[12] = {V, V, V, V, V, K(1), K(2), V, V, K(3), K(4), V};
    static const uint16_t want_edge[12] = {K(1), K(1), K(2), K(2), K(1), K(1),
                                           K(2), K(2), K(3), K(3), K(4), K(4)};
    static const uint16_t want_reflect[6] = {K(3), K(2), K(1), K(2), K(3), K(2)};
    static const uint16_t want_cat[6] = {K(1), K(3), K(4), K(2), K(5), K(6)};
    const void *cat_in[2] = {cat_a, cat_b};
    uint16_t y[12];
    memset(y, 0xEE, sizeof y);
    nk_ref_transpose(x23, d23, 2, perm, y, 2);
    expect_u16(y, want_tr, 6, "transpose u16");
    memset(y, 0xEE, sizeof y);
    nk_ref_pad(x22, d22, 2, b11, y, d34, NK_PAD_CONSTANT, &V, 2);
    expect_u16(y, want_const, 12, "pad constant u16");
    memset(y, 0xEE, sizeof y);
    nk_ref_pad(x22, d22, 2, b11, y, d34, NK_PAD_EDGE, &V, 2);
    expect_u16(y, want_edge, 12, "pad edge u16");
    memset(y, 0xEE, sizeof y);
    nk_ref_pad(x3, d3, 1, b2, y, d6, NK_PAD_REFLECT, &V, 2);
    expect_u16(y, want_reflect, 6, "pad reflect u16");
    memset(y, 0xEE, sizeof y);
    nk_ref_concat(cat_in, cat_dims, 2, y, 2, 1, 2);
    expect_u16(y, want_cat, 6, "concat u16");
}

int main(void) {
    const nkt_case *cat = nkt_find(CASES, NKT_COUNT(CASES), "concat channels");
    const nkt_case *rs =
        nkt_find(CASES, NKT_COUNT(CASES), "reshape flatten [1,2,3,4]->[1,24]");
    const nkt_case *pc = nkt_find(CASES, NKT_COUNT(CASES), "pad constant nhwc spatial");
    const nkt_case *pr = nkt_find(CASES, NKT_COUNT(CASES), "pad reflect rank 3");
    const nkt_case *p1 = nkt_find(CASES, NKT_COUNT(CASES), "pad constant rank 1");
    const nkt_case *tr = nkt_find(CASES, NKT_COUNT(CASES), "transpose nhwc->nchw");
    nkt_run_cases(CASES, NKT_COUNT(CASES));

    nkt_expect_reject(cat, cat_axis_sum, NK_ERR_SHAPE, "inputs sum to 6", "concat axis sum");
    nkt_expect_reject(cat, cat_other_dim, NK_ERR_SHAPE, "input 1 [1,4,3,3] does not match",
                      "concat other dim");
    nkt_expect_reject(cat, cat_axis_big, NK_ERR_UNSUPPORTED, "axis 4 is outside rank 4",
                      "concat axis 4");
    nkt_expect_reject(cat, cat_axis_neg, NK_ERR_UNSUPPORTED, "axis -1", "concat axis -1");
    nkt_expect_reject(cat, cat_rank, NK_ERR_SHAPE, "input 2", "concat rank");
    nkt_expect_reject(cat, cat_absent, NK_ERR_FORMAT, "required input 2", "concat absent input");
    nkt_expect_reject(rs, rs_elems, NK_ERR_SHAPE,
                      "reshape: output dims [1,23] hold 23 elements, input [1,2,3,4] holds 24",
                      "reshape elements");
    nkt_expect_reject(pc, pad_mode, NK_ERR_UNSUPPORTED, "mode 3", "pad mode 3");
    nkt_expect_reject(pc, pad_params, NK_ERR_FORMAT, "expected 10 for rank 4", "pad params");
    nkt_expect_reject(pc, pad_out, NK_ERR_SHAPE, "(expected [1,6,7,2])", "pad output");
    nkt_expect_reject(pr, reflect_too_far, NK_ERR_UNSUPPORTED, "reflect", "pad reflect 4 of 4");
    nkt_expect_reject(p1, crop_all, NK_ERR_UNSUPPORTED, "out of range", "pad crop all");
    nkt_expect_reject(tr, tr_dup, NK_ERR_UNSUPPORTED, "not a permutation", "transpose dup");
    nkt_expect_reject(tr, tr_range, NK_ERR_UNSUPPORTED, "perm entry 2 = 4", "transpose range");
    nkt_expect_reject(tr, tr_params, NK_ERR_FORMAT, "3 perm entries for rank 4",
                      "transpose params");
    nkt_expect_reject(tr, tr_out, NK_ERR_SHAPE, "(expected [1,5,3,4])", "transpose output");
    byte_kernels_2byte();
    upsample_hand();
    return nkt_finish("shape_ops");
}

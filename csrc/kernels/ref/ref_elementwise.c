/* ref_elementwise.c — binary ops with numpy broadcasting (add, mul, sub, div,
 * maximum, minimum, pow) and unary math (exp, sqrt, neg, abs, reciprocal),
 * float32. */
#include "ref_kernels.h"

#include <math.h>

/* The four operand patterns of one run, for one expression of a and b. */
#define NK_BIN_RUN(EXPR)                                                                          \
    do {                                                                                          \
        if (sa && sb) {                                                                           \
            for (i = 0; i < n; i++) {                                                             \
                const float av = a[i], bv = b[i];                                                 \
                y[i] = nk_clampf(EXPR, lo, hi);                                                   \
            }                                                                                     \
        } else if (sa) {                                                                          \
            const float bv = b[0];                                                                \
            for (i = 0; i < n; i++) {                                                             \
                const float av = a[i];                                                            \
                y[i] = nk_clampf(EXPR, lo, hi);                                                   \
            }                                                                                     \
        } else if (sb) {                                                                          \
            const float av = a[0];                                                                \
            for (i = 0; i < n; i++) {                                                             \
                const float bv = b[i];                                                            \
                y[i] = nk_clampf(EXPR, lo, hi);                                                   \
            }                                                                                     \
        } else {                                                                                  \
            const float av = a[0], bv = b[0];                                                     \
            const float v = nk_clampf(EXPR, lo, hi);                                              \
            for (i = 0; i < n; i++)                                                               \
                y[i] = v;                                                                         \
        }                                                                                         \
    } while (0)

/* One run of n outputs; sa/sb are 0 (broadcast value) or 1 (contiguous).
 * Reads a[i], b[i] before writing y[i], so y may equal a or b. */
static void nk_ref_binary_run(nk_ref_binop kind, const float *a, size_t sa, const float *b,
                              size_t sb, float *y, size_t n, float lo, float hi) {
    size_t i;
    switch (kind) {
    case NK_BINOP_ADD:
        NK_BIN_RUN(av + bv);
        break;
    case NK_BINOP_MUL:
        NK_BIN_RUN(av * bv);
        break;
    case NK_BINOP_SUB:
        NK_BIN_RUN(av - bv);
        break;
    case NK_BINOP_DIV:
        NK_BIN_RUN(av / bv);
        break;
    case NK_BINOP_MAX:
        NK_BIN_RUN(nk_maxf(av, bv));
        break;
    case NK_BINOP_MIN:
        NK_BIN_RUN(nk_minf(av, bv));
        break;
    case NK_BINOP_POW:
        NK_BIN_RUN(powf(av, bv));
        break;
    }
}

#undef NK_BIN_RUN

/* Drops size-1 output dims and merges neighbouring dims that broadcast the
 * same way for both operands, so a per-channel operand becomes one
 * [outer, C] loop and same-shape operands become one flat run. */
void nk_ref_binary_f32(nk_ref_binop kind, const float *a, const int32_t *a_dims, int32_t a_rank,
                          const float *b, const int32_t *b_dims, int32_t b_rank, float *y,
                          const int32_t *y_dims, int32_t y_rank, float lo, float hi) {
    size_t dims[6], sa[6], sb[6], idx[6];
    unsigned char ba[6], bb[6];
    int32_t r = 0, d;
    size_t acc_a = 1, acc_b = 1, outer = 1, n, o, oa = 0, ob = 0;
    for (d = 0; d < y_rank; d++) {
        const int32_t yd = y_dims[d];
        const int32_t ad = d - (y_rank - a_rank) >= 0 ? a_dims[d - (y_rank - a_rank)] : 1;
        const int32_t bd = d - (y_rank - b_rank) >= 0 ? b_dims[d - (y_rank - b_rank)] : 1;
        unsigned char fa, fb;
        if (yd == 1)
            continue;
        fa = (unsigned char)(ad == 1);
        fb = (unsigned char)(bd == 1);
        if (r > 0 && ba[r - 1] == fa && bb[r - 1] == fb) {
            dims[r - 1] *= (size_t)yd;
        } else {
            dims[r] = (size_t)yd;
            ba[r] = fa;
            bb[r] = fb;
            r++;
        }
    }
    if (r == 0) {
        nk_ref_binary_run(kind, a, 1, b, 1, y, 1, lo, hi);
        return;
    }
    for (d = r - 1; d >= 0; d--) {
        sa[d] = ba[d] ? 0 : acc_a;
        sb[d] = bb[d] ? 0 : acc_b;
        if (!ba[d])
            acc_a *= dims[d];
        if (!bb[d])
            acc_b *= dims[d];
        idx[d] = 0;
    }
    n = dims[r - 1];
    for (d = 0; d < r - 1; d++)
        outer *= dims[d];
    for (o = 0; o < outer; o++) {
        nk_ref_binary_run(kind, a + oa, sa[r - 1], b + ob, sb[r - 1], y + o * n, n, lo, hi);
        /* odometer over the outer dims */
        for (d = r - 2; d >= 0; d--) {
            oa += sa[d];
            ob += sb[d];
            if (++idx[d] < dims[d])
                break;
            oa -= sa[d] * dims[d];
            ob -= sb[d] * dims[d];
            idx[d] = 0;
        }
    }
}

void nk_ref_add_f32(const float *a, const int32_t *a_dims, int32_t a_rank, const float *b,
                    const int32_t *b_dims, int32_t b_rank, float *y, const int32_t *y_dims,
                    int32_t y_rank, float act_min, float act_max) {
    nk_ref_binary_f32(NK_BINOP_ADD, a, a_dims, a_rank, b, b_dims, b_rank, y, y_dims, y_rank, act_min,
                  act_max);
}

void nk_ref_mul_f32(const float *a, const int32_t *a_dims, int32_t a_rank, const float *b,
                    const int32_t *b_dims, int32_t b_rank, float *y, const int32_t *y_dims,
                    int32_t y_rank, float act_min, float act_max) {
    nk_ref_binary_f32(NK_BINOP_MUL, a, a_dims, a_rank, b, b_dims, b_rank, y, y_dims, y_rank, act_min,
                  act_max);
}

void nk_ref_unary_f32(nk_ref_unop kind, const float *x, float *y, size_t n) {
    size_t i;
    switch (kind) {
    case NK_UNOP_EXP:
        for (i = 0; i < n; i++)
            y[i] = expf(x[i]);
        break;
    case NK_UNOP_SQRT:
        for (i = 0; i < n; i++)
            y[i] = sqrtf(x[i]);
        break;
    case NK_UNOP_NEG:
        for (i = 0; i < n; i++)
            y[i] = -x[i];
        break;
    case NK_UNOP_ABS:
        for (i = 0; i < n; i++)
            y[i] = fabsf(x[i]);
        break;
    case NK_UNOP_RECIPROCAL:
        for (i = 0; i < n; i++)
            y[i] = 1.0f / x[i];
        break;
    }
}

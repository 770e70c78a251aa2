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

typedef struct nk_binary_f32_ctx {
    nk_ref_binop kind;
    const float *a, *b;
    float *y;
    float lo, hi;
} nk_binary_f32_ctx;

static void nk_binary_f32_runs(void *ctx, size_t ia, size_t sa, size_t ib, size_t sb, size_t iy,
                               size_t n) {
    const nk_binary_f32_ctx *c = (const nk_binary_f32_ctx *)ctx;
    nk_ref_binary_run(c->kind, c->a + ia, sa, c->b + ib, sb, c->y + iy, n, c->lo, c->hi);
}

void nk_ref_binary_f32(nk_ref_binop kind, const float *a, const int32_t *a_dims, int32_t a_rank,
                       const float *b, const int32_t *b_dims, int32_t b_rank, float *y,
                       const int32_t *y_dims, int32_t y_rank, float lo, float hi) {
    nk_binary_f32_ctx c;
    c.kind = kind;
    c.a = a;
    c.b = b;
    c.y = y;
    c.lo = lo;
    c.hi = hi;
    nk_ref_broadcast_runs(a_dims, a_rank, b_dims, b_rank, y_dims, y_rank, nk_binary_f32_runs, &c);
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

/* ref_elementwise.c — binary ops with numpy broadcasting (add, mul, sub, div,
 * maximum, minimum, pow) and unary math (exp, sqrt, neg, abs, reciprocal),
 * float32; the binary ops but pow also on integer, float16 and double
 * tensors (nk_ref_binary_typed). */
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

/* Typed operands are held in 64 bits: integers sign- or zero-extended,
 * floats as their bits. */
static uint64_t nk_typed_load(nk_ref_num num, uint32_t size, const void *p, size_t i) {
    switch (size) {
    case 1:
        return num == NK_NUM_SIGNED ? (uint64_t)(int64_t)((const int8_t *)p)[i]
                                    : ((const uint8_t *)p)[i];
    case 2:
        return num == NK_NUM_SIGNED ? (uint64_t)(int64_t)((const int16_t *)p)[i]
                                    : ((const uint16_t *)p)[i];
    case 4:
        return num == NK_NUM_SIGNED ? (uint64_t)(int64_t)((const int32_t *)p)[i]
                                    : ((const uint32_t *)p)[i];
    default:
        return ((const uint64_t *)p)[i];
    }
}

/* Stores the low `size` bytes: integer results wrap to the type. */
static void nk_typed_store(uint32_t size, void *p, size_t i, uint64_t v) {
    switch (size) {
    case 1:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case 2:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case 4:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    default:
        ((uint64_t *)p)[i] = v;
        break;
    }
}

/* A float's bits as a signed key in the float order (-0 equals +0), and
 * whether it is a NaN; binary16 or binary64 by size. */
static int64_t nk_float_key(uint32_t size, uint64_t bits, int *nan) {
    const uint64_t sign = size == 2 ? 0x8000u : 0x8000000000000000u;
    const uint64_t inf = size == 2 ? 0x7C00u : 0x7FF0000000000000u;
    const uint64_t mag = bits & (sign - 1u);
    *nan = mag > inf;
    return (bits & sign) ? -(int64_t)mag : (int64_t)mag;
}

/* 1 when a > b in the operands' order (floats: neither a NaN). */
static int nk_typed_greater(nk_ref_num num, uint32_t size, uint64_t a, uint64_t b) {
    int na, nb;
    switch (num) {
    case NK_NUM_SIGNED:
        return (int64_t)a > (int64_t)b;
    case NK_NUM_UNSIGNED:
        return a > b;
    default:
        return nk_float_key(size, a, &na) > nk_float_key(size, b, &nb);
    }
}

static int nk_typed_is_nan(nk_ref_num num, uint32_t size, uint64_t v) {
    int nan = 0;
    if (num == NK_NUM_FLOAT)
        (void)nk_float_key(size, v, &nan);
    return nan;
}

/* Unsigned arithmetic throughout: no signed overflow, low bits exact. */
static uint64_t nk_typed_apply(nk_ref_binop kind, nk_ref_num num, uint32_t size, uint64_t a,
                               uint64_t b) {
    switch (kind) {
    case NK_BINOP_ADD:
        return a + b;
    case NK_BINOP_SUB:
        return a - b;
    case NK_BINOP_MUL:
        return a * b;
    case NK_BINOP_DIV: {
        int neg_a, neg_b;
        uint64_t q;
        if (b == 0)
            return 0;
        if (num == NK_NUM_UNSIGNED)
            return a / b;
        neg_a = (int64_t)a < 0;
        neg_b = (int64_t)b < 0;
        q = (neg_a ? 0u - a : a) / (neg_b ? 0u - b : b);
        return neg_a != neg_b ? 0u - q : q;
    }
    case NK_BINOP_MAX: /* as nk_maxf: a NaN operand is the result */
        return nk_typed_is_nan(num, size, a) ||
                       (!nk_typed_is_nan(num, size, b) && nk_typed_greater(num, size, a, b))
                   ? a
                   : b;
    case NK_BINOP_MIN:
        return nk_typed_is_nan(num, size, a) ||
                       (!nk_typed_is_nan(num, size, b) && nk_typed_greater(num, size, b, a))
                   ? a
                   : b;
    default:
        return 0; /* POW: refused at load */
    }
}

typedef struct nk_binary_typed_ctx {
    nk_ref_binop kind;
    nk_ref_num num;
    uint32_t size;
    const void *a, *b;
    void *y;
} nk_binary_typed_ctx;

static void nk_binary_typed_runs(void *ctx, size_t ia, size_t sa, size_t ib, size_t sb, size_t iy,
                                 size_t n) {
    const nk_binary_typed_ctx *c = (const nk_binary_typed_ctx *)ctx;
    size_t i;
    for (i = 0; i < n; i++) {
        const uint64_t av = nk_typed_load(c->num, c->size, c->a, ia + i * sa);
        const uint64_t bv = nk_typed_load(c->num, c->size, c->b, ib + i * sb);
        nk_typed_store(c->size, c->y, iy + i, nk_typed_apply(c->kind, c->num, c->size, av, bv));
    }
}

void nk_ref_binary_typed(nk_ref_binop kind, nk_ref_num num, uint32_t size, const void *a,
                         const int32_t *a_dims, int32_t a_rank, const void *b,
                         const int32_t *b_dims, int32_t b_rank, void *y, const int32_t *y_dims,
                         int32_t y_rank) {
    nk_binary_typed_ctx c;
    c.kind = kind;
    c.num = num;
    c.size = size;
    c.a = a;
    c.b = b;
    c.y = y;
    nk_ref_broadcast_runs(a_dims, a_rank, b_dims, b_rank, y_dims, y_rank, nk_binary_typed_runs, &c);
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

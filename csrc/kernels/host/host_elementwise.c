/* host_elementwise.c — add and mul with the fused clamp, for the
 * broadcasts models use: equal shapes, a scalar operand, or an operand
 * over the last dim only (per channel). Other broadcasts return 0 and run
 * the portable kernel. y may be a or b (same index read before written).
 * Compiled once per ISA level (host.h). */
#include "host_isa.h"
#include "host.h"

/* file-local names, suffixed per level (host_isa.h) */
#define nk_hew_elems NK_HOST_FN(nk_hew_elems)
#define nk_hew_op NK_HOST_FN(nk_hew_op)
#define nk_hew_run NK_HOST_FN(nk_hew_run)
#define nk_hew_fits NK_HOST_FN(nk_hew_fits)
#define nk_hew_binary NK_HOST_FN(nk_hew_binary)

static size_t nk_hew_elems(const int32_t *dims, int32_t rank) {
    size_t n = 1;
    int32_t i;
    for (i = 0; i < rank; i++) n *= (size_t)dims[i];
    return n;
}

static inline nk_vf nk_hew_op(nk_vf a, nk_vf b, int is_mul) {
    if (is_mul) return a * b;
    return a + b;
}

/* y[i] = op(a[i], b[i % bn]) for bn == 1 (scalar), bn == n, or bn the
 * length of y's rows (n a multiple of it). */
static void nk_hew_run(const float *a, const float *b, size_t bn, float *y, size_t n, int is_mul,
                       float act_min, float act_max) {
    const nk_vf lo = nk_vdup(act_min), hi = nk_vdup(act_max);
    size_t i = 0, r, j;
    if (bn == n) {
        for (; i + NK_VL <= n; i += NK_VL)
            nk_vstore(y + i, nk_vclamp(nk_hew_op(nk_vload(a + i), nk_vload(b + i), is_mul), lo, hi));
        if (i < n)
            nk_vstore_n(y + i, nk_vclamp(nk_hew_op(nk_vload_n(a + i, n - i), nk_vload_n(b + i, n - i), is_mul), lo, hi), n - i);
    } else if (bn == 1) {
        const nk_vf bv = nk_vdup(b[0]);
        for (; i + NK_VL <= n; i += NK_VL)
            nk_vstore(y + i, nk_vclamp(nk_hew_op(nk_vload(a + i), bv, is_mul), lo, hi));
        if (i < n)
            nk_vstore_n(y + i, nk_vclamp(nk_hew_op(nk_vload_n(a + i, n - i), bv, is_mul), lo, hi), n - i);
    } else {
        for (r = 0; r < n; r += bn) {
            for (j = 0; j + NK_VL <= bn; j += NK_VL)
                nk_vstore(y + r + j, nk_vclamp(nk_hew_op(nk_vload(a + r + j), nk_vload(b + j), is_mul), lo, hi));
            if (j < bn)
                nk_vstore_n(y + r + j, nk_vclamp(nk_hew_op(nk_vload_n(a + r + j, bn - j), nk_vload_n(b + j, bn - j), is_mul), lo, hi), bn - j);
        }
    }
}

/* 1 when b (bn elements) is a scalar, y's shape, or a vector over y's last
 * dim, against an a of y's shape. */
static int nk_hew_fits(size_t an, size_t bn, size_t yn, const int32_t *b_dims, int32_t b_rank,
                       const int32_t *y_dims, int32_t y_rank) {
    if (an != yn) return 0;
    if (bn == yn || bn == 1) return 1;
    return y_rank > 0 && b_rank > 0 && b_dims[b_rank - 1] == y_dims[y_rank - 1] &&
           bn == (size_t)y_dims[y_rank - 1];
}

static int nk_hew_binary(const float *a, const int32_t *a_dims, int32_t a_rank, const float *b,
                         const int32_t *b_dims, int32_t b_rank, float *y, const int32_t *y_dims,
                         int32_t y_rank, float act_min, float act_max, int is_mul) {
    const size_t an = nk_hew_elems(a_dims, a_rank), bn = nk_hew_elems(b_dims, b_rank);
    const size_t yn = nk_hew_elems(y_dims, y_rank);
    if (yn == 0) return 1;
    if (nk_hew_fits(an, bn, yn, b_dims, b_rank, y_dims, y_rank)) {
        nk_hew_run(a, b, bn, y, yn, is_mul, act_min, act_max);
        return 1;
    }
    /* add and mul commute (exactly, in floating point too) */
    if (nk_hew_fits(bn, an, yn, a_dims, a_rank, y_dims, y_rank)) {
        nk_hew_run(b, a, an, y, yn, is_mul, act_min, act_max);
        return 1;
    }
    return 0;
}

int NK_HOST_FN(nk_host_add_f32)(const float *a, const int32_t *a_dims, int32_t a_rank,
                                const float *b, const int32_t *b_dims, int32_t b_rank, float *y,
                                const int32_t *y_dims, int32_t y_rank, float act_min,
                                float act_max) {
    return nk_hew_binary(a, a_dims, a_rank, b, b_dims, b_rank, y, y_dims, y_rank, act_min,
                         act_max, 0);
}

int NK_HOST_FN(nk_host_mul_f32)(const float *a, const int32_t *a_dims, int32_t a_rank,
                                const float *b, const int32_t *b_dims, int32_t b_rank, float *y,
                                const int32_t *y_dims, int32_t y_rank, float act_min,
                                float act_max) {
    return nk_hew_binary(a, a_dims, a_rank, b, b_dims, b_rank, y, y_dims, y_rank, act_min,
                         act_max, 1);
}

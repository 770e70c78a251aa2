/* ref_elementwise.c — add and mul with numpy broadcasting, float32. */
#include "ref_kernels.h"

#define NK_BIN_ADD 0
#define NK_BIN_MUL 1

/* One run of n outputs; sa/sb are 0 (broadcast value) or 1 (contiguous).
 * Reads a[i], b[i] before writing y[i], so y may equal a or b. */
static void nk_ref_binary_run(int kind, const float *a, size_t sa, const float *b, size_t sb,
                              float *y, size_t n, float lo, float hi) {
    size_t i;
    if (kind == NK_BIN_ADD) {
        if (sa && sb) {
            for (i = 0; i < n; i++)
                y[i] = nk_clampf(a[i] + b[i], lo, hi);
        } else if (sa) {
            const float bv = b[0];
            for (i = 0; i < n; i++)
                y[i] = nk_clampf(a[i] + bv, lo, hi);
        } else if (sb) {
            const float av = a[0];
            for (i = 0; i < n; i++)
                y[i] = nk_clampf(av + b[i], lo, hi);
        } else {
            const float v = nk_clampf(a[0] + b[0], lo, hi);
            for (i = 0; i < n; i++)
                y[i] = v;
        }
    } else {
        if (sa && sb) {
            for (i = 0; i < n; i++)
                y[i] = nk_clampf(a[i] * b[i], lo, hi);
        } else if (sa) {
            const float bv = b[0];
            for (i = 0; i < n; i++)
                y[i] = nk_clampf(a[i] * bv, lo, hi);
        } else if (sb) {
            const float av = a[0];
            for (i = 0; i < n; i++)
                y[i] = nk_clampf(av * b[i], lo, hi);
        } else {
            const float v = nk_clampf(a[0] * b[0], lo, hi);
            for (i = 0; i < n; i++)
                y[i] = v;
        }
    }
}

/* Drops size-1 output dims and merges neighbouring dims that broadcast the
 * same way for both operands, so a per-channel operand becomes one
 * [outer, C] loop and same-shape operands become one flat run. */
static void nk_ref_binary(int kind, const float *a, const int32_t *a_dims, int32_t a_rank,
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
    nk_ref_binary(NK_BIN_ADD, a, a_dims, a_rank, b, b_dims, b_rank, y, y_dims, y_rank, act_min,
                  act_max);
}

void nk_ref_mul_f32(const float *a, const int32_t *a_dims, int32_t a_rank, const float *b,
                    const int32_t *b_dims, int32_t b_rank, float *y, const int32_t *y_dims,
                    int32_t y_rank, float act_min, float act_max) {
    nk_ref_binary(NK_BIN_MUL, a, a_dims, a_rank, b, b_dims, b_rank, y, y_dims, y_rank, act_min,
                  act_max);
}

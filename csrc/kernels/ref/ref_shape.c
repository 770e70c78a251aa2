/* ref_shape.c — data movement: concat, pad, transpose (float32). */
#include "ref_kernels.h"
#include <string.h>

void nk_ref_concat_f32(const float *const *xs, const int32_t *axis_dims, int32_t n_in,
                       float *NK_RESTRICT y, size_t outer, size_t inner) {
    size_t o;
    int32_t i;
    for (o = 0; o < outer; o++) {
        for (i = 0; i < n_in; i++) {
            const size_t chunk = (size_t)axis_dims[i] * inner;
            memcpy(y, xs[i] + o * chunk, chunk * sizeof(float));
            y += chunk;
        }
    }
}

/* Source index for output index i of a padded dim of size n, or -1 when
 * the position takes the constant. */
static inline int32_t nk_ref_pad_src(int32_t i, int32_t n, int32_t mode) {
    if (i >= 0 && i < n)
        return i;
    if (mode == NK_PAD_EDGE)
        return i < 0 ? 0 : n - 1;
    if (mode == NK_PAD_REFLECT)
        return i < 0 ? -i : 2 * (n - 1) - i;
    return -1;
}

void nk_ref_pad_f32(const float *NK_RESTRICT x, const int32_t *in_dims, int32_t rank,
                    const int32_t *before, float *NK_RESTRICT y, const int32_t *out_dims,
                    int32_t mode, float value) {
    size_t in_stride[6], outer = 1, o;
    int32_t idx[6], d, last, n_in, n_out, b, lo, hi, k;
    if (rank == 0) {
        y[0] = x[0];
        return;
    }
    last = rank - 1;
    in_stride[last] = 1;
    for (d = last - 1; d >= 0; d--)
        in_stride[d] = in_stride[d + 1] * (size_t)in_dims[d + 1];
    for (d = 0; d < last; d++) {
        outer *= (size_t)out_dims[d];
        idx[d] = 0;
    }
    n_in = in_dims[last];
    n_out = out_dims[last];
    b = before[last];
    /* Output columns [lo, hi) copy a contiguous input run. */
    lo = b > 0 ? b : 0;
    hi = b + n_in < n_out ? b + n_in : n_out;
    if (hi < lo)
        hi = lo;
    for (o = 0; o < outer; o++, y += n_out) {
        const float *row = x;
        int constant_row = 0;
        for (d = 0; d < last; d++) {
            const int32_t s = nk_ref_pad_src(idx[d] - before[d], in_dims[d], mode);
            if (s < 0) {
                constant_row = 1;
                break;
            }
            row += (size_t)s * in_stride[d];
        }
        if (constant_row) {
            for (k = 0; k < n_out; k++)
                y[k] = value;
        } else {
            for (k = 0; k < lo; k++) {
                const int32_t s = nk_ref_pad_src(k - b, n_in, mode);
                y[k] = s < 0 ? value : row[s];
            }
            if (hi > lo)
                memcpy(y + lo, row + (lo - b), (size_t)(hi - lo) * sizeof(float));
            for (k = hi; k < n_out; k++) {
                const int32_t s = nk_ref_pad_src(k - b, n_in, mode);
                y[k] = s < 0 ? value : row[s];
            }
        }
        for (d = last - 1; d >= 0; d--) {
            if (++idx[d] < out_dims[d])
                break;
            idx[d] = 0;
        }
    }
}

void nk_ref_transpose_f32(const float *NK_RESTRICT x, const int32_t *in_dims, int32_t rank,
                          const int32_t *perm, float *NK_RESTRICT y) {
    size_t in_stride[6], st[6], dims[6], outer = 1, o, off = 0, n, step, j;
    int32_t idx[6], d;
    if (rank == 0) {
        y[0] = x[0];
        return;
    }
    in_stride[rank - 1] = 1;
    for (d = rank - 2; d >= 0; d--)
        in_stride[d] = in_stride[d + 1] * (size_t)in_dims[d + 1];
    /* Output dim d walks input dim perm[d]. */
    for (d = 0; d < rank; d++) {
        dims[d] = (size_t)in_dims[perm[d]];
        st[d] = in_stride[perm[d]];
        idx[d] = 0;
    }
    for (d = 0; d < rank - 1; d++)
        outer *= dims[d];
    n = dims[rank - 1];
    step = st[rank - 1];
    for (o = 0; o < outer; o++) {
        const float *src = x + off;
        if (step == 1) {
            memcpy(y, src, n * sizeof(float));
        } else {
            for (j = 0; j < n; j++)
                y[j] = src[j * step];
        }
        y += n;
        for (d = rank - 2; d >= 0; d--) {
            off += st[d];
            if ((size_t)++idx[d] < dims[d])
                break;
            off -= st[d] * dims[d];
            idx[d] = 0;
        }
    }
}

/* ref_shape.c — data movement: concat, pad, transpose, slice, and the
 * broadcast walk of the binary ops. They only move elements (or index
 * them), so one implementation serves every dtype: elements are `es`
 * bytes (1 for int8, 4 for float32). Each element is copied with a
 * fixed-size memcpy per size, which compiles to one load and store. */
#include "ref_kernels.h"
#include <string.h>

void nk_ref_concat(const void *const *xs, const int32_t *axis_dims, int32_t n_in, void *y,
                   size_t outer, size_t inner, size_t es) {
    unsigned char *yb = (unsigned char *)y;
    size_t o;
    int32_t i;
    for (o = 0; o < outer; o++) {
        for (i = 0; i < n_in; i++) {
            const size_t chunk = (size_t)axis_dims[i] * inner * es;
            memcpy(yb, (const unsigned char *)xs[i] + o * chunk, chunk);
            yb += chunk;
        }
    }
}

/* dst[j] = src[j * step] for j < n elements of es bytes. */
static void nk_ref_gather(unsigned char *NK_RESTRICT dst, const unsigned char *NK_RESTRICT src,
                          size_t n, ptrdiff_t step, size_t es) {
    size_t j;
    if (step == 1) {
        memcpy(dst, src, n * es);
        return;
    }
    switch (es) {
    case 1:
        for (j = 0; j < n; j++)
            dst[j] = src[(ptrdiff_t)j * step];
        break;
    case 2:
        for (j = 0; j < n; j++)
            memcpy(dst + 2 * j, src + 2 * (ptrdiff_t)j * step, 2);
        break;
    case 4:
        for (j = 0; j < n; j++)
            memcpy(dst + 4 * j, src + 4 * (ptrdiff_t)j * step, 4);
        break;
    default:
        for (j = 0; j < n; j++)
            memcpy(dst + es * j, src + (ptrdiff_t)es * (ptrdiff_t)j * step, es);
        break;
    }
}

/* Copies the strided view of x that starts at element off and walks
 * st[d] elements (may be negative) per step of output dim d, out_dims in
 * raster order, to y (rank >= 1): what transpose and slice both are. */
static void nk_ref_strided_copy(const unsigned char *NK_RESTRICT xb, ptrdiff_t off,
                                const ptrdiff_t *st, const size_t *out_dims, int32_t rank,
                                unsigned char *NK_RESTRICT yb, size_t es) {
    size_t outer = 1, o, idx[6];
    const size_t n = out_dims[rank - 1];
    int32_t d;
    for (d = 0; d < rank; d++)
        idx[d] = 0;
    for (d = 0; d < rank - 1; d++)
        outer *= out_dims[d];
    for (o = 0; o < outer; o++) {
        nk_ref_gather(yb, xb + off * (ptrdiff_t)es, n, st[rank - 1], es);
        yb += n * es;
        for (d = rank - 2; d >= 0; d--) {
            off += st[d];
            if (++idx[d] < out_dims[d])
                break;
            off -= st[d] * (ptrdiff_t)out_dims[d];
            idx[d] = 0;
        }
    }
}

/* n copies of the es-byte value. */
static void nk_ref_fill(unsigned char *NK_RESTRICT dst, const unsigned char *NK_RESTRICT value,
                        size_t n, size_t es) {
    size_t j;
    switch (es) {
    case 1:
        memset(dst, value[0], n);
        break;
    case 2:
        for (j = 0; j < n; j++)
            memcpy(dst + 2 * j, value, 2);
        break;
    case 4:
        for (j = 0; j < n; j++)
            memcpy(dst + 4 * j, value, 4);
        break;
    default:
        for (j = 0; j < n; j++)
            memcpy(dst + es * j, value, es);
        break;
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

/* Output columns [from, to) of a row, one element at a time. */
static void nk_ref_pad_cols(unsigned char *NK_RESTRICT y, const unsigned char *NK_RESTRICT row,
                            int32_t from, int32_t to, int32_t b, int32_t n_in, int32_t mode,
                            const unsigned char *NK_RESTRICT value, size_t es) {
    int32_t k;
    for (k = from; k < to; k++) {
        const int32_t s = nk_ref_pad_src(k - b, n_in, mode);
        memcpy(y + (size_t)k * es, s < 0 ? value : row + (size_t)s * es, es);
    }
}

void nk_ref_pad(const void *NK_RESTRICT x, const int32_t *in_dims, int32_t rank,
                const int32_t *before, void *NK_RESTRICT y, const int32_t *out_dims,
                int32_t mode, const void *value, size_t es) {
    const unsigned char *xb = (const unsigned char *)x;
    const unsigned char *vb = (const unsigned char *)value;
    unsigned char *yb = (unsigned char *)y;
    size_t in_stride[6], outer = 1, o;
    int32_t idx[6], d, last, n_in, n_out, b, lo, hi;
    if (rank == 0) {
        memcpy(yb, xb, es);
        return;
    }
    last = rank - 1;
    in_stride[last] = es;
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
    for (o = 0; o < outer; o++, yb += (size_t)n_out * es) {
        const unsigned char *row = xb;
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
            nk_ref_fill(yb, vb, (size_t)n_out, es);
        } else {
            nk_ref_pad_cols(yb, row, 0, lo, b, n_in, mode, vb, es);
            if (hi > lo)
                memcpy(yb + (size_t)lo * es, row + (size_t)(lo - b) * es,
                       (size_t)(hi - lo) * es);
            nk_ref_pad_cols(yb, row, hi, n_out, b, n_in, mode, vb, es);
        }
        for (d = last - 1; d >= 0; d--) {
            if (++idx[d] < out_dims[d])
                break;
            idx[d] = 0;
        }
    }
}

void nk_ref_transpose(const void *NK_RESTRICT x, const int32_t *in_dims, int32_t rank,
                      const int32_t *perm, void *NK_RESTRICT y, size_t es) {
    ptrdiff_t in_stride[6], st[6];
    size_t dims[6];
    int32_t d;
    if (rank == 0) {
        memcpy(y, x, es);
        return;
    }
    in_stride[rank - 1] = 1;
    for (d = rank - 2; d >= 0; d--)
        in_stride[d] = in_stride[d + 1] * (ptrdiff_t)in_dims[d + 1];
    /* Output dim d walks input dim perm[d]; strides and offsets count elements. */
    for (d = 0; d < rank; d++) {
        dims[d] = (size_t)in_dims[perm[d]];
        st[d] = in_stride[perm[d]];
    }
    nk_ref_strided_copy((const unsigned char *)x, 0, st, dims, rank, (unsigned char *)y, es);
}

void nk_ref_slice(const void *NK_RESTRICT x, const int32_t *in_dims, int32_t rank,
                  const int32_t *begin, const int32_t *step, void *NK_RESTRICT y,
                  const int32_t *out_dims, size_t es) {
    ptrdiff_t in_stride[6], st[6], off = 0;
    size_t dims[6];
    int32_t d;
    if (rank == 0) {
        memcpy(y, x, es);
        return;
    }
    in_stride[rank - 1] = 1;
    for (d = rank - 2; d >= 0; d--)
        in_stride[d] = in_stride[d + 1] * (ptrdiff_t)in_dims[d + 1];
    /* Strides and offsets count elements and may be negative. */
    for (d = 0; d < rank; d++) {
        off += (ptrdiff_t)begin[d] * in_stride[d];
        st[d] = (ptrdiff_t)step[d] * in_stride[d];
        dims[d] = (size_t)out_dims[d];
    }
    nk_ref_strided_copy((const unsigned char *)x, off, st, dims, rank, (unsigned char *)y, es);
}

void nk_ref_broadcast_runs(const int32_t *a_dims, int32_t a_rank, const int32_t *b_dims,
                           int32_t b_rank, const int32_t *y_dims, int32_t y_rank,
                           nk_ref_bcast_fn fn, void *ctx) {
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
        fn(ctx, 0, 1, 0, 1, 0, 1);
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
        fn(ctx, oa, sa[r - 1], ob, sb[r - 1], o * n, n);
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

/* ref_reduce.c — mean, sum and max over any set of axes, float32. */
#include "ref_kernels.h"
#include <math.h>

void nk_ref_reduce_f32(nk_ref_reduce kind, const float *NK_RESTRICT x, const int32_t *dims,
                       int32_t rank, uint32_t mask, float *NK_RESTRICT y) {
    size_t len[6], ystride[6], idx[6], count = 1, out_n = 1, outer = 1, n, o, i, oy = 0;
    unsigned char red[6];
    const int32_t r = nk_ref_reduce_runs(dims, rank, mask, len, red);
    int32_t d;
    if (r == 0) {
        y[0] = x[0];
        return;
    }
    for (d = r - 1; d >= 0; d--) {
        ystride[d] = red[d] ? 0 : out_n;
        if (red[d])
            count *= len[d];
        else
            out_n *= len[d];
        idx[d] = 0;
    }
    for (i = 0; i < out_n; i++)
        y[i] = kind == NK_REDUCE_MAX ? -INFINITY : 0.0f;
    n = len[r - 1];
    for (d = 0; d < r - 1; d++)
        outer *= len[d];
    for (o = 0; o < outer; o++) {
        const float *xr = x + o * n;
        if (red[r - 1]) { /* the run folds into one output */
            float acc = y[oy];
            if (kind == NK_REDUCE_MAX) {
                for (i = 0; i < n; i++)
                    acc = nk_maxf(acc, xr[i]);
            } else {
                for (i = 0; i < n; i++)
                    acc += xr[i];
            }
            y[oy] = acc;
        } else { /* the run adds into a row of outputs */
            float *yr = y + oy;
            if (kind == NK_REDUCE_MAX) {
                for (i = 0; i < n; i++)
                    yr[i] = nk_maxf(yr[i], xr[i]);
            } else {
                for (i = 0; i < n; i++)
                    yr[i] += xr[i];
            }
        }
        /* odometer over the outer runs */
        for (d = r - 2; d >= 0; d--) {
            oy += ystride[d];
            if (++idx[d] < len[d])
                break;
            oy -= ystride[d] * len[d];
            idx[d] = 0;
        }
    }
    if (kind == NK_REDUCE_MEAN) {
        const float c = (float)count;
        for (i = 0; i < out_n; i++)
            y[i] /= c;
    }
}

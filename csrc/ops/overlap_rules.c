/*
 * overlap_rules.c — nk_ops_raster_shift, the overlap rule of the windowed
 * ops (their nk_op_def.out_shift), in its own object: only the planner
 * calls out_shift. The ops reference it weakly (NK_WEAK_REF, ops_common.h)
 * and plan_model.c strongly, so a firmware that applies a plan made by
 * `netkit aot` (IDENT_plan.c, no planner) links none of it.
 */
#include "ops_common.h"

const int nk_ops_overlap_rules = 1;

/* Input bytes below which output pixel (oy, ox) reads nothing: its first
 * valid tap's row and column, clamped into the image (a pixel with no valid
 * tap reads nothing, so any lower figure is safe). */
static int64_t nk_ops_first_read(const nk_ops_window *win, const nk_tensor_rt *in, int64_t oy,
                                 int64_t ox) {
    int64_t iy = oy * win->stride_h - win->pad_top, ix = ox * win->stride_w - win->pad_left;
    const int64_t px = (int64_t)in->dims[3] * (nk_tensor_bytes(in) / (in->elems ? in->elems : 1u));
    if (iy < 0) iy = 0;
    if (iy > in->dims[1]) iy = in->dims[1];
    if (ix < 0) ix = 0;
    if (ix > in->dims[2]) ix = in->dims[2];
    return (iy * in->dims[2] + ix) * px;
}

/* Output pixel p (raster order over batch, rows, columns) is written while
 * the kernel may still read the windows of pixels p-block+1 on, so its last
 * byte must stay below the first byte any pixel from there on reads:
 *     shift + (p + 1) * out_px <= first_read(suffix from p - block + 1)
 * for every p, i.e. shift = min over q of suffix_min(q) - min(q + block, n) * out_px
 * for the n output pixels.
 * Rows are non-decreasing in oy and columns in ox, so the suffix minimum
 * from (oy, ox) is min(first_read(oy, ox), first_read(oy + 1, 0)). */
int64_t nk_ops_raster_shift(const nk_op_rt *op, const nk_tensor_rt *t, const nk_ops_window *win,
                            int32_t block) {
    const nk_tensor_rt *in = &t[op->in[0]], *out = &t[op->out[0]];
    const int64_t out_px = (int64_t)nk_tensor_bytes(out) / ((int64_t)out->dims[0] * out->dims[1] * out->dims[2]);
    const int64_t n = (int64_t)out->dims[0] * out->dims[1] * out->dims[2];
    int64_t shift = INT64_MAX, b, oy, ox, q = 0;
    if (in->rank != 4 || out->rank != 4 || out->elems == 0 || in->elems == 0 || block < 1)
        return NK_SHIFT_NONE;
    for (b = 0; b < out->dims[0]; b++) {
        const int64_t base = b * (int64_t)(nk_tensor_bytes(in) / (uint32_t)in->dims[0]);
        for (oy = 0; oy < out->dims[1]; oy++) {
            const int64_t next = oy + 1 < out->dims[1]
                                     ? base + nk_ops_first_read(win, in, oy + 1, 0)
                                     : base + (int64_t)(nk_tensor_bytes(in) / (uint32_t)in->dims[0]);
            for (ox = 0; ox < out->dims[2]; ox++, q++) {
                int64_t lo = base + nk_ops_first_read(win, in, oy, ox), v;
                if (next < lo) lo = next;
                v = lo - (q + block < n ? q + block : n) * out_px;
                if (v < shift) shift = v;
            }
        }
    }
    return shift;
}

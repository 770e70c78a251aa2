/* fpu_f32.c — float32 conv2d and dense on a Cortex-M single-precision FPU
 * (kernels/fast_f32.h says when it is built).
 *
 * Both are dot products of runs: a dense row, or one kernel row of a conv
 * window, whose k_w taps of in_c channels are contiguous in NHWC input
 * and OHWI weights alike (one group, no horizontal dilation). Eight output
 * channels take a run together: each step loads four input floats with
 * one VLDM and, per channel, four weights with one VLDM and four VFMAs
 * into that channel's accumulator (s8-s15), 41 instructions for 32 MACs,
 * where the portable kernel's scalar loads and address arithmetic take
 * about 4.7 per MAC. Four channels, then one, take what is left; the last
 * run % 4 floats go through C. The accumulators live in memory between
 * runs (one VLDM and one VSTM a run), so a window is any number of runs.
 * Pixels go one at a time, every channel of a pixel before the next, as
 * the portable kernel: the in-place rule (nk_ops_raster_shift) holds. */
#include "../fast_f32.h"

#include <float.h>

#if NK_FAST_F32

/* acc[j] += x[0 .. n) . w[j*ws ...] for j < rows (8 or 4), n >= 1 */
#if NK_FAST_F32_NATIVE
/* The dot8 block takes eleven core registers: inlined into a caller's
 * loop nest it may not get them (GCC: impossible constraints). */
#if defined(__GNUC__) || defined(__clang__)
#define NK_FPU_NOINLINE __attribute__((noinline))
#else
#define NK_FPU_NOINLINE
#endif
/* one channel's step: its four weights, four FMAs into its accumulator */
#define NK_FPU_ROW4(wr, s)                                                                        \
    "vldmia %[" wr "]!, {s4-s7}\n\t"                                                             \
    "vfma.f32 " s ", s0, s4\n\t"                                                                 \
    "vfma.f32 " s ", s1, s5\n\t"                                                                 \
    "vfma.f32 " s ", s2, s6\n\t"                                                                 \
    "vfma.f32 " s ", s3, s7\n\t"
/* the same for the last n % 4 floats, one at a time */
#define NK_FPU_ROW1(wr, s)                                                                        \
    "vldmia %[" wr "]!, {s4}\n\t"                                                                \
    "vfma.f32 " s ", s0, s4\n\t"
/* n counts down by four, then by one: n < 4 skips the first loop */
#define NK_FPU_LOOPS(acc_regs, rows4, rows1)                                                      \
    "vldmia %[acc], {" acc_regs "}\n\t"                                                          \
    "subs %[n], %[n], #4\n\t"                                                                    \
    "blt 2f\n\t"                                                                                 \
    "1:\n\t"                                                                                     \
    "vldmia %[x]!, {s0-s3}\n\t" rows4 "subs %[n], %[n], #4\n\t"                                 \
    "bge 1b\n\t"                                                                                 \
    "2:\n\t"                                                                                     \
    "adds %[n], %[n], #4\n\t"                                                                    \
    "beq 4f\n\t"                                                                                 \
    "3:\n\t"                                                                                     \
    "vldmia %[x]!, {s0}\n\t" rows1 "subs %[n], %[n], #1\n\t"                                    \
    "bne 3b\n\t"                                                                                 \
    "4:\n\t"                                                                                     \
    "vstmia %[acc], {" acc_regs "}"
#define NK_FPU_CLOBBERS                                                                           \
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",      \
        "s14", "s15", "cc", "memory"

static NK_FPU_NOINLINE void nk_fpu_dot8(const float *x, const float *w, size_t ws, int32_t n,
                                        float *acc) {
    const float *w0 = w, *w1 = w0 + ws, *w2 = w1 + ws, *w3 = w2 + ws, *w4 = w3 + ws,
                *w5 = w4 + ws, *w6 = w5 + ws, *w7 = w6 + ws;
    __asm__ volatile(NK_FPU_LOOPS("s8-s15",
                                  NK_FPU_ROW4("w0", "s8") NK_FPU_ROW4("w1", "s9")
                                      NK_FPU_ROW4("w2", "s10") NK_FPU_ROW4("w3", "s11")
                                          NK_FPU_ROW4("w4", "s12") NK_FPU_ROW4("w5", "s13")
                                              NK_FPU_ROW4("w6", "s14") NK_FPU_ROW4("w7", "s15"),
                                  NK_FPU_ROW1("w0", "s8") NK_FPU_ROW1("w1", "s9")
                                      NK_FPU_ROW1("w2", "s10") NK_FPU_ROW1("w3", "s11")
                                          NK_FPU_ROW1("w4", "s12") NK_FPU_ROW1("w5", "s13")
                                              NK_FPU_ROW1("w6", "s14") NK_FPU_ROW1("w7", "s15"))
                     : [x] "+&r"(x), [n] "+&r"(n), [w0] "+&r"(w0), [w1] "+&r"(w1), [w2] "+&r"(w2),
                       [w3] "+&r"(w3), [w4] "+&r"(w4), [w5] "+&r"(w5), [w6] "+&r"(w6),
                       [w7] "+&r"(w7)
                     : [acc] "r"(acc)
                     : NK_FPU_CLOBBERS);
}

static NK_FPU_NOINLINE void nk_fpu_dot4(const float *x, const float *w, size_t ws, int32_t n,
                                        float *acc) {
    const float *w0 = w, *w1 = w0 + ws, *w2 = w1 + ws, *w3 = w2 + ws;
    __asm__ volatile(NK_FPU_LOOPS("s8-s11",
                                  NK_FPU_ROW4("w0", "s8") NK_FPU_ROW4("w1", "s9")
                                      NK_FPU_ROW4("w2", "s10") NK_FPU_ROW4("w3", "s11"),
                                  NK_FPU_ROW1("w0", "s8") NK_FPU_ROW1("w1", "s9")
                                      NK_FPU_ROW1("w2", "s10") NK_FPU_ROW1("w3", "s11"))
                     : [x] "+&r"(x), [n] "+&r"(n), [w0] "+&r"(w0), [w1] "+&r"(w1), [w2] "+&r"(w2),
                       [w3] "+&r"(w3)
                     : [acc] "r"(acc)
                     : NK_FPU_CLOBBERS);
}
#undef NK_FPU_ROW4
#undef NK_FPU_ROW1
#undef NK_FPU_LOOPS
#undef NK_FPU_CLOBBERS
#else
/* the C model (NETKIT_EMULATE_DSP): the same products in the same order */
static void nk_fpu_dot_c(const float *x, const float *w, size_t ws, int32_t n, float *acc,
                         int rows) {
    int32_t i;
    int j;
    for (i = 0; i < n; i++)
        for (j = 0; j < rows; j++)
            acc[j] += x[i] * w[(size_t)j * ws + (size_t)i];
}
static void nk_fpu_dot8(const float *x, const float *w, size_t ws, int32_t n, float *acc) {
    nk_fpu_dot_c(x, w, ws, n, acc, 8);
}
static void nk_fpu_dot4(const float *x, const float *w, size_t ws, int32_t n, float *acc) {
    nk_fpu_dot_c(x, w, ws, n, acc, 4);
}
#endif

/* Depthwise: acc[j] += sum over n_rows rows of n_cols taps of x[j] *
 * w[j] for j < 8 or 4 channels; taps xs / ws bytes apart in a row, the
 * next row xr / wr bytes after the last tap's successor. */
#if NK_FAST_F32_NATIVE
#define NK_FPU_DW(acc_regs, x_regs, w_regs, fmas)                                                 \
    "vldmia %[acc], {" acc_regs "}\n\t"                                                          \
    "2:\n\t"                                                                                     \
    "mov %[k], %[n_cols]\n\t"                                                                    \
    "1:\n\t"                                                                                     \
    "vldmia %[x], {" x_regs "}\n\t"                                                              \
    "vldmia %[w], {" w_regs "}\n\t"                                                              \
    "add %[x], %[x], %[xs]\n\t"                                                                  \
    "add %[w], %[w], %[ws]\n\t" fmas "subs %[k], %[k], #1\n\t"                                   \
    "bne 1b\n\t"                                                                                 \
    "add %[x], %[x], %[xr]\n\t"                                                                  \
    "add %[w], %[w], %[wr]\n\t"                                                                  \
    "subs %[rows], %[rows], #1\n\t"                                                              \
    "bne 2b\n\t"                                                                                 \
    "vstmia %[acc], {" acc_regs "}"
static NK_FPU_NOINLINE void nk_fpu_dw(const float *x, int32_t xs, int32_t xr, const float *w,
                                      int32_t ws, int32_t wr, int32_t n_rows, int32_t n_cols,
                                      int ch, float *acc) {
    int32_t k;
    if (ch == 8)
        __asm__ volatile(NK_FPU_DW("s16-s23", "s0-s7", "s8-s15",
                                   "vfma.f32 s16, s0, s8\n\t"
                                   "vfma.f32 s17, s1, s9\n\t"
                                   "vfma.f32 s18, s2, s10\n\t"
                                   "vfma.f32 s19, s3, s11\n\t"
                                   "vfma.f32 s20, s4, s12\n\t"
                                   "vfma.f32 s21, s5, s13\n\t"
                                   "vfma.f32 s22, s6, s14\n\t"
                                   "vfma.f32 s23, s7, s15\n\t")
                         : [x] "+&r"(x), [w] "+&r"(w), [rows] "+&r"(n_rows), [k] "=&r"(k)
                         : [xs] "r"(xs), [ws] "r"(ws), [xr] "r"(xr), [wr] "r"(wr),
                           [n_cols] "r"(n_cols), [acc] "r"(acc)
                         : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10",
                           "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20",
                           "s21", "s22", "s23", "cc", "memory");
    else
        __asm__ volatile(NK_FPU_DW("s16-s19", "s0-s3", "s8-s11",
                                   "vfma.f32 s16, s0, s8\n\t"
                                   "vfma.f32 s17, s1, s9\n\t"
                                   "vfma.f32 s18, s2, s10\n\t"
                                   "vfma.f32 s19, s3, s11\n\t")
                         : [x] "+&r"(x), [w] "+&r"(w), [rows] "+&r"(n_rows), [k] "=&r"(k)
                         : [xs] "r"(xs), [ws] "r"(ws), [xr] "r"(xr), [wr] "r"(wr),
                           [n_cols] "r"(n_cols), [acc] "r"(acc)
                         : "s0", "s1", "s2", "s3", "s8", "s9", "s10", "s11", "s16", "s17", "s18",
                           "s19", "cc", "memory");
}
#undef NK_FPU_DW
#else
static void nk_fpu_dw(const float *x, int32_t xs, int32_t xr, const float *w, int32_t ws,
                      int32_t wr, int32_t n_rows, int32_t n_cols, int ch, float *acc) {
    /* the asm's walk as each tap's offset from x and w (in floats) */
    const ptrdiff_t f = (ptrdiff_t)sizeof(float);
    const ptrdiff_t x_row = ((ptrdiff_t)n_cols * xs + xr) / f;
    const ptrdiff_t w_row = ((ptrdiff_t)n_cols * ws + wr) / f;
    int32_t r, c, j;
    for (r = 0; r < n_rows; r++)
        for (c = 0; c < n_cols; c++) {
            const float *xp = x + r * x_row + c * (xs / f), *wp = w + r * w_row + c * (ws / f);
            for (j = 0; j < ch; j++)
                acc[j] += xp[j] * wp[j];
        }
}
#endif

/* acc[j] += x[0 .. n) . w[j*ws ...] for j < rows (8, 4 or 1), n >= 1 */
static void nk_fpu_run(const float *x, const float *w, size_t ws, int32_t n, int rows,
                       float *acc) {
    int32_t i;
    if (rows == 8)
        nk_fpu_dot8(x, w, ws, n, acc);
    else if (rows == 4)
        nk_fpu_dot4(x, w, ws, n, acc);
    else
        for (i = 0; i < n; i++)
            acc[0] += x[i] * w[i];
}

/* acc[0 .. rows) from the bias of channels o on (or 0) */
static void nk_fpu_start(float *acc, int rows, const float *bias, int32_t o) {
    int j;
    if (bias)
        for (j = 0; j < rows; j++)
            acc[j] = bias[o + j];
    else
        for (j = 0; j < rows; j++)
            acc[j] = 0.0f;
}

/* Channels o, o+1, ... of the outputs at y, clamped unless the range is
 * every float (clamp 0: the compares cost more than the MACs of a short
 * run) */
static void nk_fpu_store(const float *acc, int rows, int clamp, int32_t o, float lo, float hi,
                         float *y) {
    int j;
    if (clamp)
        for (j = 0; j < rows; j++)
            y[o + j] = nk_clampf(acc[j], lo, hi);
    else
        for (j = 0; j < rows; j++)
            y[o + j] = acc[j];
}

/* 0 when [lo, hi] is [-inf, inf], where nk_clampf changes nothing */
static int nk_fpu_clamps(float lo, float hi) { return !(lo < -FLT_MAX && hi > FLT_MAX); }

/* 8 while 8 channels remain, then 4, then 1 */
static int nk_fpu_rows(int32_t left) { return left >= 8 ? 8 : left >= 4 ? 4 : 1; }

/* Every output channel of one pixel at y: its window's n_rows runs of
 * `run` floats, x and w at the first, x_step and w_step apart (w for
 * channel 0; channel o's w_per_out floats later). */
static void nk_fpu_pixel(const float *x, size_t x_step, const float *w, size_t w_step,
                         size_t w_per_out, int32_t n_rows, int32_t run, const float *bias,
                         int32_t out_c, int clamp, float lo, float hi, float *y) {
    int32_t o, r;
    for (o = 0; o < out_c;) {
        const int rows = nk_fpu_rows(out_c - o);
        const float *xr = x, *wr = w + (size_t)o * w_per_out;
        float acc[8];
        nk_fpu_start(acc, rows, bias, o);
        for (r = 0; r < n_rows; r++, xr += x_step, wr += w_step)
            nk_fpu_run(xr, wr, w_per_out, run, rows, acc);
        nk_fpu_store(acc, rows, clamp, o, lo, hi, y);
        o += rows;
    }
}

int nk_fast_conv2d_f32(const float *x, const float *NK_RESTRICT w, const float *NK_RESTRICT bias,
                       float *y, const nk_ref_conv_geom *g) {
    const size_t c_n = (size_t)g->in_c, row_stride = (size_t)g->in_w * c_n;
    const size_t w_per_out = (size_t)g->k_h * (size_t)g->k_w * c_n;
    const size_t x_step = (size_t)g->dil_h * row_stride, w_step = (size_t)g->k_w * c_n;
    const int clamp = nk_fpu_clamps(g->act_min, g->act_max);
    int32_t b, oy, ox;
    if (g->groups != 1 || g->dil_w != 1)
        return 0;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_pool_range_dil(iy0, g->k_h, g->dil_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++, y += g->out_c) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi;
                nk_ref_pool_range(ix0, g->k_w, g->in_w, &kx_lo, &kx_hi);
                if (ky_hi > ky_lo && kx_hi > kx_lo)
                    nk_fpu_pixel(xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride +
                                     (size_t)(ix0 + kx_lo) * c_n,
                                 x_step,
                                 w + ((size_t)ky_lo * (size_t)g->k_w + (size_t)kx_lo) * c_n,
                                 w_step, w_per_out, ky_hi - ky_lo, (kx_hi - kx_lo) * g->in_c,
                                 bias, g->out_c, clamp, g->act_min, g->act_max, y);
                else /* no valid tap: the bias, as in the portable kernel */
                    nk_fpu_pixel(xb, 0, w, 0, w_per_out, 0, 0, bias, g->out_c, clamp,
                                 g->act_min, g->act_max, y);
            }
        }
    }
    return 1;
}

/* Depthwise, multiplier 1: per output pixel, eight channels a pass (then
 * four) over the window's valid taps, one VLDM of the inputs and one of
 * the weights and a VFMA per channel a tap; the last in_c % 4 channels
 * in C. Pixels in raster order, every channel before the next pixel, as
 * the portable kernel: the in-place rule holds. */
int nk_fast_depthwise_conv2d_f32(const float *x, const float *NK_RESTRICT w,
                                 const float *NK_RESTRICT bias, float *y,
                                 const nk_ref_conv_geom *g) {
    const size_t c_n = (size_t)g->in_c, row_stride = (size_t)g->in_w * c_n;
    const int32_t xs = (int32_t)((size_t)g->dil_w * c_n * sizeof(float));
    const int32_t ws = (int32_t)(c_n * sizeof(float));
    const int clamp = nk_fpu_clamps(g->act_min, g->act_max);
    /* the asm's byte strides fit int32 */
    const uint64_t lim = 0x7FFFFFFFu / sizeof(float);
    int32_t b, oy, ox;
    if (g->multiplier != 1 || (uint64_t)row_stride * (uint64_t)g->dil_h > lim ||
        (uint64_t)c_n * (uint64_t)g->dil_w * (uint64_t)g->k_w > lim ||
        (uint64_t)c_n * (uint64_t)g->k_w > lim)
        return 0;
    for (b = 0; b < g->batch; b++) {
        const float *xb = x + (size_t)b * (size_t)g->in_h * row_stride;
        for (oy = 0; oy < g->out_h; oy++) {
            const int32_t iy0 = oy * g->stride_h - g->pad_top;
            int32_t ky_lo, ky_hi;
            nk_ref_pool_range_dil(iy0, g->k_h, g->dil_h, g->in_h, &ky_lo, &ky_hi);
            for (ox = 0; ox < g->out_w; ox++, y += g->out_c) {
                const int32_t ix0 = ox * g->stride_w - g->pad_left;
                int32_t kx_lo, kx_hi, n_rows, n_cols, c;
                const float *x0 = NULL, *w0 = NULL;
                int32_t xr = 0, wr = 0;
                nk_ref_pool_range_dil(ix0, g->k_w, g->dil_w, g->in_w, &kx_lo, &kx_hi);
                n_rows = ky_hi > ky_lo ? ky_hi - ky_lo : 0;
                n_cols = kx_hi > kx_lo ? kx_hi - kx_lo : 0;
                if (n_rows > 0 && n_cols > 0) {
                    x0 = xb + (size_t)(iy0 + ky_lo * g->dil_h) * row_stride +
                         (size_t)(ix0 + kx_lo * g->dil_w) * c_n;
                    w0 = w + ((size_t)ky_lo * (size_t)g->k_w + (size_t)kx_lo) * c_n;
                    /* from a row's last tap + 1 to the next row's first */
                    xr = (int32_t)((size_t)g->dil_h * row_stride * sizeof(float)) - n_cols * xs;
                    wr = (int32_t)((size_t)g->k_w * c_n * sizeof(float)) - n_cols * ws;
                }
                for (c = 0; c < g->out_c;) {
                    const int ch = g->out_c - c >= 8 ? 8 : g->out_c - c >= 4 ? 4 : 1;
                    float acc[8];
                    nk_fpu_start(acc, ch, bias, c);
                    if (x0 != NULL) {
                        if (ch > 1) {
                            nk_fpu_dw(x0 + c, xs, xr, w0 + c, ws, wr, n_rows, n_cols, ch, acc);
                        } else {
                            int32_t r, k;
                            for (r = 0; r < n_rows; r++)
                                for (k = 0; k < n_cols; k++)
                                    acc[0] += x0[(size_t)r * (size_t)g->dil_h * row_stride +
                                                 (size_t)k * (size_t)g->dil_w * c_n + (size_t)c] *
                                              w0[((size_t)r * (size_t)g->k_w + (size_t)k) * c_n +
                                                 (size_t)c];
                        }
                    }
                    nk_fpu_store(acc, ch, clamp, c, g->act_min, g->act_max, y);
                    c += ch;
                }
            }
        }
    }
    return 1;
}

#if NK_FAST_F32_DENSE
int nk_fast_dense_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                      const float *NK_RESTRICT bias, float *NK_RESTRICT y, size_t rows,
                      int32_t in_features, int32_t out_features, float act_min, float act_max) {
    const size_t k = (size_t)in_features;
    const int clamp = nk_fpu_clamps(act_min, act_max);
    size_t r;
    int32_t o;
    for (r = 0; r < rows; r++, x += k, y += out_features)
        for (o = 0; o < out_features;) {
            const int n = nk_fpu_rows(out_features - o);
            float acc[8];
            nk_fpu_start(acc, n, bias, o);
            nk_fpu_run(x, w + (size_t)o * k, k, in_features, n, acc);
            nk_fpu_store(acc, n, clamp, o, act_min, act_max, y);
            o += n;
        }
    return 1;
}
#endif

#else
/* ISO C wants a declaration in every translation unit. */
typedef int nk_fpu_f32_not_built;
#endif

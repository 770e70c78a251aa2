/*
 * fast_i8.h — which fast int8 kernel set this build compiles, chosen at
 * build time from the target's feature macros (docs/TARGETS.md):
 *
 *   kernels/mve/       Armv8.1-M Helium, integer MVE (__ARM_FEATURE_MVE bit 0:
 *                      Cortex-M55); ahead of the DSP set, which it replaces
 *   kernels/armv7em/   Armv7E-M / Armv8-M DSP extension (__ARM_FEATURE_DSP:
 *                      Cortex-M4, M7, M33), or any host with
 *                      NETKIT_EMULATE_DSP=1 (the same source over an exact
 *                      C emulation of the instructions, for tests)
 *   none               every other target: the portable kernels
 *
 * NETKIT_PORTABLE_KERNELS=1 forces the portable kernels (CMake option of
 * the same name), so both paths run in the tests. The host SIMD int8
 * kernels (x86-64) are not a build-time set: they sit in the host kernel
 * tables chosen at load (kernels/host/host.h, host_i8.c).
 *
 * Each function takes the portable kernel's arguments (kernels/ref/ref_i8.h)
 * and returns 1 when it wrote the output, or 0, before touching anything,
 * when it does not handle those parameters: the caller then runs the
 * portable kernel. Outputs are byte-identical to the portable kernels in
 * both rounding modes. Only the DSP set's conv, dense, add and 3x3
 * depthwise need a workspace of their own (below); depthwise also takes
 * the portable kernel's optional weight sums, which the op computes into
 * its workspace in either case. An op with no fast function here (mul,
 * add with broadcasting, ...) always runs the portable one.
 */
#ifndef NK_FAST_I8_H
#define NK_FAST_I8_H

#include "ref/ref_i8.h"

#if defined(NETKIT_PORTABLE_KERNELS) && NETKIT_PORTABLE_KERNELS
#define NK_FAST_I8 0
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define NK_FAST_I8 1
#define NK_FAST_I8_MVE 1
#elif defined(__ARM_FEATURE_DSP) || (defined(NETKIT_EMULATE_DSP) && NETKIT_EMULATE_DSP)
#define NK_FAST_I8 1
#define NK_FAST_I8_ARMV7EM 1
#else
#define NK_FAST_I8 0
#endif
/* Both set names are always defined (0 or 1), so C expressions may test them. */
#ifndef NK_FAST_I8_MVE
#define NK_FAST_I8_MVE 0
#endif
#ifndef NK_FAST_I8_ARMV7EM
#define NK_FAST_I8_ARMV7EM 0
#endif

/* The DSP set's workspace needs (bytes). The ops count them on every build,
 * whichever set it compiles, so that one plan holds for every kernel set: the
 * host's inspect figures and `netkit aot --lower`'s static RAM, planned on the
 * host, are what a DSP target takes. Conv: two output pixels' windows of
 * K = k_h * k_w * in_c taps as int16 pairs (four, and the weights widened,
 * for small K: below; 0 for the convs it leaves to the portable kernel:
 * grouped, horizontally dilated), and a byte stage when
 * in_c is not a multiple of 4; dense: the same for two rows (more than one
 * row; a single row needs none, and rows of too many taps run portable); add: two
 * 256-entry tables for adds of NK_DSP_ADD_MIN elements and more. */
#define NK_DSP_WIN_TAPS(k) (((size_t)(k) + 3u) & ~(size_t)3u)
/* Windows of more taps than this (16 KiB of them) are left to the portable
 * kernel: an MCU's RAM is better spent on activations. */
#define NK_DSP_WIN_MAX_TAPS 4096
#define NK_DSP_ADD_MIN 1024
/* A pointwise conv (1x1, stride 1, unpadded) runs as a dense layer over
 * all its pixels. */
static inline int nk_fast_conv2d_i8_is_dense(const nk_ref_conv_geom *g) {
    return g->k_h == 1 && g->k_w == 1 && g->stride_h == 1 && g->stride_w == 1 &&
           g->pad_top == 0 && g->pad_left == 0 && g->out_h == g->in_h && g->out_w == g->in_w;
}
/* Convs of at most this many taps (pointwise ones too) take four pixels'
 * windows and their weights widened once per call (2 x K rounded to 4
 * bytes per output channel) instead of two windows; so do windows of up
 * to 32 taps over more than one pixel whose widened weights fit in 1 KiB
 * (a first layer's 3x3 over three channels: VWW's and IC's). */
#define NK_DSP_SMALL_TAPS 12
static inline int nk_fast_conv2d_i8_small(const nk_ref_conv_geom *g) {
    const int64_t k = (int64_t)g->k_h * g->k_w * g->in_c;
    return k <= NK_DSP_SMALL_TAPS || (k <= 32 && (g->k_h > 1 || g->k_w > 1) &&
                                      (int64_t)g->out_c * ((k + 3) & ~3) <= 512);
}
static inline size_t nk_fast_conv2d_i8_workspace(const nk_ref_conv_geom *g) {
    const int64_t k = (int64_t)g->k_h * g->k_w * g->in_c;
    const size_t windows = nk_fast_conv2d_i8_small(g) ? 8u + 2u * (size_t)g->out_c : 4u;
    if (g->groups != 1 || g->dil_w != 1 || k > NK_DSP_WIN_MAX_TAPS)
        return 0;
    return (windows + (g->in_c & 3 ? 1u : 0u)) * NK_DSP_WIN_TAPS(k);
}
static inline size_t nk_fast_dense_i8_workspace(size_t rows, int32_t in_features) {
    return rows > 1 && in_features <= NK_DSP_WIN_MAX_TAPS ? 4u * NK_DSP_WIN_TAPS(in_features) : 0;
}
/* Depthwise 3x3 at stride_w 1 or 2 (multiplier 1, no horizontal dilation,
 * rows of NK_DSP_DW3_MIN_W pixels or more, four channels or more): for
 * one output row and four channels, the three input rows its windows
 * cover, in_zp in the padding, column by column ((out_w - 1) * stride_w +
 * 3 columns of 12 bytes), after the weight sums. Narrower rows (KWS's 5,
 * VWW's 3) pay more for the per-row set-up than the borders cost on the
 * other path (M4F: KWS 7.0 against 6.3 instructions a MAC). */
#define NK_DSP_DW3_MIN_W 6
static inline int nk_fast_dw3_takes(const nk_ref_conv_geom *g) {
    return g->multiplier == 1 && g->k_h == 3 && g->k_w == 3 && g->dil_w == 1 &&
           (g->stride_w == 1 || g->stride_w == 2) && g->out_w >= NK_DSP_DW3_MIN_W && g->in_c >= 4 &&
           (uint64_t)g->out_w * 24u + 36u <= (uint64_t)(size_t)-1;
}
static inline size_t nk_fast_depthwise_i8_workspace(const nk_ref_conv_geom *g) {
    return nk_fast_dw3_takes(g) ? 12u * ((size_t)(g->out_w - 1) * (size_t)g->stride_w + 3u) : 0;
}
static inline size_t nk_fast_add_i8_workspace(size_t n) {
    return n >= NK_DSP_ADD_MIN ? 2u * 256u * sizeof(int32_t) : 0;
}

#if NK_FAST_I8_ARMV7EM
/* The DSP set's conv and dense gather the taps of two output pixels,
 * offset and widened to int16 lanes, into the op's workspace (ws: 4-byte
 * aligned, the _workspace bytes for those parameters, counted at load;
 * 0 when the kernel needs none). ws_bytes: how many bytes at ws the call
 * may use (at least those, or 0 for only those): with room for eight
 * pixels' windows a conv over whole words of channels or a dense over many
 * rows takes eight at a time (the evals pass the model's whole workspace,
 * less the op's staged rows, so the arena stays what the ops ask for).
 * ws_kept: ws holds what this conv's previous call left, a staged band of
 * the same op (its widened weights stay). */
NK_REF_HIDDEN int nk_fast_conv2d_i8_ws(const int8_t *x, const int8_t *NK_RESTRICT w,
                                       const int32_t *NK_RESTRICT bias, int8_t *y,
                                       const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                       int32_t *NK_RESTRICT ws, size_t ws_bytes, int ws_kept);
NK_REF_HIDDEN int nk_fast_dense_i8_ws(const int8_t *x, const int8_t *NK_RESTRICT w,
                                      const int32_t *NK_RESTRICT bias, int8_t *y, size_t rows,
                                      int32_t in_features, int32_t out_features,
                                      const nk_ref_i8_quant *q, int32_t *NK_RESTRICT ws,
                                      size_t ws_bytes);
/* A pointwise conv of equal channels whose output is its input (xy), in
 * ws_bytes of workspace: the dense rows in place; 0 (nothing written)
 * when it does not take the conv. */
NK_REF_HIDDEN int nk_fast_pointwise_i8_in_place(int8_t *xy, const int8_t *NK_RESTRICT w,
                                                const int32_t *NK_RESTRICT bias,
                                                const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                                int32_t *NK_RESTRICT ws, size_t ws_bytes);
/* Depthwise 3x3 at stride_h 1 (multiplier 1, no dilation, stride_w 1 or
 * 2, whole words of channels, the DSP epilogue) by vertical tap pairs, in
 * ws_bytes of workspace at ws (0: the op's own,
 * 4 * in_c + nk_fast_depthwise_i8_workspace). It asks for nothing at
 * load: it runs where the model's workspace holds a band (96 + 64 bytes a
 * staged column and 32 an output column and row pair, and one input row
 * when the output lies over the input; dsp_depthwise.c), and y may be x
 * (a staged op on its own input); 0 (nothing written) otherwise. */
NK_REF_HIDDEN int nk_fast_depthwise_vpair_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                                             const int32_t *NK_RESTRICT bias, int8_t *y,
                                             const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                             int32_t *NK_RESTRICT ws, size_t ws_bytes);
/* Depthwise with the portable kernel's weight sums (or NULL) and the
 * nk_fast_depthwise_i8_workspace bytes (stage: 4-byte aligned, NULL when
 * that is 0). */
NK_REF_HIDDEN int nk_fast_depthwise_conv2d_i8_ws(const int8_t *x, const int8_t *NK_RESTRICT w,
                                                 const int32_t *NK_RESTRICT bias, int8_t *y,
                                                 const nk_ref_conv_geom *g,
                                                 const nk_ref_i8_quant *q,
                                                 const int32_t *NK_RESTRICT wsum,
                                                 int32_t *NK_RESTRICT stage);
#elif NK_FAST_I8
NK_REF_HIDDEN int nk_fast_conv2d_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                                    const int32_t *NK_RESTRICT bias, int8_t *y,
                                    const nk_ref_conv_geom *g, const nk_ref_i8_quant *q);
NK_REF_HIDDEN int nk_fast_dense_i8(const int8_t *x, const int8_t *NK_RESTRICT w,
                                   const int32_t *NK_RESTRICT bias, int8_t *y,
                                   size_t rows, int32_t in_features, int32_t out_features,
                                   const nk_ref_i8_quant *q);
#endif
#if NK_FAST_I8_MVE
NK_REF_HIDDEN int nk_fast_depthwise_conv2d_i8(const int8_t *x,
                                              const int8_t *NK_RESTRICT w,
                                              const int32_t *NK_RESTRICT bias,
                                              int8_t *y, const nk_ref_conv_geom *g,
                                              const nk_ref_i8_quant *q,
                                              const int32_t *NK_RESTRICT wsum);
#endif

/* Add of equal shapes (both sets): the portable nk_ref_add_i8 (y may
 * equal a or b); ws holds nk_fast_add_i8_workspace(n) bytes, which only
 * the DSP set uses (its tables; it leaves adds below NK_DSP_ADD_MIN
 * elements to the portable kernel). */
#if NK_FAST_I8_MVE || NK_FAST_I8_ARMV7EM
NK_REF_HIDDEN int nk_fast_add_i8_ws(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                                    const nk_ref_add_i8_params *p, int32_t *NK_RESTRICT ws);
#endif

/* Pools (Helium/MVE and the DSP set: average and max; elsewhere the
 * portable kernel): the portable
 * nk_ref_avg_pool2d_i8 (is_max 0) or nk_ref_max_pool2d_i8 (1). */
#if NK_FAST_I8_MVE || NK_FAST_I8_ARMV7EM
#define NK_FAST_I8_POOL 1
NK_REF_HIDDEN int nk_fast_pool2d_i8(const int8_t *NK_RESTRICT x, int8_t *NK_RESTRICT y,
                                    const nk_ref_conv_geom *g, int32_t act_min, int32_t act_max,
                                    int is_max);
#else
#define NK_FAST_I8_POOL 0
#endif

#endif /* NK_FAST_I8_H */

/*
 * fast_f32.h — the fast float32 kernels of Cortex-M cores with a
 * single-precision FPU (M4F, M7, M33, M55), chosen at build time like the
 * int8 sets (fast_i8.h):
 *
 *   kernels/armv7em/fpu_f32.c   conv2d (one group, no horizontal dilation)
 *                               and dense (NK_FAST_F32_DENSE, below),
 *                               eight output channels a pass over runs of
 *                               taps loaded four floats an instruction
 *                               (VLDM) into VFMA chains; depthwise
 *                               (multiplier 1), eight channels a tap
 *
 * Built when the target has a single-precision FPU with fused multiply-add
 * (__ARM_FP bit 2, __ARM_FEATURE_FMA, M profile), or on any host with
 * NETKIT_EMULATE_DSP=1 (the same kernels over a C model of the asm block,
 * for the sanitizer tests); NETKIT_PORTABLE_KERNELS=1 leaves them out.
 *
 * Each function takes the portable kernel's arguments (kernels/ref/
 * ref_kernels.h) and returns 1 when it wrote the output, or 0, before
 * touching anything, when it does not handle those parameters. Outputs
 * equal the portable kernels' up to float rounding (another summation
 * order: one chain per output from the bias, in tap order).
 */
#ifndef NK_FAST_F32_H
#define NK_FAST_F32_H

#include "ref/ref_kernels.h"

#if defined(NETKIT_PORTABLE_KERNELS) && NETKIT_PORTABLE_KERNELS
#define NK_FAST_F32 0
#elif defined(__ARM_FP) && (__ARM_FP & 4) && defined(__ARM_FEATURE_FMA) &&                        \
    defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define NK_FAST_F32 1
#define NK_FAST_F32_NATIVE 1
#elif defined(NETKIT_EMULATE_DSP) && NETKIT_EMULATE_DSP
#define NK_FAST_F32 1
#else
#define NK_FAST_F32 0
#endif
#ifndef NK_FAST_F32_NATIVE
#define NK_FAST_F32_NATIVE 0
#endif
/* The dense kernel too, except on cores with MVE float (Cortex-M55),
 * where GCC vectorizes the portable dense's rows with MVE and beats the
 * scalar FPU chains (bench-mcu, M55: the Fashion MLP 64,478 instructions
 * portable against 78,122 with the FPU dense); their convs and depthwise
 * still gain (the bundled cnn 851,618 -> 494,938). */
#if NK_FAST_F32 && !(NK_FAST_F32_NATIVE && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2))
#define NK_FAST_F32_DENSE 1
#else
#define NK_FAST_F32_DENSE 0
#endif

#if NK_FAST_F32
NK_REF_HIDDEN int nk_fast_conv2d_f32(const float *x, const float *NK_RESTRICT w,
                                     const float *NK_RESTRICT bias, float *y,
                                     const nk_ref_conv_geom *g);
/* multiplier 1 (others: 0, the portable kernel) */
NK_REF_HIDDEN int nk_fast_depthwise_conv2d_f32(const float *x, const float *NK_RESTRICT w,
                                               const float *NK_RESTRICT bias, float *y,
                                               const nk_ref_conv_geom *g);
#endif
#if NK_FAST_F32_DENSE
NK_REF_HIDDEN int nk_fast_dense_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                                    const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                    size_t rows, int32_t in_features, int32_t out_features,
                                    float act_min, float act_max);
#endif

#endif /* NK_FAST_F32_H */

/*
 * host.h — the host SIMD kernels (x86-64 AVX2+FMA, AVX-512, AVX-512 VNNI;
 * aarch64 NEON): float, and int8 on x86-64 (host_i8.c); one table of
 * function pointers per ISA level, chosen when a model loads.
 *
 * How it fits together:
 * - Every .c in csrc/kernels/host/ is compiled once per ISA level (CMake:
 *   one object library per level with its -m flags; the unity build that
 *   cgo compiles: host_unity.inc includes them once per level under a
 *   target pragma). Names carry the level's suffix through NK_HOST_FN
 *   (host_isa.h), so the copies link side by side; host_table.c fills
 *   nk_host_kernels_<isa> from them.
 * - csrc/kernels/host_select.c (compiled once, host builds only) picks the
 *   table at load from the CPU's features, or from NETKIT_HOST_ISA=
 *   portable|avx2|avx512|avx512vnni|neon. The model keeps the pointer,
 *   nk_exec carries it to the evals; NULL means the portable kernels (kernels/ref/), which
 *   stay the oracle the fast ones are tested against.
 * - The core holds no global state for it; the MCU build (NETKIT_HOST_KERNELS
 *   0) compiles none of this.
 *
 * Kernels take the portable kernel's arguments. Those returning int return
 * 1 when they wrote the output, or 0, before touching anything, when they do
 * not handle the parameters (the eval then runs the portable kernel). Dense
 * and conv2d read weights packed at load by their *_pack function into the
 * arena (counted by inspect as copied weights); a pack size of 0 means the
 * op runs the portable kernel. Depthwise packs too where its flat-row kernel
 * applies; other depthwise convs, pools and add/mul read the tensors as they
 * are. Float results equal the portable kernels' within 1e-5 relative (sums
 * are reassociated and fused).
 *
 * Extending: add a member here, its function in a .c file of csrc/kernels/host/
 * (named with NK_HOST_FN), list a new file in host_sources.inc, fill the
 * member in host_table.c, and call it from the op's eval when non-NULL.
 */
#ifndef NK_HOST_H
#define NK_HOST_H

#include "../ref/ref_kernels.h"
#include "../ref/ref_i8.h"
#include <string.h>

typedef struct nk_host_kernels {
    const char *name; /* "avx2", "avx512", "avx512vnni", "neon": what NETKIT_HOST_ISA takes */

    /* Dense: y[r, n] = clamp(x[r, :] . w[n, :] + bias[n]). w [out, in] is
     * packed once into dense_pack_size(in, out) bytes (16-byte aligned). */
    size_t (*dense_pack_size)(int32_t in_features, int32_t out_features);
    void (*dense_pack)(const float *NK_RESTRICT w, int32_t in_features, int32_t out_features,
                       float *NK_RESTRICT packed);
    void (*dense_f32)(const float *NK_RESTRICT x, const float *NK_RESTRICT packed,
                      const float *NK_RESTRICT bias, float *NK_RESTRICT y, size_t rows,
                      int32_t in_features, int32_t out_features, float act_min, float act_max);

    /* Conv2d (groups 1; else pack size 0): w [out_c, k_h, k_w, in_c] packed
     * once; the eval gives conv2d_workspace(g) bytes of scratch. */
    size_t (*conv2d_pack_size)(const nk_ref_conv_geom *g);
    void (*conv2d_pack)(const float *NK_RESTRICT w, const nk_ref_conv_geom *g,
                        float *NK_RESTRICT packed);
    size_t (*conv2d_workspace)(const nk_ref_conv_geom *g);
    void (*conv2d_f32)(const float *x, const float *NK_RESTRICT packed,
                       const float *NK_RESTRICT bias, float *y,
                       const nk_ref_conv_geom *g, float *NK_RESTRICT workspace);

    int (*depthwise_conv2d_f32)(const float *x, const float *NK_RESTRICT w,
                                const float *NK_RESTRICT bias, float *y,
                                const nk_ref_conv_geom *g);
    /* Depthwise with few channels (multiplier 1, stride_w 1, in_c not a
     * multiple of the vector; else pack size 0): vectors over the flat
     * output row, weights packed once at load, depthwise_workspace(g) bytes
     * of scratch. */
    size_t (*depthwise_pack_size)(const nk_ref_conv_geom *g);
    void (*depthwise_pack)(const float *NK_RESTRICT w, const nk_ref_conv_geom *g,
                           float *NK_RESTRICT packed);
    size_t (*depthwise_workspace)(const nk_ref_conv_geom *g);
    void (*depthwise_packed_f32)(const float *x, const float *NK_RESTRICT packed,
                                 const float *NK_RESTRICT bias, float *y,
                                 const nk_ref_conv_geom *g, float *NK_RESTRICT workspace);
    int (*max_pool2d_f32)(const float *x, float *y,
                          const nk_ref_conv_geom *g);
    int (*avg_pool2d_f32)(const float *x, float *y,
                          const nk_ref_conv_geom *g);
    int (*global_avg_pool_f32)(const float *NK_RESTRICT x, float *NK_RESTRICT y, int32_t batch,
                               size_t hw, int32_t c);
    /* add/mul: the portable kernels' broadcasting arguments; handled when b
     * is a's shape, a scalar, or a vector over the last dim (and a likewise) */
    int (*add_f32)(const float *a, const int32_t *a_dims, int32_t a_rank, const float *b,
                   const int32_t *b_dims, int32_t b_rank, float *y, const int32_t *y_dims,
                   int32_t y_rank, float act_min, float act_max);
    int (*mul_f32)(const float *a, const int32_t *a_dims, int32_t a_rank, const float *b,
                   const int32_t *b_dims, int32_t b_rank, float *y, const int32_t *y_dims,
                   int32_t y_rank, float act_min, float act_max);

    /* ---- vmath.c: exp, erf, tanh, sigmoid approximations and the
     * activations on them (vmath.h; errors in docs/HOST_MATH.md: within
     * 1e-6 relative of libm on every float). The portable kernels' arguments;
     * y may equal x. exp and erf have no op of their own (tests, benches). */
    void (*exp_f32)(const float *x, float *y, size_t n);
    void (*erf_f32)(const float *x, float *y, size_t n);
    void (*tanh_f32)(const float *x, float *y, size_t n);
    void (*sigmoid_f32)(const float *x, float *y, size_t n);
    void (*gelu_f32)(const float *x, float *y, size_t n, int32_t approximate);
    void (*softmax_f32)(const float *x, float *y, size_t rows, size_t cols, float beta);

    /* ---- host_i8.c: int8, byte-identical to the portable kernels
     * (kernels/ref/ref_i8.h) in the build's rounding mode. x86-64 only
     * (NULL on NEON: the portable kernels run). */
    /* Conv2d (groups 1) and dense (a 1x1 conv over the rows: in_h = rows,
     * in_w = 1) as a GEMM over im2col rows: weights, bias and the prepared
     * requantization packed once by conv2d_i8_pack into
     * conv2d_i8_pack_size(g, q) bytes (0: not handled; q->mult/shift must
     * be the op's constants); conv2d_i8_workspace(g) bytes of scratch. */
    size_t (*conv2d_i8_pack_size)(const nk_ref_conv_geom *g, const nk_ref_i8_quant *q);
    void (*conv2d_i8_pack)(const int8_t *NK_RESTRICT w, const int32_t *NK_RESTRICT bias,
                           const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                           void *NK_RESTRICT packed);
    size_t (*conv2d_i8_workspace)(const nk_ref_conv_geom *g);
    void (*conv2d_i8)(const int8_t *x, const void *NK_RESTRICT packed,
                      int8_t *y, const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                      void *NK_RESTRICT workspace);
    /* Depthwise (multiplier 1): bias and requantization packed likewise
     * (depthwise_i8_pack_size 0: not handled), the weights w
     * [1, k_h, k_w, out_c] read in place. */
    size_t (*depthwise_i8_pack_size)(const nk_ref_conv_geom *g, const nk_ref_i8_quant *q);
    void (*depthwise_i8_pack)(const int8_t *NK_RESTRICT w, const int32_t *NK_RESTRICT bias,
                              const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                              void *NK_RESTRICT packed);
    void (*depthwise_i8)(const int8_t *x, const int8_t *NK_RESTRICT w,
                         const void *NK_RESTRICT packed, int8_t *y,
                         const nk_ref_conv_geom *g, const nk_ref_i8_quant *q);
    /* Add of equal shapes, as nk_ref_add_i8 (y may equal a or b). */
    void (*add_i8)(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                   const nk_ref_add_i8_params *p);
} nk_host_kernels;

/* Dense int8 as the 1x1 conv over its rows that conv2d_i8 runs. */
static inline void nk_host_dense_i8_geom(nk_ref_conv_geom *g, int32_t rows, int32_t in_features,
                                         int32_t out_features) {
    memset(g, 0, sizeof *g);
    g->batch = 1;
    g->in_h = g->out_h = rows;
    g->in_w = g->out_w = 1;
    g->in_c = in_features;
    g->out_c = out_features;
    g->k_h = g->k_w = g->stride_h = g->stride_w = g->dil_h = g->dil_w = 1;
    g->groups = g->multiplier = 1;
}

/* The tables this build has (host_table.c, once per ISA level). */
#if defined(__x86_64__) || defined(_M_X64)
NK_REF_HIDDEN extern const nk_host_kernels nk_host_kernels_avx2;
NK_REF_HIDDEN extern const nk_host_kernels nk_host_kernels_avx512;
NK_REF_HIDDEN extern const nk_host_kernels nk_host_kernels_avx512vnni;
#endif
#if defined(__aarch64__)
NK_REF_HIDDEN extern const nk_host_kernels nk_host_kernels_neon;
#endif

#endif /* NK_HOST_H */

/* host_table.c — this ISA level's kernel table, nk_host_kernels_<isa>
 * (host.h). Compiled once per ISA level; the VNNI level's float entries
 * are the AVX-512 level's kernels (NK_HOST_F32_FN, host_isa.h). */
#include "host_isa.h"
#include "host.h"

/* The float kernels of this level (defined in the host_*.c files next to
 * this). The unity build's VNNI level has them declared already, as the
 * AVX-512 level's: clang refuses a second declaration under another
 * target attribute. */
#if !defined(NK_HOST_F32_DECLARED)
#include "vmath.h"
size_t NK_HOST_F32_FN(nk_host_dense_pack_size)(int32_t in_features, int32_t out_features);
void NK_HOST_F32_FN(nk_host_dense_pack)(const float *NK_RESTRICT w, int32_t in_features,
                                        int32_t out_features, float *NK_RESTRICT packed);
void NK_HOST_F32_FN(nk_host_dense_f32)(const float *NK_RESTRICT x, const float *NK_RESTRICT packed,
                                       const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                       size_t rows, int32_t in_features, int32_t out_features,
                                       float act_min, float act_max);
size_t NK_HOST_F32_FN(nk_host_conv2d_pack_size)(const nk_ref_conv_geom *g);
void NK_HOST_F32_FN(nk_host_conv2d_pack)(const float *NK_RESTRICT w, const nk_ref_conv_geom *g,
                                         float *NK_RESTRICT packed);
size_t NK_HOST_F32_FN(nk_host_conv2d_workspace)(const nk_ref_conv_geom *g);
void NK_HOST_F32_FN(nk_host_conv2d_f32)(const float *NK_RESTRICT x, const float *NK_RESTRICT packed,
                                        const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                        const nk_ref_conv_geom *g, float *NK_RESTRICT workspace);
int NK_HOST_F32_FN(nk_host_depthwise_conv2d_f32)(const float *NK_RESTRICT x,
                                                 const float *NK_RESTRICT w,
                                                 const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                                 const nk_ref_conv_geom *g);
size_t NK_HOST_F32_FN(nk_host_depthwise_pack_size)(const nk_ref_conv_geom *g);
void NK_HOST_F32_FN(nk_host_depthwise_pack)(const float *NK_RESTRICT w, const nk_ref_conv_geom *g,
                                            float *NK_RESTRICT packed);
size_t NK_HOST_F32_FN(nk_host_depthwise_workspace)(const nk_ref_conv_geom *g);
void NK_HOST_F32_FN(nk_host_depthwise_packed_f32)(const float *x, const float *NK_RESTRICT packed,
                                                  const float *NK_RESTRICT bias, float *y,
                                                  const nk_ref_conv_geom *g,
                                                  float *NK_RESTRICT workspace);
int NK_HOST_F32_FN(nk_host_max_pool2d_f32)(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                           const nk_ref_conv_geom *g);
int NK_HOST_F32_FN(nk_host_avg_pool2d_f32)(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                           const nk_ref_conv_geom *g);
int NK_HOST_F32_FN(nk_host_global_avg_pool_f32)(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                                int32_t batch, size_t hw, int32_t c);
int NK_HOST_F32_FN(nk_host_add_f32)(const float *a, const int32_t *a_dims, int32_t a_rank,
                                    const float *b, const int32_t *b_dims, int32_t b_rank, float *y,
                                    const int32_t *y_dims, int32_t y_rank, float act_min,
                                    float act_max);
int NK_HOST_F32_FN(nk_host_mul_f32)(const float *a, const int32_t *a_dims, int32_t a_rank,
                                    const float *b, const int32_t *b_dims, int32_t b_rank, float *y,
                                    const int32_t *y_dims, int32_t y_rank, float act_min,
                                    float act_max);

#endif
#if !defined(NK_HOST_ISA_NEON)
/* host_i8.c */
size_t NK_HOST_FN(nk_host_conv2d_i8_pack_size)(const nk_ref_conv_geom *g, const nk_ref_i8_quant *q);
void NK_HOST_FN(nk_host_conv2d_i8_pack)(const int8_t *NK_RESTRICT w, const int32_t *NK_RESTRICT bias,
                                        const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                        void *NK_RESTRICT packed);
size_t NK_HOST_FN(nk_host_conv2d_i8_workspace)(const nk_ref_conv_geom *g);
void NK_HOST_FN(nk_host_conv2d_i8)(const int8_t *x, const void *NK_RESTRICT packed,
                                   int8_t *y, const nk_ref_conv_geom *g,
                                   const nk_ref_i8_quant *q, void *NK_RESTRICT workspace);
size_t NK_HOST_FN(nk_host_depthwise_i8_pack_size)(const nk_ref_conv_geom *g,
                                                  const nk_ref_i8_quant *q);
void NK_HOST_FN(nk_host_depthwise_i8_pack)(const int8_t *NK_RESTRICT w,
                                           const int32_t *NK_RESTRICT bias,
                                           const nk_ref_conv_geom *g, const nk_ref_i8_quant *q,
                                           void *NK_RESTRICT packed);
void NK_HOST_FN(nk_host_depthwise_i8)(const int8_t *x, const int8_t *NK_RESTRICT w,
                                      const void *NK_RESTRICT packed, int8_t *y,
                                      const nk_ref_conv_geom *g, const nk_ref_i8_quant *q);
void NK_HOST_FN(nk_host_add_i8)(const int8_t *a, const int8_t *b, int8_t *y, size_t n,
                                const nk_ref_add_i8_params *p);
#endif

#if defined(NK_HOST_ISA_AVX512VNNI)
#define NK_HOST_ISA_NAME "avx512vnni"
#elif defined(NK_HOST_ISA_AVX512)
#define NK_HOST_ISA_NAME "avx512"
#elif defined(NK_HOST_ISA_AVX2)
#define NK_HOST_ISA_NAME "avx2"
#else
#define NK_HOST_ISA_NAME "neon"
#endif

/* Designated initializers: members added later (host-vmath's activations)
 * stay NULL, i.e. portable, in a table that does not set them. */
const nk_host_kernels NK_HOST_FN(nk_host_kernels) = {
    .name = NK_HOST_ISA_NAME,
    .dense_pack_size = NK_HOST_F32_FN(nk_host_dense_pack_size),
    .dense_pack = NK_HOST_F32_FN(nk_host_dense_pack),
    .dense_f32 = NK_HOST_F32_FN(nk_host_dense_f32),
    .conv2d_pack_size = NK_HOST_F32_FN(nk_host_conv2d_pack_size),
    .conv2d_pack = NK_HOST_F32_FN(nk_host_conv2d_pack),
    .conv2d_workspace = NK_HOST_F32_FN(nk_host_conv2d_workspace),
    .conv2d_f32 = NK_HOST_F32_FN(nk_host_conv2d_f32),
    .depthwise_conv2d_f32 = NK_HOST_F32_FN(nk_host_depthwise_conv2d_f32),
    .depthwise_pack_size = NK_HOST_F32_FN(nk_host_depthwise_pack_size),
    .depthwise_pack = NK_HOST_F32_FN(nk_host_depthwise_pack),
    .depthwise_workspace = NK_HOST_F32_FN(nk_host_depthwise_workspace),
    .depthwise_packed_f32 = NK_HOST_F32_FN(nk_host_depthwise_packed_f32),
    .max_pool2d_f32 = NK_HOST_F32_FN(nk_host_max_pool2d_f32),
    .avg_pool2d_f32 = NK_HOST_F32_FN(nk_host_avg_pool2d_f32),
    .global_avg_pool_f32 = NK_HOST_F32_FN(nk_host_global_avg_pool_f32),
    .add_f32 = NK_HOST_F32_FN(nk_host_add_f32),
    .mul_f32 = NK_HOST_F32_FN(nk_host_mul_f32),
    /* vmath.c */
    .exp_f32 = NK_HOST_F32_FN(nk_host_exp_f32),
    .erf_f32 = NK_HOST_F32_FN(nk_host_erf_f32),
    .tanh_f32 = NK_HOST_F32_FN(nk_host_tanh_f32),
    .sigmoid_f32 = NK_HOST_F32_FN(nk_host_sigmoid_f32),
    .gelu_f32 = NK_HOST_F32_FN(nk_host_gelu_f32),
    .softmax_f32 = NK_HOST_F32_FN(nk_host_softmax_f32),
#if !defined(NK_HOST_ISA_NEON)
    /* host_i8.c */
    .conv2d_i8_pack_size = NK_HOST_FN(nk_host_conv2d_i8_pack_size),
    .conv2d_i8_pack = NK_HOST_FN(nk_host_conv2d_i8_pack),
    .conv2d_i8_workspace = NK_HOST_FN(nk_host_conv2d_i8_workspace),
    .conv2d_i8 = NK_HOST_FN(nk_host_conv2d_i8),
    .depthwise_i8_pack_size = NK_HOST_FN(nk_host_depthwise_i8_pack_size),
    .depthwise_i8_pack = NK_HOST_FN(nk_host_depthwise_i8_pack),
    .depthwise_i8 = NK_HOST_FN(nk_host_depthwise_i8),
    .add_i8 = NK_HOST_FN(nk_host_add_i8),
#endif
};
#undef NK_HOST_ISA_NAME

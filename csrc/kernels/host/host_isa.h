/*
 * host_isa.h — what a host kernel source needs to be compiled once per ISA
 * level (host.h explains the scheme): the function-name suffix and a small
 * vector vocabulary over the level's widest float vector.
 *
 * Exactly one of NK_HOST_ISA_AVX2, NK_HOST_ISA_AVX512, NK_HOST_ISA_AVX512VNNI,
 * NK_HOST_ISA_NEON is defined while a kernel source is compiled: by CMake (-D plus -mavx2 -mfma
 * or -mavx512*, one object library per level) or by host_unity.inc, which
 * includes every source once per level into the unity build (cgo) under a
 * target pragma. So that one translation unit can hold every level, each
 * name here and each file-local name of a kernel source is suffixed with
 * the level (nk_vfma -> nk_vfma_avx2), and this header is read once per
 * level (the guard is per level).
 *
 * Kernels are written with GCC/Clang vector extensions over nk_vf (NK_VL
 * floats); the few operations C operators lack (fma, min, max, masked
 * tails) map to one intrinsic each here.
 */
#ifndef NK_HOST_ISA_NAMES
#define NK_HOST_ISA_NAMES
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#define nk_vf NK_HOST_FN(nk_vf)
#define nk_vfma NK_HOST_FN(nk_vfma)
#define nk_vmin NK_HOST_FN(nk_vmin)
#define nk_vmax NK_HOST_FN(nk_vmax)
#define nk_vdup NK_HOST_FN(nk_vdup)
#define nk_vload NK_HOST_FN(nk_vload)
#define nk_vstore NK_HOST_FN(nk_vstore)
#define nk_vload_n NK_HOST_FN(nk_vload_n)
#define nk_vstore_n NK_HOST_FN(nk_vstore_n)
#define nk_vsum NK_HOST_FN(nk_vsum)
#define nk_vclamp NK_HOST_FN(nk_vclamp)
#define nk_vmask_ NK_HOST_FN(nk_vmask_)
#endif

/* The AVX-512 VNNI level is the AVX-512 level (NK_HOST_ISA_AVX512 is set
 * too, so every test for it holds) whose int8 dot products use VPDPBUSD
 * (host_i8.c): the same vocabulary under its own suffix. */
#if defined(NK_HOST_ISA_AVX512VNNI) && !defined(NK_HOST_ISA_AVX512)
#define NK_HOST_ISA_AVX512 1
#endif

#if defined(NK_HOST_ISA_AVX512) &&                                                           \
    ((defined(NK_HOST_ISA_AVX512VNNI) && !defined(NK_HOST_ISA_AVX512VNNI_READ)) ||            \
     (!defined(NK_HOST_ISA_AVX512VNNI) && !defined(NK_HOST_ISA_AVX512_READ)))
#if defined(NK_HOST_ISA_AVX512VNNI)
#define NK_HOST_ISA_AVX512VNNI_READ
#else
#define NK_HOST_ISA_AVX512_READ
#endif
#define NK_HOST_ISA_LEVEL_READ
#undef NK_HOST_FN
#undef NK_VL
#include <immintrin.h>
#if defined(NK_HOST_ISA_AVX512VNNI)
#define NK_HOST_FN(name) name##_avx512vnni
#else
#define NK_HOST_FN(name) name##_avx512
#endif
#define NK_VL 16
typedef __m512 nk_vf;
static inline nk_vf nk_vfma(nk_vf a, nk_vf b, nk_vf c) { return _mm512_fmadd_ps(a, b, c); }
static inline nk_vf nk_vmin(nk_vf a, nk_vf b) { return _mm512_min_ps(a, b); }
static inline nk_vf nk_vmax(nk_vf a, nk_vf b) { return _mm512_max_ps(a, b); }
static inline nk_vf nk_vdup(float s) { return _mm512_set1_ps(s); }
static inline nk_vf nk_vload(const float *p) { return _mm512_loadu_ps(p); }
static inline void nk_vstore(float *p, nk_vf v) { _mm512_storeu_ps(p, v); }
/* the first n (< NK_VL) lanes; the others read as 0 / are not written */
static inline nk_vf nk_vload_n(const float *p, size_t n) {
    return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p);
}
static inline void nk_vstore_n(float *p, nk_vf v, size_t n) {
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v);
}
static inline float nk_vsum(nk_vf v) { return _mm512_reduce_add_ps(v); }
#elif defined(NK_HOST_ISA_AVX2) && !defined(NK_HOST_ISA_AVX2_READ)
#define NK_HOST_ISA_AVX2_READ
#define NK_HOST_ISA_LEVEL_READ
#undef NK_HOST_FN
#undef NK_VL
#include <immintrin.h>
#define NK_HOST_FN(name) name##_avx2
#define NK_VL 8
typedef __m256 nk_vf;
static inline nk_vf nk_vfma(nk_vf a, nk_vf b, nk_vf c) { return _mm256_fmadd_ps(a, b, c); }
static inline nk_vf nk_vmin(nk_vf a, nk_vf b) { return _mm256_min_ps(a, b); }
static inline nk_vf nk_vmax(nk_vf a, nk_vf b) { return _mm256_max_ps(a, b); }
static inline nk_vf nk_vdup(float s) { return _mm256_set1_ps(s); }
static inline nk_vf nk_vload(const float *p) { return _mm256_loadu_ps(p); }
static inline void nk_vstore(float *p, nk_vf v) { _mm256_storeu_ps(p, v); }
static inline __m256i nk_vmask_(size_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline nk_vf nk_vload_n(const float *p, size_t n) { return _mm256_maskload_ps(p, nk_vmask_(n)); }
static inline void nk_vstore_n(float *p, nk_vf v, size_t n) { _mm256_maskstore_ps(p, nk_vmask_(n), v); }
static inline float nk_vsum(nk_vf v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#elif defined(NK_HOST_ISA_NEON) && !defined(NK_HOST_ISA_NEON_READ)
#define NK_HOST_ISA_NEON_READ
#define NK_HOST_ISA_LEVEL_READ
#undef NK_HOST_FN
#undef NK_VL
#include <arm_neon.h>
#define NK_HOST_FN(name) name##_neon
#define NK_VL 4
typedef float32x4_t nk_vf;
static inline nk_vf nk_vfma(nk_vf a, nk_vf b, nk_vf c) { return vfmaq_f32(c, a, b); }
static inline nk_vf nk_vmin(nk_vf a, nk_vf b) { return vminq_f32(a, b); }
static inline nk_vf nk_vmax(nk_vf a, nk_vf b) { return vmaxq_f32(a, b); }
static inline nk_vf nk_vdup(float s) { return vdupq_n_f32(s); }
static inline nk_vf nk_vload(const float *p) { return vld1q_f32(p); }
static inline void nk_vstore(float *p, nk_vf v) { vst1q_f32(p, v); }
static inline nk_vf nk_vload_n(const float *p, size_t n) {
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(t, p, n * sizeof(float));
    return vld1q_f32(t);
}
static inline void nk_vstore_n(float *p, nk_vf v, size_t n) {
    float t[4];
    vst1q_f32(t, v);
    memcpy(p, t, n * sizeof(float));
}
static inline float nk_vsum(nk_vf v) { return vaddvq_f32(v); }
#elif !defined(NK_HOST_ISA_LEVEL_READ)
#error "host kernels: define one of NK_HOST_ISA_AVX2, NK_HOST_ISA_AVX512, NK_HOST_ISA_NEON"
#else
#define NK_HOST_ISA_SAME_LEVEL /* this level's names are defined already */
#endif

/* The float kernels' names. The VNNI level differs from the AVX-512 level
 * in its int8 kernels only: it compiles host_i8.c and its table, whose
 * float entries are the AVX-512 level's kernels. */
#undef NK_HOST_F32_FN
#if defined(NK_HOST_ISA_AVX512VNNI)
#define NK_HOST_F32_FN(name) name##_avx512
#else
#define NK_HOST_F32_FN(name) NK_HOST_FN(name)
#endif

#if !defined(NK_HOST_ISA_SAME_LEVEL)

/* The fused activation clamp of every epilogue. The bound goes first: x86
 * min/max return their second operand when either is NaN (NEON returns
 * NaN), so a NaN passes through as in the portable kernels' ternaries. */
static inline nk_vf nk_vclamp(nk_vf v, nk_vf lo, nk_vf hi) { return nk_vmin(hi, nk_vmax(lo, v)); }
#endif
#undef NK_HOST_ISA_SAME_LEVEL

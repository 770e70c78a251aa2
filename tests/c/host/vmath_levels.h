/* vmath_levels.h — the vmath kernels of each host ISA level this build
 * has, for vmath_test.c, and which of them this CPU runs. */
#ifndef NK_VMATH_LEVELS_H
#define NK_VMATH_LEVELS_H

#include <stddef.h>
#include <stdint.h>

typedef struct vm_level {
    const char *name;
    void (*exp_f32)(const float *x, float *y, size_t n);
    void (*erf_f32)(const float *x, float *y, size_t n);
    void (*tanh_f32)(const float *x, float *y, size_t n);
    void (*sigmoid_f32)(const float *x, float *y, size_t n);
    void (*gelu_f32)(const float *x, float *y, size_t n, int32_t approximate);
    void (*softmax_f32)(const float *x, float *y, size_t rows, size_t cols, float beta);
} vm_level;

#define VM_DECLARE(sfx)                                                                    \
    void nk_host_exp_f32_##sfx(const float *x, float *y, size_t n);                        \
    void nk_host_erf_f32_##sfx(const float *x, float *y, size_t n);                        \
    void nk_host_tanh_f32_##sfx(const float *x, float *y, size_t n);                       \
    void nk_host_sigmoid_f32_##sfx(const float *x, float *y, size_t n);                    \
    void nk_host_gelu_f32_##sfx(const float *x, float *y, size_t n, int32_t approximate); \
    void nk_host_softmax_f32_##sfx(const float *x, float *y, size_t rows, size_t cols,    \
                                   float beta);                                            \
    static const vm_level vm_level_##sfx = {#sfx,                                         \
                                            nk_host_exp_f32_##sfx,                        \
                                            nk_host_erf_f32_##sfx,                        \
                                            nk_host_tanh_f32_##sfx,                       \
                                            nk_host_sigmoid_f32_##sfx,                    \
                                            nk_host_gelu_f32_##sfx,                       \
                                            nk_host_softmax_f32_##sfx};

#if defined(__x86_64__)
VM_DECLARE(avx2)
VM_DECLARE(avx512)
#elif defined(__aarch64__)
VM_DECLARE(neon)
#endif

static size_t vm_levels_available(const vm_level **out, size_t max) {
    size_t n = 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (n < max && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        out[n++] = &vm_level_avx2;
    if (n < max && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        out[n++] = &vm_level_avx512;
#elif defined(__aarch64__)
    if (n < max)
        out[n++] = &vm_level_neon;
#endif
    (void)out;
    (void)max;
    return n;
}

#endif

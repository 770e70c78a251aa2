/*
 * vmath.h — vectorized float32 exp, erf, tanh, sigmoid, and the GELU and
 * softmax kernels built on them, for the host kernel tables (host.h).
 * Compiled once per float ISA level like every float kernel here; names
 * carry the level's suffix through NK_HOST_F32_FN (host_isa.h).
 *
 * Accuracy (measured over every float by tests/c/host/vmath_test.c
 * --exhaustive; designs and figures in docs/HOST_MATH.md): every result is
 * within 1e-6 relative of the libm reference, relative meaning
 * |y - ref| / max(|ref|, FLT_MIN). NaN in gives NaN out, infinities and
 * signed zeros give what libm gives, denormals in and out are handled (no
 * flush to zero). No libm call, no errno, no global state. Every step is
 * the same IEEE operation on every ISA level (fma included), so the levels
 * agree bit for bit when the compiler does not contract a*b+c on its own
 * (C99 mode, as CMake builds); where it does (gnu modes, cgo), results may
 * differ in the last bit and stay within the same bound.
 *
 * All kernels accept y == x (the planner runs activations in place).
 *
 * No include guard: the unity build reads this once per ISA level
 * (host_unity.inc), declaring that level's names each time.
 */
#include <stddef.h>
#include <stdint.h>

/* y[i] = f(x[i]) for i < n */
void NK_HOST_F32_FN(nk_host_exp_f32)(const float *x, float *y, size_t n);
void NK_HOST_F32_FN(nk_host_erf_f32)(const float *x, float *y, size_t n);
void NK_HOST_F32_FN(nk_host_tanh_f32)(const float *x, float *y, size_t n);
void NK_HOST_F32_FN(nk_host_sigmoid_f32)(const float *x, float *y, size_t n);
/* GELU, as nk_ref_gelu_f32: approximate 0 is x/2 (1 + erf(x/sqrt 2)),
 * 1 the tanh form x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
void NK_HOST_F32_FN(nk_host_gelu_f32)(const float *x, float *y, size_t n,
                                      int32_t approximate);
/* Softmax of beta * x over each row of cols floats, as nk_ref_softmax_f32. */
void NK_HOST_F32_FN(nk_host_softmax_f32)(const float *x, float *y, size_t rows, size_t cols,
                                         float beta);

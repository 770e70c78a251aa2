/* The host kernels at the avx512 level, for package nk: cgo compiles every
 * .c here with the same flags, so this unit enables the ISA with a target
 * pragma before the kernel sources (CMake compiles the same sources with -m flags
 * instead). Only called after host_select.c saw the CPU support it. Empty
 * on other architectures. */
#include "../csrc/nk_internal.h"
#if NETKIT_HOST_KERNELS && defined(__x86_64__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))), apply_to = function)
#else
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")
#endif
#define NK_HOST_ISA_AVX512 1
#include "../csrc/kernels/host/host_unity.inc"
#if defined(__clang__)
#pragma clang attribute pop
#endif
#endif

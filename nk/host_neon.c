/* The host kernels at the NEON level, for package nk (cgo compiles every .c
 * here with the same flags; NEON is the AArch64 baseline, so no target
 * pragma). CMake builds the same sources from csrc/kernels/host/ instead.
 * Empty elsewhere. */
#include "../csrc/nk_internal.h"
#if NETKIT_HOST_KERNELS && defined(__aarch64__)
#define NK_HOST_ISA_NEON 1
#include "../csrc/kernels/host/host_unity.inc"
#endif

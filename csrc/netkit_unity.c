/*
 * netkit_unity.c — the whole core as one translation unit (Lua's onelua.c
 * idea). Package nk (cgo) compiles exactly this file, so cgo needs no list
 * of sources; CMake builds the separate files instead and skips this one.
 * Every core file keeps its static names distinct so they can share a unit.
 */
#if !defined(NETKIT_MCU) && !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* mmap and friends, before any system header */
#endif

#include "arena.c"
#include "error.c"
#include "crc32.c"
#include "sort.c"
#include "format.c"
#include "plan.c"
#include "plan_model.c"
#include "plan_fixed.c"
#include "model.c"
#include "batch_tile.c"
#include "inspect.c"

#if !defined(NETKIT_MCU)
#if NETKIT_MMAP
#include "platform/posix_mmap.c"
#else
#include "platform/stdio_file.c"
#endif
#include "platform/host_clock.c"
#endif

#include "ops/ops_unity.inc"
/* host SIMD kernels, once per ISA level, and the choice between them */
#include "kernels/host/host_unity.inc"
#include "kernels/host_select.c"

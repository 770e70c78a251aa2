/*
 * host_clock.c — the host's monotonic clock for the per-op profile
 * (nk_context_profile). The portable core has no clock: it only calls the
 * nk_clock_fn it is given, and this is the one host builds give it.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "platform.h"

#if defined(_WIN32)
#include <windows.h>
uint64_t nk_platform_clock_ns(void *user) {
    LARGE_INTEGER now, freq;
    (void)user;
    QueryPerformanceCounter(&now);
    QueryPerformanceFrequency(&freq);
    /* split so the multiply cannot overflow for years of uptime */
    return (uint64_t)(now.QuadPart / freq.QuadPart) * 1000000000u +
           (uint64_t)(now.QuadPart % freq.QuadPart) * 1000000000u / (uint64_t)freq.QuadPart;
}
#else
#include <time.h>
uint64_t nk_platform_clock_ns(void *user) {
    struct timespec ts;
    (void)user;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

/* vmath_levels.h — the host kernel tables this build has and this CPU runs,
 * for vmath_test.c and bench_vmath.c: each level is asked for through
 * NETKIT_HOST_ISA and nk_host_select, as a model load would. */
#ifndef NK_VMATH_LEVELS_H
#define NK_VMATH_LEVELS_H

#include <stdlib.h>

#include "nk_internal.h"
#include "kernels/host/host.h"

typedef nk_host_kernels vm_level;

static size_t vm_levels_available(const vm_level **out, size_t max) {
    static const char *const names[] = {"avx2", "avx512", "neon"};
    size_t n = 0, i;
    for (i = 0; i < sizeof names / sizeof names[0] && n < max; i++) {
        const nk_host_kernels *h = NULL;
        nk_error_t err;
        memset(&err, 0, sizeof err);
        setenv("NETKIT_HOST_ISA", names[i], 1);
        if (nk_host_select(&h, &err) == NK_OK && h != NULL)
            out[n++] = h;
    }
    unsetenv("NETKIT_HOST_ISA");
    return n;
}

#endif

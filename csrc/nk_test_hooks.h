/*
 * nk_test_hooks.h — failure injection for the core's own tests. Compiled
 * in only with NETKIT_TEST_HOOKS (set by tests/c/CMakeLists.txt for the
 * test programs that use it); libnetkit itself neither exports nor checks
 * it, and its nk_arena_t fields alloc_count/fail_at stay unused there.
 */
#ifndef NK_TEST_HOOKS_H
#define NK_TEST_HOOKS_H

#include "netkit.h"

#ifdef NETKIT_TEST_HOOKS
/* Lua's ltests idea: the n-th allocation from now fails; 0 disables. */
void nk_arena_fail_at(nk_arena_t *a, uint32_t n);
#endif

#endif /* NK_TEST_HOOKS_H */

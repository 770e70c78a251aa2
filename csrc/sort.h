/*
 * sort.h — the one in-place sort of the core (the reader's payload-overlap
 * check and the planner's layouts use it).
 */
#ifndef NK_SORT_H
#define NK_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "nk_internal.h"

/* Sorts n u32 keys that lie `stride` bytes apart from `keys` (in an array
 * of records) so that no key is before(ctx, ...) an earlier one. Heap
 * sort: O(n log n) on any input, in place, no scratch; not stable, so
 * `before` should order every pair. */
typedef int (*nk_before_fn)(const void *ctx, uint32_t a, uint32_t b);
NK_HIDDEN void nk_sort_u32(uint32_t *keys, size_t stride, uint32_t n, nk_before_fn before,
                           const void *ctx);

#endif /* NK_SORT_H */

/*
 * sort.c — heap sort of u32 keys inside an array of records (sort.h).
 */
#include "sort.h"

static uint32_t *nk_sort_at(uint32_t *keys, size_t stride, uint32_t i) {
    return (uint32_t *)(void *)((uint8_t *)keys + stride * i);
}

/* Sifts key i down the max-heap (under `before`) of the first n keys. */
static void nk_sort_sift(uint32_t *keys, size_t stride, uint32_t i, uint32_t n,
                         nk_before_fn before, const void *ctx) {
    for (;;) {
        uint32_t c = 2u * i + 1u, *pi, *pc, tmp;
        if (c >= n) return;
        if (c + 1u < n && before(ctx, *nk_sort_at(keys, stride, c), *nk_sort_at(keys, stride, c + 1u)))
            c++;
        pi = nk_sort_at(keys, stride, i);
        pc = nk_sort_at(keys, stride, c);
        if (!before(ctx, *pi, *pc)) return;
        tmp = *pi;
        *pi = *pc;
        *pc = tmp;
        i = c;
    }
}

void nk_sort_u32(uint32_t *keys, size_t stride, uint32_t n, nk_before_fn before, const void *ctx) {
    uint32_t i, *last, tmp;
    if (n < 2) return;
    for (i = n / 2; i-- > 0;) nk_sort_sift(keys, stride, i, n, before, ctx);
    for (i = n - 1; i > 0; i--) {
        last = nk_sort_at(keys, stride, i);
        tmp = *keys;
        *keys = *last;
        *last = tmp;
        nk_sort_sift(keys, stride, 0, i, before, ctx);
    }
}

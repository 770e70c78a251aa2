/*
 * arena.c — the bump allocator every byte of netkit comes from.
 *
 * The arena hands out pieces of one caller-owned buffer. Alignment is of the
 * absolute address (base + used), so a buffer that is only 4-byte aligned
 * still yields 16-byte aligned blocks, at the price of padding. All size
 * arithmetic compares against what remains instead of adding to `used`,
 * so no request, however close to SIZE_MAX, can wrap.
 */
#include "nk_internal.h"
#include "nk_test_hooks.h"

#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
#define NK_ARENA_HAVE_HEAP 1
#include <stdlib.h>
#else
#define NK_ARENA_HAVE_HEAP 0
#endif

#ifndef NETKIT_DEBUG
#define NETKIT_DEBUG 0
#endif

#define NK_ARENA_POISON 0xCD

static void nk_arena_poison(nk_arena_t *a, size_t from, size_t to) {
#if NETKIT_DEBUG
    if (a->base != NULL && to > from) memset(a->base + from, NK_ARENA_POISON, to - from);
#else
    (void)a;
    (void)from;
    (void)to;
#endif
}

void nk_arena_init(nk_arena_t *a, void *mem, size_t size) {
    if (a == NULL) return;
    memset(a, 0, sizeof *a);
    if (mem == NULL) return; /* stays a valid empty arena */
    a->base = (uint8_t *)mem;
    a->capacity = size;
}

void *nk_arena_alloc(nk_arena_t *a, size_t size, size_t align) {
    size_t remaining, pad;
    if (a == NULL) return NULL;
#ifdef NETKIT_TEST_HOOKS
    a->alloc_count++;
    if (a->fail_at != 0 && a->alloc_count == a->fail_at) return NULL;
#endif
    if (a->base == NULL || align == 0 || (align & (align - 1)) != 0) return NULL;
    remaining = a->capacity - a->used;
    pad = (size_t)(0u - ((uintptr_t)a->base + a->used)) & (align - 1);
    if (pad > remaining || size > remaining - pad) return NULL;
    a->used += pad;
    {
        void *p = a->base + a->used;
        a->used += size;
        if (a->used > a->high_water) a->high_water = a->used;
        return p;
    }
}

void *nk_arena_alloc_zeroed(nk_arena_t *a, size_t size, size_t align) {
    void *p = nk_arena_alloc(a, size, align);
    if (p != NULL && size != 0) memset(p, 0, size);
    return p;
}

void nk_arena_reset(nk_arena_t *a) {
    if (a == NULL) return;
    nk_arena_poison(a, 0, a->used);
    a->used = 0;
}

size_t nk_arena_mark(const nk_arena_t *a) { return a != NULL ? a->used : 0; }

void nk_arena_rewind(nk_arena_t *a, size_t mark) {
    if (a == NULL || mark > a->used) return; /* a mark from the future is ignored */
    nk_arena_poison(a, mark, a->used);
    a->used = mark;
}

size_t nk_arena_capacity(const nk_arena_t *a) { return a != NULL ? a->capacity : 0; }
size_t nk_arena_used(const nk_arena_t *a) { return a != NULL ? a->used : 0; }
size_t nk_arena_remaining(const nk_arena_t *a) { return a != NULL ? a->capacity - a->used : 0; }
size_t nk_arena_high_water(const nk_arena_t *a) { return a != NULL ? a->high_water : 0; }

#ifdef NETKIT_TEST_HOOKS
void nk_arena_fail_at(nk_arena_t *a, uint32_t n) {
    if (a == NULL) return;
    a->fail_at = n != 0 ? a->alloc_count + n : 0;
}
#endif

#if NK_ARENA_HAVE_HEAP
/* `reserved` keeps how far `base` was moved up to reach 16-byte alignment,
 * so the free gets back the pointer malloc returned. */
nk_status nk_arena_init_heap(nk_arena_t *a, size_t capacity) {
    uint8_t *raw;
    size_t pad;
    if (a == NULL) return NK_ERR_ARG;
    memset(a, 0, sizeof *a);
    if (capacity == 0) capacity = NK_ARENA_DEFAULT_CAPACITY;
    if (capacity > (size_t)-1 - (NK_PAYLOAD_ALIGN - 1)) return NK_ERR_ARENA_OVERFLOW;
    raw = (uint8_t *)malloc(capacity + (NK_PAYLOAD_ALIGN - 1)); /* nk-alloc-ok: heap arena backing store */
    if (raw == NULL) return NK_ERR_ARENA_OVERFLOW;
    pad = (size_t)(0u - (uintptr_t)raw) & (NK_PAYLOAD_ALIGN - 1);
    a->base = raw + pad;
    a->capacity = capacity;
    a->heap_owned = 1;
    a->reserved = (uint32_t)pad;
    return NK_OK;
}

void nk_arena_free_heap(nk_arena_t *a) {
    if (a == NULL || !a->heap_owned) return;
    free(a->base - a->reserved); /* nk-alloc-ok: heap arena backing store */
    memset(a, 0, sizeof *a);
}
#endif

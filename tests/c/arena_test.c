/*
 * arena_test.c — the bump arena: alignment of the absolute address,
 * overflow (also for sizes near SIZE_MAX), zero struct, mark/rewind,
 * high water, fail_at, poison (NETKIT_DEBUG builds) and the heap arena.
 * Expected values are worked out by hand from the arena's contract.
 */
#include <stdint.h>
#include <string.h>

#include "nk_test_hooks.h"
#include "testutil.h"

static uint8_t mem[1024] __attribute__((aligned(16)));

static void test_zero_struct(void) {
    nk_arena_t a;
    memset(&a, 0, sizeof a);
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) == NULL, "zero arena must refuse");
    NKT_CHECK(nk_arena_alloc(&a, 0, 16) == NULL, "zero arena refuses even size 0");
    NKT_CHECK(nk_arena_capacity(&a) == 0 && nk_arena_remaining(&a) == 0, "empty");
    nk_arena_reset(&a);
    nk_arena_rewind(&a, 0);
    NKT_CHECK(nk_arena_used(&a) == 0, "still empty");
    NKT_CHECK(nk_arena_alloc(NULL, 1, 1) == NULL, "NULL arena");
}

static void test_alignment(void) {
    nk_arena_t a;
    uint8_t *p;
    size_t align;
    /* base 3 bytes past a 16-byte boundary: 16-alignment costs 13 bytes */
    nk_arena_init(&a, mem + 3, 100);
    p = (uint8_t *)nk_arena_alloc(&a, 1, 16);
    NKT_CHECK(p == mem + 16, "aligned to the absolute address (got offset %td)", p - mem);
    NKT_CHECK(nk_arena_used(&a) == 14, "13 pad + 1 byte, used %zu", nk_arena_used(&a));
    p = (uint8_t *)nk_arena_alloc(&a, 4, 4);
    NKT_CHECK(p == mem + 20, "next 4-aligned address is 20 (got %td)", p - mem);
    NKT_CHECK(nk_arena_used(&a) == 21, "used %zu", nk_arena_used(&a));
    for (align = 1; align <= 256; align <<= 1) {
        nk_arena_init(&a, mem + 1, sizeof mem - 1);
        p = (uint8_t *)nk_arena_alloc(&a, 8, align);
        NKT_CHECK(p != NULL && ((uintptr_t)p & (align - 1)) == 0, "align %zu", align);
    }
    nk_arena_init(&a, mem, sizeof mem);
    NKT_CHECK(nk_arena_alloc(&a, 8, 0) == NULL, "align 0 is not a power of two");
    NKT_CHECK(nk_arena_alloc(&a, 8, 3) == NULL, "align 3");
    NKT_CHECK(nk_arena_alloc(&a, 8, 24) == NULL, "align 24");
    NKT_CHECK(nk_arena_used(&a) == 0, "refused requests take nothing");
    /* size 0: a valid aligned pointer, no bytes */
    nk_arena_init(&a, mem + 5, 64);
    p = (uint8_t *)nk_arena_alloc(&a, 0, 16);
    NKT_CHECK(p == mem + 16, "size 0 gives an aligned pointer");
    NKT_CHECK(nk_arena_used(&a) == 11, "only the padding is used");
}

static void test_overflow(void) {
    nk_arena_t a;
    nk_arena_init(&a, mem, 64);
    NKT_CHECK(nk_arena_alloc(&a, 64, 1) != NULL, "exact fit");
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) == NULL, "one more byte");
    NKT_CHECK(nk_arena_alloc(&a, 0, 1) != NULL, "size 0 still fits at the end");
    nk_arena_init(&a, mem, 64);
    NKT_CHECK(nk_arena_alloc(&a, 65, 1) == NULL, "65 > 64");
    NKT_CHECK(nk_arena_alloc(&a, SIZE_MAX, 1) == NULL, "SIZE_MAX");
    NKT_CHECK(nk_arena_alloc(&a, SIZE_MAX - 15, 16) == NULL, "SIZE_MAX-15, align 16");
    NKT_CHECK(nk_arena_alloc(&a, SIZE_MAX - 63, 1) == NULL, "wraps back to 64 if added");
    NKT_CHECK(nk_arena_used(&a) == 0, "no partial use after failures");
    /* padding alone exceeds what remains */
    nk_arena_init(&a, mem + 1, 10);
    NKT_CHECK(nk_arena_alloc(&a, 0, 16) == NULL, "pad 15 > 10 remaining");
    nk_arena_init(&a, mem + 1, 16);
    NKT_CHECK(nk_arena_alloc(&a, 1, 16) == mem + 16, "pad 15 + 1 fits 16");
    /* an arena right at the top of the address space must not wrap either */
    {
        nk_arena_t hi;
        memset(&hi, 0, sizeof hi);
        hi.base = (uint8_t *)(uintptr_t)(UINTPTR_MAX - 63u); /* ends 32 B below the top */
        hi.capacity = 32;
        NKT_CHECK(nk_arena_alloc(&hi, 33, 1) == NULL, "33 B in the top 32");
        NKT_CHECK(nk_arena_alloc(&hi, SIZE_MAX, 1) == NULL, "SIZE_MAX at the top");
        NKT_CHECK(nk_arena_alloc(&hi, 17, 16) == hi.base, "17 B fit the top 32");
        /* 15 B left: the padding to the next 16 fits, 16 more do not */
        NKT_CHECK(nk_arena_alloc(&hi, 16, 16) == NULL, "would end past UINTPTR_MAX");
    }
}

static void test_mark_rewind_high_water(void) {
    nk_arena_t a;
    size_t m;
    void *p, *q;
    nk_arena_init(&a, mem, sizeof mem);
    p = nk_arena_alloc(&a, 100, 16);
    m = nk_arena_mark(&a);
    NKT_CHECK(m == 100, "mark %zu", m);
    q = nk_arena_alloc(&a, 200, 16);
    NKT_CHECK(q == mem + 112, "second block after padding to 112");
    NKT_CHECK(nk_arena_high_water(&a) == 312, "high water %zu", nk_arena_high_water(&a));
    nk_arena_rewind(&a, m);
    NKT_CHECK(nk_arena_used(&a) == 100, "rewound to 100");
    NKT_CHECK(nk_arena_remaining(&a) == sizeof mem - 100, "remaining");
    NKT_CHECK(nk_arena_high_water(&a) == 312, "high water survives rewind");
    NKT_CHECK(nk_arena_alloc(&a, 16, 16) == q, "space is reused");
    nk_arena_rewind(&a, 5000); /* a mark from the future is ignored */
    NKT_CHECK(nk_arena_used(&a) == 128, "future mark ignored, used %zu", nk_arena_used(&a));
    nk_arena_reset(&a);
    NKT_CHECK(nk_arena_used(&a) == 0 && nk_arena_high_water(&a) == 312, "reset keeps high water");
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) == p, "reset starts over");
}

static void test_zeroed(void) {
    nk_arena_t a;
    uint8_t *p;
    size_t i, nz = 0;
    memset(mem, 0x5A, sizeof mem);
    nk_arena_init(&a, mem, sizeof mem);
    p = (uint8_t *)nk_arena_alloc_zeroed(&a, 77, 8);
    for (i = 0; i < 77; i++) nz += p[i] != 0;
    NKT_CHECK(nz == 0, "%zu non-zero bytes", nz);
    NKT_CHECK(mem[77] == 0x5A, "bytes past the block untouched");
}

static void test_fail_at(void) {
    nk_arena_t a;
    nk_arena_init(&a, mem, sizeof mem);
    nk_arena_alloc(&a, 1, 1);
    nk_arena_fail_at(&a, 3); /* the third allocation from now fails */
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) != NULL, "1st");
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) != NULL, "2nd");
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) == NULL, "3rd fails");
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) != NULL, "4th works again");
    nk_arena_fail_at(&a, 1);
    nk_arena_fail_at(&a, 0);
    NKT_CHECK(nk_arena_alloc(&a, 1, 1) != NULL, "0 disables");
}

static void test_poison(void) {
    nk_arena_t a;
    uint8_t *p;
    size_t i, cd = 0;
    int debug = 0;
#ifdef NETKIT_DEBUG
    debug = NETKIT_DEBUG;
#endif
    memset(mem, 0, sizeof mem);
    nk_arena_init(&a, mem, sizeof mem);
    nk_arena_alloc(&a, 32, 16);
    p = (uint8_t *)nk_arena_alloc(&a, 64, 16);
    memset(p, 0x11, 64);
    nk_arena_rewind(&a, 32);
    for (i = 0; i < 64; i++) cd += p[i] == 0xCD;
    /* The library decides; this test binary sees NETKIT_DEBUG only when
     * the build passes it to both. Either all 64 bytes are poisoned or none. */
    NKT_CHECK(cd == 0 || cd == 64, "poison is all or nothing, got %zu", cd);
    if (debug) NKT_CHECK(cd == 64, "NETKIT_DEBUG build poisons on rewind");
    NKT_CHECK(mem[0] == 0, "bytes below the mark untouched");
    nk_arena_reset(&a);
    if (debug) NKT_CHECK(mem[0] == 0xCD && mem[31] == 0xCD, "reset poisons the used bytes");
}

static void test_heap(void) {
    nk_arena_t a;
    void *p;
    NKT_CHECK(nk_arena_init_heap(&a, 4096) == NK_OK, "heap arena");
    NKT_CHECK(a.heap_owned && nk_arena_capacity(&a) == 4096, "capacity");
    NKT_CHECK(((uintptr_t)a.base & 15u) == 0, "16-byte aligned base");
    p = nk_arena_alloc(&a, 4096, 16);
    NKT_CHECK(p != NULL, "whole capacity usable");
    memset(p, 1, 4096);
    nk_arena_free_heap(&a);
    NKT_CHECK(a.base == NULL && a.capacity == 0, "freed arena is empty");
    NKT_CHECK(nk_arena_init_heap(&a, 0) == NK_OK, "default capacity");
    NKT_CHECK(nk_arena_capacity(&a) == NK_ARENA_DEFAULT_CAPACITY, "64 MiB default");
    nk_arena_free_heap(&a);
    NKT_CHECK(nk_arena_init_heap(&a, SIZE_MAX) != NK_OK, "SIZE_MAX capacity refused");
    nk_arena_free_heap(&a);
}

int main(void) {
    test_zero_struct();
    test_alignment();
    test_overflow();
    test_mark_rewind_high_water();
    test_zeroed();
    test_fail_at();
    test_poison();
    test_heap();
    if (nkt_failures) fprintf(stderr, "arena_test: %d failures\n", nkt_failures);
    return nkt_failures ? 1 : 0;
}

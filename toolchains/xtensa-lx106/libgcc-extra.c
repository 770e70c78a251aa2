/*
 * The 64-bit integer helpers Debian's lx106 libgcc.a lacks, over what it
 * has (__udivmoddi4, __divmoddi4) and GCC's __umulsidi3 (built with the
 * others by libgcc-helpers.cmake). One routine per object: compiled with
 * -DNK_L_<name>. Nothing here may use the operation it implements, or the
 * compiler would call the routine itself.
 */
#include <stdint.h>

typedef union {
    uint64_t all;
    struct {
        uint32_t lo, hi; /* little-endian */
    } w;
} nk_u64_words;

#ifdef NK_L_muldi3
uint64_t __umulsidi3(uint32_t a, uint32_t b);
uint64_t __muldi3(uint64_t a, uint64_t b);

/* Low 64 bits of the product: lo*lo in full, cross terms in the high word
 * (32-bit multiplies, MUL32 on the lx106). Same bits for signed operands. */
uint64_t __muldi3(uint64_t a, uint64_t b) {
    nk_u64_words x = {a}, y = {b}, r;
    r.all = __umulsidi3(x.w.lo, y.w.lo);
    r.w.hi += x.w.hi * y.w.lo + x.w.lo * y.w.hi;
    return r.all;
}
#endif

#ifdef NK_L_udivdi3
uint64_t __udivmoddi4(uint64_t a, uint64_t b, uint64_t *rem);
uint64_t __udivdi3(uint64_t a, uint64_t b);
uint64_t __udivdi3(uint64_t a, uint64_t b) { return __udivmoddi4(a, b, 0); }
#endif

#ifdef NK_L_umoddi3
uint64_t __udivmoddi4(uint64_t a, uint64_t b, uint64_t *rem);
uint64_t __umoddi3(uint64_t a, uint64_t b);
uint64_t __umoddi3(uint64_t a, uint64_t b) {
    uint64_t rem;
    (void)__udivmoddi4(a, b, &rem);
    return rem;
}
#endif

#ifdef NK_L_divdi3
int64_t __divmoddi4(int64_t a, int64_t b, int64_t *rem);
int64_t __divdi3(int64_t a, int64_t b);
int64_t __divdi3(int64_t a, int64_t b) {
    int64_t rem;
    return __divmoddi4(a, b, &rem);
}
#endif

/*
 * Guest side of the nkinsn plugin test: three regions around hand-written
 * loops whose instruction counts are known exactly.
 *   region 0: empty (marker overhead only)
 *   region 1: loop of 10 iterations
 *   region 2: loop of 1000 iterations
 * Every iteration is two instructions (decrement, branch if not zero), so
 * the plugin must report region2 - region1 == 2 * 990, exactly. With
 * funcs=, the functions' counts inside the regions must add up to the
 * regions' total, spin's holding at least the 2 * 1010 loop instructions.
 */
#include "nk_bench_markers.h"

/* Out of line, so the per-function report has it as its own entry. */
__attribute__((noinline)) static void spin(unsigned n) {
#if defined(__thumb__)
    /* GCC hands Thumb-1 inline asm to the assembler in divided syntax. */
    __asm__ volatile(".syntax unified\n1: subs %0, %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
#elif defined(__riscv) || defined(__XTENSA__) /* the same mnemonics */
    __asm__ volatile("1: addi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n));
#elif defined(__aarch64__)
    __asm__ volatile("1: subs %w0, %w0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__arm__)
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
#else
#error "no spin loop for this architecture"
#endif
}

/* Both loop regions run the very same instructions: the markers and the
 * call sit inside one out-of-line function, whatever the caller looks like. */
__attribute__((noinline)) static void measure(unsigned n) {
    nk_bench_start();
    spin(n);
    nk_bench_stop();
}

static volatile unsigned iterations[2] = {10, 1000};

int main(void) {
    nk_bench_start();
    nk_bench_stop();
    measure(iterations[0]);
    measure(iterations[1]);
    return 0;
}

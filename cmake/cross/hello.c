/*
 * Smoke test of a cross target: the C library, stdio over semihosting (or
 * Linux), float maths, arguments and the exit status all reach the host.
 *
 *   hello            prints and exits 0 when 3-4-5 arithmetic checks out
 *   hello exit N     exits with status N (the runner must pass it through)
 *   hello fault      executes an undefined instruction: the board's fault
 *                    handler must end the run with a non-zero status
 *   hello hang       never returns: the runner's timeout must end the run
 *   hello badload    (built with NK_BAD_LOAD_ADDR) loads from that unmapped
 *                    address: the memory-error path must end the run too
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile float hypot_in[2] = {3.0f, 4.0f};

int main(int argc, char **argv) {
    /* picolibc's semihosting crt0 puts a placeholder before the program
     * path; find our arguments after the path, whatever precedes it. */
    int first = 1;
    for (int i = 0; i < argc; i++) {
        if (strstr(argv[i], "hello") != NULL) {
            first = i + 1;
        }
    }
    if (argc - first >= 2 && strcmp(argv[first], "exit") == 0) {
        return atoi(argv[first + 1]);
    }
    if (argc - first >= 1 && strcmp(argv[first], "fault") == 0) {
        printf("executing an undefined instruction\n");
        fflush(stdout);
        __builtin_trap();
        return 0; /* not reached */
    }
#ifdef NK_BAD_LOAD_ADDR
    if (argc - first >= 1 && strcmp(argv[first], "badload") == 0) {
        printf("loading from unmapped address 0x%lx\n", (unsigned long)NK_BAD_LOAD_ADDR);
        fflush(stdout);
        /* through a volatile pointer: gcc rejects a constant small address */
        volatile int *volatile bad = (volatile int *)(unsigned long)NK_BAD_LOAD_ADDR;
        return *bad;
    }
#endif
    if (argc - first >= 1 && strcmp(argv[first], "hang") == 0) {
        for (;;) hypot_in[0] = hypot_in[1];
    }
    float h = sqrtf(hypot_in[0] * hypot_in[0] + hypot_in[1] * hypot_in[1]);
    printf("hello from %s: sqrtf(3*3+4*4) = %g\n", NK_TARGET_NAME, (double)h);
    return h == 5.0f ? 0 : 1;
}

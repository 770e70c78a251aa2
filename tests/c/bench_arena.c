/*
 * bench_arena.c — arena vs malloc/free on one frame of 1000 x 32-byte
 * allocations (a benchmark, not a test).
 *
 *   arena:  nk_arena_alloc x1000, then nk_arena_reset
 *   malloc: malloc x1000, then free x1000
 *
 * Each allocation is written to and its address folded into a checksum that
 * is printed, so neither loop can be optimised away. Reports the best of
 * several rounds, in ns per allocation (the frame's cost / 1000).
 *
 * Usage: bench_arena [frames per round]   (default 20000)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "netkit.h"

#define ALLOCS_PER_FRAME 1000
#define ALLOC_BYTES 32
#define ROUNDS 7

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint8_t arena_mem[ALLOCS_PER_FRAME * ALLOC_BYTES + 64] __attribute__((aligned(16)));
static void *ptrs[ALLOCS_PER_FRAME];

static double arena_round(nk_arena_t *a, long frames, uintptr_t *sum) {
    double t0 = now_ns();
    for (long f = 0; f < frames; f++) {
        for (int i = 0; i < ALLOCS_PER_FRAME; i++) {
            uint8_t *p = nk_arena_alloc(a, ALLOC_BYTES, 16);
            if (!p) abort();
            p[0] = (uint8_t)i;
            *sum += (uintptr_t)p ^ p[0];
        }
        nk_arena_reset(a);
    }
    return (now_ns() - t0) / ((double)frames * ALLOCS_PER_FRAME);
}

static double malloc_round(long frames, uintptr_t *sum) {
    double t0 = now_ns();
    for (long f = 0; f < frames; f++) {
        for (int i = 0; i < ALLOCS_PER_FRAME; i++) {
            uint8_t *p = malloc(ALLOC_BYTES);
            if (!p) abort();
            p[0] = (uint8_t)i;
            *sum += (uintptr_t)p ^ p[0];
            ptrs[i] = p;
        }
        for (int i = 0; i < ALLOCS_PER_FRAME; i++) free(ptrs[i]);
    }
    return (now_ns() - t0) / ((double)frames * ALLOCS_PER_FRAME);
}

int main(int argc, char **argv) {
    long frames = argc > 1 ? atol(argv[1]) : 20000;
    if (frames <= 0) frames = 1;
    nk_arena_t a;
    nk_arena_init(&a, arena_mem, sizeof arena_mem);
    uintptr_t sum = 0;
    double best_arena = 1e30, best_malloc = 1e30;
    /* Interleaved rounds, so drift in clock speed hits both sides alike. */
    for (int r = 0; r < ROUNDS; r++) {
        double ta = arena_round(&a, frames, &sum);
        double tm = malloc_round(frames, &sum);
        if (ta < best_arena) best_arena = ta;
        if (tm < best_malloc) best_malloc = tm;
    }
    printf("frame: %d x %d B allocations, %ld frames x %d rounds (best round)\n",
           ALLOCS_PER_FRAME, ALLOC_BYTES, frames, ROUNDS);
    printf("arena  (alloc x%d + reset):       %.2f ns/alloc\n", ALLOCS_PER_FRAME, best_arena);
    printf("malloc (malloc x%d + free x%d): %.2f ns/alloc\n", ALLOCS_PER_FRAME, ALLOCS_PER_FRAME,
           best_malloc);
    printf("ratio malloc/arena: %.1fx   (checksum %lx)\n", best_malloc / best_arena,
           (unsigned long)sum);
    return 0;
}

/*
 * Instruction-count benchmark of one embedded model on a cross target, for
 * the nkinsn QEMU plugin (tools/qemu-plugin): region 0 is empty (marker
 * overhead), regions 1..NK_BENCH_RUNS are one nk_model_invoke each.
 * Prints the arena bytes the model took and the image size.
 */
#include <stdio.h>

#include "netkit.h"
#include "npy.h"
#include "../../tools/qemu-plugin/nk_bench_markers.h"

extern const unsigned char nk_model_image[];
extern const size_t nk_model_image_len;
extern const unsigned char nk_input_npy[];
extern const size_t nk_input_npy_len;

#ifndef NK_BENCH_ARENA_BYTES
#define NK_BENCH_ARENA_BYTES (1024u * 1024u)
#endif
#ifndef NK_BENCH_RUNS
#define NK_BENCH_RUNS 3
#endif

static unsigned char arena_mem[NK_BENCH_ARENA_BYTES] __attribute__((aligned(16)));

int main(void) {
    nk_arena_t arena;
    nk_model_t *model = NULL;
    nk_error_t err;
    nk_npy in;
    nk_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (nk_model_load_buffer(&model, nk_model_image, nk_model_image_len, &arena, &err) != NK_OK) {
        printf("bench: load failed: %s\n", err.message);
        return 1;
    }
    nk_tensor_t x;
    if (nk_model_input(model, 0, &x) != NK_OK || x.dtype != NK_F32) {
        printf("bench: model needs an f32 input\n");
        return 1;
    }
    size_t n = (size_t)(x.bytes / 4);
    if (nk_npy_parse(nk_input_npy, nk_input_npy_len, &in) != 0 || in.count < n) {
        printf("bench: the input .npy holds fewer than %lu floats\n", (unsigned long)n);
        return 1;
    }
    nk_bench_start();
    nk_bench_stop();
    for (int r = 0; r < NK_BENCH_RUNS; r++) {
        /* The first real sample, refilled each run: invoke may overwrite
         * its input (in-place ops). */
        float *xd = (float *)x.data;
        for (size_t i = 0; i < n; i++) xd[i] = nk_npy_f32(&in, i);
        nk_bench_start();
        nk_status s = nk_model_invoke(model, &err);
        nk_bench_stop();
        if (s != NK_OK) {
            printf("bench: invoke failed: %s\n", err.message);
            return 1;
        }
    }
    printf("nkbench arena_bytes %lu\n", (unsigned long)nk_arena_used(&arena));
    printf("nkbench model_bytes %lu\n", (unsigned long)nk_model_image_len);
    return 0;
}

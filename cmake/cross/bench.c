/*
 * Instruction-count benchmark of one embedded model on a cross target, for
 * the nkinsn QEMU plugin (tools/qemu-plugin): region 0 is empty (marker
 * overhead), regions 1..NK_BENCH_RUNS are one nk_model_invoke each.
 * Prints the arena bytes the model took and the image size.
 */
#include <stdio.h>

#include "netkit.h"
#include "npy.h"
#include "vectors.h"
#include "../../tools/qemu-plugin/nk_bench_markers.h"

extern const unsigned char nk_model_image[];
extern const size_t nk_model_image_len;

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
    nk_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (nk_model_load_buffer(&model, nk_model_image, nk_model_image_len, &arena, &err) != NK_OK) {
        printf("bench: load failed: %s\n", err.message);
        return 1;
    }
    int n_in = nk_model_num_inputs(model);
    nk_tensor_t x[NK_VEC_MAX];
    nk_npy in[NK_VEC_MAX];
    if (n_in > nk_vec_count(nk_vec_in)) {
        printf("bench: the model has %d inputs, %d input vectors\n", n_in, nk_vec_count(nk_vec_in));
        return 1;
    }
    for (int i = 0; i < n_in; i++) {
        if (nk_model_input(model, i, &x[i]) != NK_OK || x[i].dtype != NK_F32 ||
            nk_npy_parse(nk_vec_in[i].img, *nk_vec_in[i].len, &in[i]) != 0 || in[i].count < x[i].bytes / 4) {
            printf("bench: input %d needs f32 values\n", i);
            return 1;
        }
    }
    nk_bench_start();
    nk_bench_stop();
    for (int r = 0; r < NK_BENCH_RUNS; r++) {
        /* The first real sample, refilled each run: invoke may overwrite
         * its inputs (in-place ops). */
        for (int i = 0; i < n_in; i++) {
            float *xd = (float *)x[i].data;
            for (size_t e = 0; e < (size_t)(x[i].bytes / 4); e++) xd[e] = nk_npy_f32(&in[i], e);
        }
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

/*
 * End-to-end int8 test and benchmark on a cross target: an int8 model
 * converted from TFLite (scripts/int8-cross.sh) is embedded in flash with
 * raw int8 inputs (samples back to back) and TensorFlow Lite Micro's
 * outputs for them; it loads out of a static arena, runs every sample and
 * compares the output bytes exactly.
 *
 * Each invoke is a region for the nkinsn QEMU plugin (region 0 is empty:
 * the marker overhead), so the same program gives instructions per
 * inference under tools/qemu-plugin/insn-run.sh.
 */
#include <stdio.h>
#include <string.h>

#include "netkit.h"
#include "../../tools/qemu-plugin/nk_bench_markers.h"

extern const unsigned char nk_model_image[];
extern const size_t nk_model_image_len;
extern const unsigned char nk_input_raw[];
extern const size_t nk_input_raw_len;
extern const unsigned char nk_expected_raw[];
extern const size_t nk_expected_raw_len;

#ifndef NK_TEST_ARENA_BYTES
#define NK_TEST_ARENA_BYTES (512u * 1024u)
#endif

static unsigned char arena_mem[NK_TEST_ARENA_BYTES] __attribute__((aligned(16)));

int main(void) {
    nk_arena_t arena;
    nk_model_t *model = NULL;
    nk_error_t err;
    nk_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (nk_model_load_buffer(&model, nk_model_image, nk_model_image_len, &arena, &err) != NK_OK) {
        printf("FAIL: load: %s\n", err.message);
        return 1;
    }
    nk_tensor_t x, y;
    if (nk_model_input(model, 0, &x) != NK_OK || nk_model_output(model, 0, &y) != NK_OK ||
        x.dtype != NK_I8 || y.dtype != NK_I8) {
        printf("FAIL: model needs one i8 input and output\n");
        return 1;
    }
    size_t xb = (size_t)x.bytes, yb = (size_t)y.bytes;
    size_t samples = xb ? nk_input_raw_len / xb : 0;
    if (samples == 0 || samples * xb != nk_input_raw_len || samples * yb != nk_expected_raw_len) {
        printf("FAIL: %lu input / %lu expected bytes do not fit %lu-in %lu-out samples\n",
               (unsigned long)nk_input_raw_len, (unsigned long)nk_expected_raw_len, (unsigned long)xb,
               (unsigned long)yb);
        return 1;
    }
    nk_bench_start();
    nk_bench_stop();
    unsigned long bad = 0;
    for (size_t s = 0; s < samples; s++) {
        memcpy(x.data, nk_input_raw + s * xb, xb);
        nk_bench_start();
        nk_status st = nk_model_invoke(model, &err);
        nk_bench_stop();
        if (st != NK_OK) {
            printf("FAIL: invoke of sample %lu: %s\n", (unsigned long)s, err.message);
            return 1;
        }
        const signed char *got = (const signed char *)y.data;
        const signed char *want = (const signed char *)(nk_expected_raw + s * yb);
        for (size_t i = 0; i < yb; i++) {
            if (got[i] != want[i]) {
                if (bad < 5)
                    printf("mismatch: sample %lu output %lu: got %d want %d\n", (unsigned long)s,
                           (unsigned long)i, got[i], want[i]);
                bad++;
            }
        }
    }
    printf("%lu samples x %lu int8 outputs, %lu differ from TFLite Micro\n", (unsigned long)samples,
           (unsigned long)yb, bad);
    printf("nkbench arena_bytes %lu\n", (unsigned long)nk_arena_used(&arena));
    printf("nkbench model_bytes %lu\n", (unsigned long)nk_model_image_len);
    if (bad) {
        printf("FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}

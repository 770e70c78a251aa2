/*
 * End-to-end test on a cross target: loads a model embedded as a const
 * array (flash), out of a static arena, runs every sample of an embedded
 * input .npy and compares the outputs with the host reference .npy
 * (PyTorch's outputs, from testdata/models).
 *
 * Pass: |got - want| <= NK_TEST_TOL * max(1, |want|) for every value. Prints
 * the worst absolute and relative errors and the arena it used.
 */
#include <math.h>
#include <stdio.h>

#include "netkit.h"
#include "npy.h"

extern const unsigned char nk_model_image[];
extern const size_t nk_model_image_len;
extern const unsigned char nk_input_npy[];
extern const size_t nk_input_npy_len;
extern const unsigned char nk_expected_npy[];
extern const size_t nk_expected_npy_len;

#ifndef NK_TEST_ARENA_BYTES
#define NK_TEST_ARENA_BYTES (1024u * 1024u)
#endif
#ifndef NK_TEST_TOL
#define NK_TEST_TOL 1e-5
#endif

static unsigned char arena_mem[NK_TEST_ARENA_BYTES] __attribute__((aligned(16)));

int main(void) {
    nk_npy in, want;
    if (nk_npy_parse(nk_input_npy, nk_input_npy_len, &in) != 0 ||
        nk_npy_parse(nk_expected_npy, nk_expected_npy_len, &want) != 0) {
        printf("FAIL: embedded test vectors are not f32 .npy images\n");
        return 1;
    }

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
        x.dtype != NK_F32 || y.dtype != NK_F32) {
        printf("FAIL: model needs one f32 input and output\n");
        return 1;
    }
    size_t x_elems = (size_t)(x.bytes / 4), y_elems = (size_t)(y.bytes / 4);
    size_t samples = x_elems ? in.count / x_elems : 0;
    if (samples == 0 || samples * x_elems != in.count || samples * y_elems != want.count) {
        printf("FAIL: %lu input / %lu expected values do not fit %lu-in %lu-out samples\n",
               (unsigned long)in.count, (unsigned long)want.count, (unsigned long)x_elems,
               (unsigned long)y_elems);
        return 1;
    }

    double worst_abs = 0, worst_rel = 0;
    unsigned long bad = 0;
    for (size_t s = 0; s < samples; s++) {
        float *xd = (float *)x.data;
        for (size_t i = 0; i < x_elems; i++) xd[i] = nk_npy_f32(&in, s * x_elems + i);
        if (nk_model_invoke(model, &err) != NK_OK) {
            printf("FAIL: invoke of sample %lu: %s\n", (unsigned long)s, err.message);
            return 1;
        }
        const float *yd = (const float *)y.data;
        for (size_t i = 0; i < y_elems; i++) {
            double w = nk_npy_f32(&want, s * y_elems + i);
            double d = fabs((double)yd[i] - w);
            double scale = fabs(w) > 1.0 ? fabs(w) : 1.0;
            if (d > worst_abs) worst_abs = d;
            if (d / scale > worst_rel) worst_rel = d / scale;
            if (!(d <= NK_TEST_TOL * scale)) {
                if (bad < 5)
                    printf("mismatch: sample %lu output %lu: got %.9g want %.9g\n", (unsigned long)s,
                           (unsigned long)i, (double)yd[i], w);
                bad++;
            }
        }
    }
    printf("%lu samples x %lu outputs: worst abs error %.3g, worst scaled error %.3g (tolerance %g)\n",
           (unsigned long)samples, (unsigned long)y_elems, worst_abs, worst_rel, NK_TEST_TOL);
    printf("arena used %lu of %lu B, model image %lu B (in flash)\n",
           (unsigned long)nk_arena_used(&arena), (unsigned long)sizeof arena_mem,
           (unsigned long)nk_model_image_len);
    if (bad) {
        printf("FAIL: %lu values out of tolerance\n", bad);
        return 1;
    }
    printf("PASS\n");
    return 0;
}

/*
 * End-to-end test on a cross target: loads a model embedded as a const
 * array (flash), out of a static arena, runs every sample of the embedded
 * input .npy files (one per graph input) and compares every graph output
 * with the host reference .npy (PyTorch's outputs, from testdata/models).
 *
 * Pass: |got - want| <= NK_TEST_TOL * max(1, |want|) for every value. Prints
 * the worst absolute and scaled errors and the arena it used.
 */
#include <math.h>
#include <stdio.h>

#include "netkit.h"
#include "npy.h"
#include "vectors.h"

extern const unsigned char nk_model_image[];
extern const size_t nk_model_image_len;

#ifndef NK_TEST_ARENA_BYTES
#define NK_TEST_ARENA_BYTES (1024u * 1024u)
#endif
#ifndef NK_TEST_TOL
#define NK_TEST_TOL 1e-5
#endif

static unsigned char arena_mem[NK_TEST_ARENA_BYTES] __attribute__((aligned(16)));

/* An empty tensor's .npy holds no values for any number of samples. */
#define NK_ANY_SAMPLES ((size_t)-1)

/* Checks one f32 .npy against an f32 tensor of the model; returns the
 * number of samples it holds, 0 when it does not fit. */
static size_t samples_of(const nk_npy *a, const nk_tensor_t *t, const char *what, int k) {
    size_t elems = (size_t)(t->bytes / 4);
    size_t n = (t->dtype == NK_F32 && elems) ? a->count / elems : 0;
    if (t->dtype == NK_F32 && elems == 0 && a->count == 0)
        return NK_ANY_SAMPLES;
    if (n == 0 || n * elems != a->count) {
        printf("FAIL: %s %d: %lu values do not fit a %lu-value f32 tensor\n", what, k,
               (unsigned long)a->count, (unsigned long)elems);
        return 0;
    }
    return n;
}

int main(void) {
    nk_arena_t arena;
    nk_model_t *model = NULL;
    nk_error_t err;
    nk_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (nk_model_load_buffer(&model, nk_model_image, nk_model_image_len, &arena, &err) != NK_OK) {
        printf("FAIL: load: %s\n", err.message);
        return 1;
    }
    int n_in = nk_model_num_inputs(model), n_out = nk_model_num_outputs(model);
    if (n_in != nk_vec_count(nk_vec_in) || n_out != nk_vec_count(nk_vec_out)) {
        printf("FAIL: model has %d inputs and %d outputs, test vectors %d and %d\n", n_in, n_out,
               nk_vec_count(nk_vec_in), nk_vec_count(nk_vec_out));
        return 1;
    }
    nk_npy in[NK_VEC_MAX], want[NK_VEC_MAX];
    nk_tensor_t x[NK_VEC_MAX], y[NK_VEC_MAX];
    size_t samples = 0;
    for (int k = 0; k < n_in + n_out; k++) {
        int is_in = k < n_in, i = is_in ? k : k - n_in;
        const nk_vec *v = is_in ? &nk_vec_in[i] : &nk_vec_out[i];
        nk_npy *a = is_in ? &in[i] : &want[i];
        nk_tensor_t *t = is_in ? &x[i] : &y[i];
        if (nk_npy_parse(v->img, *v->len, a) != 0) {
            printf("FAIL: %s %d is not an f32 .npy image\n", is_in ? "input" : "output", i);
            return 1;
        }
        if ((is_in ? nk_model_input(model, i, t) : nk_model_output(model, i, t)) != NK_OK) return 1;
        size_t n = samples_of(a, t, is_in ? "input" : "output", i);
        if (n == 0 || (samples != 0 && n != NK_ANY_SAMPLES && n != samples)) {
            printf("FAIL: the test vectors disagree on the number of samples\n");
            return 1;
        }
        if (n != NK_ANY_SAMPLES)
            samples = n;
    }

    double worst_abs = 0, worst_rel = 0;
    unsigned long bad = 0, values = 0;
    for (size_t s = 0; s < samples; s++) {
        for (int i = 0; i < n_in; i++) {
            size_t n = (size_t)(x[i].bytes / 4);
            float *xd = (float *)x[i].data;
            for (size_t e = 0; e < n; e++) xd[e] = nk_npy_f32(&in[i], s * n + e);
        }
        if (nk_model_invoke(model, &err) != NK_OK) {
            printf("FAIL: invoke of sample %lu: %s\n", (unsigned long)s, err.message);
            return 1;
        }
        for (int o = 0; o < n_out; o++) {
            size_t n = (size_t)(y[o].bytes / 4);
            const float *yd = (const float *)y[o].data;
            for (size_t e = 0; e < n; e++) {
                double w = nk_npy_f32(&want[o], s * n + e);
                double d = fabs((double)yd[e] - w);
                double scale = fabs(w) > 1.0 ? fabs(w) : 1.0;
                if (d > worst_abs) worst_abs = d;
                if (d / scale > worst_rel) worst_rel = d / scale;
                values++;
                if (!(d <= NK_TEST_TOL * scale)) {
                    if (bad < 5)
                        printf("mismatch: sample %lu output %d value %lu: got %.9g want %.9g\n",
                               (unsigned long)s, o, (unsigned long)e, (double)yd[e], w);
                    bad++;
                }
            }
        }
    }
    printf("%lu samples, %lu output values: worst abs error %.3g, worst scaled error %.3g (tolerance %g)\n",
           (unsigned long)samples, values, worst_abs, worst_rel, NK_TEST_TOL);
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

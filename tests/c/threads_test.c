/*
 * threads_test.c — one loaded model, four threads, each with its own
 * context from its own arena, running cnn.nk concurrently; every output
 * must equal PyTorch's. The model is read-only at inference time, so
 * nothing here needs a lock (run it under -fsanitize=thread to check).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../cmake/cross/npy.h"
#include "testutil.h"

#define THREADS 4
#define ROUNDS 50

static nk_model_t *model;
static nk_npy input, expected;
static size_t in_n, out_n, samples;

typedef struct worker {
    nk_arena_t arena;
    nk_context_t *ctx;
    int failures;
} worker;

static void *run(void *arg) {
    worker *w = (worker *)arg;
    float out[64];
    size_t r, s, i;
    for (r = 0; r < ROUNDS; r++) {
        s = r % samples;
        {
            const void *ins[1] = {input.data + s * in_n * 4u};
            size_t in_b[1] = {in_n * 4u};
            void *outs[1] = {out};
            size_t out_b[1] = {out_n * 4u};
            nk_error_t err;
            if (nk_context_run(w->ctx, ins, in_b, outs, out_b, &err) != NK_OK) {
                w->failures++;
                continue;
            }
        }
        for (i = 0; i < out_n; i++) {
            float want = nk_npy_f32(&expected, s * out_n + i), d = out[i] - want;
            if (d > 1e-5f || d < -1e-5f) w->failures++;
        }
    }
    return NULL;
}

int main(void) {
    size_t len, in_len, ex_len;
    uint8_t *img = nkt_read_file(NK_MODELS_DIR "/cnn.nk", &len);
    uint8_t *in_bytes = nkt_read_file(NK_MODELS_DIR "/cnn.input.npy", &in_len);
    uint8_t *ex_bytes = nkt_read_file(NK_MODELS_DIR "/cnn.expected.npy", &ex_len);
    nk_arena_t arena;
    nk_error_t err;
    nk_tensor_t ti, to;
    worker w[THREADS];
    pthread_t tid[THREADS];
    int i;

    if (!img || !in_bytes || !ex_bytes || nk_npy_parse(in_bytes, in_len, &input) ||
        nk_npy_parse(ex_bytes, ex_len, &expected)) {
        fprintf(stderr, "cannot read cnn test files\n");
        return 1;
    }
    nk_arena_init_heap(&arena, 1u << 20);
    NKT_CHECK(nk_model_load_buffer(&model, img, len, &arena, &err) == NK_OK, "%s", err.message);
    nk_model_input(model, 0, &ti);
    nk_model_output(model, 0, &to);
    in_n = (size_t)ti.bytes / 4u;
    out_n = (size_t)to.bytes / 4u;
    samples = (size_t)input.shape[0];
    NKT_CHECK(out_n <= 64 && input.count == samples * in_n, "shapes");
    for (i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        nk_arena_init_heap(&w[i].arena, nk_context_size(model));
        NKT_CHECK(nk_context_create(&w[i].ctx, model, &w[i].arena, &err) == NK_OK,
                  "a context in exactly nk_context_size bytes: %s", err.message);
    }
    for (i = 0; i < THREADS; i++) pthread_create(&tid[i], NULL, run, &w[i]);
    for (i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        NKT_CHECK(w[i].failures == 0, "thread %d: %d wrong values", i, w[i].failures);
        nk_arena_free_heap(&w[i].arena);
    }
    nk_arena_free_heap(&arena);
    free(img);
    free(in_bytes);
    free(ex_bytes);
    if (nkt_failures) fprintf(stderr, "threads_test: %d failures\n", nkt_failures);
    return nkt_failures ? 1 : 0;
}

/*
 * threads_test.c — two loaded models (cnn.nk, float; micro speech, int8),
 * four threads, each with its own context of each from its own arena,
 * running both concurrently. Every cnn output must equal PyTorch's; every
 * int8 output must equal the bytes the model's default context gave for
 * the same input on the main thread before the threads started. The
 * models are read-only at inference time, so nothing here needs a lock:
 * scripts/test.sh also runs this under ThreadSanitizer (build/tsan), and
 * with the XNNPACK backend (build/tsan-xnnpack), whose operators bind
 * pointers and take a lock per op (vendor_kernels/xnnpack).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../cmake/cross/npy.h"
#include "testutil.h"

#define THREADS 4
#define ROUNDS 50
#define I8_SAMPLES 3
#define I8_MAX_BYTES 4096

static nk_model_t *model, *model_i8;
static nk_npy input, expected;
static size_t in_n, out_n, samples;
static size_t i8_in_bytes, i8_out_bytes;
static int8_t i8_input[I8_SAMPLES][I8_MAX_BYTES], i8_expected[I8_SAMPLES][I8_MAX_BYTES];
static uint8_t *img_i8; /* outlives model_i8 */

typedef struct worker {
    nk_arena_t arena, arena_i8;
    nk_context_t *ctx, *ctx_i8;
    int failures;
} worker;

static void *run(void *arg) {
    worker *w = (worker *)arg;
    float out[64];
    int8_t out_i8[I8_MAX_BYTES];
    size_t r, s, i;
    nk_error_t err;
    for (r = 0; r < ROUNDS; r++) {
        s = r % samples;
        {
            const void *ins[1] = {input.data + s * in_n * 4u};
            size_t in_b[1] = {in_n * 4u};
            void *outs[1] = {out};
            size_t out_b[1] = {out_n * 4u};
            if (nk_context_run(w->ctx, ins, in_b, outs, out_b, &err) != NK_OK) {
                w->failures++;
                continue;
            }
        }
        for (i = 0; i < out_n; i++) {
            float want = nk_npy_f32(&expected, s * out_n + i), d = out[i] - want;
            if (d > 1e-5f || d < -1e-5f) w->failures++;
        }
        s = r % I8_SAMPLES;
        {
            const void *ins[1] = {i8_input[s]};
            void *outs[1] = {out_i8};
            if (nk_context_run(w->ctx_i8, ins, &i8_in_bytes, outs, &i8_out_bytes, &err) != NK_OK ||
                memcmp(out_i8, i8_expected[s], i8_out_bytes) != 0)
                w->failures++;
        }
    }
    return NULL;
}

/* Loads the int8 model and records its default context's outputs for
 * I8_SAMPLES seeded inputs, single-threaded. */
static int setup_i8(nk_arena_t *arena) {
    size_t len;
    nk_error_t err;
    nk_tensor_t ti, to;
    nkt_rng rng = {7};
    int s;
    size_t k;
    img_i8 = nkt_read_file(NK_MODELS_I8_DIR "/tflm_micro_speech_quantized.nk", &len);
    if (!img_i8) {
        fprintf(stderr, "cannot read the int8 micro speech model\n");
        return 1;
    }
    nk_arena_init_heap(arena, 1u << 20);
    if (nk_model_load_buffer(&model_i8, img_i8, len, arena, &err) != NK_OK) {
        fprintf(stderr, "int8 model: %s\n", err.message);
        return 1;
    }
    nk_model_input(model_i8, 0, &ti);
    nk_model_output(model_i8, 0, &to);
    i8_in_bytes = (size_t)ti.bytes;
    i8_out_bytes = (size_t)to.bytes;
    NKT_CHECK(ti.dtype == NK_I8 && to.dtype == NK_I8 && i8_in_bytes <= I8_MAX_BYTES &&
                  i8_out_bytes <= I8_MAX_BYTES,
              "int8 model io: %d %d, %zu and %zu B", (int)ti.dtype, (int)to.dtype, i8_in_bytes,
              i8_out_bytes);
    if (nkt_failures) return 1;
    for (s = 0; s < I8_SAMPLES; s++) {
        for (k = 0; k < i8_in_bytes; k++) i8_input[s][k] = (int8_t)nkt_rand(&rng);
        NKT_CHECK(nk_model_run(model_i8, i8_input[s], i8_in_bytes, i8_expected[s], i8_out_bytes,
                               &err) == NK_OK,
                  "int8 reference run: %s", err.message);
    }
    /* the reference differs between inputs, so equal outputs mean something */
    NKT_CHECK(memcmp(i8_expected[0], i8_expected[1], i8_out_bytes) != 0 ||
                  memcmp(i8_expected[0], i8_expected[2], i8_out_bytes) != 0,
              "int8 outputs do not depend on the input");
    return nkt_failures != 0;
}

int main(void) {
    size_t len, in_len, ex_len;
    uint8_t *img = nkt_read_file(NK_MODELS_DIR "/cnn.nk", &len);
    uint8_t *in_bytes = nkt_read_file(NK_MODELS_DIR "/cnn.input.npy", &in_len);
    uint8_t *ex_bytes = nkt_read_file(NK_MODELS_DIR "/cnn.expected.npy", &ex_len);
    nk_arena_t arena, arena_i8;
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
    if (setup_i8(&arena_i8)) return 1;
#if defined(NETKIT_BACKEND) && NETKIT_BACKEND
    {
        /* the backend must run some of cnn's ops, or this proves nothing about it */
        nk_op_info_t rows[16];
        nk_report_t rep;
        int32_t k, on_backend = 0;
        NKT_CHECK(nk_model_report(model, &rep, rows, 16) == NK_OK, "report");
        for (k = 0; k < rep.num_ops && k < 16; k++) on_backend += strcmp(rows[k].impl, "portable") != 0;
        NKT_CHECK(on_backend > 0, "no op of cnn.nk runs on the backend");
        fprintf(stderr, "threads_test: %d of %d cnn ops on the backend\n", (int)on_backend, (int)rep.num_ops);
    }
#endif
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
        nk_arena_init_heap(&w[i].arena_i8, nk_context_size(model_i8));
        NKT_CHECK(nk_context_create(&w[i].ctx_i8, model_i8, &w[i].arena_i8, &err) == NK_OK,
                  "an int8 context in exactly nk_context_size bytes: %s", err.message);
    }
    if (nkt_failures) return 1;
    for (i = 0; i < THREADS; i++) pthread_create(&tid[i], NULL, run, &w[i]);
    for (i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        NKT_CHECK(w[i].failures == 0, "thread %d: %d wrong values", i, w[i].failures);
        nk_arena_free_heap(&w[i].arena);
        nk_arena_free_heap(&w[i].arena_i8);
    }
    nk_arena_free_heap(&arena);
    nk_arena_free_heap(&arena_i8);
    free(img);
    free(img_i8);
    free(in_bytes);
    free(ex_bytes);
    if (nkt_failures) {
        fprintf(stderr, "threads_test: %d failures\n", nkt_failures);
        return 1;
    }
    printf("threads_test: %d threads x %d rounds of cnn (f32) and micro speech (int8, %zu -> %zu "
           "B) OK\n", THREADS, ROUNDS, i8_in_bytes, i8_out_bytes);
    return 0;
}

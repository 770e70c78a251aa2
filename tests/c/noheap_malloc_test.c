/*
 * noheap_malloc_test.c — loading and running a model calls no heap
 * allocator.
 *
 * The binary is linked against the static libnetkit with
 * -Wl,--wrap=malloc (and calloc, realloc, free, aligned_alloc,
 * posix_memalign), so every call to those from the core's object files, or
 * from this file, lands in a __wrap_ function here that counts it while
 * counting is on. Two positive controls prove the wrapping reaches both
 * this file and the library (else a zero count would prove nothing): a
 * direct malloc, and nk_arena_init_heap, whose one backing-store
 * allocation is the core's only permitted heap use.
 *
 * The arena is a static buffer: the no-heap configuration. Counted: load,
 * input/output views, invoke, a second context (create, invoke, run),
 * nk_model_run and unload. A vendor backend (NETKIT_BACKEND: XNNPACK)
 * keeps its operators on the host heap by design (inspect counts them as
 * backend_heap_bytes): its load and unload may call the heap, invoke and
 * further contexts still may not.
 *
 * Usage: noheap_malloc_test <model.nk | dir>...
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t align, size_t n);
int __wrap_posix_memalign(void **p, size_t align, size_t n);

static int counting;
static unsigned long heap_calls;

void *__wrap_malloc(size_t n) {
    heap_calls += counting;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n) {
    heap_calls += counting;
    return __real_calloc(k, n);
}
void *__wrap_realloc(void *p, size_t n) {
    heap_calls += counting;
    return __real_realloc(p, n);
}
void __wrap_free(void *p) {
    heap_calls += counting;
    __real_free(p);
}
void *__wrap_aligned_alloc(size_t align, size_t n) {
    heap_calls += counting;
    return __real_aligned_alloc(align, n);
}
int __wrap_posix_memalign(void **p, size_t align, size_t n) {
    heap_calls += counting;
    return __real_posix_memalign(p, align, n);
}

static void count_on(void) {
    heap_calls = 0;
    counting = 1;
}
static unsigned long count_off(void) {
    counting = 0;
    return heap_calls;
}

/* The no-heap configuration: the arena is static storage. */
#define ARENA_BYTES (8u * 1024u * 1024u)
static uint8_t arena_mem[ARENA_BYTES] __attribute__((aligned(16)));

/* Both controls must see calls, or the wrapping is not in effect. */
static void positive_controls(void) {
    /* Through a volatile pointer so the compiler cannot elide the pair. */
    void *(*volatile do_malloc)(size_t) = malloc;
    void (*volatile do_free)(void *) = free;
    count_on();
    do_free(do_malloc(32));
    unsigned long direct = count_off();
    NKT_CHECK(direct == 2, "a direct malloc/free pair counted %lu calls, want 2", direct);

#if !defined(NETKIT_MCU) || defined(NETKIT_ARENA_HEAP)
    nk_arena_t heap;
    count_on();
    nk_status s = nk_arena_init_heap(&heap, 4096);
    if (s == NK_OK) nk_arena_free_heap(&heap);
    unsigned long lib = count_off();
    NKT_CHECK(s == NK_OK && lib >= 2,
              "nk_arena_init_heap + free_heap counted %lu heap calls: the wrap does not reach "
              "libnetkit's objects (link it statically)", lib);
#endif
}

static void run_model(const char *path) {
    const char *name = nkt_basename(path);
    size_t len = 0;
    uint8_t *img = nkt_read_file(path, &len);
    NKT_CHECK(img != NULL, "cannot read %s", path);
    if (!img) return;

    nk_arena_t arena;
    nk_model_t *m = NULL;
    nk_error_t err;
    memset(&err, 0, sizeof err);
    nk_arena_init(&arena, arena_mem, sizeof arena_mem);

    count_on();
    nk_status s = nk_model_load_buffer(&m, img, len, &arena, &err);
    unsigned long load_calls = count_off();
    NKT_CHECK(s == NK_OK, "%s: load into a %u B static arena: %s", name, ARENA_BYTES, err.message);
#if !NETKIT_BACKEND
    NKT_CHECK(load_calls == 0, "%s: nk_model_load_buffer made %lu heap calls", name, load_calls);
#endif
    if (s == NK_OK) {
        /* The filler is test code; the view calls it makes are counted
         * again inside the window below. */
        nkt_rng rng = {7};
        nkt_fill_inputs(m, &rng);
        count_on();
        nk_tensor_t in, out;
        nk_status si = nk_model_input(m, 0, &in);
        s = nk_model_invoke(m, &err);
        nk_status so = nk_model_output(m, 0, &out);
        nk_status s2 = nk_model_invoke(m, &err);
        unsigned long run_calls = count_off();
        NKT_CHECK(si == NK_OK && so == NK_OK, "%s: input/output views failed", name);
        NKT_CHECK(s == NK_OK && s2 == NK_OK, "%s: invoke: %s", name, err.message);
        NKT_CHECK(run_calls == 0, "%s: input/invoke/output made %lu heap calls", name, run_calls);

        /* A second context from the same static arena, run both ways; and
         * the one-call nk_model_run on single-input, single-output models. */
        unsigned long ctx_calls = 0;
        if (si == NK_OK && so == NK_OK) {
            int32_t n_in = nk_model_num_inputs(m), n_out = nk_model_num_outputs(m);
            const void *ins[16];
            size_t in_bytes[16], out_bytes[16];
            void *outs[16];
            for (int32_t i = 0; i < n_in && i < 16; i++) {
                nk_tensor_t t;
                nk_model_input(m, i, &t);
                ins[i] = t.data;
                in_bytes[i] = (size_t)t.bytes;
            }
            uint8_t *out_buf = malloc((size_t)out.bytes + 1);
            for (int32_t i = 0; i < n_out && i < 16; i++) {
                nk_tensor_t t;
                nk_model_output(m, i, &t);
                outs[i] = malloc((size_t)t.bytes + 1);
                out_bytes[i] = (size_t)t.bytes;
            }
            count_on();
            nk_context_t *c = NULL;
            nk_status sc = nk_context_create(&c, m, &arena, &err);
            nk_status sr = sc == NK_OK ? nk_context_invoke(c, &err) : sc;
            nk_status sr2 = sc == NK_OK ? nk_context_run(c, ins, in_bytes, outs, out_bytes, &err) : sc;
            nk_status sm = NK_OK;
            if (n_in == 1 && n_out == 1)
                sm = nk_model_run(m, ins[0], in_bytes[0], out_buf, (size_t)out.bytes, &err);
            ctx_calls = count_off();
            NKT_CHECK(sc == NK_OK && sr == NK_OK && sr2 == NK_OK && sm == NK_OK,
                      "%s: context create/invoke/run or model run: %s", name, err.message);
            NKT_CHECK(ctx_calls == 0, "%s: a second context and runs made %lu heap calls", name,
                      ctx_calls);
            for (int32_t i = 0; i < n_out && i < 16; i++) free(outs[i]);
            free(out_buf);
        }
        printf("%s: heap calls: load %lu, invoke x2 %lu, context + runs %lu (arena used %zu B)\n",
               name, load_calls, run_calls, ctx_calls, nk_arena_used(&arena));
        count_on();
        nk_model_unload(m);
        unsigned long unload_calls = count_off();
    #if !NETKIT_BACKEND
    NKT_CHECK(unload_calls == 0, "%s: unload made %lu heap calls", name, unload_calls);
#else
    (void)unload_calls;
#endif
    }
    free(img);
}

int main(int argc, char **argv) {
    positive_controls();
    char **paths;
    int n = nkt_collect_models(argc, argv, &paths);
    if (n == 0) {
        fprintf(stderr, "noheap_malloc_test: no .nk models found; skipping\n");
        return nkt_failures ? 1 : NKT_SKIP;
    }
    for (int i = 0; i < n; i++) run_model(paths[i]);
    nkt_free_models(paths, n);
    if (nkt_failures) {
        fprintf(stderr, "noheap_malloc_test: %d failed checks\n", nkt_failures);
        return 1;
    }
    printf("noheap_malloc_test: %d models, no heap calls during load and invoke\n", n);
    return 0;
}

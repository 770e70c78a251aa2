/*
 * exhaust_test.c — the arena-size contract of nk_inspect_model, checked
 * from the outside: for each model, loading into every arena size below the
 * reported size fails with NK_ERR_ARENA_OVERFLOW and figures that add up;
 * the reported size itself loads and runs without growing the arena. The
 * same for a second context and nk_context_size. Then nk_arena_fail_at
 * makes each allocation of a load fail in turn.
 *
 * Each arena is an exact-size heap block, so a write past its end is an
 * ASan report.
 *
 * Usage: exhaust_test <model.nk | dir>...
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nk_test_hooks.h"
#include "testutil.h"

static const char overflow_prefix[] = "arena overflow:";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int is_overflow_report(const nk_error_t *err) {
    return nkt_error_ok(err, NK_ERR_ARENA_OVERFLOW) &&
           strncmp(err->message, overflow_prefix, sizeof overflow_prefix - 1) == 0;
}

/* Loads into an arena of exactly `size` bytes; every size below the
 * required one must fail cleanly with consistent figures. Every size is
 * tried while need x len stays under NK_EXHAUST_BUDGET bytes (default 4e9:
 * each load checksums the whole image); past that, the NK_EXHAUST_EDGE
 * bytes (default 4096) at each end are still exhaustive and the middle is
 * strided. */
static void size_sweep(const char *name, const uint8_t *img, size_t len, size_t need) {
    double t0 = now_s();
    unsigned long bad = 0, tried = 0;
    double budget = 4e9;
    size_t edge = 4096;
    const char *env = getenv("NK_EXHAUST_BUDGET");
    if (env && *env) budget = strtod(env, NULL);
    env = getenv("NK_EXHAUST_EDGE");
    if (env && *env) edge = (size_t)strtoul(env, NULL, 10);
    size_t max_loads = (size_t)(budget / (double)(len + 1)), step = 1;
    if (need > max_loads && need > 2 * edge) {
        size_t middle_loads = max_loads > 3 * edge ? max_loads - 2 * edge : edge;
        step = (need - 2 * edge) / middle_loads + 1;
    }
    for (size_t size = 0; size < need; size++) {
        if (step > 1 && size >= edge && size + edge < need && size % step != 0) continue;
        tried++;
        uint8_t *mem = nkt_alloc_aligned(size);
        nk_arena_t arena;
        nk_model_t *m = NULL;
        nk_error_t err;
        memset(&err, 0, sizeof err);
        nk_arena_init(&arena, size ? mem : NULL, size);
        nk_status s = nk_model_load_buffer(&m, img, len, &arena, &err);
        int ok = s == NK_ERR_ARENA_OVERFLOW && is_overflow_report(&err) &&
                 err.requested > err.free_bytes && err.capacity == size &&
                 err.free_bytes <= size && nk_arena_used(&arena) <= size;
        if (!ok && bad++ < 10)
            NKT_CHECK(ok, "%s: arena of %zu B: status %d, requested %llu, free %llu, capacity %llu, "
                      "used %zu, \"%s\"", name, size, (int)s, (unsigned long long)err.requested,
                      (unsigned long long)err.free_bytes, (unsigned long long)err.capacity,
                      nk_arena_used(&arena), err.message);
        else if (!ok)
            nkt_failures++;
        if (s == NK_OK) nk_model_unload(m);
        free(mem);
    }
    printf("  sizes 0..%zu: %lu tried%s: %s (%.2f s)\n", need - 1, tried,
           step > 1 ? " (middle strided)" : " (every size)", bad ? "FAILED" : "all overflow",
           now_s() - t0);
    if (bad > 10) fprintf(stderr, "%s: %lu arena sizes failed in all\n", name, bad);
}

/* The reported size loads, runs, and invoke does not touch the arena. */
static void exact_size(const char *name, const uint8_t *img, size_t len, size_t need,
                       const nk_report_t *rep) {
    uint8_t *mem = nkt_alloc_aligned(need);
    nk_arena_t arena;
    nk_model_t *m = NULL;
    nk_error_t err;
    memset(&err, 0, sizeof err);
    nk_arena_init(&arena, mem, need);
    nk_status s = nk_model_load_buffer(&m, img, len, &arena, &err);
    NKT_CHECK(s == NK_OK, "%s: arena of the reported %zu B does not load: %s", name, need,
              err.message);
    if (s == NK_OK) {
        NKT_CHECK(nk_arena_used(&arena) <= need, "%s: used %zu of %zu", name,
                  nk_arena_used(&arena), need);
        size_t used = nk_arena_used(&arena);
        nkt_rng rng = {42};
        nkt_fill_inputs(m, &rng);
        s = nk_model_invoke(m, &err);
        NKT_CHECK(s == NK_OK, "%s: invoke in an exact arena: %s", name, err.message);
        NKT_CHECK(nk_arena_used(&arena) == used && used <= rep->arena_after_forward,
                  "%s: after invoke used %zu (before %zu, reported %llu)", name,
                  nk_arena_used(&arena), used, (unsigned long long)rep->arena_after_forward);
        nk_model_unload(m);
    }
    free(mem);
}

/* nk_context_size is exact: every smaller arena fails with figures that
 * add up, and the exact size creates a context that runs. */
static void context_sweep(const char *name, const uint8_t *img, size_t len, size_t need) {
    uint8_t *model_mem = nkt_alloc_aligned(need);
    nk_arena_t model_arena;
    nk_model_t *m = NULL;
    nk_error_t err;
    memset(&err, 0, sizeof err);
    nk_arena_init(&model_arena, model_mem, need);
    nk_status s = nk_model_load_buffer(&m, img, len, &model_arena, &err);
    NKT_CHECK(s == NK_OK, "%s: load for the context sweep: %s", name, err.message);
    if (s != NK_OK) {
        free(model_mem);
        return;
    }
    size_t csize = nk_context_size(m);
    unsigned long bad = 0;
    for (size_t size = 0; size <= csize; size++) {
        uint8_t *mem = nkt_alloc_aligned(size);
        nk_arena_t arena;
        nk_context_t *c = NULL;
        memset(&err, 0, sizeof err);
        nk_arena_init(&arena, size ? mem : NULL, size);
        s = nk_context_create(&c, m, &arena, &err);
        if (size < csize) {
            int ok = s == NK_ERR_ARENA_OVERFLOW && is_overflow_report(&err) &&
                     err.requested > err.free_bytes && err.capacity == size &&
                     err.free_bytes <= size;
            if (!ok && bad++ < 10)
                NKT_CHECK(ok, "%s: context in %zu of %zu B: status %d, requested %llu, free %llu, "
                          "capacity %llu, \"%s\"", name, size, csize, (int)s,
                          (unsigned long long)err.requested, (unsigned long long)err.free_bytes,
                          (unsigned long long)err.capacity, err.message);
            else if (!ok)
                nkt_failures++;
        } else {
            NKT_CHECK(s == NK_OK && nk_arena_used(&arena) <= csize,
                      "%s: context in its %zu B: %s", name, csize, err.message);
            if (s == NK_OK) {
                size_t used = nk_arena_used(&arena);
                nk_tensor_t t;
                for (int32_t i = 0; i < nk_model_num_inputs(m); i++)
                    if (nk_context_input(c, i, &t) == NK_OK && t.data) memset(t.data, 0, t.bytes);
                s = nk_context_invoke(c, &err);
                NKT_CHECK(s == NK_OK && nk_arena_used(&arena) == used,
                          "%s: context invoke: %s", name, err.message);
            }
        }
        free(mem);
    }
    printf("  context sizes 0..%zu: %s\n", csize, bad ? "FAILED" : "overflow below, runs at the size");
    nk_model_unload(m);
    free(model_mem);
}

/* Fails allocation n of a load for n = 1, 2, ... until a load makes fewer
 * than n allocations and succeeds. */
static void fail_at_sweep(const char *name, const uint8_t *img, size_t len, size_t need) {
    uint8_t *mem = nkt_alloc_aligned(need);
    uint32_t n;
    const uint32_t limit = 1000000;
    for (n = 1; n < limit; n++) {
        nk_arena_t arena;
        nk_model_t *m = NULL;
        nk_error_t err;
        memset(&err, 0, sizeof err);
        nk_arena_init(&arena, mem, need);
        nk_arena_fail_at(&arena, n);
        nk_status s = nk_model_load_buffer(&m, img, len, &arena, &err);
        if (s == NK_OK) {
            nk_model_unload(m);
            break;
        }
        NKT_CHECK(s == NK_ERR_ARENA_OVERFLOW && is_overflow_report(&err) &&
                  err.capacity == need && nk_arena_used(&arena) <= need,
                  "%s: allocation %u failed: status %d, capacity %llu, \"%s\"", name, n, (int)s,
                  (unsigned long long)err.capacity, err.message);
        /* The same arena, re-initialised, must load normally afterwards. */
        nk_arena_init(&arena, mem, need);
        s = nk_model_load_buffer(&m, img, len, &arena, &err);
        NKT_CHECK(s == NK_OK, "%s: load after an injected failure at %u: %s", name, n,
                  err.message);
        if (s == NK_OK) nk_model_unload(m);
    }
    NKT_CHECK(n > 1 && n < limit, "%s: fail_at never failed a load (n=%u)", name, n);
    printf("  fail_at: each of %u allocations failed cleanly\n", n - 1);
    free(mem);
}

static void run_model(const char *path) {
    const char *name = nkt_basename(path);
    size_t len = 0;
    uint8_t *img = nkt_read_file(path, &len);
    NKT_CHECK(img != NULL, "cannot read %s", path);
    if (!img) return;
    nk_report_t rep;
    nk_error_t err;
    memset(&err, 0, sizeof err);
    nk_status s = nk_inspect_model(img, len, &rep, NULL, 0, &err);
    NKT_CHECK(s == NK_OK, "%s: inspect: %s", name, err.message);
    if (s == NK_OK) {
        size_t need = (size_t)rep.arena_after_load;
        printf("%s: %zu bytes, arena_after_load %zu B\n", name, len, need);
        NKT_CHECK(need > 0, "%s: inspect reports an arena of 0 B", name);
        if (need > 0) {
            size_sweep(name, img, len, need);
            exact_size(name, img, len, need, &rep);
            context_sweep(name, img, len, need);
            fail_at_sweep(name, img, len, need);
        }
    }
    free(img);
}

int main(int argc, char **argv) {
    char **paths;
    int n = nkt_collect_models(argc, argv, &paths);
    if (n == 0) {
        fprintf(stderr, "exhaust_test: no .nk models found; skipping\n");
        return NKT_SKIP;
    }
    for (int i = 0; i < n; i++) run_model(paths[i]);
    nkt_free_models(paths, n);
    if (nkt_failures) {
        fprintf(stderr, "exhaust_test: %d failed checks\n", nkt_failures);
        return 1;
    }
    printf("exhaust_test: %d models OK\n", n);
    return 0;
}

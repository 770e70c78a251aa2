/*
 * hostile_test.c — truncated and corrupted .nk images are rejected with a
 * clean error or load and run; never a crash (run it under ASan/UBSan).
 *
 * Every image is handed to the loader in an exact-size heap block (or, for
 * truncations, a block whose tail is poisoned), so a read one byte past the
 * end is an ASan report, not a silent pass.
 *
 * Usage: hostile_test <model.nk | dir>...
 *   NK_HOSTILE_ITERS=n  mutations per variant for a model of up to 16 KiB
 *                       (10000); larger models get n x 16 KiB / size (at
 *                       least 200), as each try reads the whole image
 *   NK_HOSTILE_SEED=s   PRNG seed (fixed by default, so runs are reproducible)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

#define SECTION_DATA 7u

typedef struct model_case {
    const char *name;
    const uint8_t *img;
    size_t len;
    uint32_t data_off, data_size; /* DATA section, or 0,0 */
    uint8_t *arena_mem;
    size_t arena_cap;
} model_case;

typedef struct tally {
    unsigned long rejected, loaded, invoked_ok;
    unsigned long by_status[16];
} tally;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int status_known(nk_status s) {
    return s >= NK_ERR_ARG && s <= NK_ERR_STATE;
}

/* Loads into an exact-size arena of `size` bytes; returns the status. */
static nk_status load_exact(const uint8_t *img, size_t len, size_t size, nk_error_t *err) {
    uint8_t *mem = nkt_alloc_aligned(size);
    nk_arena_t arena;
    nk_model_t *m = NULL;
    nk_arena_init(&arena, mem, size);
    nk_status s = nk_model_load_buffer(&m, img, len, &arena, err);
    if (s == NK_OK) nk_model_unload(m);
    free(mem);
    return s;
}

/* A corrupted image that loads is a model like any other: inspect must
 * measure it, the measured size must be exact, and a second context must
 * take exactly nk_context_size bytes and run. `hw` is the high-water mark
 * of the load that succeeded. */
static void accepted_checks(const model_case *mc, nk_model_t *m, const uint8_t *img, size_t len,
                            size_t hw, const char *what, size_t detail) {
    static nk_op_info_t rows[64];
    nk_report_t rep;
    nk_error_t err;
    memset(&err, 0, sizeof err);
    nk_status s = nk_inspect_model(img, len, &rep, rows, 64, &err);
    NKT_CHECK(s == NK_OK && rep.arena_after_load == hw,
              "%s %s %zu: loads with high water %zu, but inspect says %d, %llu B: %s", mc->name,
              what, detail, hw, (int)s, (unsigned long long)rep.arena_after_load, err.message);
    s = load_exact(img, len, hw, &err);
    NKT_CHECK(s == NK_OK, "%s %s %zu: no load in an arena of its %zu B: %s", mc->name, what,
              detail, hw, err.message);
    memset(&err, 0, sizeof err);
    s = load_exact(img, len, hw - 1, &err);
    NKT_CHECK(s == NK_ERR_ARENA_OVERFLOW && nkt_error_ok(&err, s),
              "%s %s %zu: %zu - 1 B gives status %d", mc->name, what, detail, hw, (int)s);

    size_t csize = nk_context_size(m);
    for (size_t size = csize - (csize > 0); size <= csize; size++) {
        uint8_t *mem = nkt_alloc_aligned(size);
        nk_arena_t arena;
        nk_context_t *c = NULL;
        nk_arena_init(&arena, mem, size);
        memset(&err, 0, sizeof err);
        s = nk_context_create(&c, m, &arena, &err);
        if (size < csize) {
            NKT_CHECK(s == NK_ERR_ARENA_OVERFLOW && nkt_error_ok(&err, s),
                      "%s %s %zu: context in %zu of %zu B gives status %d", mc->name, what,
                      detail, size, csize, (int)s);
        } else {
            NKT_CHECK(s == NK_OK, "%s %s %zu: context in its %zu B: %s", mc->name, what, detail,
                      size, err.message);
            if (s == NK_OK) {
                nk_tensor_t t;
                for (int32_t i = 0; i < nk_model_num_inputs(m); i++)
                    if (nk_context_input(c, i, &t) == NK_OK && t.data)
                        for (uint64_t k = 0; k < t.bytes; k++) ((uint8_t *)t.data)[k] = 0;
                s = nk_context_invoke(c, &err);
                NKT_CHECK(s == NK_OK || nkt_error_ok(&err, s),
                          "%s %s %zu: context invoke status %d with a bad report", mc->name, what,
                          detail, (int)s);
            }
        }
        free(mem);
    }
}

/* Loads img[0..len) into the case's arena; on success fills the inputs,
 * invokes, and runs accepted_checks. Checks the error report is well
 * formed either way. Returns the load status. */
static nk_status try_load(const model_case *mc, const uint8_t *img, size_t len, nkt_rng *rng,
                          tally *t, const char *what, size_t detail) {
    nk_arena_t arena;
    nk_model_t *m = NULL;
    nk_error_t err;
    memset(&err, 0, sizeof err);
    nk_arena_init(&arena, mc->arena_mem, mc->arena_cap);
    nk_status s = nk_model_load_buffer(&m, img, len, &arena, &err);
    if (s != NK_OK) {
        NKT_CHECK(status_known(s), "%s %s %zu: unknown status %d", mc->name, what, detail, (int)s);
        NKT_CHECK(nkt_error_ok(&err, s), "%s %s %zu: status %d but err.status %d, message \"%.*s\"",
                  mc->name, what, detail, (int)s, (int)err.status, 80, err.message);
        if (t) {
            t->rejected++;
            t->by_status[(unsigned)s & 15u]++;
        }
        return s;
    }
    NKT_CHECK(m != NULL, "%s %s %zu: NK_OK with a NULL model", mc->name, what, detail);
    if (t) t->loaded++;
    if (!m) return s;
    NKT_CHECK(nk_arena_used(&arena) <= mc->arena_cap, "%s %s %zu: arena used past capacity",
              mc->name, what, detail);
    size_t used = nk_arena_used(&arena);
    nkt_fill_inputs(m, rng);
    nk_error_t ierr;
    memset(&ierr, 0, sizeof ierr);
    nk_status is = nk_model_invoke(m, &ierr);
    if (is == NK_OK) {
        if (t) t->invoked_ok++;
    } else {
        NKT_CHECK(nkt_error_ok(&ierr, is), "%s %s %zu: invoke status %d with a bad error report",
                  mc->name, what, detail, (int)is);
    }
    NKT_CHECK(nk_arena_used(&arena) == used, "%s %s %zu: invoke grew the arena", mc->name, what,
              detail);
    /* inspect maps a 64 MiB measuring arena, which ASan makes costly:
     * the first 32 accepted images of a run, then every 8th. */
    if (!t || t->loaded <= 32 || t->loaded % 8 == 0)
        accepted_checks(mc, m, img, len, nk_arena_high_water(&arena), what, detail);
    nk_model_unload(m);
    return s;
}

/* The tail beyond a truncated image: poisoned under ASan, so a read past
 * the length handed to the loader is a report even though the block is
 * longer. Truncations walk the length down one byte at a time and poison
 * one more byte per step, which keeps a sweep over every length O(len)
 * instead of one copy per length. */
#if defined(__SANITIZE_ADDRESS__)
#define NKT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NKT_ASAN 1
#endif
#endif
#ifdef NKT_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Every proper prefix of the image, as handed over, must be rejected. */
static void truncations(const model_case *mc, nkt_rng *rng) {
    double t0 = now_s();
    tally t;
    memset(&t, 0, sizeof t);
    uint8_t *buf = nkt_dup_aligned(mc->img, mc->len);
    for (size_t L = mc->len; L-- > 0;) {
        POISON(buf + L, 1);
        nk_status s = try_load(mc, buf, L, rng, &t, "truncated to", L);
        NKT_CHECK(s != NK_OK, "%s: truncation to %zu of %zu bytes was accepted", mc->name, L,
                  mc->len);
    }
    UNPOISON(buf, mc->len);
    free(buf);
    printf("  truncations: %zu lengths, %lu rejected (%.2f s)\n", mc->len, t.rejected,
           now_s() - t0);
}

/* Prefixes whose header is patched to match (file_size = L, CRC fixed), so
 * the section and record bounds checks run instead of the size check. A
 * prefix that cuts into any section must be rejected; a prefix that keeps
 * every section (only trailing padding lost) may load. Cut points inside
 * the DATA payloads are all alike, so those are sampled; so are the others
 * beyond 8192 of them (converted models' long tensor tables), as each
 * one re-checksums the prefix. */
static void patched_truncations(const model_case *mc, nkt_rng *rng) {
    double t0 = now_s();
    size_t sec_end = nkt_sections_end(mc->img, mc->len);
    uint32_t data_lo = mc->data_off, data_hi = mc->data_off + mc->data_size;
    size_t data_stride = mc->data_size / 256 + 1;
    size_t other_stride = (mc->len - mc->data_size) / 8192 + 1;
    tally t;
    memset(&t, 0, sizeof t);
    unsigned long tried = 0;
    uint8_t *buf = nkt_dup_aligned(mc->img, mc->len);
    for (size_t L = mc->len; L-- > 16;) {
        POISON(buf + L, 1);
        int in_data = L > data_lo + 16u && L + 16u < data_hi;
        if (in_data ? (L - data_lo) % data_stride != 0 : L % other_stride != 0) continue;
        nkt_wr32(buf + 12, (uint32_t)L);
        nkt_fix_crc(buf, L);
        nk_status s = try_load(mc, buf, L, rng, &t, "patched truncation to", L);
        if (L < sec_end)
            NKT_CHECK(s != NK_OK, "%s: patched truncation to %zu cuts a section (ends at %zu) "
                      "but was accepted", mc->name, L, sec_end);
        tried++;
    }
    UNPOISON(buf, mc->len);
    free(buf);
    printf("  patched truncations: %lu lengths, %lu rejected, %lu loaded (%.2f s)\n", tried,
           t.rejected, t.loaded, now_s() - t0);
}

static const uint32_t interesting[] = {0u,          1u,          2u,          3u,
                                       4u,          6u,          7u,          8u,
                                       15u,         16u,         17u,         32u,
                                       48u,         64u,         65u,         255u,
                                       256u,        0x7FFFu,     0xFFFFu,     0x10000u,
                                       0x1000000u,  0x1000001u,  0x7FFFFFFFu, 0x80000000u,
                                       0xFFFFFFF0u, 0xFFFFFFFEu, 0xFFFFFFFFu};

/* A byte position: half the time outside DATA (headers, records, strings),
 * where a change is structural; otherwise anywhere. */
static size_t pick_pos(const model_case *mc, nkt_rng *rng) {
    uint32_t len = (uint32_t)mc->len;
    if (mc->data_size && mc->data_size < len && (nkt_rand(rng) & 1u)) {
        for (int tries = 0; tries < 64; tries++) {
            uint32_t p = nkt_rand_below(rng, len);
            if (p < mc->data_off || p >= mc->data_off + mc->data_size) return p;
        }
    }
    return nkt_rand_below(rng, len);
}

/* Mutates 1..8 bytes in place. */
static void mutate(const model_case *mc, uint8_t *buf, nkt_rng *rng) {
    unsigned budget = 1 + nkt_rand_below(rng, 8);
    while (budget > 0) {
        size_t pos = pick_pos(mc, rng);
        unsigned op = nkt_rand_below(rng, 5);
        unsigned nbytes = 1;
        if (op == 4 && budget >= 4 && mc->len >= 4) {
            pos &= ~(size_t)3;
            if (pos + 4 > mc->len) pos = (mc->len - 4) & ~(size_t)3;
            uint32_t v = interesting[nkt_rand_below(rng, sizeof interesting / sizeof *interesting)];
            if (nkt_rand(rng) & 1u) v = (uint32_t)mc->len + nkt_rand_below(rng, 3) - 1u;
            nkt_wr32(buf + pos, v);
            nbytes = 4;
        } else if (op == 0 || op == 4) {
            buf[pos] ^= (uint8_t)(1 + nkt_rand_below(rng, 255));
        } else if (op == 1) {
            buf[pos] = (nkt_rand(rng) & 1u) ? 0x00 : 0xFF;
        } else if (op == 2) {
            buf[pos] = (uint8_t)(buf[pos] + ((nkt_rand(rng) & 1u) ? 1 : 0xFF));
        } else {
            buf[pos] ^= (uint8_t)(1u << nkt_rand_below(rng, 8));
        }
        budget = budget > nbytes ? budget - nbytes : 0;
    }
}

static void mutations(const model_case *mc, nkt_rng *rng, unsigned long iters, int fix_crc) {
    double t0 = now_s();
    tally t;
    memset(&t, 0, sizeof t);
    uint8_t *buf = nkt_alloc_aligned(mc->len);
    for (unsigned long i = 0; i < iters; i++) {
        memcpy(buf, mc->img, mc->len);
        mutate(mc, buf, rng);
        /* Which bytes differ: bits 0..7 for the first 8 header bytes, bit 8
         * for any other (ops on one byte may also cancel out). */
        unsigned changed = 0;
        for (size_t k = 0; k < 8 && k < mc->len; k++)
            if (buf[k] != mc->img[k]) changed |= 1u << k;
        if (mc->len > 8 && memcmp(buf + 8, mc->img + 8, mc->len - 8) != 0) changed |= 0x100u;
        if (fix_crc) {
            /* Over the range the header now claims, when it is a possible
             * one, so a shrunken file_size (tail ignored) gets checked too. */
            uint32_t claimed = nkt_rd32(buf + 12);
            nkt_fix_crc(buf, claimed >= 12 && claimed <= mc->len ? claimed : mc->len);
        }
        nk_status s = try_load(mc, buf, mc->len, rng, &t, fix_crc ? "crc-fixed mutation" : "mutation",
                               i);
        /* Without the fix, the CRC covers [12, len) and bytes 0..7 are magic
         * and version, so only a change of version_minor (bytes 6..7) or no
         * net change may load. */
        if (!fix_crc && (changed & ~0xC0u) != 0)
            NKT_CHECK(s != NK_OK, "%s: mutation %lu (changed-bytes mask 0x%x) accepted despite "
                      "the CRC", mc->name, i, changed);
    }
    free(buf);
    printf("  %s mutations: %lu, %lu rejected, %lu loaded, %lu invoked OK (%.2f s); rejects by "
           "status:", fix_crc ? "crc-fixed" : "raw", iters, t.rejected, t.loaded, t.invoked_ok,
           now_s() - t0);
    for (unsigned s = 1; s < 16; s++)
        if (t.by_status[s]) printf(" %s=%lu", nk_status_str((nk_status)s), t.by_status[s]);
    printf("\n");
}

static void run_model(const char *path, unsigned long iters, uint64_t seed) {
    model_case mc;
    memset(&mc, 0, sizeof mc);
    mc.name = nkt_basename(path);
    size_t len = 0;
    uint8_t *img = nkt_read_file(path, &len);
    NKT_CHECK(img != NULL, "cannot read %s", path);
    if (!img) return;
    mc.img = img;
    mc.len = len;
    if (!nkt_find_section(img, len, SECTION_DATA, &mc.data_off, &mc.data_size))
        mc.data_off = mc.data_size = 0;

    nk_report_t rep;
    nk_error_t err;
    memset(&err, 0, sizeof err);
    nk_status s = nk_inspect_model(img, len, &rep, NULL, 0, &err);
    NKT_CHECK(s == NK_OK, "%s: the unmodified model does not inspect: %s", mc.name, err.message);
    if (s != NK_OK) {
        free(img);
        return;
    }
    /* Room for mutated models that ask for more, bounded so run time is too;
     * an exact-size block so writes past the arena are ASan reports. */
    mc.arena_cap = (size_t)rep.arena_after_load * 4 + 64 * 1024;
    mc.arena_mem = nkt_alloc_aligned(mc.arena_cap);
    if (len > 16384) {
        unsigned long scaled = (unsigned long)((double)iters * 16384.0 / (double)len);
        iters = scaled > 200 ? scaled : iters < 200 ? iters : 200;
    }
    printf("%s: %zu bytes, arena %llu B, %lu mutations per variant\n", mc.name, len,
           (unsigned long long)rep.arena_after_load, iters);

    nkt_rng rng = {seed};
    /* The baseline must load and run, or the rest proves nothing. */
    tally base;
    memset(&base, 0, sizeof base);
    s = try_load(&mc, img, len, &rng, &base, "unmodified", 0);
    NKT_CHECK(s == NK_OK && base.invoked_ok == 1, "%s: the unmodified model does not load and run",
              mc.name);

    truncations(&mc, &rng);
    patched_truncations(&mc, &rng);
    mutations(&mc, &rng, iters, 0);
    mutations(&mc, &rng, iters, 1);
    free(mc.arena_mem);
    free(img);
}

int main(int argc, char **argv) {
    char **paths;
    int n = nkt_collect_models(argc, argv, &paths);
    if (n == 0) {
        fprintf(stderr, "hostile_test: no .nk models found; skipping\n");
        return NKT_SKIP;
    }
    unsigned long iters = 10000;
    const char *env = getenv("NK_HOSTILE_ITERS");
    if (env && *env) iters = strtoul(env, NULL, 10);
    uint64_t seed = 0x6E6B686F7374696Cull; /* fixed: "nkhostil"; vary it to hunt */
    env = getenv("NK_HOSTILE_SEED");
    if (env && *env) seed = strtoull(env, NULL, 0);
    for (int i = 0; i < n; i++) run_model(paths[i], iters, seed);
    nkt_free_models(paths, n);
    if (nkt_failures) {
        fprintf(stderr, "hostile_test: %d failed checks\n", nkt_failures);
        return 1;
    }
    printf("hostile_test: %d models OK\n", n);
    return 0;
}

/*
 * testutil.h — helpers shared by the hostile-input, exhaustion, no-heap and
 * fuzz tests: aligned file buffers, an independent CRC-32, a seeded PRNG,
 * the list of test models, and a check macro that counts failures.
 *
 * These are test-only (hosted, POSIX). They use the heap on purpose: the
 * buffers they hand out are exact-size allocations, so ASan flags any read
 * the core makes past the end of a model image.
 */
#ifndef NK_TESTUTIL_H
#define NK_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "netkit.h"

/* ctest's SKIP_RETURN_CODE for "nothing to test here" (no models yet). */
#define NKT_SKIP 77

extern int nkt_failures;

/* Records a failure with its location and keeps going. */
#define NKT_CHECK(cond, ...)                                                 \
    do {                                                                     \
        if (!(cond)) {                                                       \
            nkt_failures++;                                                  \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
                    #cond);                                                  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

/* An exact-size, 16-byte aligned heap copy of src[0..n) (n may be 0). Free
 * with free(). Exits on allocation failure. */
uint8_t *nkt_dup_aligned(const void *src, size_t n);
/* An exact-size, 16-byte aligned uninitialised block of n bytes (n may be 0). */
uint8_t *nkt_alloc_aligned(size_t n);
/* Reads a whole file into an exact-size 16-byte aligned buffer; NULL on error. */
uint8_t *nkt_read_file(const char *path, size_t *len);

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320), written here independently of
 * the core so the test does not trust the code it checks. */
uint32_t nkt_crc32_update(uint32_t state, const uint8_t *p, size_t n);
uint32_t nkt_crc32(const uint8_t *p, size_t n);
/* Rewrites the header checksum (bytes 8..12) as CRC-32 of img[12..len). */
void nkt_fix_crc(uint8_t *img, size_t len);

static inline uint32_t nkt_rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void nkt_wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Finds section `kind` in a (trusted) image's section table; returns 1 and
 * its range when present and inside the image, else 0. */
int nkt_find_section(const uint8_t *img, size_t len, uint32_t kind, uint32_t *off,
                     uint32_t *size);
/* The end of the furthest section, or 0 when the table does not parse. */
size_t nkt_sections_end(const uint8_t *img, size_t len);

/* Seeded PRNG (splitmix64): fixed seeds make every failure reproducible. */
typedef struct nkt_rng {
    uint64_t s;
} nkt_rng;
uint64_t nkt_rand(nkt_rng *r);
/* Uniform in [0, n), n > 0. */
uint32_t nkt_rand_below(nkt_rng *r, uint32_t n);

/* Collects *.nk paths: each argument is a file or a directory (scanned, not
 * recursively). Sorted, so runs are reproducible. Returns the count; *out is
 * a heap array of heap strings (nkt_free_models). */
int nkt_collect_models(int argc, char **argv, char ***out);
void nkt_free_models(char **paths, int n);
/* The file name part of a path, for messages. */
const char *nkt_basename(const char *path);

/* Writes deterministic, finite values into every graph input of the
 * model's default context (f32 in [-1, 1], integers over their range).
 * Inline, so tests that link only parts of the core (arena_test_debug) do
 * not pull in the model API through testutil.o. */
static inline void nkt_fill_inputs(nk_model_t *m, nkt_rng *r) {
    int32_t n = nk_model_num_inputs(m);
    for (int32_t i = 0; i < n; i++) {
        nk_tensor_t t;
        if (nk_model_input(m, i, &t) != NK_OK || !t.data) continue;
        uint8_t *p = (uint8_t *)t.data;
        for (uint64_t k = 0; k < t.bytes; k++) {
            if (t.dtype == NK_F32 && k + 4 <= t.bytes) {
                float v = (float)((double)nkt_rand_below(r, 2001) / 1000.0 - 1.0);
                memcpy(p + k, &v, 4);
                k += 3;
            } else {
                p[k] = (uint8_t)nkt_rand(r);
            }
        }
    }
}

/* 1 when err is a well-formed failure report for status s: same status, a
 * NUL-terminated, non-empty message. */
int nkt_error_ok(const nk_error_t *err, nk_status s);

#endif /* NK_TESTUTIL_H */

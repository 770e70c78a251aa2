/*
 * End-to-end int8 test and benchmark on a cross target: an int8 model
 * converted from TFLite (scripts/int8-cross.sh) is embedded in flash with
 * raw inputs (samples back to back; int8, or the SVDF model's int16) and
 * TensorFlow Lite Micro's outputs for them; it loads out of a static arena, runs every sample and
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

/* Runs every sample of `in` through m, in order from a reset state (a model
 * with STATE tensors, SVDF's, carries it from one sample to the next as
 * TFLM's stream did), and counts output bytes that differ from `want`; -1
 * when an invoke fails. */
static long run_samples(nk_model_t *m, const unsigned char *in, const unsigned char *want, size_t samples,
                        int bench) {
    nk_tensor_t x, y;
    nk_error_t err;
    long bad = 0;
    nk_model_reset_state(m);
    nk_model_input(m, 0, &x);
    nk_model_output(m, 0, &y);
    for (size_t s = 0; s < samples; s++) {
        memcpy(x.data, in + s * x.bytes, (size_t)x.bytes);
        if (bench) nk_bench_start();
        nk_status st = nk_model_invoke(m, &err);
        if (bench) nk_bench_stop();
        if (st != NK_OK) {
            printf("FAIL: invoke of sample %lu: %s\n", (unsigned long)s, err.message);
            return -1;
        }
        const unsigned char *got = (const unsigned char *)y.data;
        const unsigned char *w = want + s * y.bytes;
        for (size_t i = 0; i < (size_t)y.bytes; i++) {
            if (got[i] != w[i]) {
                if (bad < 5)
                    printf("mismatch: sample %lu output byte %lu: got 0x%02x want 0x%02x\n", (unsigned long)s,
                           (unsigned long)i, got[i], w[i]);
                bad++;
            }
        }
    }
    return bad;
}

#if defined(NK_TEST_SHARED_SECOND) && NK_TEST_SHARED_SECOND
extern const unsigned char nk_model2_image[];
extern const size_t nk_model2_image_len;
extern const unsigned char nk_input2_raw[];
extern const size_t nk_input2_raw_len;
extern const unsigned char nk_expected2_raw[];
extern const size_t nk_expected2_raw_len;

/* Both models over one activation block (nk_model_load_buffer_shared), in
 * an arena of exactly their records plus the larger block: run one, the
 * other, then the first again, each against TFLM's outputs. Then one byte
 * less must fail. Returns 0 on a pass. */
static int shared_pair(size_t cap, size_t *need) {
    const unsigned char *img[2] = {nk_model_image, nk_model2_image};
    const size_t len[2] = {nk_model_image_len, nk_model2_image_len};
    const unsigned char *in[2] = {nk_input_raw, nk_input2_raw};
    const unsigned char *want[2] = {nk_expected_raw, nk_expected2_raw};
    const size_t in_len[2] = {nk_input_raw_len, nk_input2_raw_len};
    nk_arena_t arena;
    nk_model_t *m[2];
    nk_error_t err;
    size_t block = 0;
    nk_arena_init(&arena, arena_mem, cap);
    for (int i = 0; i < 2; i++) {
        if (nk_model_load_buffer_shared(&m[i], img[i], len[i], &arena, &err) != NK_OK) {
            printf("shared load %d in %lu B: %s\n", i, (unsigned long)cap, err.message);
            return 1;
        }
        if (nk_model_activation_size(m[i]) > block) block = nk_model_activation_size(m[i]);
    }
    void *mem = nk_arena_alloc(&arena, block, 16);
    if (mem == NULL) {
        printf("shared block of %lu B does not fit %lu B\n", (unsigned long)block, (unsigned long)cap);
        return 1;
    }
    *need = nk_arena_used(&arena);
    for (int i = 0; i < 2; i++)
        if (nk_model_bind_activations(m[i], mem, block, &err) != NK_OK) {
            printf("FAIL: bind %d: %s\n", i, err.message);
            return 1;
        }
    for (int r = 0; r < 3; r++) {
        int i = r & 1;
        nk_tensor_t x;
        nk_model_input(m[i], 0, &x);
        if (run_samples(m[i], in[i], want[i], in_len[i] / x.bytes, 0) != 0) {
            printf("FAIL: shared run %d (model %d) differs from TFLite Micro\n", r, i);
            return 1;
        }
    }
    return 0;
}
#endif

#ifdef NK_TEST_SLOW_RAM
/* The model's records in the slow region, its activation block in the fast
 * one (nk_model_load_buffer_regions), each arena of `rec` and `act` bytes;
 * runs every sample against TFLM. Sets the bytes each arena took at its
 * peak; returns 0 on a pass, 1 when the load failed (the message must name
 * `region`, when given), 2 when an output differed or the message did not. */
static int regions_run(size_t rec, size_t act, size_t samples, const char *region, size_t *rec_used,
                       size_t *act_used) {
    nk_arena_t records, activations;
    nk_model_t *m;
    nk_error_t err;
    nk_arena_init(&records, (void *)NK_TEST_SLOW_RAM, rec);
    nk_arena_init(&activations, arena_mem, act);
    if (nk_model_load_buffer_regions(&m, nk_model_image, nk_model_image_len, &records, &activations, &err) !=
        NK_OK) {
        printf("regions load in %lu + %lu B: %s\n", (unsigned long)rec, (unsigned long)act, err.message);
        if (region != NULL && strncmp(err.message, region, strlen(region)) != 0) return 2;
        return nk_arena_used(&records) == 0 && nk_arena_used(&activations) == 0 ? 1 : 2;
    }
    *rec_used = nk_arena_high_water(&records);
    *act_used = nk_arena_high_water(&activations);
    long bad = run_samples(m, nk_input_raw, nk_expected_raw, samples, 0);
    nk_model_unload(m);
    return bad != 0 ? 2 : 0;
}

/* Both pairs nk_model_region_sizes gives on this target (sized in the
 * static arena: the load's scratch in the fast region, or in the slow one
 * so the fast one holds only the activation block) load and match TFLM,
 * taking exactly those bytes; one byte less in either region fails, naming
 * the region (the slow one short in the second pair: the fast one lacked
 * room for the scratch, which is what is said). */
static int regions_check(size_t samples) {
    size_t sz[4] = {0, 0, 0, 0}, r2 = 0, a2 = 0;
    nk_arena_t scratch;
    nk_error_t err;
    nk_arena_init(&scratch, arena_mem, sizeof arena_mem);
    if (nk_model_region_sizes(nk_model_image, nk_model_image_len, &scratch, &sz[0], &sz[1], &sz[2], &sz[3],
                              &err) != NK_OK) {
        printf("FAIL: region sizes: %s\n", err.message);
        return 1;
    }
    for (int pair = 0; pair < 2; pair++) {
        size_t rec = sz[2 * pair], act = sz[2 * pair + 1];
        if (regions_run(rec, act, samples, NULL, &r2, &a2) != 0 || r2 != rec || a2 != act) {
            printf("FAIL: regions load in its exact sizes %lu + %lu B (took %lu + %lu B)\n", (unsigned long)rec,
                   (unsigned long)act, (unsigned long)r2, (unsigned long)a2);
            return 1;
        }
        if (regions_run(rec - 1, act, samples, pair == 0 ? "records region" : NULL, &r2, &a2) != 1 ||
            regions_run(rec, act - 1, samples, "activations region", &r2, &a2) != 1) {
            printf("FAIL: regions load with one byte less in a region\n");
            return 1;
        }
    }
    printf("regions: records %lu B in slow RAM at 0x%lx + activations %lu B in fast RAM, or %lu + %lu B\n",
           (unsigned long)sz[0], (unsigned long)NK_TEST_SLOW_RAM, (unsigned long)sz[1], (unsigned long)sz[2],
           (unsigned long)sz[3]);
    printf("nkbench region_records %lu\nnkbench region_activations %lu\n", (unsigned long)sz[0],
           (unsigned long)sz[1]);
    printf("nkbench region_records_with_scratch %lu\nnkbench region_block %lu\n", (unsigned long)sz[2],
           (unsigned long)sz[3]);
    return 0;
}
#endif

/* The arena this target needs (nk_model_arena_size, the figure `netkit
 * inspect --target` reports): unloads `*model`, checks a load in one byte
 * less fails with NK_ERR_ARENA_OVERFLOW and a load in exactly that
 * succeeds (invoke never allocates: no run needed), and leaves that load
 * in *arena and *model. Three loads: cheap next to the samples' runs. */
static int exact_arena(nk_arena_t *arena, nk_model_t **model) {
    size_t need = 0, used_before = nk_arena_used(arena);
    nk_error_t err;
    nk_status s;
    nk_model_unload(*model);
    nk_arena_init(arena, arena_mem, sizeof arena_mem);
    if (nk_model_arena_size(nk_model_image, nk_model_image_len, NK_LOAD_BUFFER, arena, &need, &err) != NK_OK) {
        printf("FAIL: arena_size: %s\n", err.message);
        return 1;
    }
    nk_arena_init(arena, arena_mem, need - 1u);
    s = nk_model_load_buffer(model, nk_model_image, nk_model_image_len, arena, &err);
    if (s != NK_ERR_ARENA_OVERFLOW) {
        printf("FAIL: a load in %lu B (1 B less than nk_model_arena_size) gave status %d\n",
               (unsigned long)(need - 1u), (int)s);
        return 1;
    }
    nk_arena_init(arena, arena_mem, need);
    if (nk_model_load_buffer(model, nk_model_image, nk_model_image_len, arena, &err) != NK_OK) {
        printf("FAIL: a load in exactly %lu B: %s\n", (unsigned long)need, err.message);
        return 1;
    }
    /* the load is deterministic: the same bytes stay in use */
    printf("nkbench arena_need %lu\nnkbench arena_exact %d\n", (unsigned long)need,
           nk_arena_used(arena) == used_before);
    return nk_arena_used(arena) == used_before ? 0 : 1;
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
    nk_tensor_t x, y;
    if (nk_model_input(model, 0, &x) != NK_OK || nk_model_output(model, 0, &y) != NK_OK) {
        printf("FAIL: model needs an input and an output\n");
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
    long bad = run_samples(model, nk_input_raw, nk_expected_raw, samples, 1);
    if (bad < 0) return 1;
    printf("%lu samples x %lu output bytes, %lu differ from TFLite Micro\n", (unsigned long)samples,
           (unsigned long)yb, (unsigned long)bad);
    printf("nkbench arena_bytes %lu\n", (unsigned long)nk_arena_used(&arena));
    printf("nkbench model_bytes %lu\n", (unsigned long)nk_model_image_len);
    if (bad) {
        printf("FAIL\n");
        return 1;
    }
    if (exact_arena(&arena, &model) != 0) return 1;
#if defined(NK_TEST_SHARED_SECOND) && NK_TEST_SHARED_SECOND
    {
        size_t alone = nk_arena_used(&arena), need = 0, again = 0;
        nk_model_unload(model);
        if (shared_pair(sizeof arena_mem, &need) != 0 || shared_pair(need, &again) != 0 || again != need) {
            printf("FAIL: shared activations in an exact arena\n");
            return 1;
        }
        if (shared_pair(need - 1, &again) == 0) {
            printf("FAIL: shared activations loaded in %lu B, one less than needed\n",
                   (unsigned long)(need - 1));
            return 1;
        }
        printf("shared activations with the second model: arena %lu B (this model alone %lu B)\n",
               (unsigned long)need, (unsigned long)alone);
        printf("nkbench shared_arena_bytes %lu\n", (unsigned long)need);
    }
#endif
#ifdef NK_TEST_SLOW_RAM
    if (regions_check(samples) != 0) return 1;
#endif
    printf("PASS\n");
    return 0;
}

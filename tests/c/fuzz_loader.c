/*
 * fuzz_loader.c — libFuzzer target for the .nk loader.
 *
 * Each input is copied into an exact-size 16-byte aligned heap block (so a
 * read past its end is an ASan report), its header checksum is rewritten to
 * match (else nearly every mutation would stop at the CRC check; the
 * mismatch path is covered by hostile_test), and it is loaded into a fixed
 * exact-size arena. A model that loads is run once.
 *
 * Built with clang only, when NETKIT_FUZZ=ON; `cmake --build <dir> --target
 * fuzz-run` fuzzes for NETKIT_FUZZ_SECONDS with testdata/models as seeds.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "netkit.h"

#define FUZZ_ARENA_BYTES (4u * 1024u * 1024u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t crc_table[256];

/* CRC-32 IEEE, as the format specifies (own copy: the fuzzer must not rely
 * on the code it fuzzes to make its inputs valid). */
static uint32_t crc32_ieee(const uint8_t *p, size_t n) {
    if (!crc_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static uint8_t *arena_mem;
    if (!arena_mem) {
        void *p = NULL;
        if (posix_memalign(&p, 16, FUZZ_ARENA_BYTES) != 0) abort();
        arena_mem = p;
    }
    void *img = NULL;
    if (posix_memalign(&img, 16, size ? size : 1) != 0) abort();
    if (size) memcpy(img, data, size);
    if (size >= 16) {
        /* Over the range the header claims when that is possible (a longer
         * buffer is allowed), else over the whole input. */
        const uint8_t *f = (const uint8_t *)img + 12;
        uint32_t claimed = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 |
                           (uint32_t)f[3] << 24;
        size_t end = claimed >= 12 && claimed <= size ? claimed : size;
        uint32_t crc = crc32_ieee((const uint8_t *)img + 12, end - 12);
        uint8_t *h = (uint8_t *)img + 8;
        h[0] = (uint8_t)crc;
        h[1] = (uint8_t)(crc >> 8);
        h[2] = (uint8_t)(crc >> 16);
        h[3] = (uint8_t)(crc >> 24);
    }

    nk_arena_t arena;
    nk_model_t *m = NULL;
    nk_error_t err;
    nk_arena_init(&arena, arena_mem, FUZZ_ARENA_BYTES);
    nk_status s = nk_model_load_buffer(&m, img, size, &arena, &err);
    if (s == NK_OK) {
        /* Inputs get a fixed pattern: the model, not the data, is fuzzed. */
        for (int32_t i = 0; i < nk_model_num_inputs(m); i++) {
            nk_tensor_t t;
            if (nk_model_input(m, i, &t) == NK_OK && t.data) memset(t.data, 0x3C, t.bytes);
        }
        s = nk_model_invoke(m, &err);
        nk_model_unload(m);
    }
    /* A failure must come with a terminated, non-empty message. */
    if (s != NK_OK && (err.status != (int32_t)s ||
                       memchr(err.message, '\0', sizeof err.message) == NULL ||
                       err.message[0] == '\0'))
        abort();
    free(img);
    return 0;
}

/*
 * A lowered model (`netkit aot --lower --name m`, m.c/m.h) against the
 * interpreter in one firmware: the same .nk image (embedded) loads from a
 * static arena, both get the same pseudo-random inputs, and every output
 * byte must be equal; the lowered buffer is exactly M_RAM_SIZE with guard
 * bytes after it that must stay untouched. Prints PASS.
 */
#include <stdio.h>
#include <string.h>

#include "netkit.h"
#include "m.h"

extern const unsigned char nk_model_image[];
extern const size_t nk_model_image_len;

#define GUARD 64u
static unsigned char arena_mem[256u * 1024u] __attribute__((aligned(16)));
static unsigned char ram[M_RAM_SIZE + GUARD] __attribute__((aligned(16)));

static uint32_t rng = 12345u;
static uint8_t next_byte(void) {
    rng = rng * 1664525u + 1013904223u;
    return (uint8_t)(rng >> 24);
}

/* Fills input i of the interpreter and copies it into the lowered buffer. */
static int fill_input(nk_model_t *model, int32_t i, void *lowered, size_t lowered_bytes) {
    nk_tensor_t t;
    size_t k;
    if (nk_model_input(model, i, &t) != NK_OK || t.bytes != lowered_bytes) {
        printf("FAIL: input %ld: the interpreter's size is not the header's\n", (long)i);
        return 0;
    }
    for (k = 0; k < t.bytes; k++) {
        if (t.dtype == NK_F32 && k % 4 == 0) { /* a float in [-2, 2) */
            float v = (float)((int)next_byte() - 128) / 64.0f;
            memcpy((unsigned char *)t.data + k, &v, 4);
            k += 3;
            continue;
        }
        ((unsigned char *)t.data)[k] = next_byte();
    }
    memcpy(lowered, t.data, t.bytes);
    return 1;
}

static int same_output(nk_model_t *model, int32_t i, const void *lowered, size_t lowered_bytes) {
    nk_tensor_t t;
    if (nk_model_output(model, i, &t) != NK_OK || t.bytes != lowered_bytes ||
        memcmp(t.data, lowered, t.bytes) != 0) {
        printf("FAIL: output %ld differs from the interpreter's\n", (long)i);
        return 0;
    }
    return 1;
}

int main(void) {
    nk_arena_t arena;
    nk_model_t *model = NULL;
    nk_error_t err;
    int round;
    unsigned i;
    nk_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (nk_model_load_buffer(&model, nk_model_image, nk_model_image_len, &arena, &err) != NK_OK) {
        printf("FAIL: load: %s\n", err.message);
        return 1;
    }
    for (round = 0; round < 3; round++) {
        memset(ram, 0xA5, sizeof ram);
        if (!fill_input(model, 0, M_INPUT0(ram), M_INPUT0_BYTES)) return 1;
#if M_NUM_INPUTS > 1
        if (!fill_input(model, 1, M_INPUT1(ram), M_INPUT1_BYTES)) return 1;
#endif
        if (nk_model_invoke(model, &err) != NK_OK) {
            printf("FAIL: invoke: %s\n", err.message);
            return 1;
        }
        if (m_run(ram) != NK_OK) {
            printf("FAIL: m_run\n");
            return 1;
        }
        if (!same_output(model, 0, M_OUTPUT0(ram), M_OUTPUT0_BYTES)) return 1;
#if M_NUM_OUTPUTS > 1
        if (!same_output(model, 1, M_OUTPUT1(ram), M_OUTPUT1_BYTES)) return 1;
#endif
        for (i = 0; i < GUARD; i++)
            if (ram[M_RAM_SIZE + i] != 0xA5) {
                printf("FAIL: the lowered model wrote past M_RAM_SIZE\n");
                return 1;
            }
    }
    printf("lowered: 3 rounds byte-identical to the interpreter, RAM %u B, interpreter arena %lu B\n",
           (unsigned)M_RAM_SIZE, (unsigned long)nk_arena_used(&arena));
    printf("PASS\n");
    return 0;
}

/*
 * Keyword spotting on a Cortex-M4F, built two ways from one source:
 *   kws_interpreter  the .nk image in flash, loaded by netkit's interpreter
 *                    (only this model's kernels linked: kws_ops.c; the
 *                    activation plan made by netkit aot: kws_plan.c)
 *   kws_lowered      the model lowered to C (netkit aot --lower): no
 *                    interpreter, one static buffer of KWS_RAM_SIZE bytes
 * Both run the same input (a fixed pseudo-random feature map: put your
 * 49x10 MFCC frames here) and print the 12 class scores, which are equal.
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "kws.h"
#include "netkit.h"

#ifdef EXAMPLE_LOWERED
static uint8_t ram[KWS_RAM_SIZE] __attribute__((aligned(16)));
#else
static uint8_t arena_mem[KWS_ARENA_SIZE] __attribute__((aligned(16)));
#endif

static void print_int(int v) {
    char buf[16], *p = buf + sizeof buf;
    int neg = v < 0;
    unsigned u = neg ? 0u - (unsigned)v : (unsigned)v;
    *--p = '\0';
    do *--p = (char)('0' + u % 10u); while ((u /= 10u) != 0);
    if (neg) *--p = '-';
    board_print(p);
}

int main(void) {
    int8_t *in, *out;
    uint32_t rng = 1u;
    int i;
#ifdef EXAMPLE_LOWERED
    in = KWS_INPUT0(ram);
    out = KWS_OUTPUT0(ram);
#else
    nk_arena_t arena;
    nk_model_t *model;
    nk_error_t err;
    nk_tensor_t x, y;
    nk_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (nk_model_load_buffer(&model, kws_nk, kws_nk_len, &arena, &err) != NK_OK ||
        nk_model_input(model, 0, &x) != NK_OK || nk_model_output(model, 0, &y) != NK_OK) {
        board_print("load failed\n");
        return 1;
    }
    in = (int8_t *)x.data;
    out = (int8_t *)y.data;
#endif
    for (i = 0; i < (int)KWS_INPUT0_BYTES; i++) {
        rng = rng * 1664525u + 1013904223u;
        in[i] = (int8_t)(rng >> 24);
    }
#ifdef EXAMPLE_LOWERED
    if (kws_run(ram) != NK_OK) return 1;
    board_print("lowered:");
#else
    if (nk_model_invoke(model, &err) != NK_OK) return 1;
    board_print("interpreter:");
#endif
    for (i = 0; i < (int)KWS_OUTPUT0_BYTES; i++) {
        board_print(" ");
        print_int(out[i]);
    }
    board_print("\n");
    return 0;
}

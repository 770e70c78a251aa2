/*
 * The program `netkit bench --target` runs under QEMU with the nkinsn
 * plugin. One build per target and source version serves every model, so
 * nothing is embedded: the model and its input come through semihosting
 * on bare metal, as plain files under QEMU's Linux user mode,
 *
 *   bench_runner MODEL.nk INPUT.bin
 *
 * INPUT.bin holding every model input's bytes back to back (the CLI writes
 * it). Regions for the plugin (nk_bench_start .. nk_bench_stop):
 *   0  empty: the marker overhead
 *   1  one nk_model_invoke: the code every firmware runs
 *   2  one nk_model_invoke_op_markers: the same ops, with an op marker pair
 *      (nk_op_marker_begin/end) around each, for per-op counts
 * The inputs are refilled before each invoke (an op may work in place).
 * Results are "nkbench <key> <value>" lines on stdout; a failure prints
 * "nkbench error <what>" and exits 1.
 *
 * Memory: the image and the arena come from the C library's heap (the
 * boards' RAM), the arena sized exactly by nk_model_arena_size on the
 * target, so the figure is the target's own (its structs and pointers).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netkit.h"
#include "../../tools/qemu-plugin/nk_bench_markers.h"

/* From model.c, built with NETKIT_OP_MARKERS (not in netkit.h: no library
 * a user links has it). */
nk_status nk_model_invoke_op_markers(nk_model_t *m, nk_error_t *err);
void nk_op_marker_begin(uint32_t k);
void nk_op_marker_end(uint32_t k);

/* Distinct bodies, so identical-code folding cannot merge them. */
volatile uint32_t nk_op_marker_sink;
__attribute__((noinline, used)) void nk_op_marker_begin(uint32_t k) { nk_op_marker_sink = k; }
__attribute__((noinline, used)) void nk_op_marker_end(uint32_t k) { nk_op_marker_sink = ~k; }

static int fail(const char *what, const char *detail) {
    printf("nkbench error %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

/* Reads a whole file into a 16-byte aligned heap block; on failure sets
 * *why and returns NULL. */
static unsigned char *read_file(const char *path, size_t *len, const char **why) {
    FILE *f = fopen(path, "rb");
    long n;
    unsigned char *raw, *p;
    *why = "cannot open it through semihosting";
    if (f == NULL) return NULL;
    *why = "cannot read it";
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    raw = malloc((size_t)n + 16u);
    if (raw == NULL) {
        *why = "it does not fit in the board's RAM";
        fclose(f);
        return NULL;
    }
    /* .nk payloads are 16-byte aligned in the file: bind in place. The
     * block is never freed, so the original pointer is not kept. */
    p = raw + ((16u - ((uintptr_t)raw & 15u)) & 15u);
    if (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(raw);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Nearly the largest heap block (up to 64 MiB), 16-byte aligned: scratch
 * for sizing, then the arena. */
static unsigned char *grab_scratch(size_t *size) {
    size_t n;
    for (n = 64u << 20; n >= 4096u; n -= n / 8u) {
        unsigned char *raw = malloc(n + 16u);
        if (raw != NULL) {
            *size = n;
            return raw + ((16u - ((uintptr_t)raw & 15u)) & 15u);
        }
    }
    return NULL;
}

static int fill_inputs(nk_model_t *m, const unsigned char *in, size_t in_len) {
    int32_t i, n = nk_model_num_inputs(m);
    size_t off = 0;
    for (i = 0; i < n; i++) {
        nk_tensor_t t;
        if (nk_model_input(m, i, &t) != NK_OK || off + (size_t)t.bytes > in_len) return -1;
        memcpy(t.data, in + off, (size_t)t.bytes);
        off += (size_t)t.bytes;
    }
    return off == in_len ? 0 : -1;
}

int main(int argc, char **argv) {
    size_t len = 0, in_len = 0, scratch_size = 0, need = 0;
    unsigned char *image, *in, *mem;
    nk_arena_t arena;
    nk_model_t *model = NULL;
    nk_error_t err;
    nk_status s;
    char detail[32];
    const char *why;

    /* The last two arguments: picolibc's semihosting crt0 puts a
     * placeholder before the program path, newlib's does not. */
    if (argc < 3) return fail("usage", "bench_runner MODEL.nk INPUT.bin");
    image = read_file(argv[argc - 2], &len, &why);
    if (image == NULL) return fail("the model", why);
    in = read_file(argv[argc - 1], &in_len, &why);
    if (in == NULL) return fail("the input", why);
    mem = grab_scratch(&scratch_size);
    if (mem == NULL) return fail("no room in the board's RAM for the arena", NULL);

    nk_arena_init(&arena, mem, scratch_size);
    if (nk_model_arena_size(image, len, NK_LOAD_BUFFER, &arena, &need, &err) != NK_OK)
        return fail("sizing the arena in the board's RAM", err.message);
    /* Exactly that much must load and one byte less must not: the figure is
     * checked on the target itself, not only computed. */
    s = NK_ERR_ARENA_OVERFLOW;
    if (need > 0) {
        nk_arena_init(&arena, mem, need - 1u);
        s = nk_model_load_buffer(&model, image, len, &arena, &err);
    }
    nk_arena_init(&arena, mem, need);
    if (nk_model_load_buffer(&model, image, len, &arena, &err) != NK_OK) return fail("load", err.message);
    printf("nkbench model_bytes %lu\n", (unsigned long)len);
    printf("nkbench arena_need %lu\n", (unsigned long)need);
    printf("nkbench arena_used %lu\n", (unsigned long)nk_arena_used(&arena));
    printf("nkbench arena_high_water %lu\n", (unsigned long)nk_arena_high_water(&arena));
    /* What stays in use can be less than what loading needs (load-time
     * scratch is given back), never more. */
    printf("nkbench arena_exact %d\n", s == NK_ERR_ARENA_OVERFLOW && nk_arena_used(&arena) <= need);

    if (fill_inputs(model, in, in_len) != 0) {
        snprintf(detail, sizeof detail, "%lu B given", (unsigned long)in_len);
        return fail("input bytes do not match the model's inputs", detail);
    }
    nk_bench_start();
    nk_bench_stop();
    nk_bench_start();
    s = nk_model_invoke(model, &err);
    nk_bench_stop();
    if (s != NK_OK) return fail("invoke", err.message);
    fill_inputs(model, in, in_len);
    nk_bench_start();
    s = nk_model_invoke_op_markers(model, &err);
    nk_bench_stop();
    if (s != NK_OK) return fail("invoke", err.message);
    printf("nkbench done 1\n");
    return 0;
}

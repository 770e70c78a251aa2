/*
 * Host helper of scripts/bench-mcu.sh: loads a .nk file with the host build
 * of the core and prints what nk_inspect_model reports, one "key value"
 * per line (macs, arena_after_load, flash_payload, file_bytes, num_ops).
 *
 *   cc -Iinclude -Icsrc csrc/netkit_unity.c cmake/cross/host_inspect.c -lm
 */
#include <stdio.h>
#include <stdlib.h>

#include "netkit.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s model.nk\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* The loader wants a 16-byte aligned image. */
    void *buf = NULL;
    if (n <= 0 || posix_memalign(&buf, 16, (size_t)n) != 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    fclose(f);
    nk_report_t rep;
    nk_error_t err;
    if (nk_inspect_model(buf, (size_t)n, &rep, NULL, 0, &err) != NK_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        return 1;
    }
    printf("macs %llu\n", (unsigned long long)rep.macs);
    printf("arena_after_load %llu\n", (unsigned long long)rep.arena_after_load);
    printf("flash_payload %llu\n", (unsigned long long)rep.flash_payload);
    printf("file_bytes %llu\n", (unsigned long long)rep.file_bytes);
    printf("num_ops %d\n", (int)rep.num_ops);
    printf("peak_activations %llu\n", (unsigned long long)rep.peak_activations);
    free(buf);
    return 0;
}

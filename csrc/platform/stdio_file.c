/*
 * stdio_file.c — model files read into the arena with fread (NETKIT_MMAP=0,
 * for hosts without mmap, and NK_LOAD_COPY there). The copy is the model
 * image: the loader binds weights into it and may fold batch-norm into it,
 * as into a private map. The loader rewinds the arena when this fails.
 */
#include "platform.h"
#include "../format.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

nk_status nk_platform_read_file(const char *path, nk_arena_t *arena, void **addr, size_t *len,
                                nk_error_t *err) {
    FILE *f = fopen(path, "rb");
    long size;
    void *p;
    if (f == NULL) return nk_platform_fail(err, NK_ERR_IO, "cannot open", path, errno);
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        int e = errno;
        fclose(f);
        return nk_platform_fail(err, NK_ERR_IO, "cannot size", path, e);
    }
    if (size == 0 || (unsigned long)size > UINT32_MAX) {
        fclose(f);
        return nk_platform_fail(err, NK_ERR_FORMAT, "empty or larger than 4 GiB:", path, 0);
    }
    p = nk_core_alloc(arena, (size_t)size, "model file", -1, NULL, err);
    if (p == NULL) {
        fclose(f);
        return NK_ERR_ARENA_OVERFLOW;
    }
    if (fread(p, 1, (size_t)size, f) != (size_t)size) {
        int e = ferror(f) ? errno : 0;
        fclose(f);
        return nk_platform_fail(err, NK_ERR_IO, "short read from", path, e);
    }
    fclose(f);
    *addr = p;
    *len = (size_t)size;
    return NK_OK;
}

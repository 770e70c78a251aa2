/*
 * posix_mmap.c — model files as private memory mappings (NETKIT_MMAP=1),
 * or read into the arena (NK_LOAD_COPY). The mapping starts read-only; the
 * loader asks for write access only when it folds a batch-norm into
 * weights, and then the kernel copies just the pages it touches
 * (MAP_PRIVATE), never changing the file.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "platform.h"
#include "../format.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens a regular, non-empty file of at most 4 GiB (the format's limit). */
static nk_status nk_platform_open(const char *path, int *fd_out, size_t *len, nk_error_t *err) {
    struct stat sb;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return nk_platform_fail(err, NK_ERR_IO, "cannot open", path, errno);
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return nk_platform_fail(err, NK_ERR_IO, "cannot stat", path, e);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return nk_platform_fail(err, NK_ERR_IO, "not a regular file:", path, 0);
    }
    if (sb.st_size <= 0 || (uint64_t)sb.st_size > UINT32_MAX) {
        close(fd);
        return nk_platform_fail(err, NK_ERR_FORMAT, "empty or larger than 4 GiB:", path, 0);
    }
    *fd_out = fd;
    *len = (size_t)sb.st_size;
    return NK_OK;
}

nk_status nk_platform_map(const char *path, void **addr, size_t *len, nk_error_t *err) {
    void *p;
    int fd = -1; /* set on NK_OK; the initializer quiets gcc -O3 (-Wmaybe-uninitialized) */
    nk_status s = nk_platform_open(path, &fd, len, err);
    if (s != NK_OK) return s;
    p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd); /* the mapping keeps the file */
    if (p == MAP_FAILED) return nk_platform_fail(err, NK_ERR_IO, "cannot map", path, errno);
    *addr = p;
    return NK_OK;
}

/* read(2), not a mapping: a file truncated meanwhile is a short read, not
 * a SIGBUS. */
nk_status nk_platform_read_file(const char *path, nk_arena_t *arena, void **addr, size_t *len,
                                nk_error_t *err) {
    uint8_t *p;
    size_t got = 0;
    int fd = -1; /* set on NK_OK; the initializer quiets gcc -O3 (-Wmaybe-uninitialized) */
    nk_status s = nk_platform_open(path, &fd, len, err);
    if (s != NK_OK) return s;
    p = (uint8_t *)nk_core_alloc(arena, *len, "model file", -1, NULL, err);
    if (p == NULL) {
        close(fd);
        return NK_ERR_ARENA_OVERFLOW;
    }
    while (got < *len) {
        ssize_t n = read(fd, p + got, *len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : 0;
            close(fd);
            return nk_platform_fail(err, NK_ERR_IO, "short read from", path, e);
        }
        got += (size_t)n;
    }
    close(fd);
    *addr = p;
    return NK_OK;
}

nk_status nk_platform_map_writable(void *addr, size_t len, nk_error_t *err) {
    if (mprotect(addr, len, PROT_READ | PROT_WRITE) != 0)
        return nk_platform_fail(err, NK_ERR_IO, "cannot make the model mapping writable:", "",
                             errno);
    return NK_OK;
}

void nk_platform_unmap(void *addr, size_t len) {
    if (addr != NULL) munmap(addr, len);
}

/*
 * platform.h — the only file access the core has, behind build options:
 *   NETKIT_MCU      no file API at all (models come from flash or a buffer)
 *   NETKIT_MMAP=1   posix_mmap.c: a private mapping of the file (default on
 *                   Linux and macOS)
 *   NETKIT_MMAP=0   stdio_file.c: fread into the arena
 * Both back ends also read a whole file into the arena (NK_LOAD_COPY).
 * The loader in model.c calls these and nothing else outside the core.
 */
#ifndef NK_PLATFORM_H
#define NK_PLATFORM_H

#include "../nk_internal.h"

#if !defined(NETKIT_MCU)
#include "../format.h"
#include <string.h>
#ifndef NETKIT_MMAP
#if defined(__unix__) || defined(__APPLE__)
#define NETKIT_MMAP 1
#else
#define NETKIT_MMAP 0
#endif
#endif

#if NETKIT_MMAP
/* Maps `path` read-only, privately: writes (made possible by
 * nk_platform_map_writable) copy the touched pages and never reach the file. */
NK_HIDDEN nk_status nk_platform_map(const char *path, void **addr, size_t *len,
                                    nk_error_t *err);
NK_HIDDEN nk_status nk_platform_map_writable(void *addr, size_t len, nk_error_t *err);
NK_HIDDEN void nk_platform_unmap(void *addr, size_t len);
#endif
/* Reads `path` into a 16-byte aligned block of the arena. On failure the
 * block may stay allocated: the caller rewinds. */
NK_HIDDEN nk_status nk_platform_read_file(const char *path, nk_arena_t *arena, void **addr,
                                          size_t *len, nk_error_t *err);

/* The host's monotonic clock in ns (host_clock.c), an nk_clock_fn for
 * nk_context_profile; `user` is unused. */
NK_HIDDEN uint64_t nk_platform_clock_ns(void *user);

/* The file-access failure of both back ends: "<what> <path>[: <strerror>]". */
static inline nk_status nk_platform_fail(nk_error_t *err, nk_status s, const char *what,
                                         const char *path, int errnum) {
    nk_msg m = NK_MSG_INIT;
    nk_msg_s(&m, what);
    nk_msg_s(&m, " ");
    nk_msg_s(&m, path);
    if (errnum != 0) {
        nk_msg_s(&m, ": ");
        nk_msg_s(&m, strerror(errnum));
    }
    return nk_fail(err, s, -1, m.text);
}
#endif /* !NETKIT_MCU */

#endif /* NK_PLATFORM_H */

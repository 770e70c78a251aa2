/*
 * <dirent.h> for the bare-metal test builds. Semihosting opens files on
 * the host but cannot list a directory, so opendir always fails (ENOSYS)
 * and test helpers that scan a directory find nothing there; tests that
 * need models get them by path or embedded. Only the C unit tests see
 * this header (cmake/cross/netkit-mcu-tests.cmake), never libnetkit.
 */
#ifndef NK_MCU_DIRENT_H
#define NK_MCU_DIRENT_H

#include <errno.h>

typedef struct nk_mcu_dir DIR;
struct dirent {
    char d_name[256];
};

static inline DIR *opendir(const char *path) {
    (void)path;
    errno = ENOSYS;
    return (DIR *)0;
}
static inline struct dirent *readdir(DIR *d) {
    (void)d;
    return (struct dirent *)0;
}
static inline int closedir(DIR *d) {
    (void)d;
    return -1;
}

#endif

/*
 * C start-up and host I/O for the Xtensa lx106 programs under QEMU.
 *
 * picolibc has no Xtensa semihosting, so this is ours: QEMU's sim machine
 * started with -semihosting services the Xtensa ISS `simcall` instruction
 * (call number in a2, arguments in a3..a5, result in a2, host errno in
 * a3). On it sit the POSIX calls picolibc's stdio and fopen() use (open,
 * read, write, lseek, close, _exit), stdin/stdout/stderr, argv from the
 * -semihosting-config arg= list, and the crash report the vectors in
 * start.S call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define NK_XT_CRASH_STATUS 100

enum {
    NK_SIM_EXIT = 1,
    NK_SIM_READ = 3,
    NK_SIM_WRITE = 4,
    NK_SIM_OPEN = 5,
    NK_SIM_CLOSE = 6,
    NK_SIM_LSEEK = 19,
    NK_SIM_ARGC = 1000,
    NK_SIM_ARGV_SIZE = 1001,
    NK_SIM_ARGV = 1002,
};

struct nk_sim_result {
    int32_t value;
    int32_t error;
};

static struct nk_sim_result nk_simcall(int32_t nr, int32_t a, int32_t b, int32_t c) {
    register int32_t a2 __asm__("a2") = nr;
    register int32_t a3 __asm__("a3") = a;
    register int32_t a4 __asm__("a4") = b;
    register int32_t a5 __asm__("a5") = c;
    __asm__ volatile("simcall" : "+r"(a2), "+r"(a3) : "r"(a4), "r"(a5) : "memory");
    struct nk_sim_result r = {a2, a3};
    return r;
}

/* The POSIX convention: the result, or -1 with errno set (the host's
 * error numbers: Linux's, which agree with picolibc's for the file and I/O
 * errors these calls return). */
static int32_t nk_sim_posix(int32_t nr, int32_t a, int32_t b, int32_t c) {
    struct nk_sim_result r = nk_simcall(nr, a, b, c);
    if (r.value == -1) {
        errno = r.error;
    }
    return r.value;
}

ssize_t write(int fd, const void *buf, size_t len) {
    return nk_sim_posix(NK_SIM_WRITE, fd, (int32_t)(uintptr_t)buf, (int32_t)len);
}

ssize_t read(int fd, void *buf, size_t len) {
    return nk_sim_posix(NK_SIM_READ, fd, (int32_t)(uintptr_t)buf, (int32_t)len);
}

/* QEMU 7.2's sim machine hands the flags to the host's open(2) as they
 * are (a host is Linux here: its generic O_* values), so translate from
 * picolibc's. */
int open(const char *path, int flags, ...) {
    int32_t host = 0;
    switch (flags & O_ACCMODE) {
    case O_WRONLY: host = 01; break;
    case O_RDWR: host = 02; break;
    default: host = 0; break;
    }
    if (flags & O_CREAT) host |= 0100;
    if (flags & O_EXCL) host |= 0200;
    if (flags & O_TRUNC) host |= 01000;
    if (flags & O_APPEND) host |= 02000;
    return nk_sim_posix(NK_SIM_OPEN, (int32_t)(uintptr_t)path, host, 0644);
}

int close(int fd) { return nk_sim_posix(NK_SIM_CLOSE, fd, 0, 0); }

off_t lseek(int fd, off_t offset, int whence) {
    /* SEEK_SET/CUR/END are 0/1/2 on both sides. */
    return nk_sim_posix(NK_SIM_LSEEK, fd, (int32_t)offset, whence);
}

/* stdout and stderr collect a line (or a buffer full) per simcall. */
struct nk_sim_stream {
    FILE file; /* first: picolibc hands this pointer back to put/flush */
    int fd;
    size_t used;
    char buf[128];
};

static int nk_stream_flush(FILE *f) {
    struct nk_sim_stream *s = (struct nk_sim_stream *)f;
    size_t done = 0;
    while (done < s->used) {
        ssize_t n = write(s->fd, s->buf + done, s->used - done);
        if (n <= 0) {
            s->used = 0;
            return EOF;
        }
        done += (size_t)n;
    }
    s->used = 0;
    return 0;
}

static int nk_stream_put(char c, FILE *f) {
    struct nk_sim_stream *s = (struct nk_sim_stream *)f;
    s->buf[s->used++] = c;
    if (c == '\n' || s->used == sizeof s->buf) {
        if (nk_stream_flush(f) != 0) {
            return EOF;
        }
    }
    return (unsigned char)c;
}

static int nk_stream_get(FILE *f) {
    (void)f;
    unsigned char c;
    return read(0, &c, 1) == 1 ? c : _FDEV_EOF;
}

static struct nk_sim_stream nk_stdout = {
    .file = FDEV_SETUP_STREAM(nk_stream_put, NULL, nk_stream_flush, _FDEV_SETUP_WRITE), .fd = 1};
static struct nk_sim_stream nk_stderr = {
    .file = FDEV_SETUP_STREAM(nk_stream_put, NULL, nk_stream_flush, _FDEV_SETUP_WRITE), .fd = 2};
static FILE nk_stdin = FDEV_SETUP_STREAM(NULL, nk_stream_get, NULL, _FDEV_SETUP_READ);

FILE *const stdin = &nk_stdin;
FILE *const stdout = &nk_stdout.file;
FILE *const stderr = &nk_stderr.file;

void _exit(int status) {
    nk_stream_flush(stdout);
    nk_stream_flush(stderr);
    for (;;) {
        (void)nk_simcall(NK_SIM_EXIT, status, 0, 0);
    }
}

/* abort() and assert() raise SIGABRT through these: exit 128 + signal, as
 * a host shell reports it (134). */
pid_t getpid(void) { return 1; }

int kill(pid_t pid, int sig) {
    (void)pid;
    _exit(128 + sig);
}

/* No file system to describe: fopen() and friends do without. */
int fstat(int fd, struct stat *st) {
    (void)fd;
    (void)st;
    errno = ENOSYS;
    return -1;
}

/* argv from the host: QEMU writes the pointer array and the strings into
 * one block of the size it reports. */
#define NK_XT_ARGS_MAX 1024
static uint32_t nk_args[NK_XT_ARGS_MAX / 4];

static char **nk_xtensa_argv(int *argc) {
    static char *none[1];
    int32_t n = nk_simcall(NK_SIM_ARGC, 0, 0, 0).value;
    int32_t size = nk_simcall(NK_SIM_ARGV_SIZE, 0, 0, 0).value;
    if (n <= 0 || size <= 0 || size > (int32_t)sizeof nk_args) {
        if (size > (int32_t)sizeof nk_args) {
            static const char msg[] = "xtensa: command line too long, argv dropped\n";
            (void)write(2, msg, sizeof msg - 1);
        }
        *argc = 0;
        return none;
    }
    (void)nk_simcall(NK_SIM_ARGV, (int32_t)(uintptr_t)nk_args, 0, 0);
    *argc = n;
    return (char **)nk_args;
}

extern char __bss_start[], __bss_end[];
void __libc_init_array(void);
int main(int argc, char **argv);
void nk_xtensa_start(void);

/* Called by the reset stub (start.S) with the stack set. */
void nk_xtensa_start(void) {
    memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
    __libc_init_array();
    int argc;
    char **argv = nk_xtensa_argv(&argc);
    exit(main(argc, argv));
}

/* -nostartfiles drops crti.o, which defines these for __libc_init_array. */
void _init(void) {}
void _fini(void) {}

/* The crash vectors' stack (start.S uses its top). */
uint32_t nk_xtensa_crash_stack[128];

static void nk_hex(char *dst, uint32_t v) {
    for (int i = 7; i >= 0; i--) {
        dst[i] = "0123456789abcdef"[v & 15u];
        v >>= 4;
    }
}

void nk_xtensa_crash(uint32_t kind, uint32_t cause, uint32_t pc, uint32_t vaddr);

/* Reports an exception and ends the run with status 100. Called from the
 * vectors in start.S; uses no stdio, whose state may be what broke. */
void nk_xtensa_crash(uint32_t kind, uint32_t cause, uint32_t pc, uint32_t vaddr) {
    static const char *const kinds[] = {"?", "debug", "nmi", "kernel", "user", "double"};
    const char *k = kinds[kind < 6 ? kind : 0];
    char msg[] = "exception: cause 0x........ at pc 0x........ (vaddr 0x........)\n";
    nk_hex(msg + 19, cause);
    nk_hex(msg + 36, pc);
    nk_hex(msg + 54, vaddr);
    (void)write(2, k, strlen(k));
    (void)write(2, " ", 1);
    (void)write(2, msg, sizeof msg - 1);
    for (;;) {
        (void)nk_simcall(NK_SIM_EXIT, NK_XT_CRASH_STATUS, 0, 0);
    }
}

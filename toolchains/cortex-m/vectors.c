/*
 * Vector table and C start-up for the Cortex-M targets under QEMU, over
 * newlib's semihosting library (librdimon: stdio, files and exit go to the
 * host through BKPT 0xAB, which QEMU services with -semihosting-config).
 *
 * A fault or stray interrupt prints the exception number and faulting PC
 * and ends QEMU with status 100, so a crashing test fails fast instead of
 * hanging until its timeout.
 */
#include <stdint.h>
#include <stdlib.h>

#define NK_BSP_FAULT_STATUS 100

extern uint32_t __stack_top;
void Reset_Handler(void);
void nk_bsp_fault_entry(void);
void nk_bsp_start(void);
void nk_bsp_fault(const uint32_t *frame);
int main(int argc, char **argv);

/* librdimon opens the semihosting stdin/stdout/stderr here. */
void initialise_monitor_handles(void);
void __libc_init_array(void);
void _exit(int status);

/* -nostartfiles drops crti.o, which normally defines these. */
void _init(void) {}
void _fini(void) {}

/* 16 system exceptions + 32 external interrupts: every QEMU board we use
 * has its peripherals' IRQs disabled, so one fault entry serves them all. */
__attribute__((section(".isr_vector"), used))
void (*const nk_bsp_vectors[16 + 32])(void) = {
    (void (*)(void))(uintptr_t)&__stack_top, /* initial MSP */
    Reset_Handler,
    [2 ... 47] = nk_bsp_fault_entry,
};

/* One semihosting call: operation in r0, argument block in r1, result in r0. */
static uint32_t nk_bsp_semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#define NK_SYS_WRITE0 0x04u
#define NK_SYS_GET_CMDLINE 0x15u

/* Print a NUL-terminated string on the host. */
static void nk_bsp_write0(const char *s) { (void)nk_bsp_semihost(NK_SYS_WRITE0, s); }

/* argv from the host's command line (QEMU: the -semihosting-config arg=
 * list, or the kernel path plus -append), split at spaces. */
#define NK_BSP_CMDLINE_MAX 512
#define NK_BSP_ARGV_MAX 32
static char nk_bsp_cmdline[NK_BSP_CMDLINE_MAX];
static char *nk_bsp_argv[NK_BSP_ARGV_MAX + 1];

static int nk_bsp_args(void) {
    struct {
        char *buf;
        uint32_t len;
    } block = {nk_bsp_cmdline, NK_BSP_CMDLINE_MAX - 1};
    if (nk_bsp_semihost(NK_SYS_GET_CMDLINE, &block) != 0) {
        return 0;
    }
    nk_bsp_cmdline[block.len < NK_BSP_CMDLINE_MAX ? block.len : NK_BSP_CMDLINE_MAX - 1] = '\0';
    int argc = 0;
    char *p = nk_bsp_cmdline;
    while (*p != '\0' && argc < NK_BSP_ARGV_MAX) {
        while (*p == ' ') {
            *p++ = '\0';
        }
        if (*p == '\0') {
            break;
        }
        nk_bsp_argv[argc++] = p;
        while (*p != '\0' && *p != ' ') {
            p++;
        }
    }
    nk_bsp_argv[argc] = NULL;
    return argc;
}

static void nk_bsp_hex(char *dst, uint32_t v) {
    for (int i = 7; i >= 0; i--) {
        dst[i] = "0123456789abcdef"[v & 15u];
        v >>= 4;
    }
}

void nk_bsp_fault(const uint32_t *frame) {
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    /* "fault: exception 0x00000003 at pc 0x00001234\n" */
    char msg[] = "fault: exception 0x........ at pc 0x........\n";
    nk_bsp_hex(msg + 19, ipsr & 0x1ffu);
    nk_bsp_hex(msg + 36, frame[6]);
    nk_bsp_write0(msg);
    _exit(NK_BSP_FAULT_STATUS);
}

void nk_bsp_start(void) {
    initialise_monitor_handles();
    __libc_init_array();
    int argc = nk_bsp_args();
    exit(main(argc, nk_bsp_argv));
}

/*
 * Start-up for the example on Cortex-M4F: the vector table, a reset handler
 * that turns the FPU on and sets up .data and .bss before main, and two
 * semihosting calls (print, exit) so QEMU shows the output and ends.
 * A real board: add its interrupt handlers to the table, set the clocks in
 * reset_handler before main, and replace semihosting with a UART (without
 * a debugger attached, a semihosting call stops the core).
 */
#include <stdint.h>

#include "board.h"

extern uint32_t data_load[], data_start[], data_end[], bss_start[], bss_end[], stack_top[];
int main(void);

static void semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}

void board_print(const char *s) { semihost(0x04, s); } /* SYS_WRITE0 */

void board_exit(int code) {
    /* SYS_EXIT_EXTENDED: ADP_Stopped_ApplicationExit and the code (QEMU exits with it) */
    static uint32_t block[2];
    block[0] = 0x20026u;
    block[1] = (uint32_t)code;
    semihost(0x20, block);
    for (;;) {
    }
}

void reset_handler(void) {
    uint32_t *src = data_load, *dst = data_start;
    /* CP10 and CP11 full access: the compiler uses FPU registers anywhere */
    *(volatile uint32_t *)0xE000ED88u |= 0x00F00000u;
    __asm__ volatile("dsb\n\tisb");
    while (dst < data_end) *dst++ = *src++;
    for (dst = bss_start; dst < bss_end; dst++) *dst = 0;
    board_exit(main());
}

static void fault_handler(void) {
    board_print("fault\n");
    board_exit(3);
}

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))stack_top, reset_handler, fault_handler, fault_handler, fault_handler, fault_handler,
    fault_handler,
};

/*
 * Reset entry for every Cortex-M target (ARMv6-M to ARMv8.1-M): only
 * Thumb-1 instructions, so the same file runs on the M0.
 *
 * Order matters: the FPU/MVE coprocessors are switched on before any
 * compiled C runs (the compiler may use FP registers anywhere once
 * -mfloat-abi=hard), then .data is copied from flash and .bss zeroed.
 */
    .syntax unified
    .thumb

    .section .text.Reset_Handler,"ax",%progbits
    .global Reset_Handler
    .type   Reset_Handler, %function
    .thumb_func
Reset_Handler:
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    ldr   r0, =0xE000ED88       /* SCB->CPACR */
    ldr   r1, [r0]
    ldr   r2, =0x00F00000       /* CP10 and CP11: full access */
    orrs  r1, r1, r2
    str   r1, [r0]
    dsb
    isb
#endif
    ldr   r1, =__data_load
    ldr   r2, =__data_start
    ldr   r3, =__data_end
.Lcopy:
    cmp   r2, r3
    bhs   .Lzero_init
    ldr   r0, [r1]
    str   r0, [r2]
    adds  r1, r1, #4
    adds  r2, r2, #4
    b     .Lcopy
.Lzero_init:
    ldr   r2, =__bss_start__
    ldr   r3, =__bss_end__
    movs  r0, #0
.Lzero:
    cmp   r2, r3
    bhs   .Lrun
    str   r0, [r2]
    adds  r2, r2, #4
    b     .Lzero
.Lrun:
    bl    nk_bsp_start
.Lhang:
    b     .Lhang
    .size Reset_Handler, .-Reset_Handler
    .pool

/*
 * Every fault and unexpected interrupt lands here. Hand the exception
 * frame (whichever stack was active, per EXC_RETURN bit 2) to C, which
 * reports it over semihosting and exits QEMU with a non-zero status.
 */
    .section .text.nk_bsp_fault_entry,"ax",%progbits
    .global nk_bsp_fault_entry
    .type   nk_bsp_fault_entry, %function
    .thumb_func
nk_bsp_fault_entry:
    movs  r0, #4
    mov   r1, lr
    tst   r0, r1
    beq   .Lmsp
    mrs   r0, psp
    b     .Lreport
.Lmsp:
    mrs   r0, msp
.Lreport:
    ldr   r2, =nk_bsp_fault
    bx    r2
    .size nk_bsp_fault_entry, .-nk_bsp_fault_entry
    .pool

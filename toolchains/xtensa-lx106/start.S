/*
 * Reset and exception vectors for the Xtensa lx106 (ESP8266 core) on
 * QEMU's `sim` machine (qemu-system-xtensa -M sim -cpu lx106).
 *
 * The sim machine ignores the ELF entry point: the core starts at its reset
 * vector, 0x50000000 (the start of sysrom0), where lx106.ld places
 * .nk_reset. Every literal is kept in front of its l32r in the same section,
 * so the code does not depend on where the linker puts .literal sections.
 */
    .section .nk_reset, "ax"
    .global nk_xtensa_reset
    .type nk_xtensa_reset, @function
nk_xtensa_reset:
    j       1f
    .align  4
.Lstack_top:
    .word   __stack_top
.Lvectors:
    .word   nk_xtensa_vectors
.Lstart:
    .word   nk_xtensa_start
1:
    l32r    a1, .Lstack_top
    l32r    a2, .Lvectors
    wsr     a2, vecbase
    /* PS: user vector mode, EXCM clear, interrupt level 0, so an exception
     * in C code takes the user vector (EXCCAUSE says which). No interrupt is
     * enabled (INTENABLE is 0 after reset). */
    movi    a2, 0x20
    wsr     a2, ps
    rsync
    l32r    a0, .Lstart
    callx0  a0
2:  j       2b
    .size nk_xtensa_reset, . - nk_xtensa_reset

/*
 * Vector table at VECBASE (lx106.ld aligns it to 1 KB). Each vector loads a
 * code for the crash report into a2, the PC that was interrupted (from the
 * EPC register of its level) into a4 and joins the common entry, which
 * switches to a stack of its own (a1 may be what failed) and calls
 * nk_xtensa_crash(kind, EXCCAUSE, PC, EXCVADDR) in semihost.c: it reports
 * over semihosting and exits with status 100: a crash ends the run at once
 * instead of at the runner's timeout.
 */
    .section .nk_vectors, "ax"
    .global nk_xtensa_vectors
nk_xtensa_vectors:
    .org    0x10                /* debug exception (level 2): BREAK, ... */
    movi    a2, 1
    rsr     a4, epc2
    j       .Lcrash
    .org    0x20                /* NMI (level 3) */
    movi    a2, 2
    rsr     a4, epc3
    j       .Lcrash
    .org    0x30                /* kernel exception (PS.UM = 0) */
    movi    a2, 3
    rsr     a4, epc1
    j       .Lcrash
    .org    0x50                /* user exception: illegal instruction, load/store error, ... */
    movi    a2, 4
    rsr     a4, epc1
    j       .Lcrash
    .org    0x70                /* double exception (an exception with PS.EXCM set) */
    movi    a2, 5
    rsr     a4, depc
    j       .Lcrash
    .org    0x80
    .align  4
.Lcrash_stack_top:
    .word   nk_xtensa_crash_stack + 512
.Lcrash_fn:
    .word   nk_xtensa_crash
.Lcrash:
    l32r    a1, .Lcrash_stack_top
    rsr     a3, exccause
    rsr     a5, excvaddr
    l32r    a0, .Lcrash_fn
    callx0  a0
3:  j       3b

#!/bin/sh
# Runs one cross-built program under QEMU and exits with its status.
#
#   toolchains/qemu-run.sh <target> <program> [args...]
#
# <target> is a toolchain file's name without .cmake (cortex-m4f, rv32imac,
# xtensa-lx106,
# aarch64-linux, ...). The CMake toolchain files set this script (with the
# target) as CMAKE_CROSSCOMPILING_EMULATOR, so plain `ctest` runs every test
# here. Bare-metal programs talk to the host through semihosting (stdio,
# files, exit status); stdin is /dev/null and no QEMU window, monitor or
# serial port is opened, so a closed stdin (CI) cannot stop a run.
#
# Environment:
#   NK_QEMU_TIMEOUT  seconds before the run is killed (default 300): a
#                    hung program fails instead of stalling the suite
#   NK_QEMU_PLUGIN   "path/to/plugin.so,arg=..." loaded with -plugin
#   NK_QEMU          print the QEMU command line on stderr when set to "echo"
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 <target> <program> [args...]" >&2
    exit 2
fi
target=$1
prog=$2
shift 2

semi="-semihosting-config enable=on,target=native"
quiet="-display none -monitor none -serial none"

case $target in
    cortex-m0)  qemu="qemu-system-arm -M microbit -global nrf51-soc.flash-size=0x400000 -global nrf51-soc.sram-size=0x400000" ;;
    cortex-m3)  qemu="qemu-system-arm -M mps2-an385" ;;
    cortex-m4f) qemu="qemu-system-arm -M mps2-an386" ;;
    cortex-m7)  qemu="qemu-system-arm -M mps2-an500" ;;
    cortex-m33) qemu="qemu-system-arm -M mps2-an505" ;;
    cortex-m55) qemu="qemu-system-arm -M mps3-an547" ;;
    rv32imac)   qemu="qemu-system-riscv32 -M virt -bios none" ;;
    # The sim machine starts the core at its reset vector (0x50000000) and
    # services the Xtensa ISS simcall semihosting (toolchains/xtensa-lx106).
    xtensa-lx106) qemu="qemu-system-xtensa -M sim -cpu lx106" ;;
    aarch64-linux) qemu="qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
    armv7-linux)   qemu="qemu-arm -L /usr/arm-linux-gnueabihf" ;;
    *) echo "qemu-run.sh: unknown target '$target'" >&2; exit 2 ;;
esac

plugin=
if [ -n "${NK_QEMU_PLUGIN:-}" ]; then
    plugin="-plugin $NK_QEMU_PLUGIN"
fi

timeout_s=${NK_QEMU_TIMEOUT:-300}

case $target in
    *-linux)
        # User mode: the program is a Linux process; args pass through.
        [ "${NK_QEMU:-}" = echo ] && echo "$qemu $plugin $prog $*" >&2
        # shellcheck disable=SC2086
        exec timeout -k 5 "$timeout_s" $qemu $plugin "$prog" "$@" </dev/null
        ;;
    *)
        # Semihosting passes the command line as one string: the program's
        # path, then the arguments (which must not contain spaces).
        semiargs="$semi,arg=$prog"
        for a in "$@"; do
            semiargs="$semiargs,arg=$a"
        done
        [ "${NK_QEMU:-}" = echo ] && echo "$qemu $quiet $semiargs $plugin -kernel $prog" >&2
        # shellcheck disable=SC2086
        exec timeout -k 5 "$timeout_s" $qemu $quiet $semiargs $plugin -kernel "$prog" </dev/null
        ;;
esac

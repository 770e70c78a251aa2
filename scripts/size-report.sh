#!/usr/bin/env bash
# Code size of libnetkit per MCU target at -Os: .text, .rodata, .data and
# .bss summed over the library's objects (each compiled with
# -ffunction-sections -fdata-sections, in the MCU configuration), for
#   core            arena, errors, CRC, format, loader/invoke, planner
#   + float kernels the core, the op table and validators (csrc/ops/) and
#                   the float32 reference kernels
#   + all kernels   also the int8 reference kernels and fixed-point maths
#                   (kernels/ref/*i8*, qmath), when present
# A firmware that links with --gc-sections keeps at most this much.
#
#   scripts/size-report.sh            Markdown tables on stdout
#   NK_SIZE_TARGETS="cortex-m4f" scripts/size-report.sh
#   NK_SIZE_DETAIL=cortex-m4f         per-file table for that target (default)
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(${NK_SIZE_TARGETS:-cortex-m0 cortex-m4f cortex-m55 rv32imac})
OUT=${NK_SIZE_BUILD:-build/size}
mkdir -p "$OUT"

flags_of() {
    case $1 in
        cortex-m0)  echo "arm-none-eabi -mcpu=cortex-m0 -mthumb -mfloat-abi=soft" ;;
        cortex-m3)  echo "arm-none-eabi -mcpu=cortex-m3 -mthumb -mfloat-abi=soft" ;;
        cortex-m4f) echo "arm-none-eabi -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16" ;;
        cortex-m7)  echo "arm-none-eabi -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16" ;;
        cortex-m33) echo "arm-none-eabi -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16" ;;
        cortex-m55) echo "arm-none-eabi -mcpu=cortex-m55 -mthumb -mfloat-abi=hard" ;;
        rv32imac)   echo "riscv64-unknown-elf -march=rv32imac -mabi=ilp32 -mcmodel=medany --specs=picolibc.specs" ;;
        *) echo "size-report.sh: unknown target $1" >&2; exit 2 ;;
    esac
}

# The core: every csrc/*.c the MCU build compiles, without host-only parts.
core_srcs=()
for f in csrc/*.c csrc/platform/*.c; do
    [[ -e $f ]] || continue
    case $(basename "$f") in
        *_test.c | netkit_unity.c | inspect.c) continue ;;
        posix*.c | stdio*.c | mmap*.c | file*.c) continue ;; # hosted platform layers
    esac
    core_srcs+=("$f")
done
kernel_srcs=()  # float: the op layer and the f32 reference kernels
int8_srcs=()    # integer: *i8* kernels and the fixed-point primitives
for f in csrc/ops/*.c csrc/kernels/ref/*.c; do
    case $(basename "$f") in
        *i8* | qmath*) int8_srcs+=("$f") ;;
        *) kernel_srcs+=("$f") ;;
    esac
done

# sizes <prefix> <cflags...> -- <sources...>: prints "text rodata data bss"
sizes() {
    local prefix=$1 objdir=$2
    shift 2
    local cflags=()
    while [[ $1 != -- ]]; do cflags+=("$1"); shift; done
    shift
    local objs=()
    for src in "$@"; do
        local o=$objdir/$(echo "$src" | tr / _).o
        "$prefix-gcc" "${cflags[@]}" -std=c99 -Os -DNETKIT_MCU=1 -DNDEBUG \
            -ffunction-sections -fdata-sections -Iinclude -Icsrc -c "$src" -o "$o"
        objs+=("$o")
    done
    "$prefix-size" -A "${objs[@]}" | awk '
        $1 ~ /^\.(text|init|fini)/                  { t += $2 }
        $1 ~ /^\.s?rodata/                          { r += $2 }
        $1 ~ /^\.s?data/                            { d += $2 }
        $1 ~ /^\.s?bss/ || $1 == "COMMON"           { b += $2 }
        END { printf "%d %d %d %d\n", t, r, d, b }'
}

echo "| target | part | .text | .rodata | .data | .bss |"
echo "|---|---|---:|---:|---:|---:|"
for t in "${TARGETS[@]}"; do
    read -r prefix rest <<<"$(flags_of "$t")"
    read -ra cflags <<<"$rest"
    objdir=$OUT/$t
    mkdir -p "$objdir"
    read -r ct cr cd cb <<<"$(sizes "$prefix" "$objdir" "${cflags[@]}" -- "${core_srcs[@]}")"
    read -r kt kr kd kb <<<"$(sizes "$prefix" "$objdir" "${cflags[@]}" -- "${kernel_srcs[@]}")"
    echo "| $t | core | $ct | $cr | $cd | $cb |"
    echo "| $t | core + float kernels | $((ct + kt)) | $((cr + kr)) | $((cd + kd)) | $((cb + kb)) |"
    if ((${#int8_srcs[@]})); then
        read -r it ir id ib <<<"$(sizes "$prefix" "$objdir" "${cflags[@]}" -- "${int8_srcs[@]}")"
        echo "| $t | core + all kernels (f32 + int8) | $((ct + kt + it)) | $((cr + kr + ir)) | $((cd + kd + id)) | $((cb + kb + ib)) |"
    fi
done
detail=${NK_SIZE_DETAIL-cortex-m4f}
if [[ -n $detail ]]; then
    read -r prefix rest <<<"$(flags_of "$detail")"
    echo
    echo "Per file on $detail (-Os):"
    echo
    echo "| file | .text | .rodata | .data | .bss |"
    echo "|---|---:|---:|---:|---:|"
    mkdir -p "$OUT/$detail"
    read -ra cflags <<<"$rest"
    for src in "${core_srcs[@]}" "${kernel_srcs[@]}" "${int8_srcs[@]}"; do
        read -r ft fr fd fb <<<"$(sizes "$prefix" "$OUT/$detail" "${cflags[@]}" -- "$src")"
        echo "| ${src#csrc/} | $ft | $fr | $fd | $fb |"
    done
fi
echo
echo "core: ${core_srcs[*]}"
echo "float kernels: ${kernel_srcs[*]}"
echo "int8: ${int8_srcs[*]:-none}"

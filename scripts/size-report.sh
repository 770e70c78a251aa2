#!/usr/bin/env bash
# Code size of libnetkit per MCU target at -Os: .text, .rodata, .data and
# .bss summed over the library's objects (each compiled with
# -ffunction-sections -fdata-sections, in the MCU configuration), for
#   core            arena, errors, CRC, format, loader/invoke, planner
#   + float kernels the core, the op table and validators (csrc/ops/), the
#                   float32 reference kernels and the target's fast float32
#                   set (kernels/armv7em/fpu_f32.c on FPU targets)
#   + all kernels   also the int8 reference kernels and fixed-point maths
#                   (kernels/ref/*i8*, qmath) and the target's fast int8
#                   set (kernels/armv7em/ on DSP targets, kernels/mve/ on MVE)
# A firmware that links with --gc-sections keeps at most this much.
#
# "core, no message text" is the core with NETKIT_STRIP_MESSAGES=1.
#
# Then the worst-case stack depth of every public entry point (NK_API in
# include/netkit.h) on NK_STACK_TARGET (default cortex-m4f), at -Os and -O2:
# gcc's -fstack-usage frames summed along the deepest path of its
# -fcallgraph-info call graph (scripts/stack-depth.awk says how pointer
# calls are resolved). libc/libm/libgcc callees are not counted (listed).
#
#   scripts/size-report.sh            Markdown tables on stdout
#   NK_SIZE_TARGETS="cortex-m4f" scripts/size-report.sh
#   NK_SIZE_DETAIL=cortex-m4f         per-file table for that target (default)
#   NK_STACK_TARGET=                  no stack table
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(${NK_SIZE_TARGETS:-cortex-m0 cortex-m4f cortex-m55 rv32imac xtensa-lx106})
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
        xtensa-lx106) echo "xtensa-lx106-elf --specs=/usr/lib/xtensa-lx106-elf/picolibc.specs" ;;
        *) echo "size-report.sh: unknown target $1" >&2; exit 2 ;;
    esac
}

# The core: every csrc/*.c the MCU build compiles, without host-only parts.
core_srcs=()
for f in csrc/*.c csrc/platform/*.c; do
    [[ -e $f ]] || continue
    case $(basename "$f") in
        *_test.c | netkit_unity.c | inspect.c) continue ;;
        posix*.c | stdio*.c | mmap*.c | file*.c | host_*.c) continue ;; # hosted platform layers
        plan_fixed.c) continue ;; # replaces plan.c when netkit aot's plan is linked (size-models.sh)
    esac
    core_srcs+=("$f")
done
kernel_srcs=()  # float: the op layer and the f32 reference kernels
int8_srcs=()    # integer: *i8* kernels, the fixed-point primitives and the
                # fast int8 sets (kernels/<set>/, empty on targets without
                # the set's feature: kernels/fast_i8.h)
for f in csrc/ops/*.c csrc/kernels/*/*.c; do
    case $f in
        csrc/kernels/ref/* | csrc/kernels/armv7em/fpu_f32.c) ;;
        csrc/kernels/host/*) continue ;; # hosted builds' SIMD kernels
        csrc/kernels/*) int8_srcs+=("$f"); continue ;;
    esac
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
        $1 ~ /^\.(text|init|fini|literal)/          { t += $2 } # Xtensa: literal pools are code
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
    mkdir -p "$objdir/strip"
    read -r ct cr cd cb <<<"$(sizes "$prefix" "$objdir" "${cflags[@]}" -- "${core_srcs[@]}")"
    read -r kt kr kd kb <<<"$(sizes "$prefix" "$objdir" "${cflags[@]}" -- "${kernel_srcs[@]}")"
    echo "| $t | core | $ct | $cr | $cd | $cb |"
    read -r st sr sd sb <<<"$(sizes "$prefix" "$objdir/strip" "${cflags[@]}" -DNETKIT_STRIP_MESSAGES=1 -- "${core_srcs[@]}")"
    echo "| $t | core, no message text | $st | $sr | $sd | $sb |"
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

# stack_graph <target> <name> <cflags...>: compiles every library source with
# -fstack-usage -fcallgraph-info=su into $OUT/stack-<target>-<name> and prints
# the input of scripts/stack-depth.awk. -fno-ipa-icf keeps each function its
# own node (folded twins would leave calls to names with no frame).
stack_graph() {
    local t=$1 name=$2 prefix rest dir src base o i
    local fields=(validate workspace_size macs eval)
    shift 2
    read -r prefix rest <<<"$(flags_of "$t")"
    read -ra cflags <<<"$rest"
    dir=$OUT/stack-$t-$name
    rm -rf "$dir"
    mkdir -p "$dir"
    for src in "${core_srcs[@]}" "${kernel_srcs[@]}" "${int8_srcs[@]}"; do
        base=$(echo "$src" | tr / _)
        "$prefix-gcc" "${cflags[@]}" "$@" -std=c99 -DNETKIT_MCU=1 -DNDEBUG -ffunction-sections \
            -fdata-sections -fno-ipa-icf -fstack-usage -fcallgraph-info=su -Iinclude -Icsrc \
            -c "$src" -o "$dir/$base.o" -dumpbase "$base" -dumpdir "$dir/"
    done
    # where nk_op_def keeps its function pointers on this target
    i=0
    printf '#include <stddef.h>\n#include "nk_internal.h"\nconst unsigned nk_f[] = {%s};\n' \
        "$(for f in "${fields[@]}"; do printf 'offsetof(nk_op_def, %s),' "$f"; done)" |
        "$prefix-gcc" "${cflags[@]}" -std=c99 -DNETKIT_MCU=1 -Iinclude -Icsrc -x c - -S -o - |
        awk '$1 == ".word" { print $2 }' | while read -r off; do
            printf 'FIELD %s %08x\n' "${fields[i]}" "$off"
            i=$((i + 1))
        done
    for o in "$dir"/*.o; do
        "$prefix-objdump" -r "$o" | awk '
            /^RELOCATION RECORDS FOR/ { sec = $4; sub(/^\[/, "", sec); sub(/\]:$/, "", sec)
                                        sub(/^\.literal/, ".text", sec) } # Xtensa: literal pools belong to code
            sec ~ /^\.xt\./ { next } # Xtensa property tables: not code or data
            $2 == "R_ARM_ABS32" || $2 == "R_RISCV_32" || $2 == "R_XTENSA_32" {
                sym = $3
                # Xtensa names a static function by its section (-ffunction-sections)
                if (sym ~ /^\.text\./ && sym !~ /\+/) sym = substr(sym, 7)
                print "RELOC", sec, $1, sym
            }'
    done
    grep -o '^NK_API [^(]*\bnk_[a-z0-9_]*(' include/netkit.h | sed 's/.*\(nk_[a-z0-9_]*\)($/ENTRY \1/'
    cat "$dir"/*.ci
}

stack_target=${NK_STACK_TARGET-cortex-m4f}
if [[ -n $stack_target ]]; then
    stack_graph "$stack_target" Os -Os | awk -f scripts/stack-depth.awk >"$OUT/stack-Os.txt"
    stack_graph "$stack_target" O2 -O2 | awk -f scripts/stack-depth.awk >"$OUT/stack-O2.txt"
    stack_graph "$stack_target" Os-strip -Os -DNETKIT_STRIP_MESSAGES=1 |
        awk -f scripts/stack-depth.awk >"$OUT/stack-Os-strip.txt"
    echo
    echo "Worst-case stack per entry point on $stack_target, bytes:"
    echo
    echo "| entry point | -Os | -O2 | -Os, no message text | deepest chain at -Os (frame bytes) |"
    echo "|---|---:|---:|---:|---|"
    awk 'FILENAME ~ /O2/ { if ($1 ~ /^nk_/) o2[$1] = $3; next }
         FILENAME ~ /strip/ { if ($1 ~ /^nk_/) st[$1] = $3; next }
         $1 ~ /^nk_/ { chain = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ ?/, "", chain)
                       if (chain !~ / > /) chain = ""
                       printf "| %s | %d | %d | %d | %s |\n", $1, $3, o2[$1], st[$1], chain }' \
        "$OUT/stack-O2.txt" "$OUT/stack-Os-strip.txt" "$OUT/stack-Os.txt"
    echo
    if grep -q -E '^(RECURSION|DYNAMIC|UNRESOLVED)' "$OUT"/stack-*.txt; then
        echo "NOT BOUNDED (see scripts/stack-depth.awk):"
        grep -h -E '^(RECURSION|DYNAMIC|UNRESOLVED)' "$OUT"/stack-*.txt | sort -u | sed 's/^/    /'
    else
        echo "No recursion, no dynamic frames (alloca, VLA) and every call resolved: each figure"
        echo "bounds the stack of that call, plus what the library functions below use."
    fi
    echo "Library functions called (their stack is not counted):"
    grep -h '^EXTERNAL' "$OUT"/stack-*.txt | tr ' ' '\n' | grep -v '^EXTERNAL$' | sort -u | tr '\n' ' '
    echo
fi

echo
echo "core: ${core_srcs[*]}"
echo "float kernels: ${kernel_srcs[*]}"
echo "int8: ${int8_srcs[*]:-none}"

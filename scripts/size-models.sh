#!/usr/bin/env bash
# Flash and RAM per model on Cortex-M4F (-Os, -ffunction-sections
# -fdata-sections, --gc-sections, messages stripped as in a firmware),
# from real links of a minimal firmware (load + invoke, or the lowered
# run) against an MCU libnetkit.a, summed from the linker map over
# netkit's objects and the generated files (libc, libm and the C runtime
# not counted):
#   interpreter, all kernels     `netkit aot` image + libnetkit's full op table
#   interpreter, model's kernels the same with IDENT_ops.c (the model's ops only)
#   + host plan                  and with IDENT_plan.c (the plan made by `netkit aot`:
#                                no planner linked)
#   lowered                      `netkit aot --lower`: no parser, loader, planner
# "code + consts" is .text, .rodata and .data except the weights; "weights"
# is the embedded .nk image (interpreter) or the weight arrays (lowered).
# RAM: the interpreter's arena (IDENT_ARENA_SIZE, the host figure: per-target
# exact sizes are issue 10's `inspect --target`) and the lowered buffer
# (IDENT_RAM_SIZE, the same on every target).
#
#   scripts/size-models.sh        Markdown table on stdout
# Environment: NETKIT_TFLITE_MODELS (VWW and IC are converted from there;
# left out when absent), NK_SIZE_BUILD (default build/size).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${NK_SIZE_BUILD:-build/size}/models
MODELS_SRC=${NETKIT_TFLITE_MODELS:-../shared/models/tflite}
P=arm-none-eabi
CF=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -std=c99 -Os -DNETKIT_MCU=1 -DNDEBUG
    -DNETKIT_STRIP_MESSAGES=1 -ffunction-sections -fdata-sections -Iinclude -Icsrc)
rm -rf "$OUT"
mkdir -p "$OUT/lib"

# libnetkit.a as the MCU build has it (no hosted platform layer, no
# inspect): with the Arm DSP int8 set (fast) and with NETKIT_PORTABLE_KERNELS
for kind in fast portable; do
    objs=()
    mkdir -p "$OUT/lib-$kind"
    extra=()
    [[ $kind == portable ]] && extra=(-DNETKIT_PORTABLE_KERNELS=1)
    for src in csrc/*.c csrc/ops/*.c csrc/kernels/ref/*.c csrc/kernels/armv7em/*.c; do
        case $(basename "$src") in *_test.c | netkit_unity.c | inspect.c) continue ;; esac
        o=$OUT/lib-$kind/$(echo "$src" | tr / _).o
        "$P-gcc" "${CF[@]}" "${extra[@]}" -c "$src" -o "$o"
        objs+=("$o")
    done
    "$P-ar" rcs "$OUT/lib-$kind/libnetkit.a" "${objs[@]}"
done
go build -o "$OUT/netkit" ./cmd/netkit

declare -a NAMES=() FILES=()
add() { NAMES+=("$1"); FILES+=("$2"); }
add KWS testdata/models_i8/mlperf_kws_ref_model.nk
if [[ -d $MODELS_SRC ]]; then
    for pair in VWW:mlperf_vww_96_int8 IC:mlperf_pretrainedResnet_quant; do
        "$OUT/netkit" convert "$MODELS_SRC/${pair#*:}.tflite" -o "$OUT/${pair#*:}.nk" >/dev/null
        add "${pair%%:*}" "$OUT/${pair#*:}.nk"
    done
fi
add AD testdata/models_i8/mlperf_ad01_int8.nk
add "float CNN" testdata/fashion/cnn_bn.nk

interp_main='#include "netkit.h"
#include "m.h"
static unsigned char arena[M_ARENA_SIZE] __attribute__((aligned(16)));
int main(void) {
    nk_arena_t a; nk_model_t *model; nk_error_t e;
    nk_arena_init(&a, arena, sizeof arena);
    if (nk_model_load_buffer(&model, m_nk, m_nk_len, &a, &e) != NK_OK) return 1;
    return nk_model_invoke(model, &e) != NK_OK;
}'
lowered_main='#include "m.h"
static unsigned char ram[M_RAM_SIZE] __attribute__((aligned(16)));
int main(void) { return m_run(ram) != NK_OK; }'

# netkit_bytes <map> <weights regex>: "code+consts weights" from a GNU ld map:
# input sections of libnetkit.a and of the generated m*.c objects.
netkit_bytes() {
    python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read().split("Linker script and memory map", 1)[1]
weights = re.compile(sys.argv[2])
code = wts = 0
pending = None
for line in text.splitlines():
    m = re.match(r"^ (\.\S+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", line)
    if not m and re.match(r"^ \.\S+$", line):
        pending = line.strip()
        continue
    if not m:
        m2 = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", line)
        if pending and m2:
            sec, size, obj = pending, int(m2.group(1), 16), m2.group(2)
        else:
            pending = None
            continue
    else:
        sec, size, obj = m.group(1), int(m.group(2), 16), m.group(3)
    pending = None
    if not re.match(r"\.(text|rodata|data)", sec):
        continue
    if "libnetkit.a" not in obj and not re.search(r"/m(_ops|_plan)?\.c\.o$|/m(_ops|_plan)?\.o$", obj):
        continue
    if weights.search(sec):
        wts += size
    else:
        code += size
print(code, wts)
PY
}

link() { # link <lib> <dir> <name> <main> <srcs...>
    local lib=$1 dir=$2 name=$3 main=$4
    shift 4
    printf '%s\n' "$main" >"$dir/$name-main.c"
    local objs=()
    for s in "$dir/$name-main.c" "$@"; do
        "$P-gcc" "${CF[@]}" -I"$dir" -c "$s" -o "${s%.c}.o"
        objs+=("${s%.c}.o")
    done
    "$P-gcc" "${CF[@]}" "${objs[@]}" "$lib" --specs=nosys.specs -Wl,--gc-sections \
        -Wl,-Map="$dir/$name.map" -lm -o "$dir/$name.elf"
}

for kind in fast portable; do
    lib=$OUT/lib-$kind/libnetkit.a
    echo
    echo "Kernels: $kind ($([[ $kind == fast ]] && echo 'the Arm DSP int8 set, with the portable ones it falls back to' || echo 'NETKIT_PORTABLE_KERNELS=1'))"
    echo
    echo "| model | interpreter, all kernels: code + consts | interpreter, model's kernels: code + consts | + host plan (IDENT_plan.c) | model image (weights + graph) | lowered: code + consts | lowered weights | interpreter arena B | lowered RAM B |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for i in "${!NAMES[@]}"; do
        name=${NAMES[$i]} file=${FILES[$i]}
        d=$OUT/$kind-$(echo "$name" | tr ' ' _)
        mkdir -p "$d/interp" "$d/lowered"
        "$OUT/netkit" aot "$file" -o "$d/interp" --name m >/dev/null
        "$OUT/netkit" aot --lower "$file" -o "$d/lowered" --name m >/dev/null
        link "$lib" "$d/interp" all "$interp_main" "$d/interp/m.c"
        link "$lib" "$d/interp" own "$interp_main" "$d/interp/m.c" "$d/interp/m_ops.c"
        link "$lib" "$d/interp" fixed "$interp_main" "$d/interp/m.c" "$d/interp/m_ops.c" "$d/interp/m_plan.c"
        link "$lib" "$d/lowered" lowered "$lowered_main" "$d/lowered/m.c"
        read -r all_code img <<<"$(netkit_bytes "$d/interp/all.map" '^\.rodata\.m_nk$')"
        read -r own_code _ <<<"$(netkit_bytes "$d/interp/own.map" '^\.rodata\.m_nk$')"
        read -r fixed_code _ <<<"$(netkit_bytes "$d/interp/fixed.map" '^\.rodata\.m_nk$')"
        read -r low_code low_w <<<"$(netkit_bytes "$d/lowered/lowered.map" '^\.rodata\.m_w[0-9]+$')"
        arena=$(awk '$2 == "M_ARENA_SIZE" { print $3 + 0 }' "$d/interp/m.h")
        ramb=$(awk '$2 == "M_RAM_SIZE" { print $3 + 0 }' "$d/lowered/m.h")
        echo "| $name | $all_code | $own_code | $fixed_code | $img | $low_code | $low_w | $arena | $ramb |"
    done
done

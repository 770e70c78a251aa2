#!/usr/bin/env bash
# The int8 TFLite models on Cortex-M under QEMU: converts every int8 model
# that has TensorFlow Lite Micro golden outputs (internal/int8ref/testdata/
# models/tflm_golden.json, and testdata/tflm_svdf for the rescaled variant
# of the SVDF model) with `netkit convert`, embeds each with its two
# golden inputs in a test program (cmake/cross/int8_model_test.c), runs it
# on every target and requires the output bytes to be TFLM's; then prints
# instructions per inference (input 1, counted by the nkinsn plugin, marker
# overhead subtracted) and per MAC, and the arena the model took, which for
# the MLPerf Tiny models must not exceed TFLM's arena_used_bytes on a 32-bit
# target (issue 6's figures), and the exact arena a firmware declares for
# it (nk_model_arena_size on the target: the load's peak, above what stays
# in use when load-time scratch outgrows the activation block); the
# firmware loads in exactly that and sees one byte less fail with
# NK_ERR_ARENA_OVERFLOW. Fails when any output differs, an arena is over
# or the exact figure is not.
#
# Each target is built twice: with the target's fast kernels (kernels/
# fast_i8.h; the Arm DSP set on M4F/M7/M33/M55) and with
# NETKIT_PORTABLE_KERNELS=ON; both must match TFLM, and the table shows
# their instructions side by side and the .text the fast kernels add. A
# target without a fast set (cortex-m0/m3, xtensa-lx106) builds the
# portable kernels once; its fast and portable columns are that build.
# With NETKIT_CMSIS_NN_DIR=<CMSIS-NN tree> in the environment, a third
# build routes the int8 ops through CMSIS-NN (vendor_kernels/cmsis-nn); it
# must match TFLM too and its instructions join the table, and the random
# one-op test of the adapter (mcu_backend_i8_test) must pass on each target.
# NETKIT_NMSIS_NN_DIR and NETKIT_ESP_NN_DIR do the same for NMSIS-NN and
# ESP-NN's portable C on rv32imac (ESP32-C3/C6's ISA), and
# NETKIT_ESP_NN_DIR for ESP-NN's portable C on xtensa-lx106, next to
# netkit's portable kernels there. Each backend without its variable
# prints one SKIP line naming it.
#
#   scripts/int8-cross.sh                      cortex-m4f and cortex-m55
#   scripts/int8-cross.sh cortex-m4f           only these targets
#   scripts/int8-cross.sh rv32imac             only the RISC-V vendor section
#   scripts/int8-cross.sh xtensa-lx106         (any bare-metal toolchains/*.cmake;
#                                              xtensa-lx106 also gets an ESP-NN table)
#
# Environment: NETKIT_TFLITE_MODELS (default ../shared/models/tflite),
# NK_INT8_BUILD (default build/int8-cross), JOBS (default 2),
# NETKIT_CMSIS_NN_DIR, NETKIT_NMSIS_NN_DIR, NETKIT_ESP_NN_DIR (library
# checkouts, outside this repository; docs/TARGETS.md).
# Build: RelWithDebInfo (-O2).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(cortex-m4f cortex-m55)
BUILD=${NK_INT8_BUILD:-build/int8-cross}
JOBS=${JOBS:-2}
MODELS=${NETKIT_TFLITE_MODELS:-../shared/models/tflite}
GOLDEN=internal/int8ref/testdata/models
if [[ ! -d $MODELS ]]; then
    echo "int8-cross: no TFLite models at $MODELS (set NETKIT_TFLITE_MODELS)" >&2
    exit 1
fi
CMSIS_NN=${NETKIT_CMSIS_NN_DIR:-}
if [[ -n $CMSIS_NN ]]; then
    CMSIS_NN=$(cd "$CMSIS_NN" && pwd)
    KINDS=(fast portable cmsis-nn)
else
    echo "SKIP cmsis-nn: set NETKIT_CMSIS_NN_DIR=<CMSIS-NN tree>"
    KINDS=(fast portable)
fi
declare -A RV_TREE=()
if [[ -n ${NETKIT_NMSIS_NN_DIR:-} ]]; then
    RV_TREE[nmsis-nn]=$(cd "$NETKIT_NMSIS_NN_DIR" && pwd)
else
    echo "SKIP nmsis-nn: set NETKIT_NMSIS_NN_DIR=<NMSIS tree>"
fi
if [[ -n ${NETKIT_ESP_NN_DIR:-} ]]; then
    RV_TREE[esp-nn]=$(cd "$NETKIT_ESP_NN_DIR" && pwd)
else
    echo "SKIP esp-nn: set NETKIT_ESP_NN_DIR=<esp-nn tree>"
fi
declare -A RV_OPTION=([nmsis-nn]=NETKIT_NMSIS_NN_DIR [esp-nn]=NETKIT_ESP_NN_DIR)

mkdir -p "$BUILD/models"
VEC=$(cd "$BUILD/models" && pwd)

go build -o "$BUILD/netkit" ./cmd/netkit
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O1 -Iinclude -Icsrc csrc/netkit_unity.c \
    cmake/cross/host_inspect.c -lm -o "$BUILD/host_inspect"

# <name>.nk, <name>.in.bin (both golden inputs) and <name>.out.bin (TFLM's
# outputs for them, from the JSON).
names=$(/usr/bin/python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["models"])))' \
    "$GOLDEN/tflm_golden.json")
for name in $names; do
    "$BUILD/netkit" convert "$MODELS/$name.tflite" -o "$VEC/$name.nk" >"$BUILD/$name.convert.log"
    cat "$GOLDEN/$name.in1.bin" "$GOLDEN/$name.in2.bin" >"$VEC/$name.in.bin"
    /usr/bin/python3 - "$GOLDEN/tflm_golden.json" "$name" "$VEC/$name.out.bin" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["models"][sys.argv[2]]
out = bytes((v & 0xff) for run in ("in1", "in2") for v in m[run]["output"])
open(sys.argv[3], "wb").write(out)
PY
done
# TFLite's SVDF model, as its rescaled variant (testdata/tflm_svdf; the
# shared model saturates to one output for any input, so only the host
# tests run it): int16 in, int32 out, the six inputs run as one stream
# (the SVDF state carries across invokes) against TFLM's output after each.
SVDF_GOLDEN=testdata/tflm_svdf/golden.json
svdf_names=$(/usr/bin/python3 -c 'import json,sys; print(" ".join(sorted(k for k, v in json.load(open(sys.argv[1]))["models"].items() if v.get("svdfvariant"))))' \
    "$SVDF_GOLDEN")
go build -o "$BUILD/svdfvariant" ./internal/tools/svdfvariant
for name in $svdf_names; do
    flags=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["models"][sys.argv[2]].get("svdfvariant", ""))' \
        "$SVDF_GOLDEN" "$name")
    # shellcheck disable=SC2086 # the flags are words
    "$BUILD/svdfvariant" -in "$MODELS/tflm_keyword_scrambled_8bit.tflite" -out "$BUILD/$name.tflite" $flags
    "$BUILD/netkit" convert "$BUILD/$name.tflite" -o "$VEC/$name.nk" >"$BUILD/$name.convert.log"
    cp testdata/tflm_svdf/inputs.bin "$VEC/$name.in.bin"
    /usr/bin/python3 - "$SVDF_GOLDEN" "$name" "$VEC/$name.out.bin" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["models"][sys.argv[2]]
open(sys.argv[3], "wb").write(b"".join(bytes.fromhex(s["output"]) for s in m["steps"]))
PY
done
names="$names $svdf_names"

# TFLM's arena_used_bytes on a 32-bit target (issue 6), and the models whose
# arena is known to be over it.
declare -A TFLM_ARENA=([mlperf_kws_ref_model]=22820 [mlperf_vww_96_int8]=100708
    [mlperf_pretrainedResnet_quant]=54996 [mlperf_ad01_int8]=2580)

failed=0
# binutils prefix of a target's toolchain
tool_prefix() {
    case $1 in
        cortex-m*) echo arm-none-eabi- ;;
        rv32imac) echo riscv64-unknown-elf- ;;
        xtensa-lx106) echo xtensa-lx106-elf- ;;
        *) echo "int8-cross: no bare-metal target '$1'" >&2; exit 2 ;;
    esac
}
# targets with a fast int8 set (csrc/kernels/fast_i8.h), built twice
has_fast_set() { [[ $1 == cortex-m4f || $1 == cortex-m7 || $1 == cortex-m33 || $1 == cortex-m55 ]]; }
# backend_test <dir>: the adapter's random one-op test on the target
backend_test() {
    if ! ctest --test-dir "$1" -R '^mcu_backend_i8_test$' --output-on-failure >"$1.backend_test.log" 2>&1; then
        echo "**backend_i8_test FAILED** in $1 (see $1.backend_test.log)"
        failed=1
    fi
}
# run <dir> <name>: checks the outputs, sets verdict, insns and arena
run() {
    local dir=$1 name=$2 id out
    id=$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)
    if out=$(tools/qemu-plugin/insn-run.sh "$dir/qemu-plugin/libnkinsn.so" "${prefix}nm" "$t" \
        "$dir/nk_int8_test_$id" 2>"$dir/$id.log") && grep -q '^PASS' "$dir/$id.log"; then
        verdict=identical
    else
        verdict="**DIFFER** (see $dir/$id.log)"
        failed=1
    fi
    insns=$(echo "$out" | awk '$2 == "region" && $3 == 0 { b = $4 } $2 == "region" && $3 == 1 { v = $4 } END { print v - b }')
    arena=$(awk '$1 == "nkbench" && $2 == "arena_bytes" { print $3 }' "$dir/$id.log")
    # the firmware loads in exactly nk_model_arena_size's figure and sees 1 B less fail
    need=$(awk '$1 == "nkbench" && $2 == "arena_need" { print $3 }' "$dir/$id.log")
    if ! grep -q '^nkbench arena_exact 1$' "$dir/$id.log"; then
        need="${need:-?} **not exact**"
        failed=1
    fi
}
per_mac() { awk -v i="$1" -v m="$2" 'BEGIN { printf (m > 0 ? "%.2f" : "-"), i / m }'; }
text_bytes() { "${prefix}size" -A "$1" | awk '$1 == ".text" { print $2 }'; }

# The one table writer: a row builder adds its cells with `cell HEADER VALUE`
# and ends the row with `row`, which prints the header and rule first when
# the columns differ from the table's so far (the first three columns text,
# the rest figures). `table` starts a new table.
heads=() vals=() table_head=""
cell() { heads+=("$1"); vals+=("$2"); }
row() {
    local head line rule="|" i
    head=$(printf '%s | ' "${heads[@]}")
    if [[ $head != "$table_head" ]]; then
        for i in "${!heads[@]}"; do if ((i < 3)); then rule+="---|"; else rule+="---:|"; fi; done
        echo "| ${head% }"
        echo "$rule"
        table_head=$head
    fi
    line=$(printf '%s | ' "${vals[@]}")
    echo "| ${line% }"
    heads=() vals=()
}
table() { echo; table_head=""; }

for t in "${TARGETS[@]}"; do
    if [[ $t == rv32imac ]]; then continue; fi # the vendor section below
    prefix=$(tool_prefix "$t")
    kinds=()
    for kind in "${KINDS[@]}"; do
        [[ $kind == fast ]] && ! has_fast_set "$t" && continue
        [[ $kind == cmsis-nn && $t != cortex-m* ]] && continue
        kinds+=("$kind")
    done
    targets=(nk_qemu_plugin)
    for name in $names; do targets+=("nk_int8_test_$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)"); done
    for kind in "${kinds[@]}"; do
        dir=$BUILD/$t
        portable=OFF
        cmsis=""
        [[ $kind == portable ]] && { dir=$BUILD/$t-portable; portable=ON; }
        [[ $kind == cmsis-nn ]] && { dir=$BUILD/$t-cmsis-nn; cmsis=$CMSIS_NN; }
        kind_targets=("${targets[@]}")
        if [[ $kind == cmsis-nn ]]; then kind_targets+=(mcu_backend_i8_test); fi
        cmake -S . -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/toolchains/$t.cmake" \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETKIT_BUILD_TESTS=ON -DNK_INT8_MODELS_DIR="$VEC" \
            -DNETKIT_PORTABLE_KERNELS=$portable -DNETKIT_CMSIS_NN_DIR="$cmsis" >"$dir.configure.log" 2>&1 ||
            { cat "$dir.configure.log" >&2; exit 1; }
        cmake --build "$dir" -j"$JOBS" --target "${kind_targets[@]}" >"$dir.build.log" 2>&1 ||
            { cat "$dir.build.log" >&2; exit 1; }
    done
    cmsis_here=""
    if [[ " ${kinds[*]} " == *" cmsis-nn "* ]]; then cmsis_here=1; backend_test "$BUILD/$t-cmsis-nn"; fi
    for name in $names; do
        id=$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)
        run "$BUILD/$t-portable" "$name"
        p_verdict=$verdict p_insns=$insns p_arena=$arena p_need=$need
        if [[ -n $cmsis_here ]]; then
            run "$BUILD/$t-cmsis-nn" "$name"
            c_verdict=$verdict c_insns=$insns c_arena=$arena
        elif [[ -n $CMSIS_NN ]]; then
            c_verdict="" c_insns="-" c_arena="-"
        fi
        added=0
        if has_fast_set "$t"; then
            run "$BUILD/$t" "$name"
            [[ $verdict == "$p_verdict" ]] || verdict="$verdict, $p_verdict"
            added=$(($(text_bytes "$BUILD/$t/nk_int8_test_$id") - $(text_bytes "$BUILD/$t-portable/nk_int8_test_$id")))
        else
            verdict=$p_verdict insns=$p_insns arena=$p_arena need=$p_need # the fast columns are the portable build
        fi
        macs=$("$BUILD/host_inspect" "$VEC/$name.nk" | awk '$1 == "macs" { print $2 }')
        if [[ -n $CMSIS_NN ]]; then
            [[ -z $c_verdict || $verdict == "$c_verdict" ]] || verdict="$verdict, cmsis-nn $c_verdict"
        fi
        tflm=${TFLM_ARENA[$name]:-}
        if [[ -n $tflm ]] && { [[ -z $arena ]] || ((arena > tflm)); }; then
            tflm="$tflm **netkit over**"
            failed=1
        fi
        cell target "$t"
        cell model "$name"
        cell "TFLM bytes (${KINDS[*]})" "$verdict"
        cell "instructions / inference fast" "$insns"
        cell portable "$p_insns"
        if [[ -n $CMSIS_NN ]]; then
            cell CMSIS-NN "$c_insns"
            cell "CMSIS-NN / MAC" "$(per_mac "$c_insns" "$macs")"
            cell "CMSIS-NN arena B" "$c_arena"
        fi
        cell MACs "$macs"
        cell "instructions / MAC fast" "$(per_mac "$insns" "$macs")"
        cell portable "$(per_mac "$p_insns" "$macs")"
        cell "fast .text + B" "$added"
        cell "arena B" "$arena"
        cell "exact arena B" "$need"
        cell "TFLM arena B" "$tflm"
        cell ".nk B" "$(wc -c <"$VEC/$name.nk")"
        row
    done
done
# NMSIS-NN and ESP-NN on rv32imac, ESP-NN on xtensa-lx106 (the ESP8266
# core; ESP-NN's assembly is for ESP32/S3, so its portable C here too):
# netkit's portable kernels (neither target has a fast set) and one build
# per backend given.
targets=(nk_qemu_plugin)
for name in $names; do targets+=("nk_int8_test_$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)"); done
for t in "${TARGETS[@]}"; do
    case $t in
        rv32imac) backends=(nmsis-nn esp-nn) ;;
        xtensa-lx106) backends=(esp-nn) ;;
        *) continue ;;
    esac
    prefix=$(tool_prefix "$t")
    rv_kinds=(portable)
    for k in "${backends[@]}"; do
        if [[ -n ${RV_TREE[$k]:-} ]]; then rv_kinds+=("$k"); fi
    done
    ((${#rv_kinds[@]} > 1)) || continue
    for kind in "${rv_kinds[@]}"; do
        dir=$BUILD/$t-$kind
        # xtensa-lx106's portable build is the main table's, reused as is
        opts=(-DNETKIT_CMSIS_NN_DIR= -DNETKIT_NMSIS_NN_DIR= -DNETKIT_ESP_NN_DIR=)
        kind_targets=("${targets[@]}")
        if [[ $kind != portable ]]; then
            opts+=("-D${RV_OPTION[$kind]}=${RV_TREE[$kind]}")
            kind_targets+=(mcu_backend_i8_test)
        fi
        cmake -S . -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/toolchains/$t.cmake" \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETKIT_BUILD_TESTS=ON -DNK_INT8_MODELS_DIR="$VEC" \
            "${opts[@]}" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log" >&2; exit 1; }
        cmake --build "$dir" -j"$JOBS" --target "${kind_targets[@]}" >"$dir.build.log" 2>&1 ||
            { cat "$dir.build.log" >&2; exit 1; }
        if [[ $kind != portable ]]; then backend_test "$dir"; fi
    done
    table
    for name in $names; do
        macs=$("$BUILD/host_inspect" "$VEC/$name.nk" | awk '$1 == "macs" { print $2 }')
        verdicts=""
        declare -A k_insns=() k_arena=()
        for kind in "${rv_kinds[@]}"; do
            run "$BUILD/$t-$kind" "$name"
            [[ $verdicts == *"$verdict"* ]] || verdicts="${verdicts:+$verdicts, }$verdict"
            k_insns[$kind]=$insns k_arena[$kind]=$arena
        done
        cell target "$t"
        cell model "$name"
        cell "TFLM bytes (${rv_kinds[*]})" "$verdicts"
        cell MACs "$macs"
        # one column per build in each group, the group named on its first
        for group in "instructions / inference" "instructions / MAC" "arena B"; do
            for kind in "${rv_kinds[@]}"; do
                head=$kind
                [[ $kind != "${rv_kinds[0]}" ]] || head="$group $kind"
                case $group in
                    "instructions / inference") cell "$head" "${k_insns[$kind]}" ;;
                    "instructions / MAC") cell "$head" "$(per_mac "${k_insns[$kind]}" "$macs")" ;;
                    *) cell "$head" "${k_arena[$kind]}" ;;
                esac
            done
        done
        row
    done
done
exit $failed

#!/usr/bin/env bash
# Instructions per inference of every bundled model (and of the Fashion
# models, float and int8 from netkit quantize) on Cortex-M4F and
# Cortex-M55 under QEMU, counted exactly by our nkinsn TCG plugin
# (tools/qemu-plugin), with instructions per MAC, the arena the model took
# on the target and the flash it used.
#
#   scripts/bench-mcu.sh                       Markdown table on stdout
#   NK_BENCH_TARGETS="cortex-m4f" scripts/bench-mcu.sh
#   NK_BENCH_FUNCS=8 scripts/bench-mcu.sh      then the 8 most expensive
#                                              functions per model and target
#
# Build: toolchains/<target>.cmake, RelWithDebInfo (-O2), the target's own
# kernel sets (DSP/MVE int8, FPU float32; docs/TARGETS.md) as a user's
# build, and on targets that have a fast set (Cortex-M4F, M7, M33, M55) a
# second build with NETKIT_PORTABLE_KERNELS=ON: both counts side by side,
# and the flash the fast kernels add to what the linker keeps of libnetkit.
# Instructions, not cycles: QEMU models no pipeline, caches or wait states.
# The count covers nk_model_invoke only (the marker-call overhead, measured
# on an empty region, is subtracted); MACs come from nk_inspect_model on
# the host.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(${NK_BENCH_TARGETS:-cortex-m4f cortex-m55})
BUILD=${NK_BENCH_BUILD:-build/bench-mcu}
JOBS=${JOBS:-2}
mkdir -p "$BUILD"
: >"$BUILD/funcs.txt"

models=()
declare -A model_file=()
for m in testdata/models/*.nk; do
    [[ -e $m ]] || continue
    name=$(basename "$m" .nk)
    if [[ -e testdata/models/$name.input.npy || -e testdata/models/$name.input0.npy ]]; then
        models+=("$name")
        model_file[$name]=$m
    fi
done
# The Fashion models, float (testdata/fashion, benchmarked from a copy in
# the build tree) and quantized by netkit quantize (testdata/fashion_i8),
# on the same 4 input images; compared in a second table.
FLOAT_DIR=$BUILD/fashion_f32
mkdir -p "$FLOAT_DIR"
FASHION=(mlp cnn_bn cnn_dw)
for m in "${FASHION[@]}"; do
    cp "testdata/fashion/$m.nk" "$FLOAT_DIR/$m.nk"
    cp "testdata/fashion_i8/$m.input.npy" "$FLOAT_DIR/$m.input.npy"
    models+=("fashion_f32_$m" "fashion_i8_$m")
    model_file[fashion_f32_$m]=$FLOAT_DIR/$m.nk
    model_file[fashion_i8_$m]=testdata/fashion_i8/$m.nk
done
FLOAT_DIR=$(cd "$FLOAT_DIR" && pwd)
# The float GRU keyword spotter (testdata/pytorch; built as pytorch_kws_gru
# by cmake/cross/netkit-mcu-tests.cmake on cortex-m4f and cortex-m55).
models+=(pytorch_kws_gru)
model_file[pytorch_kws_gru]=testdata/pytorch/kws_gru.nk
if ((${#models[@]} == 0)); then
    echo "bench-mcu: no testdata/models/<name>.nk with <name>.input.npy (or .input0.npy)" >&2
    exit 1
fi

# MACs per inference from the host build of the core.
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O1 -Iinclude -Icsrc csrc/netkit_unity.c \
    cmake/cross/host_inspect.c -lm -o "$BUILD/host_inspect"

# Bytes of flash (code and constants) the linker kept from libnetkit.a,
# summed over the input sections the link map attributes to it.
netkit_flash() {
    awk '
        function hex(h,   i, v) {
            v = 0
            h = tolower(substr(h, 3))
            for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
            return v
        }
        /^Linker script and memory map/ { on = 1; next }
        !on { next }
        /^ *\.(text|literal|rodata|data|srodata|sdata)/ { sec = 1 }
        /^ *\.(bss|sbss|stack|heap|ARM\.attributes|comment|debug)/ { sec = 0 }
        sec && /libnetkit\.a\(/ {
            for (i = 1; i < NF; i++) if ($i ~ /^0x/ && $(i + 1) ~ /^0x/) { s += hex($(i + 1)); break }
        }
        END { print s + 0 }' "$1"
}

# Targets with a fast kernel set (DSP/MVE int8, FPU float32) are built
# twice, as a user's build and with NETKIT_PORTABLE_KERNELS=ON, and shown
# side by side; the others once (their kernels are the portable ones).
has_fast_set() { [[ $1 == cortex-m4f || $1 == cortex-m7 || $1 == cortex-m33 || $1 == cortex-m55 ]]; }
declare -A run_insns=() run_arena=() run_model=() run_lib=() run_code=()
# run_build TARGET KIND(fast|portable): builds, runs every model, fills run_*
run_build() {
    local t=$1 kind=$2 dir=$BUILD/$1 portable=OFF prefix
    if [[ $kind == portable ]]; then dir=$BUILD/$t-portable portable=ON; fi
    cmake -S . -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/toolchains/$t.cmake" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETKIT_BUILD_TESTS=ON -DNK_BENCH_MODELS_DIR="$FLOAT_DIR" \
        -DNETKIT_PORTABLE_KERNELS=$portable >"$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log" >&2; exit 1; }
    case $t in
        cortex-m*) prefix=arm-none-eabi ;;
        rv32*) prefix=riscv64-unknown-elf ;;
        xtensa-lx106) prefix=xtensa-lx106-elf ;;
        *) echo "bench-mcu: $t is not an MCU target" >&2; exit 2 ;;
    esac
    local benches=() name
    for name in "${models[@]}"; do benches+=("nk_bench_$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)"); done
    cmake --build "$dir" -j"$JOBS" --target nk_qemu_plugin "${benches[@]}" >"$dir.build.log" 2>&1 ||
        { cat "$dir.build.log" >&2; exit 1; }
    for name in "${models[@]}"; do
        local id elf out insns spread input_bytes hex flash key=$t/$kind/$name
        id=$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)
        elf=$dir/nk_bench_$id
        out=$(NK_INSN_FUNCS=1 tools/qemu-plugin/insn-run.sh "$dir/qemu-plugin/libnkinsn.so" "$prefix-nm" "$t" "$elf" 2>"$dir/$id.log") ||
            { cat "$dir/$id.log" >&2; exit 1; }
        # Regions: 0 empty, 1.. one invoke each; all runs must agree.
        read -r insns spread <<<"$(echo "$out" | awk '
            $2 == "region" && $3 == 0 { base = $4 }
            $2 == "region" && $3 > 0  { v = $4; if (n == 0 || v < lo) lo = v; if (v > hi) hi = v; n++ }
            END { print lo - base, hi - lo }')"
        if [[ $spread != 0 ]]; then
            echo "bench-mcu: $t ($kind) $name: runs differ by $spread instructions" >&2
        fi
        run_insns[$key]=$insns
        run_arena[$key]=$(awk '$1 == "nkbench" && $2 == "arena_bytes" { print $3 }' "$dir/$id.log")
        run_model[$key]=$(awk '$1 == "nkbench" && $2 == "model_bytes" { print $3 }' "$dir/$id.log")
        # Flash the program occupies (code, constants, .data image), less the
        # embedded model and the test input, which a product would not ship.
        input_bytes=0
        for hex in $("$prefix-nm" -S "$elf" | awk '$4 ~ /^nk_in[0-9]_npy$/ { print $2 }'); do
            input_bytes=$((input_bytes + 16#$hex))
        done
        flash=$("$prefix-size" -A "$elf" | awk '$1 ~ /^\.(isr_vector|nk_reset|nk_vectors|text|rodata|data|ARM|init|fini|preinit|srodata|sdata)/ { s += $2 } END { print s }')
        run_code[$key]=$((flash - ${run_model[$key]} - input_bytes))
        run_lib[$key]=$(netkit_flash "$elf.map")
        # Per function, per inference (the runs are identical); the user's build.
        if [[ $kind == fast ]]; then
            echo "$out" | awk -v t="$t" -v m="$name" '
                $2 == "region" && $3 > 0 { runs++ }
                $2 == "func" { print t, m, $3, int($4 / (runs ? runs : 1)) }' >>"$BUILD/funcs.txt"
        fi
    done
}
per_mac() { awk -v i="$1" -v m="$2" 'BEGIN { printf (m > 0 ? "%.2f" : "-"), i / m }'; }

for t in "${TARGETS[@]}"; do
    run_build "$t" fast
    if has_fast_set "$t"; then run_build "$t" portable; fi
done
echo "| target | model | MACs | instructions (fast kernels) | / MAC | portable kernels | / MAC | portable / fast | arena B (fast) | arena B (portable) | model B (flash) | libnetkit flash B (fast) | fast kernels add B | program flash B |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
declare -A fashion_insns=() fashion_arena=()
for t in "${TARGETS[@]}"; do
    for name in "${models[@]}"; do
        f=$t/fast/$name p=$t/portable/$name
        macs=$("$BUILD/host_inspect" "${model_file[$name]}" | awk '$1 == "macs" { print $2 }')
        if [[ -n ${run_insns[$p]:-} ]]; then
            pi=${run_insns[$p]} ppm=$(per_mac "$pi" "$macs") pa=${run_arena[$p]}
            ratio=$(awk -v a="$pi" -v b="${run_insns[$f]}" 'BEGIN { printf "%.2f", a / b }')
            add=$((${run_lib[$f]} - ${run_lib[$p]}))
        else
            pi=- ppm=- pa=- ratio=- add=-
        fi
        echo "| $t | $name | $macs | ${run_insns[$f]} | $(per_mac "${run_insns[$f]}" "$macs") | $pi | $ppm | $ratio | ${run_arena[$f]} | $pa | ${run_model[$f]} | ${run_lib[$f]} | $add | ${run_code[$f]} |"
        fashion_insns[$t/$name]=${run_insns[$f]} fashion_arena[$t/$name]=${run_arena[$f]}
    done
done
echo
echo "| target | Fashion model | instructions float | int8 | float / int8 | activations B float | int8 | int8 / float | arena B float | int8 |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for t in "${TARGETS[@]}"; do
    for m in "${FASHION[@]}"; do
        f=fashion_f32_$m q=fashion_i8_$m
        fa=$("$BUILD/host_inspect" "${model_file[$f]}" | awk '$1 == "peak_activations" { print $2 }')
        qa=$("$BUILD/host_inspect" "${model_file[$q]}" | awk '$1 == "peak_activations" { print $2 }')
        awk -v t="$t" -v m="$m" -v fi="${fashion_insns[$t/$f]}" -v qi="${fashion_insns[$t/$q]}" -v fa="$fa" -v qa="$qa" \
            -v far="${fashion_arena[$t/$f]}" -v qar="${fashion_arena[$t/$q]}" \
            'BEGIN { printf "| %s | %s | %d | %d | %.2f | %d | %d | %.2f | %d | %d |\n", t, m, fi, qi, fi / qi, fa, qa, qa / fa, far, qar }'
    done
done
if [[ ${NK_BENCH_FUNCS:-0} -gt 0 ]]; then
    echo
    echo "| target | model | function | instructions / inference |"
    echo "|---|---|---|---:|"
    awk -v n="$NK_BENCH_FUNCS" '{ k = $1 " " $2; if (++seen[k] <= n) printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$BUILD/funcs.txt"
fi

#!/usr/bin/env bash
# The int8 host kernels per ISA level: converts the int8 TFLite models that
# have TFLite Micro goldens (internal/int8ref/testdata/models/tflm_golden.json)
# from $NETKIT_TFLITE_MODELS (default ../shared/models/tflite) and runs
# `netkit bench --json` on each under NETKIT_HOST_ISA=portable and every
# level this CPU has (avx2, avx512, avx512vnni), one model after another.
# Prints p50 (or min), GMAC/s at it and the speed-up over portable per model
# and level. Not part of the test suite; figures go into docs/BENCHMARKS.md.
#   NK_BENCH_TIME  netkit bench --time per case (default 2s)
#   NK_BENCH_STAT  the latency figure used: p50_ns (default) or min_ns, the
#                  least disturbed run on a busy machine
set -euo pipefail
cd "$(dirname "$0")/.."

TFLITE=${NETKIT_TFLITE_MODELS:-../shared/models/tflite}
TIME=${NK_BENCH_TIME:-2s}
STAT=${NK_BENCH_STAT:-p50_ns}
[[ -d $TFLITE ]] || { echo "no TFLite models at $TFLITE (set NETKIT_TFLITE_MODELS)" >&2; exit 1; }

work=build/bench-host-i8
mkdir -p "$work"
go build -o "$work/netkit" ./cmd/netkit

levels=(portable)
if [[ $(uname -m) == x86_64 ]]; then
    grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && levels+=(avx2)
    if grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo &&
        grep -qw avx512dq /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
        levels+=(avx512)
        grep -qw avx512_vnni /proc/cpuinfo && levels+=(avx512vnni)
    fi
elif [[ $(uname -m) == aarch64 ]]; then
    levels+=(neon)
fi

models=$(/usr/bin/python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["models"])))' \
         internal/int8ref/testdata/models/tflm_golden.json)

field() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

printf '| model | MMAC |'
for l in "${levels[@]}"; do printf ' %s %s µs |' "$l" "${STAT%_ns}"; done
for l in "${levels[@]:1}"; do printf ' %s GMAC/s | %s speed-up |' "$l" "$l"; done
echo
printf '|---|---:|'
for _ in "${levels[@]}"; do printf -- '---:|'; done
for _ in "${levels[@]:1}"; do printf -- '---:|---:|'; done
echo
for m in $models; do
    "$work/netkit" convert "$TFLITE/$m.tflite" -o "$work/$m.nk" >/dev/null
    declare -A p50=() gmac=()
    macs=0
    for l in "${levels[@]}"; do
        json=$(NETKIT_HOST_ISA=$l "$work/netkit" bench --json --time "$TIME" "$work/$m.nk")
        p50[$l]=$(field "$STAT" <<<"$json")
        macs=$(field macs <<<"$json")
        gmac[$l]=$(/usr/bin/python3 -c "print(f'{$macs / ${p50[$l]}:.2f}')")
    done
    printf '| %s | %s |' "$m" "$(/usr/bin/python3 -c "print(f'{$macs / 1e6:.2f}')")"
    for l in "${levels[@]}"; do printf ' %s |' "$(/usr/bin/python3 -c "print(f'{${p50[$l]} / 1e3:.1f}')")"; done
    for l in "${levels[@]:1}"; do
        printf ' %s | %s |' "${gmac[$l]}" "$(/usr/bin/python3 -c "print(f'{${p50[portable]} / ${p50[$l]}:.1f}x')")"
    done
    echo
    unset p50 gmac
done

#!/usr/bin/env bash
# Builds and runs examples/ as a user would, from outside the source tree:
#   firmware-m4   netkit built with the example's own toolchain file, installed
#                 (cmake --install), then the example configured against it
#                 with find_package(netkit) and netkit_add_model(); both
#                 programs run under QEMU mps2-an386 and must print the same
#                 class scores (interpreter and lowered)
#   go-classify   go run, first three Fashion-MNIST test images, whose labels
#                 are Ankle boot, Pullover, Trouser
#
#   scripts/examples-test.sh      (NK_EXAMPLES_BUILD, default build/examples)
set -euo pipefail
cd "$(dirname "$0")/.."
B=$PWD/${NK_EXAMPLES_BUILD:-build/examples}
JOBS=${JOBS:-2}
rm -rf "$B/firmware-m4" "$B/prefix"
mkdir -p "$B"

go build -o "$B/netkit" ./cmd/netkit
TC=$PWD/examples/firmware-m4/toolchain-m4f.cmake
cmake -S . -B "$B/netkit-m4" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TC" -DCMAKE_BUILD_TYPE=MinSizeRel \
    -DNETKIT_MCU=ON -DNETKIT_STRIP_MESSAGES=ON >"$B/netkit-m4.log" 2>&1 || { cat "$B/netkit-m4.log"; exit 1; }
cmake --build "$B/netkit-m4" -j"$JOBS" >>"$B/netkit-m4.log" 2>&1 || { cat "$B/netkit-m4.log"; exit 1; }
cmake --install "$B/netkit-m4" --prefix "$B/prefix" >>"$B/netkit-m4.log"
cmake -S examples/firmware-m4 -B "$B/firmware-m4" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TC" \
    -DCMAKE_BUILD_TYPE=MinSizeRel -DCMAKE_PREFIX_PATH="$B/prefix" -DNETKIT_CLI="$B/netkit" \
    >"$B/firmware-m4.log" 2>&1 || { cat "$B/firmware-m4.log"; exit 1; }
cmake --build "$B/firmware-m4" -j"$JOBS" >>"$B/firmware-m4.log" 2>&1 || { cat "$B/firmware-m4.log"; exit 1; }
for m in interpreter lowered; do
    timeout 120 qemu-system-arm -M mps2-an386 -display none -serial null -monitor none \
        -semihosting-config enable=on,target=native -kernel "$B/firmware-m4/kws_$m" \
        </dev/null >"$B/kws_$m.out" 2>&1 # semihosting writes to stderr
    cat "$B/kws_$m.out"
done
# the interpreter firmware ran netkit aot's plan (kws_plan.c), not the planner
if grep -q 'nk_plan_activations' "$B/firmware-m4/kws_interpreter.map" ||
    ! grep -q 'nk_plan_fixed_apply' "$B/firmware-m4/kws_interpreter.map"; then
    echo "examples: kws_interpreter links the planner instead of kws_plan.c" >&2
    exit 1
fi
i=$(sed 's/^interpreter://' "$B/kws_interpreter.out")
l=$(sed 's/^lowered://' "$B/kws_lowered.out")
if [[ -z $i || $i != "$l" ]]; then
    echo "examples: firmware-m4's interpreter and lowered scores differ" >&2
    exit 1
fi
go run ./examples/go-classify | tee "$B/go-classify.out"
grep -q '^image 0: Ankle boot' "$B/go-classify.out" && grep -q '^image 1: Pullover' "$B/go-classify.out" &&
    grep -q '^image 2: Trouser' "$B/go-classify.out" ||
    { echo "examples: go-classify's labels are not the test set's" >&2; exit 1; }
echo "examples: firmware-m4 (interpreter, lowered) and go-classify passed"

#!/usr/bin/env bash
# The whole netkit test suite: installs what it lacks (Debian packages, as
# root), then runs Go vet and tests (race detector), the C tests with gcc,
# clang and ASan+UBSan, 60 s of loader fuzzing, every cross target under
# QEMU, and the int8 TFLite models on Cortex-M4F/M55 against TFLite Micro.
# `make test` runs this; so does CI (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the suite needs. Installed when missing (needs root).
PKGS=(cmake ninja-build clang libclang-rt-14-dev
      gcc-arm-none-eabi libnewlib-arm-none-eabi
      gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
      qemu-system-arm qemu-system-misc qemu-user
      gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross
      libonnx-testdata python3-numpy)

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "== installing missing Debian packages: ${missing[*]}"
    if [[ $(id -u) -ne 0 ]]; then
        echo "error: not root; install them with:" >&2
        echo "  sudo apt-get install --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o DPkg::Lock::Timeout=600 "${missing[@]}"
fi

JOBS=${JOBS:-2}
step() { echo; echo "== $*"; }

step "go vet"
go vet ./...

step "go test -race (nk, nkc, CLI, importers, writer)"
go test -race -count=1 ./...

step "nkc without cgo"
CGO_ENABLED=0 go test -count=1 ./nkc/...

for cfg in "gcc::build/gcc" "clang::build/clang" "gcc:-DNETKIT_SANITIZE=ON:build/asan"; do
    IFS=: read -r cc extra dir <<<"$cfg"
    step "C core + ctest ($cc ${extra:-})"
    cmake -S . -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$cc" -DNETKIT_BUILD_TESTS=ON $extra >/dev/null
    cmake --build "$dir" -j"$JOBS"
    ctest --test-dir "$dir" --output-on-failure -j"$JOBS"
done

step "libFuzzer on the loader (60 s)"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DNETKIT_FUZZ=ON >/dev/null
cmake --build build/fuzz -j"$JOBS" --target fuzz-run

step "cross targets under QEMU (C suites, bundled models, Go on arm64/armv7)"
scripts/cross-test.sh

step "int8 TFLite models on Cortex-M4F and M55: output bytes equal TFLite Micro's"
scripts/int8-cross.sh cortex-m4f cortex-m55

echo
echo "== all test suites passed"

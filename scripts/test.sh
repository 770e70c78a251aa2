#!/usr/bin/env bash
# The whole netkit test suite: installs what it lacks (Debian packages, as
# root), then runs Go vet and tests (race detector), the C tests with gcc
# under ASan+UBSan (hostile-input tests over float and int8 models), the
# multi-context test under TSan, the XNNPACK host backend (every C test built
# with clang, TSan, Go with the xnnpack tag), 30 s of loader fuzzing, the cross
# targets under QEMU, and the int8 TFLite models on Cortex-M4F/M55 against TFLite Micro.
# `make test` runs this; so does CI (.ci/run).
# Two lanes run at once: the host steps here and the QEMU steps (cross
# targets, examples/, int8 models on Cortex-M) in the background, each with
# JOBS (default 2) build jobs, so the serial stretches of one (a QEMU run, a
# configure, cgo compiling the unity file, the fuzz run) leave no core idle.
# The QEMU lane's output goes to build/test-qemu-lane.log and is printed
# when the host lane is done; a failure in either fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the suite needs. Installed when missing (needs root).
PKGS=(cmake ninja-build clang libclang-rt-14-dev
      gcc-arm-none-eabi libnewlib-arm-none-eabi
      gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
      gcc-xtensa-lx106 picolibc-xtensa-lx106-elf gcc-12-source
      qemu-system-arm qemu-system-misc qemu-user
      gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross
      libonnx-testdata python3-numpy
      libxnnpack-dev libpthreadpool-dev
      librsvg2-bin dataset-fashion-mnist)

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
# Each step's wall time, printed as it ends and summed up at the end.
timings=() step_name="" step_t0=$SECONDS
end_step() { [[ -n $step_name ]] && timings+=("$(printf '%5d s  %s' $((SECONDS - step_t0)) "$step_name")"); return 0; }
step() { end_step; step_name=$*; step_t0=$SECONDS; echo; echo "== $*"; }

# The QEMU lane. Cortex-M7 and M33 build the same Arm DSP kernels as M4F:
# `scripts/cross-test.sh cortex-m7 cortex-m33` (and int8-cross.sh below) run
# them by hand. So does Cortex-M3 and Xtensa lx106 (the portable kernels M0,
# RV32 and the portable M4F builds run) and the armv7 Linux C suite (its Go
# run stays: cgo builds the same core there):
# `scripts/cross-test.sh cortex-m3 xtensa-lx106 armv7-linux`, to keep make test in 30 minutes.
# `scripts/int8-cross.sh cortex-m7 cortex-m33 xtensa-lx106` runs the int8
# models on the other bare-metal targets (M7/M33: the M4F's DSP kernels;
# Xtensa: portable).
qemu_lane() {
    timings=() step_name=""
    step "cross targets under QEMU (C suites, bundled models, lowered models on M4F/M55/rv32imac, Go on arm64/armv7)"
    NK_CROSS_GO_ONLY=armv7-linux scripts/cross-test.sh cortex-m0 cortex-m4f cortex-m55 rv32imac aarch64-linux armv7-linux

    step "examples/ built from outside the tree against an installed netkit (Cortex-M4F firmware under QEMU, Go program)"
    JOBS=$JOBS scripts/examples-test.sh

    # in the cross step's build directories: their fast-kernel builds are the
    # same configuration, so only the int8 test programs and the portable
    # builds are compiled here
    step "int8 TFLite models on Cortex-M4F and M55 (fast and portable kernels): output bytes equal TFLite Micro's"
    NK_INT8_BUILD=build/cross scripts/int8-cross.sh cortex-m4f cortex-m55
    end_step
    printf '%s\n' "${timings[@]}" >"$QEMU_TIMES"
}
mkdir -p build
QEMU_LOG=build/test-qemu-lane.log QEMU_TIMES=build/test-qemu-lane.times
rm -f "$QEMU_TIMES"
# its own process group (job control on while it starts), so a failed host
# step can stop the whole lane
set -m
qemu_lane </dev/null >"$QEMU_LOG" 2>&1 &
qemu_pid=$!
set +m
stop_qemu_lane() {
    if [[ -n $qemu_pid ]] && kill -0 "$qemu_pid" 2>/dev/null; then
        kill -- -"$qemu_pid" 2>/dev/null || true
        echo "== QEMU lane stopped; its output so far ($QEMU_LOG):"
        cat "$QEMU_LOG"
    fi
}
trap stop_qemu_lane EXIT
echo "== QEMU lane started in the background (output: $QEMU_LOG)"

step "go vet"
go vet ./...

step "go test -race (nk, nkc, CLI, importers, writer)"
go test -race -count=1 ./...

step "nkc without cgo"
CGO_ENABLED=0 go test -count=1 ./nkc/...

# The C suites run every float op and model test under each level already
# (ctest label host_isa); this runs the Go API's model tests (PyTorch
# outputs, nk against nkc) the same way.
step "nk and nkc under each host SIMD kernel level forced (NETKIT_HOST_ISA)"
levels=(portable)
case $(uname -m) in
    x86_64)
        grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && levels+=(avx2)
        grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo &&
            grep -qw avx512dq /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo && levels+=(avx512) ;;
    aarch64) levels+=(neon) ;;
esac
for isa in "${levels[@]}"; do
    NETKIT_HOST_ISA=$isa go test -count=1 -run 'Conformance|SameOutputsAsNkc|LoadWithCopy|ReportOfLoadedModel' ./nk/ ./nkc/
done

# The int8 host kernels (AVX2, AVX-512, AVX-512 VNNI) against the Go oracle
# on the random one-op models, both rounding modes, and the TFLite models
# against TFLite Micro's outputs (double rounding), each level forced.
step "int8 one-op tests and TFLite models under each host SIMD level forced, both rounding modes"
i8_levels=("${levels[@]}")
grep -qw avx512_vnni /proc/cpuinfo && [[ " ${levels[*]} " == *" avx512 "* ]] && i8_levels+=(avx512vnni)
# (double rounding with the default CGO_CFLAGS: the nk build of the step above)
for isa in "${i8_levels[@]}"; do
    NETKIT_HOST_ISA=$isa go test -count=1 -run 'Oracle|Hand|InCore' ./internal/int8ref/
    NETKIT_HOST_ISA=$isa CGO_CFLAGS="-O2 -DNETKIT_SINGLE_ROUNDING=1" \
        go test -count=1 -run 'Oracle|Hand|InCore' ./internal/int8ref/
done

step "int8 one-op tests through the Arm DSP kernels (C emulation), both rounding modes"
for r in 0 1; do CGO_CFLAGS="-O2 -DNETKIT_EMULATE_DSP=1 -DNETKIT_SINGLE_ROUNDING=$r" go test -count=1 ./internal/int8ref/; done

# The int8 TFLite models (TFLite Micro's outputs known) that testdata/models_i8
# does not hold, converted as the fuzzer's seeds (testdata/gen/models_i8.sh
# says which are committed; configuring a build with
# -DNK_EXTRA_MODELS_DIR=build/extra-models runs the hostile and exhaustion
# tests over them too).
step "int8 TFLite models converted as fuzz seeds"
TFLITE=${NETKIT_TFLITE_MODELS:-../shared/models/tflite}
EXTRA_MODELS=$PWD/build/extra-models
EXTRA_ARG=-DNK_EXTRA_MODELS_DIR=
if [[ -d $TFLITE ]]; then
    rm -rf "$EXTRA_MODELS"
    mkdir -p "$EXTRA_MODELS"
    go build -o build/netkit-convert ./cmd/netkit
    for name in $(/usr/bin/python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["models"])))' \
                  internal/int8ref/testdata/models/tflm_golden.json); do
        [[ -e testdata/models_i8/$name.nk ]] && continue
        build/netkit-convert convert "$TFLITE/$name.tflite" -o "$EXTRA_MODELS/$name.nk" >/dev/null
        echo "$name.nk: $(wc -c <"$EXTRA_MODELS/$name.nk") B"
    done
    EXTRA_ARG=-DNK_EXTRA_MODELS_DIR=$EXTRA_MODELS
else
    echo "no TFLite models at $TFLITE (set NETKIT_TFLITE_MODELS): testdata/models_i8 only"
fi

# Every C test once with gcc under ASan+UBSan (the plain -O2 gcc build of
# the same sources is what cgo compiles for every Go test above), and once
# with clang in the XNNPACK step below.
# (the converted TFLite models are the fuzzer's seeds below; the hostile and
# exhaustion tests run over testdata's float and int8 models here)
step "C core + ctest (gcc, ASan+UBSan)"
cmake -S . -B build/asan -G Ninja -DCMAKE_C_COMPILER=gcc -DNETKIT_BUILD_TESTS=ON -DNETKIT_SANITIZE=ON >/dev/null
cmake --build build/asan -j"$JOBS"
ctest --test-dir build/asan --output-on-failure -j"$JOBS"

# TSan exits 66 on a race report; only the multi-context test is built.
step "ThreadSanitizer: threads_test (four threads, a context each, float and int8 models)"
cmake -S . -B build/tsan -G Ninja -DCMAKE_C_COMPILER=clang -DNETKIT_BUILD_TESTS=ON -DNETKIT_SHARED=OFF \
    "-DCMAKE_C_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build build/tsan -j"$JOBS" --target threads_test
ctest --test-dir build/tsan -R '^threads_test$' --output-on-failure

# The XNNPACK backend (vendor_kernels/xnnpack, docs/BACKENDS.md): every C
# test with it compiled in (the PyTorch op vectors through its operators,
# fall-backs, models, exact sizes, hostile images), the multi-context test
# under TSan with it, and Go with the xnnpack tag (the Fashion models against
# PyTorch through it, inspect naming it, outputs within 1e-5 of nkc's).
step "XNNPACK backend: C core + ctest (clang, NETKIT_XNNPACK=ON)"
cmake -S . -B build/xnnpack -G Ninja -DCMAKE_C_COMPILER=clang -DNETKIT_BUILD_TESTS=ON -DNETKIT_XNNPACK=ON >/dev/null
cmake --build build/xnnpack -j"$JOBS"
ctest --test-dir build/xnnpack --output-on-failure -j"$JOBS" -LE hostile # hostile files: the ASan step
step "XNNPACK backend: threads_test under ThreadSanitizer"
cmake -S . -B build/tsan-xnnpack -G Ninja -DCMAKE_C_COMPILER=clang -DNETKIT_BUILD_TESTS=ON -DNETKIT_SHARED=OFF \
    -DNETKIT_XNNPACK=ON "-DCMAKE_C_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build build/tsan-xnnpack -j"$JOBS" --target threads_test
ctest --test-dir build/tsan-xnnpack -R '^threads_test$' --output-on-failure
step "XNNPACK backend: go test -tags xnnpack (nk, CLI)"
# less the CLI tests that run no float op on the host (MCU firmware, the
# TFLite readers, lowered C)
go test -count=1 -tags xnnpack ./nk ./cmd/netkit \
    -skip 'TestBenchTarget|TestReadersAgree|TestLowered'

step "libFuzzer on the loader (30 s, float and int8 seeds)"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DNETKIT_FUZZ=ON -DNETKIT_FUZZ_SECONDS=30 "$EXTRA_ARG" >/dev/null
cmake --build build/fuzz -j"$JOBS" --target fuzz-run

step "waiting for the QEMU lane"
qemu_status=0
wait "$qemu_pid" || qemu_status=$?
qemu_pid=""
echo
echo "== QEMU lane output ($QEMU_LOG)"
cat "$QEMU_LOG"
((qemu_status == 0)) || { echo "QEMU lane FAILED (status $qemu_status)" >&2; exit 1; }

end_step
echo
echo "== wall time per step (the two lanes overlap: the sum exceeds the total)"
echo "host lane:"
printf '%s\n' "${timings[@]}"
echo "QEMU lane:"
cat "$QEMU_TIMES"
echo "$(printf '%5d s' "$SECONDS")  in all"
echo
echo "== all test suites passed"

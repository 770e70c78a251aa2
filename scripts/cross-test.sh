#!/usr/bin/env bash
# Builds netkit and its C tests for every cross target and runs them under
# QEMU with ctest (toolchains/qemu-run.sh is each build's emulator), then
# runs the Go package nk on arm64 and armv7 Linux under qemu-user. With Go
# on the host, cortex-m4f, cortex-m55 and rv32imac also run lowered models
# (netkit aot --lower) against the interpreter (lowered_<name> tests).
#
#   scripts/cross-test.sh                 every target
#   scripts/cross-test.sh cortex-m4f ...  only these (names of toolchains/*.cmake)
#
# Environment: JOBS (default 2), NK_CROSS_GO=0 skips the Go runs,
# NK_CROSS_GO_ONLY="armv7-linux ..." runs only the Go run of those Linux
# targets (not their C suite), NK_CROSS_BUILD (default build/cross) is
# where the builds go.
# When a toolchain or QEMU is missing it says which Debian packages to
# install and stops before building anything.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(cortex-m0 cortex-m3 cortex-m4f cortex-m7 cortex-m33 cortex-m55 rv32imac xtensa-lx106 aarch64-linux armv7-linux)
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=("${ALL_TARGETS[@]}")
JOBS=${JOBS:-2}
BUILD=${NK_CROSS_BUILD:-build/cross}
GO_RUNS=${NK_CROSS_GO:-1}

# What each target needs: "file-or-command:debian-package" pairs, from
# toolchains/requirements.txt (shared with `netkit bench --target`).
needs() {
    [[ " ${ALL_TARGETS[*]} " == *" $1 "* ]] ||
        { echo "unknown target '$1' (one of: ${ALL_TARGETS[*]})" >&2; exit 2; }
    local pat what pkg
    while read -r pat what pkg; do
        [[ -z $pat || $pat == \#* ]] && continue
        # shellcheck disable=SC2053 # $pat is a glob on purpose
        [[ $1 == $pat ]] && echo "$what:$pkg"
    done <toolchains/requirements.txt
    return 0
}
for t in "${TARGETS[@]}"; do needs "$t" >/dev/null; done # an unknown target stops here

missing_pkgs=()
missing_what=()
check() { # check <file-or-command> <package>
    if [[ $1 == /* ]]; then [[ -e $1 ]] && return 0; else command -v "$1" >/dev/null && return 0; fi
    [[ " ${missing_what[*]} " == *" $1 "* ]] || missing_what+=("$1")
    [[ " ${missing_pkgs[*]} " == *" $2 "* ]] || missing_pkgs+=("$2")
}
for t in "${TARGETS[@]}"; do
    for pair in $(needs "$t"); do check "${pair%%:*}" "${pair##*:}"; done
done
if [[ $GO_RUNS != 0 && " ${TARGETS[*]}" == *-linux* ]] && ! command -v go >/dev/null; then
    echo "cross tests: no 'go' on PATH for the Go runs on arm64/armv7 (NK_CROSS_GO=0 skips them)" >&2
    exit 1
fi
if ((${#missing_pkgs[@]})); then
    {
        echo "cross tests: missing ${missing_what[*]}"
        echo "install the Debian packages with:"
        echo "  sudo apt-get install --no-install-recommends ${missing_pkgs[*]}"
    } >&2
    exit 1
fi

failed=()
summary=()
run_target() {
    local t=$1 dir=$BUILD/$1 t0=$SECONDS
    echo
    echo "== cross: $t"
    # --fresh: a changed toolchain file takes effect (object files stay).
    cmake --fresh -S . -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/toolchains/$t.cmake" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETKIT_BUILD_TESTS=ON ${NETKIT_CLI:+-DNK_NETKIT_CLI="$NETKIT_CLI"} \
        >"$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; return 1; }
    cmake --build "$dir" -j"$JOBS" || return 1
    ctest --test-dir "$dir" --output-on-failure -j"$JOBS" || return 1
    summary+=("$t: passed in $((SECONDS - t0)) s")
}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd) # absolute: the CLI path below and the Go runs use it as is
# the CLI for the lowered-model tests (netkit aot --lower), when Go is here
NETKIT_CLI=""
if command -v go >/dev/null && go build -o "$BUILD/netkit" ./cmd/netkit; then NETKIT_CLI=$BUILD/netkit; fi
for t in "${TARGETS[@]}"; do
    [[ " ${NK_CROSS_GO_ONLY:-} " == *" $t "* ]] && continue
    if ! run_target "$t"; then
        failed+=("$t")
        summary+=("$t: FAILED")
    fi
done

# Go on Linux MPUs: cgo builds csrc/ with the cross compiler; the test
# binaries run under qemu-user (no binfmt_misc needed).
# The nk-vs-nkc test dlopens a libnetkit.so and wants the same bits as cgo:
# build it for the target exactly as cgo compiles the core (GNU C, -O2, so
# the same FMA contraction), since a host-built library cannot load there.
# -timeout 30m, not go test's 10: make test runs this beside the host steps,
# so an emulated test binary may get half the CPU it gets alone.
go_run() { # go_run <name> <qemu> <sysroot> <cc> <env...>
    local name=$1 qemu=$2 root=$3 cc=$4 t0=$SECONDS
    local lib=$BUILD/go-$name/libnetkit.so
    shift 4
    echo
    echo "== cross: go test ./nk/... on $name"
    mkdir -p "$(dirname "$lib")"
    if "$cc" -shared -fPIC -O2 -DNETKIT_BUILD_SHARED -Iinclude -Icsrc csrc/netkit_unity.c -lm -o "$lib" &&
        env CGO_ENABLED=1 CC="$cc" NETKIT_LIB="$lib" "$@" go test -count=1 -timeout 30m -exec "$qemu -L $root" ./nk/...; then
        summary+=("go $name: passed in $((SECONDS - t0)) s")
    else
        failed+=("go-$name")
        summary+=("go $name: FAILED")
    fi
}
if [[ $GO_RUNS != 0 && -d nk ]]; then
    for t in "${TARGETS[@]}"; do
        case $t in
            aarch64-linux) go_run arm64 qemu-aarch64 /usr/aarch64-linux-gnu aarch64-linux-gnu-gcc GOARCH=arm64 ;;
            armv7-linux) go_run armv7 qemu-arm /usr/arm-linux-gnueabihf arm-linux-gnueabihf-gcc GOARCH=arm GOARM=7 ;;
        esac
    done
fi

echo
echo "== cross summary"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]})); then
    echo "cross tests FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "all cross targets passed"

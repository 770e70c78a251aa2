#!/bin/sh
# Test of the nkinsn plugin: runs count_test under QEMU and checks that the
# 1000-iteration region costs exactly 2 * 990 instructions more than the
# 10-iteration one (two instructions per iteration, by construction), and
# that the per-function counts (funcs=) add up to the regions.
#   tools/qemu-plugin/check-count.sh <libnkinsn.so> <nm> <target> <count_test>
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(NK_INSN_FUNCS=1 "$here/insn-run.sh" "$@")
echo "$out"
r0=$(echo "$out" | awk '$2 == "region" && $3 == 0 { print $4 }')
r1=$(echo "$out" | awk '$2 == "region" && $3 == 1 { print $4 }')
r2=$(echo "$out" | awk '$2 == "region" && $3 == 2 { print $4 }')
if [ -z "$r0" ] || [ -z "$r1" ] || [ -z "$r2" ]; then
    echo "FAIL: expected three regions" >&2
    exit 1
fi
diff=$((r2 - r1))
if [ "$diff" -ne 1980 ]; then
    echo "FAIL: region2 - region1 = $diff instructions, want 1980" >&2
    exit 1
fi
if [ "$r1" -le "$r0" ]; then
    echo "FAIL: 10-iteration region ($r1) not above the empty one ($r0)" >&2
    exit 1
fi
# Per function: every instruction of a region lies in some sized function.
fsum=$(echo "$out" | awk '$2 == "func" { s += $4 } END { print s + 0 }')
fspin=$(echo "$out" | awk '$2 == "func" && $3 == "spin" { print $4 }')
if [ "$fsum" -ne $((r0 + r1 + r2)) ]; then
    echo "FAIL: functions sum to $fsum instructions, the regions to $((r0 + r1 + r2))" >&2
    exit 1
fi
if [ "${fspin:-0}" -lt 2020 ]; then
    echo "FAIL: spin ran ${fspin:-0} instructions, want at least 2020" >&2
    exit 1
fi
echo "ok: 990 iterations = $diff instructions; marker overhead $r0; per-function sum $fsum, spin $fspin"

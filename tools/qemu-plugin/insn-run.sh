#!/bin/sh
# Runs a cross-built program under QEMU with the nkinsn plugin, the region
# markers taken from the program's symbol table, and prints the plugin's
# report ("nkinsn region <i> <n>" lines, then "nkinsn total <n>") on stdout.
# The program's own output goes to stderr. Fails if the program fails.
# With NK_INSN_FUNCS=1 it also prints "nkinsn func <name> <n>" lines: the
# instructions each function of the program ran inside the regions.
#
#   tools/qemu-plugin/insn-run.sh <libnkinsn.so> <nm> <target> <program> [args...]
set -eu
plugin=$1 nm=$2 target=$3 prog=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
addr() {
    a=$("$nm" "$prog" | awk -v s="$1" '$3 == s { print "0x" $1; exit }')
    if [ -z "$a" ]; then
        echo "insn-run.sh: no symbol $1 in $prog" >&2
        exit 1
    fi
    echo "$a"
}
begin=$(addr nk_bench_start)
end=$(addr nk_bench_stop)
report=$(mktemp)
funcs=$(mktemp)
trap 'rm -f "$report" "$funcs"' EXIT
args="$plugin,begin=$begin,end=$end,out=$report"
if [ "${NK_INSN_FUNCS:-0}" = 1 ]; then
    "$nm" -S "$prog" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print $1, $2, $4 }' >"$funcs"
    args="$args,funcs=$funcs"
fi
NK_QEMU_PLUGIN="$args" \
    "$here/../../toolchains/qemu-run.sh" "$target" "$prog" "$@" 1>&2
cat "$report"

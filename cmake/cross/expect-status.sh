#!/bin/sh
# Runs a command and succeeds only if it exits with exactly the given status.
#   expect-status.sh <status> <command> [args...]
set -u
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
    echo "expected exit status $want, got $got: $*" >&2
    exit 1
fi
exit 0

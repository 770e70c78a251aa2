#!/usr/bin/env bash
# TensorFlow Lite Micro's outputs for tflm_keyword_scrambled_8bit (SVDF) and
# its rescaled variant, over a stream of six inputs: testdata/tflm_svdf/.
#
# The shared model's scrambled weights saturate every SVDF output, so its
# output is the same for any input; the variant (internal/tools/svdfvariant
# with the factors below: only the stored integers change) moves them out of
# saturation. Neither .tflite is committed: tests rebuild the variant from
# the shared model with the same tool and factors.
#
# inputs.bin: six int16 [1, 96] inputs back to back, input k (1..6) being
# Python's random.Random(k).randint(-8192, 8191) 96 times. TFLM runs them in
# order on one interpreter (its SVDF state carries from one to the next);
# golden.json records the output bytes after each invoke, every operator's
# output tensor (hex) after each invoke, and arena_used_bytes (x86-64).
#
# TFLM_DRIVER is a host program built outside this repository from
# tflite-micro's sources (nothing of it is committed): `DRIVER MODEL IN...`
# invokes once per input file and prints "output <hex bytes>" after each
# (with PRESERVE=1 also "tensor <index>:<hex>" for every operator's output),
# then "arena_used_bytes N"; golden.json keeps N of a run without PRESERVE.
#
#   TFLM_DRIVER=/path/to/driver testdata/gen/tflm_svdf.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${TFLM_DRIVER:?set TFLM_DRIVER to the TFLM host driver}"
MODELS=${NETKIT_TFLITE_MODELS:-../shared/models/tflite}
OUT=testdata/tflm_svdf
FACTORS="-feature 1 -time 0.3 -bias 1e-6 -fc 0.3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$OUT/inputs.bin" "$tmp" <<'PY'
import random, struct, sys
data = b""
for k in range(1, 7):
    r = random.Random(k)
    one = struct.pack("<96h", *[r.randint(-8192, 8191) for _ in range(96)])
    open(f"{sys.argv[2]}/in{k}.bin", "wb").write(one)
    data += one
open(sys.argv[1], "wb").write(data)
PY
go run ./internal/tools/svdfvariant -in "$MODELS/tflm_keyword_scrambled_8bit.tflite" \
    -out "$tmp/rescaled.tflite" $FACTORS
ins=("$tmp"/in{1..6}.bin)
PRESERVE=1 "$TFLM_DRIVER" "$MODELS/tflm_keyword_scrambled_8bit.tflite" "${ins[@]}" >"$tmp/orig.txt"
PRESERVE=1 "$TFLM_DRIVER" "$tmp/rescaled.tflite" "${ins[@]}" >"$tmp/rescaled.txt"
# the arena of a normal run (PRESERVE keeps every tensor, which takes more)
"$TFLM_DRIVER" "$tmp/rescaled.tflite" "${ins[@]}" | grep '^arena_used_bytes' >"$tmp/arena.txt"
python3 - "$tmp" "$OUT/golden.json" "$FACTORS" <<'PY'
import json, sys
def parse(path):
    steps, arena = [], None
    for line in open(path):
        if line.startswith("output"):
            steps.append({"output": "".join(line.split()[1:]), "ops": {}})
        elif line.startswith("tensor"):
            k, v = line[len("tensor "):].strip().split(":")
            steps[-1]["ops"][k] = v
    arena = int(open(sys.argv[1] + "/arena.txt").read().split()[1])
    return {"steps": steps, "arena_used_bytes_x86_64": arena}
g = {"inputs": "inputs.bin",
     "models": {"tflm_keyword_scrambled_8bit": parse(sys.argv[1] + "/orig.txt"),
                "tflm_keyword_scrambled_8bit_rescaled": dict(parse(sys.argv[1] + "/rescaled.txt"),
                                                             svdfvariant=sys.argv[3])}}
json.dump(g, open(sys.argv[2], "w"), indent=1, sort_keys=True)
PY
echo "wrote $OUT/inputs.bin $OUT/golden.json"

#!/usr/bin/env bash
# Test-set accuracy of the bundled Fashion models (testdata/fashion) after
# `netkit quantize` with 500 calibration images (the first 500 training
# images), per model and range method, against the float model: top-1
# agreement and accuracy on the 10,000 test images of Debian's
# dataset-fashion-mnist. Prints a Markdown table; fails when an int8 model
# is more than 1.0 point below its float model.
#
#   scripts/quant-accuracy.sh
#
# Environment: NK_QUANT_BUILD (default build/quant-accuracy), CALIB (default 500).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${NK_QUANT_BUILD:-build/quant-accuracy}
CALIB=${CALIB:-500}
mkdir -p "$BUILD"
go build -o "$BUILD/netkit" ./cmd/netkit
/usr/bin/python3 testdata/gen/fashion_npy.py "$BUILD/data" "$CALIB"

failed=0
echo "| model | method | float accuracy | int8 accuracy | difference (points) | top-1 agreement | .nk float / int8 |"
echo "|---|---|---:|---:|---:|---:|---:|"
for m in mlp cnn_bn cnn_dw; do
    for method in minmax percentile; do
        out=$("$BUILD/netkit" quantize "testdata/fashion/$m.onnx" --calib "$BUILD/data/calib.npy" \
            --method "$method" -o "$BUILD/$m.$method.nk" \
            --eval "$BUILD/data/test.npy" --labels "$BUILD/data/test_labels.npy")
        echo "$out" >"$BUILD/$m.$method.log"
        read -r q f d < <(echo "$out" | sed -n 's/^accuracy: int8 \([0-9.]*\) %, float \([0-9.]*\) % (\([-+0-9.]*\) points)$/\1 \2 \3/p')
        agree=$(echo "$out" | sed -n 's/.*top-1 agreement with float \([0-9.]*\) %$/\1/p')
        flag=""
        if awk -v d="$d" 'BEGIN { exit !(d < -1.0) }'; then flag=" **over 1 point**"; failed=1; fi
        echo "| $m | $method | $f % | $q % | $d$flag | $agree % | $(wc -c <"testdata/fashion/$m.nk") / $(wc -c <"$BUILD/$m.$method.nk") B |"
    done
done
exit $failed

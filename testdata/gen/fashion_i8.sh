#!/usr/bin/env bash
# Writes testdata/fashion_i8: the bundled Fashion models (testdata/fashion)
# quantized by `netkit quantize` (minmax ranges from the first 500 training
# images of Debian's dataset-fashion-mnist, float I/O), each with test
# vectors the cross tests run on Cortex-M4F and M55 (cmake/cross/
# netkit-mcu-tests.cmake, model_fashion_i8_<name>):
#   <name>.nk            the int8 model
#   <name>.input.npy     the first 4 of testdata/fashion/input.npy
#   <name>.expected.npy  the host's output for them (`netkit run`): a target
#                        must give the same int8 logits, dequantized (the
#                        portable kernels, as on a device)
# cmd/netkit's TestFashionI8IsFresh re-quantizes and compares the bytes
# when the dataset is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=testdata/fashion_i8
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/netkit" ./cmd/netkit
/usr/bin/python3 testdata/gen/fashion_npy.py "$tmp/data" 500
/usr/bin/python3 -c 'import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:4])' \
    testdata/fashion/input.npy "$tmp/input4.npy"
mkdir -p "$OUT"
for m in mlp cnn_bn cnn_dw; do
    "$tmp/netkit" quantize "testdata/fashion/$m.onnx" --calib "$tmp/data/calib.npy" -o "$OUT/$m.nk" >/dev/null
    cp "$tmp/input4.npy" "$OUT/$m.input.npy"
    NETKIT_HOST_ISA=portable "$tmp/netkit" run "$OUT/$m.nk" --input "$OUT/$m.input.npy" --output "$OUT/$m.expected.npy" >/dev/null
    echo "$m.nk: $(wc -c <"$OUT/$m.nk") B"
done

#!/usr/bin/env bash
# Writes testdata/models_i8: the int8 models the hostile, exhaustion and
# fuzz tests (tests/c) and the readers' agreement tests run on, beside the
# float ones in testdata/models.
#   int8_ops.nk   one of every int8 op (internal/testmodels.Int8Ops)
#   <name>.nk     `netkit convert` of TFLite Micro's and MLPerf Tiny's int8
#                 models from $NETKIT_TFLITE_MODELS (default ../shared/models/tflite)
# Tests check the files are fresh: internal/testmodels (int8_ops) and
# cmd/netkit (reconverts each .tflite and compares the bytes).
# `go generate ./internal/testmodels` runs this.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=testdata/models_i8
MODELS=${NETKIT_TFLITE_MODELS:-../shared/models/tflite}
# Small (345 KB in all) and varied: dense only (hello world, the AD
# autoencoder), depthwise + conv + pooling + softmax (micro speech, KWS).
# scripts/test.sh converts the larger ones into the build tree.
CONVERTED=(tflm_hello_world_int8 tflm_micro_speech_quantized mlperf_kws_ref_model mlperf_ad01_int8)

go run ./internal/testmodels/gen -int8 "$OUT"
if [[ ! -d $MODELS ]]; then
    echo "models_i8.sh: no TFLite models at $MODELS (set NETKIT_TFLITE_MODELS); converted models left as they are" >&2
    exit 0
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/netkit" ./cmd/netkit
for name in "${CONVERTED[@]}"; do
    "$bin/netkit" convert "$MODELS/$name.tflite" -o "$OUT/$name.nk" >/dev/null
    echo "$name.nk: $(wc -c <"$OUT/$name.nk") B"
done

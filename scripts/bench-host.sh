#!/usr/bin/env bash
# netkit against onnxruntime-node, side by side in one run on this machine,
# one thread each: the bundled Fashion models (testdata/fashion/{mlp,cnn_bn,
# cnn_dw}) at batch 1 and batch 100. Prints a Markdown table: p50 latency of
# one call, time per image, netkit/onnxruntime ratios and netkit's GMAC/s.
#
#   scripts/bench-host.sh              (or: make bench-host)
#   NK_BENCH_TIME=5s scripts/bench-host.sh   measure each case for 5 s (default 2s)
#
# Not part of the test suite. Needs Go, node and npm: onnxruntime-node
# (version ORT_VERSION, default 1.30.0) is installed with npm into
# $NETKIT_CACHE_DIR/onnxruntime-node (default ~/.cache/netkit/...) on first
# use, with ONNXRUNTIME_NODE_INSTALL=skip (no GPU download). onnxruntime runs
# with intraOpNumThreads = interOpNumThreads = 1, sequential execution and
# all graph optimizations; netkit with `netkit bench --json` (its one thread).
#
# Batch 100: the ONNX files were exported with a fixed batch of 1, so both
# runtimes get a copy whose first input/output dim is symbolic
# (internal/tools/onnxbatch); netkit's batch model is
# `netkit convert --batch 100` of that copy, onnxruntime takes it as is.
# Inputs are uniform pseudo-random values in [-1, 1) for both.
set -euo pipefail
cd "$(dirname "$0")/.."

ORT_VERSION=${ORT_VERSION:-1.30.0}
BENCH_TIME=${NK_BENCH_TIME:-2s}
CACHE=${NETKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/netkit}
ORT_DIR=$CACHE/onnxruntime-node
MODELS=(mlp cnn_bn cnn_dw)

for tool in go node npm; do
    if ! command -v "$tool" >/dev/null; then
        echo "bench-host: $tool is missing (Debian: apt-get install golang nodejs npm)" >&2
        exit 1
    fi
done

ort_pkg=$ORT_DIR/node_modules/onnxruntime-node
installed=$(node -p "require('$ort_pkg/package.json').version" 2>/dev/null || true)
if [[ $installed != "$ORT_VERSION" ]]; then
    echo "bench-host: installing onnxruntime-node $ORT_VERSION into $ORT_DIR" >&2
    mkdir -p "$ORT_DIR"
    (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error \
        "onnxruntime-node@$ORT_VERSION" >&2)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/netkit" ./cmd/netkit
go build -o "$work/onnxbatch" ./internal/tools/onnxbatch

# netkit first, then onnxruntime, model by model, all in this one run
for m in "${MODELS[@]}"; do
    "$work/onnxbatch" "testdata/fashion/$m.onnx" "$work/${m}_sym.onnx"
    "$work/netkit" convert "$work/${m}_sym.onnx" --batch 100 -o "$work/${m}_b100.nk" >/dev/null
    "$work/netkit" bench --json --time "$BENCH_TIME" "testdata/fashion/$m.nk" >"$work/${m}_b1.json"
    "$work/netkit" bench --json --time "$BENCH_TIME" "$work/${m}_b100.nk" >"$work/${m}_b100.json"
done

cat >"$work/ort.js" <<'EOF'
// onnxruntime-node: p50 of session.run over BENCH_TIME, after a warm-up.
const ort = require(process.env.ORT_PKG);
const [work, seconds, ...models] = process.argv.slice(2);
const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
               graphOptimizationLevel: 'all' };

// a fixed pseudo-random pattern, uniform in [-1, 1)
function input(n) {
  const x = new Float32Array(n);
  let s = 1;
  for (let i = 0; i < n; i++) { s = (s * 1103515245 + 12345) % 2147483648; x[i] = s / 1073741824 - 1; }
  return x;
}

async function p50(file, batch) {
  const s = await ort.InferenceSession.create(file, opts);
  const feeds = { [s.inputNames[0]]: new ort.Tensor('float32', input(batch * 784), [batch, 1, 28, 28]) };
  const warm = process.hrtime.bigint();
  for (let r = 0; r < 1000 && (r < 10 || process.hrtime.bigint() - warm < 100000000n); r++) await s.run(feeds);
  const lat = [];
  const start = process.hrtime.bigint();
  while (lat.length < 10 || Number(process.hrtime.bigint() - start) < seconds * 1e9) {
    const t0 = process.hrtime.bigint();
    await s.run(feeds);
    lat.push(Number(process.hrtime.bigint() - t0));
  }
  lat.sort((a, b) => a - b);
  await s.release();
  return { p50_ns: lat[Math.floor(lat.length / 2)], runs: lat.length };
}

(async () => {
  const out = {};
  for (const m of models) {
    out[m] = { b1: await p50(`${process.env.FASHION}/${m}.onnx`, 1),
               b100: await p50(`${work}/${m}_sym.onnx`, 100) };
  }
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
EOF
seconds=$(node -e '
const m = /^([0-9.]+)(ms|s)$/.exec(process.argv[1]);
if (!m) { console.error("NK_BENCH_TIME: want e.g. 2s or 500ms"); process.exit(1); }
console.log(m[2] === "ms" ? m[1] / 1000 : +m[1]);' "$BENCH_TIME")
ORT_PKG=$ort_pkg FASHION=$PWD/testdata/fashion node "$work/ort.js" "$work" "$seconds" "${MODELS[@]}" >"$work/ort.json"

cat >"$work/table.js" <<'EOF'
const fs = require('fs');
const [work, ...models] = process.argv.slice(2);
const ort = JSON.parse(fs.readFileSync(`${work}/ort.json`));
const us = (ns) => (ns / 1000).toFixed(ns < 10000 ? 2 : 1);
console.log('| model | batch | netkit p50 | onnxruntime p50 | netkit per image | onnxruntime per image | netkit / onnxruntime | netkit GMAC/s |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const m of models) {
  for (const b of ['b1', 'b100']) {
    const nk = JSON.parse(fs.readFileSync(`${work}/${m}_${b}.json`));
    const o = ort[m][b];
    const n = nk.batch;
    console.log(`| ${m} | ${n} | ${us(nk.p50_ns)} µs | ${us(o.p50_ns)} µs | ${us(nk.p50_ns / n)} µs | ` +
                `${us(o.p50_ns / n)} µs | ${(nk.p50_ns / o.p50_ns).toFixed(2)} | ${nk.gmac_per_s.toFixed(2)} |`);
  }
}
EOF
echo "netkit $(git rev-parse --short HEAD) vs onnxruntime-node $ORT_VERSION, one thread, p50 over $BENCH_TIME per case, $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
echo
node "$work/table.js" "$work" "${MODELS[@]}"

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
#
# Besides the p50 wall time, each side's process CPU time per call (mean
# over the timed calls) is shown: on a machine shared with other work, wall
# time of calls longer than a scheduler slice (the batch-100 CNNs) grows
# with the load, CPU time does not. It counts every thread of the process
# (node's event loop and onnxruntime's worker, Go's runtime), so at batch 1
# it overstates each runtime's per-call overhead; at batch 100 it is the
# compute.
#
# On a shared machine: NK_BENCH_ROUNDS=N runs every case N times
# (alternating the runtimes each round) and reports each figure's minimum
# over the rounds. NK_BENCH_BASELINE=/path/to/netkit adds a netkit binary
# built from another commit, run in the same rounds right before this
# tree's: before/after in one run.
#
# With Debian's libxnnpack-dev installed, netkit built with the XNNPACK
# backend (go build -tags xnnpack: XNNPACK runs the ops it takes, netkit's
# kernels the rest) is measured in the same run as a third column.
set -euo pipefail
cd "$(dirname "$0")/.."

ORT_VERSION=${ORT_VERSION:-1.30.0}
BENCH_TIME=${NK_BENCH_TIME:-2s}
ROUNDS=${NK_BENCH_ROUNDS:-1}
BASELINE=${NK_BENCH_BASELINE:-}
if [[ -n $BASELINE && ! -x $BASELINE ]]; then
    echo "bench-host: NK_BENCH_BASELINE=$BASELINE is not an executable" >&2
    exit 1
fi
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
# netkit with the XNNPACK backend (vendor_kernels/xnnpack; Debian's
# libxnnpack-dev): a third column when the library is installed
xnn=""
if [[ -e /usr/include/xnnpack.h ]]; then
    go build -tags xnnpack -o "$work/netkit-xnnpack" ./cmd/netkit
    xnn=1
else
    echo "bench-host: no XNNPACK column (apt-get install libxnnpack-dev libpthreadpool-dev)" >&2
fi
go build -o "$work/onnxbatch" ./internal/tools/onnxbatch

for m in "${MODELS[@]}"; do
    "$work/onnxbatch" "testdata/fashion/$m.onnx" "$work/${m}_sym.onnx"
    "$work/netkit" convert "$work/${m}_sym.onnx" --batch 100 -o "$work/${m}_b100.nk" >/dev/null
done

cat >"$work/ort.js" <<'EOF'
// onnxruntime-node: p50 of session.run over BENCH_TIME, after a warm-up.
const ort = require(process.env.ORT_PKG);
const [file, batch, seconds] = process.argv.slice(2);
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
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  while (lat.length < 10 || Number(process.hrtime.bigint() - start) < seconds * 1e9) {
    const t0 = process.hrtime.bigint();
    await s.run(feeds);
    lat.push(Number(process.hrtime.bigint() - t0));
  }
  const cpu = process.cpuUsage(cpu0);
  lat.sort((a, b) => a - b);
  await s.release();
  return { p50_ns: lat[Math.floor(lat.length / 2)], runs: lat.length,
           cpu_mean_ns: (cpu.user + cpu.system) * 1000 / lat.length };
}

p50(file, +batch).then((r) => console.log(JSON.stringify(r)))
  .catch((e) => { console.error(e); process.exit(1); });
EOF
seconds=$(node -e '
const m = /^([0-9.]+)(ms|s)$/.exec(process.argv[1]);
if (!m) { console.error("NK_BENCH_TIME: want e.g. 2s or 500ms"); process.exit(1); }
console.log(m[2] === "ms" ? m[1] / 1000 : +m[1]);' "$BENCH_TIME")

# each case on both runtimes back to back, so both see the same machine
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < ROUNDS; r++)); do
    for m in "${MODELS[@]}"; do
        for b in b1 b100; do
            nk=testdata/fashion/$m.nk onnx=testdata/fashion/$m.onnx n=1
            [[ $b == b100 ]] && nk=$work/${m}_b100.nk onnx=$work/${m}_sym.onnx n=100
            if [[ -n $BASELINE ]]; then
                "$BASELINE" bench --json --time "$BENCH_TIME" "$nk" >"$work/${m}_$b.base.r$r.json"
            fi
            "$work/netkit" bench --json --time "$BENCH_TIME" "$nk" >"$work/${m}_$b.r$r.json"
            ORT_PKG=$ort_pkg node "$work/ort.js" "$onnx" $n "$seconds" >"$work/${m}_$b.ort.r$r.json"
            if [[ -n $xnn ]]; then
                "$work/netkit-xnnpack" bench --json --time "$BENCH_TIME" "$nk" >"$work/${m}_$b.xnn.r$r.json"
            fi
        done
    done
done

cat >"$work/table.js" <<'EOF'
const fs = require('fs');
const [work, rounds, ...models] = process.argv.slice(2);
const us = (ns) => (ns / 1000).toFixed(ns < 10000 ? 2 : 1);
// each figure's minimum over the rounds
const load = (stem) => {
  const rs = [...Array(+rounds).keys()].map((r) => JSON.parse(fs.readFileSync(`${stem}.r${r}.json`)));
  const min = (k) => Math.min(...rs.map((x) => x[k]));
  return { batch: rs[0].batch ?? 1, p50_ns: min('p50_ns'), cpu_mean_ns: min('cpu_mean_ns'),
           gmac_per_s: Math.max(...rs.map((x) => x.gmac_per_s ?? 0)) };
};
const xnn = fs.existsSync(`${work}/${models[0]}_b1.xnn.r0.json`);
const base = fs.existsSync(`${work}/${models[0]}_b1.base.r0.json`);
console.log('| model | batch | netkit p50 | onnxruntime p50 | netkit per image | onnxruntime per image | netkit / onnxruntime | netkit GMAC/s | netkit CPU per image | onnxruntime CPU per image | CPU ratio |' +
            (base ? ' baseline per image | baseline / onnxruntime | baseline CPU per image |' : '') +
            (xnn ? ' netkit + XNNPACK per image | XNNPACK / onnxruntime |' : ''));
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|' + (base ? '---:|---:|---:|' : '') +
            (xnn ? '---:|---:|' : ''));
for (const m of models) {
  for (const b of ['b1', 'b100']) {
    const nk = load(`${work}/${m}_${b}`);
    const o = load(`${work}/${m}_${b}.ort`);
    const n = nk.batch;
    console.log(`| ${m} | ${n} | ${us(nk.p50_ns)} µs | ${us(o.p50_ns)} µs | ${us(nk.p50_ns / n)} µs | ` +
                `${us(o.p50_ns / n)} µs | ${(nk.p50_ns / o.p50_ns).toFixed(2)} | ${nk.gmac_per_s.toFixed(2)} | ` +
                `${us(nk.cpu_mean_ns / n)} µs | ${us(o.cpu_mean_ns / n)} µs | ${(nk.cpu_mean_ns / o.cpu_mean_ns).toFixed(2)} |` +
                (base ? ((x) => ` ${us(x.p50_ns / n)} µs | ${(x.p50_ns / o.p50_ns).toFixed(2)} | ${us(x.cpu_mean_ns / n)} µs |`)(
                          load(`${work}/${m}_${b}.base`)) : '') +
                (xnn ? ((x) => ` ${us(x.p50_ns / n)} µs | ${(x.p50_ns / o.p50_ns).toFixed(2)} |`)(
                          load(`${work}/${m}_${b}.xnn`)) : ''));
  }
}
EOF
echo "netkit $(git rev-parse --short HEAD)${BASELINE:+ (baseline: $BASELINE)} vs onnxruntime-node $ORT_VERSION, one thread, p50 over $BENCH_TIME per case, minimum over $ROUNDS round(s), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), load average before/after: $load0 / $(cut -d' ' -f1-3 /proc/loadavg)"
echo "GMAC/s at netkit's p50; CPU: process CPU time per call (mean), which a busy machine does not inflate"
echo
node "$work/table.js" "$work" "$ROUNDS" "${MODELS[@]}"

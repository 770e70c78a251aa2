#!/usr/bin/python3
"""Expected outputs of the test models, computed independently of netkit.

Reads each testdata/models/<name>.nk with its own small numpy reader of
docs/NK_FORMAT.md (a test oracle: it shares no code with the Go writer or
the C reader), runs the graph op by op with PyTorch in float64, and writes:

  <name>.input.npy / <name>.expected.npy        single-input, single-output
  <name>.inputK.npy / <name>.expectedK.npy      models with several

Each array holds a batch of whole inputs (outputs) along a new leading
axis: shape [N] + tensor shape, float32. Inputs are uniform in [-1, 1)
from numpy's PCG64 with a seed derived from the model name.

Run: /usr/bin/python3 testdata/gen/reference_outputs.py testdata/models
(`go generate ./internal/testmodels` runs it after writing the models).
"""
import glob
import os
import struct
import sys
import zlib

import numpy as np
import torch
import torch.nn.functional as F

from nkops import OP_NAMES

BATCH = 3
NONE = 0xFFFFFFFF
DTYPES = {1: np.float32, 2: np.int8, 3: np.int16, 4: np.int32}


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def read_nk(path):
    b = open(path, "rb").read()
    assert b[:4] == b"NKIT", "magic"
    assert struct.unpack_from("<H", b, 4)[0] == 1, "major version"
    size = u32(b, 12)
    assert size <= len(b)
    assert zlib.crc32(b[12:size]) == u32(b, 8), "checksum"
    secs = {}
    for i in range(u32(b, 16)):
        kind, off, sz = struct.unpack_from("<III", b, 32 + 16 * i)
        secs[kind] = (off, sz)
    soff, ssz = secs[4]
    strings = b[soff:soff + ssz]

    def s(ref):
        if ref == NONE:
            return ""
        return strings[ref:strings.index(b"\0", ref)].decode()

    toff, _ = secs[1]
    tensors = []
    for i in range(u32(b, toff)):
        r = toff + 8 + 48 * i
        name, dtype, rank, flags = u32(b, r), b[r + 4], b[r + 5], b[r + 6]
        dims = list(struct.unpack_from("<6I", b, r + 8))[:rank]
        doff, dsz = u32(b, r + 32), u32(b, r + 36)
        data = None
        if flags & 1:
            data = np.frombuffer(b, DTYPES[dtype], count=dsz // np.dtype(DTYPES[dtype]).itemsize,
                                 offset=doff).reshape(dims)
        tensors.append({"name": s(name), "shape": dims, "data": data})

    ooff, _ = secs[2]
    ops = []
    r = ooff + 8
    for _ in range(u32(b, ooff)):
        typ, nin, nout = struct.unpack_from("<HBB", b, r)
        npar = struct.unpack_from("<H", b, r + 8)[0]
        words = struct.unpack_from("<%dI" % (nin + nout + npar), b, r + 12)
        params = b[r + 12 + 4 * (nin + nout):r + 12 + 4 * (nin + nout + npar)]
        ops.append({"type": OP_NAMES[typ], "name": s(u32(b, r + 4)),
                    "in": [None if w == NONE else w for w in words[:nin]],
                    "out": list(words[nin:nin + nout]),
                    "i32": np.frombuffer(params, "<i4"), "f32": np.frombuffer(params, "<f4")})
        r += 12 + 4 * len(words)

    goff, _ = secs[3]
    ni, no = u32(b, goff), u32(b, goff + 4)
    ios = [u32(b, goff + 8 + 8 * k) for k in range(ni + no)]
    return tensors, ops, ios[:ni], ios[ni:]


def clamp(y, lo, hi):
    return torch.clamp(y, min=float(lo), max=float(hi))


def nhwc_window(x, pads, fill):
    """NHWC -> NCHW, padded explicitly (top, left, bottom, right)."""
    t, l, bt, r = (int(p) for p in pads)
    return F.pad(x.permute(0, 3, 1, 2), (l, r, t, bt), value=fill)


def run_op(op, x, t):
    """x: list of input torch tensors (None for absent); t: tensor table."""
    k, i, f = op["type"], op["i32"], op["f32"]
    if k == "dense":
        y = x[0] @ x[1].T
        if len(x) > 2 and x[2] is not None:
            y = y + x[2]
        return clamp(y, f[0], f[1])
    if k in ("conv2d", "depthwise_conv2d"):
        w = x[1]
        if k == "conv2d":
            groups = int(i[8])
            w = w.permute(0, 3, 1, 2)            # [O, KH, KW, C/g] -> [O, C/g, KH, KW]
        else:
            groups = x[0].shape[3]
            w = w.permute(3, 0, 1, 2)            # [1, KH, KW, C*M] -> [C*M, 1, KH, KW]
        bias = x[2] if len(x) > 2 else None
        y = F.conv2d(nhwc_window(x[0], i[4:8], 0.0), w, bias, stride=(int(i[0]), int(i[1])),
                     dilation=(int(i[2]), int(i[3])), groups=groups)
        return clamp(y.permute(0, 2, 3, 1), f[9], f[10])
    if k == "max_pool2d":
        y = F.max_pool2d(nhwc_window(x[0], i[4:8], float("-inf")), (int(i[0]), int(i[1])),
                         stride=(int(i[2]), int(i[3])))
        return clamp(y.permute(0, 2, 3, 1), f[8], f[9])
    if k == "avg_pool2d":
        xp = nhwc_window(x[0], i[4:8], 0.0)
        ksz, st = (int(i[0]), int(i[1])), (int(i[2]), int(i[3]))
        s = F.avg_pool2d(xp, ksz, stride=st) * (ksz[0] * ksz[1])
        if int(i[8]):
            n = torch.full_like(s, ksz[0] * ksz[1])
        else:
            ones = nhwc_window(torch.ones_like(x[0][..., :1]), i[4:8], 0.0)
            n = F.avg_pool2d(ones, ksz, stride=st) * (ksz[0] * ksz[1])
        return clamp((s / n).permute(0, 2, 3, 1), f[9], f[10])
    if k == "global_avg_pool":
        return x[0].mean(dim=(1, 2), keepdim=True)
    if k == "batch_norm":
        return (x[0] - x[3]) / torch.sqrt(x[4] + float(f[0])) * x[1] + x[2]
    if k == "relu":
        return torch.relu(x[0])
    if k == "clip":
        return clamp(x[0], f[0], f[1])
    if k == "leaky_relu":
        return F.leaky_relu(x[0], float(f[0]))
    if k == "sigmoid":
        return torch.sigmoid(x[0])
    if k == "tanh":
        return torch.tanh(x[0])
    if k == "gelu":
        return F.gelu(x[0], approximate="tanh" if int(i[0]) else "none")
    if k == "softmax":
        return torch.softmax(x[0] * float(f[0]), dim=-1)
    if k == "add":
        return clamp(x[0] + x[1], f[0], f[1])
    if k == "mul":
        return clamp(x[0] * x[1], f[0], f[1])
    if k == "concat":
        return torch.cat(x, dim=int(i[0]))
    if k == "reshape":
        return x[0].reshape(t[op["out"][0]]["shape"])
    if k == "transpose":
        return x[0].permute(*[int(p) for p in i])
    if k == "pad":
        r = x[0].dim()
        before, after = i[2:2 + r], i[2 + r:2 + 2 * r]
        pads = []
        for d in reversed(range(r)):
            pads += [int(before[d]), int(after[d])]
        mode = {0: "constant", 1: "reflect", 2: "replicate"}[int(i[0])]
        if mode == "constant":
            return F.pad(x[0], pads, value=float(f[1]))
        return F.pad(x[0], pads, mode=mode)
    raise NotImplementedError(k)


def run(model, inputs):
    tensors, ops, ins, outs = model
    vals = {}
    for idx, tt in enumerate(tensors):
        if tt["data"] is not None:
            vals[idx] = torch.from_numpy(tt["data"].astype(np.float64))
    for tid, v in zip(ins, inputs):
        vals[tid] = torch.from_numpy(v.astype(np.float64))
    for op in ops:
        args = [None if k is None else vals[k] for k in op["in"]]
        vals[op["out"][0]] = run_op(op, args, tensors)
    # an output no op makes is empty (a dim of 0): nothing to compute
    return [vals[k].numpy() if k in vals else np.zeros(tensors[k]["shape"]) for k in outs]


def main(models_dir):
    torch.set_grad_enabled(False)
    for path in sorted(glob.glob(os.path.join(models_dir, "*.nk"))):
        stem = os.path.splitext(path)[0]
        name = os.path.basename(stem)
        model = read_nk(path)
        tensors, _, ins, outs = model
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        batches = [rng.uniform(-1, 1, size=[BATCH] + tensors[k]["shape"]).astype(np.float32)
                   for k in ins]
        results = [[] for _ in outs]
        for n in range(BATCH):
            for k, y in enumerate(run(model, [b[n] for b in batches])):
                results[k].append(y)
        expected = [np.stack(r).astype(np.float32) for r in results]
        multi = len(ins) > 1 or len(outs) > 1
        for k, arr in enumerate(batches):
            np.save("%s.input%s.npy" % (stem, k if multi else ""), arr)
        for k, arr in enumerate(expected):
            np.save("%s.expected%s.npy" % (stem, k if multi else ""), arr)
        print("%s: %d inputs x %d, outputs %s" % (name, len(ins), BATCH,
                                                   [list(e.shape) for e in expected]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "models"))

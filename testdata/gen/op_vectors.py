#!/usr/bin/python3
"""Reference vectors for the C op unit tests (tests/c/ops/*_test.c).

Every expected output is computed here by PyTorch (numpy.pad for pad modes
torch cannot apply to arbitrary dims), in float64 from float32 inputs, then
rounded to float32. NHWC tensors are converted to torch's NCHW and back.
The results are written as C headers under testdata/op_vectors/ with floats
as exact hex literals, so the C tests never need torch.

Run: /usr/bin/python3 testdata/gen/op_vectors.py   (deterministic: fixed seeds)
"""
import math
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

from nkops import OP_IDS

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "op_vectors")
INF = float("inf")


def I(v):
    return ("i", int(v))


def Fp(v):
    return ("f", float(v))


def word(p):
    kind, v = p
    if kind == "i":
        return struct.unpack("<I", struct.pack("<i", v))[0]
    return struct.unpack("<I", struct.pack("<f", v))[0]


class Case:
    def __init__(self, name, op, inputs, out, params):
        self.name = name
        self.op = OP_IDS[op]
        self.inputs = inputs  # list of np.float32 arrays or None (absent input)
        self.out = np.asarray(out, dtype=np.float32)
        self.params = [word(p) for p in params]


def rnd(gen, *shape, scale=1.0):
    """float32 values, so the float64 reference sees exactly what C sees."""
    return (torch.randn(*shape, generator=gen, dtype=torch.float64) * scale).float().numpy()


def t64(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float32)).double()


def nhwc_to_nchw(a):
    return t64(a).permute(0, 3, 1, 2)


def nchw_to_nhwc(t):
    return t.permute(0, 2, 3, 1).contiguous().numpy()


def clamp(t, lo, hi):
    if lo == -INF and hi == INF:
        return t
    return torch.clamp(t, min=None if lo == -INF else lo, max=None if hi == INF else hi)


# ---------------------------------------------------------------- dense
def dense_cases():
    cases = []
    specs = [  # name, x shape, N, bias mode, act
        ("dense 1x16->8 bias", (1, 16), 8, "bias", (-INF, INF)),
        ("dense 3x7->5 no bias relu", (3, 7), 5, "none2", (0.0, INF)),
        ("dense [2,3,10]->4 bias absent clamp", (2, 3, 10), 4, "absent", (-0.5, 0.5)),
        ("dense 1x33->6 bias relu6", (1, 33), 6, "bias", (0.0, 6.0)),
    ]
    for i, (name, xs, n, bmode, (lo, hi)) in enumerate(specs):
        g = torch.Generator().manual_seed(100 + i)
        x = rnd(g, *xs)
        w = rnd(g, n, xs[-1], scale=0.5)
        b = rnd(g, n) if bmode == "bias" else None
        y = F.linear(t64(x), t64(w), None if b is None else t64(b))
        y = clamp(y, lo, hi).numpy()
        ins = [x, w] + ([b] if bmode == "bias" else [None] if bmode == "absent" else [])
        cases.append(Case(name, "dense", ins, y, [Fp(lo), Fp(hi)]))
    return cases


# ---------------------------------------------------------------- conv
def conv_ref(x, w_oihw, b, stride, dil, pads, groups, lo, hi):
    """pads: top, left, bottom, right (asymmetric allowed via F.pad)."""
    xt = nhwc_to_nchw(x)
    pt, pl, pb, pr = pads
    xt = F.pad(xt, (pl, pr, pt, pb))
    y = F.conv2d(xt, t64(w_oihw), None if b is None else t64(b), stride=stride,
                 dilation=dil, groups=groups)
    return nchw_to_nhwc(clamp(y, lo, hi))


def conv_cases():
    cases = []
    specs = [  # name, N,H,W,C, O, kh,kw, stride, dil, pads, groups, bias, act
        ("conv2d 3x3 s1 p1", 1, 6, 6, 3, 4, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1), 1, True, (-INF, INF)),
        ("conv2d 3x3 s2 p1", 1, 7, 7, 2, 5, 3, 3, (2, 2), (1, 1), (1, 1, 1, 1), 1, True, (-INF, INF)),
        ("conv2d 3x3 dilation 2 p2", 1, 9, 8, 3, 4, 3, 3, (1, 1), (2, 2), (2, 2, 2, 2), 1, True, (-INF, INF)),
        ("conv2d groups 2", 1, 6, 6, 4, 6, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1), 2, True, (-INF, INF)),
        ("conv2d groups == channels", 1, 5, 5, 3, 3, 3, 3, (1, 1), (1, 1), (0, 0, 0, 0), 3, True, (-INF, INF)),
        ("conv2d 2x3 s2x1 asym pads 0,1,2,1 batch2 relu6", 2, 6, 5, 3, 4, 2, 3, (2, 1), (1, 1), (0, 1, 2, 1), 1, True, (0.0, 6.0)),
        ("conv2d 1x1 no bias relu", 1, 4, 4, 8, 5, 1, 1, (1, 1), (1, 1), (0, 0, 0, 0), 1, False, (0.0, INF)),
        ("conv2d 5x5 s2 p2 28x28x1", 1, 28, 28, 1, 4, 5, 5, (2, 2), (1, 1), (2, 2, 2, 2), 1, True, (-INF, INF)),
        ("conv2d groups 3 dil 1x2 s2 asym pads 1,0,0,2", 1, 7, 9, 6, 9, 3, 2, (2, 2), (1, 2), (1, 0, 0, 2), 3, True, (-1.0, 1.0)),
        ("conv2d groups 2 of 5 outputs each", 2, 5, 5, 4, 10, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1), 2, True, (-INF, INF)),
        ("conv2d 3x3 s2 p1 6->8 channel tail", 1, 7, 7, 6, 8, 3, 3, (2, 2), (1, 1), (1, 1, 1, 1), 1, True, (-INF, INF)),
        ("conv2d groups 2 of 5 inputs 4 outputs relu", 1, 5, 6, 10, 8, 2, 2, (1, 1), (1, 1), (0, 1, 1, 0), 2, True, (0.0, INF)),
        ("conv2d 3x3 s1 p0 16->12 no bias", 1, 6, 5, 16, 12, 3, 3, (1, 1), (1, 1), (0, 0, 0, 0), 1, False, (-INF, INF)),
    ]
    for i, (name, n, h, w_, c, o, kh, kw, st, dl, pads, grp, has_b, (lo, hi)) in enumerate(specs):
        g = torch.Generator().manual_seed(200 + i)
        x = rnd(g, n, h, w_, c)
        w = rnd(g, o, c // grp, kh, kw, scale=0.4)  # torch OIHW
        b = rnd(g, o) if has_b else None
        y = conv_ref(x, w, b, st, dl, pads, grp, lo, hi)
        w_nk = np.ascontiguousarray(w.transpose(0, 2, 3, 1))  # [O, KH, KW, C/g]
        params = [I(st[0]), I(st[1]), I(dl[0]), I(dl[1])] + [I(p) for p in pads] + \
                 [I(grp), Fp(lo), Fp(hi)]
        ins = [x, w_nk] + ([b] if has_b else [])
        cases.append(Case(name, "conv2d", ins, y, params))
    return cases


def depthwise_cases():
    cases = []
    specs = [  # name, N,H,W,C, M, kh,kw, stride, dil, pads, bias, act
        ("depthwise 3x3 m1 p1", 1, 6, 6, 4, 1, 3, 3, (1, 1), (1, 1), (1, 1, 1, 1), True, (-INF, INF)),
        ("depthwise 3x3 m2 s2 p1", 1, 7, 7, 3, 2, 3, 3, (2, 2), (1, 1), (1, 1, 1, 1), True, (-INF, INF)),
        ("depthwise 3x3 m3 dil 2 asym pads 2,1,0,2 no bias clamp", 2, 8, 7, 2, 3, 3, 3, (1, 1), (2, 2), (2, 1, 0, 2), False, (-0.5, 0.75)),
        ("depthwise 5x3 m1 s1x2 relu6", 1, 9, 9, 5, 1, 5, 3, (1, 2), (1, 1), (2, 1, 2, 1), True, (0.0, 6.0)),
    ]
    for i, (name, n, h, w_, c, m, kh, kw, st, dl, pads, has_b, (lo, hi)) in enumerate(specs):
        g = torch.Generator().manual_seed(300 + i)
        x = rnd(g, n, h, w_, c)
        w = rnd(g, c * m, 1, kh, kw, scale=0.5)  # torch: groups=C, out channel c*M+m
        b = rnd(g, c * m) if has_b else None
        y = conv_ref(x, w, b, st, dl, pads, c, lo, hi)
        w_nk = np.ascontiguousarray(w[:, 0].transpose(1, 2, 0))[None]  # [1, KH, KW, C*M]
        params = [I(st[0]), I(st[1]), I(dl[0]), I(dl[1])] + [I(p) for p in pads] + \
                 [I(m), Fp(lo), Fp(hi)]
        ins = [x, w_nk] + ([b] if has_b else [])
        cases.append(Case(name, "depthwise_conv2d", ins, y, params))
    return cases


# ---------------------------------------------------------------- pools
def pool_cases():
    cases = []
    mspecs = [  # name, shape, k, stride, pads, act
        ("max_pool 2x2 s2", (1, 6, 6, 3), (2, 2), (2, 2), (0, 0, 0, 0), (-INF, INF)),
        ("max_pool 3x3 s2 p1", (2, 7, 7, 2), (3, 3), (2, 2), (1, 1, 1, 1), (-INF, INF)),
        ("max_pool 2x3 s1x2 asym pads 0,1,1,0 relu", (1, 5, 6, 4), (2, 3), (1, 2), (0, 1, 1, 0), (0.0, INF)),
    ]
    for i, (name, shape, k, st, pads, (lo, hi)) in enumerate(mspecs):
        g = torch.Generator().manual_seed(400 + i)
        x = rnd(g, *shape)
        pt, pl, pb, pr = pads
        xt = F.pad(nhwc_to_nchw(x), (pl, pr, pt, pb), value=-INF)
        y = nchw_to_nhwc(clamp(F.max_pool2d(xt, k, st), lo, hi))
        params = [I(k[0]), I(k[1]), I(st[0]), I(st[1])] + [I(p) for p in pads] + [Fp(lo), Fp(hi)]
        cases.append(Case(name, "max_pool2d", [x], y, params))

    aspecs = [  # name, shape, k, stride, pads, count_include_pad, act
        ("avg_pool 2x2 s2", (1, 6, 6, 3), (2, 2), (2, 2), (0, 0, 0, 0), 1, (-INF, INF)),
        ("avg_pool 3x3 s1 p1 count_include_pad=1", (1, 5, 5, 2), (3, 3), (1, 1), (1, 1, 1, 1), 1, (-INF, INF)),
        ("avg_pool 3x3 s1 p1 count_include_pad=0", (1, 5, 5, 2), (3, 3), (1, 1), (1, 1, 1, 1), 0, (-INF, INF)),
        ("avg_pool 3x2 s2x1 asym pads 2,0,1,1 include", (2, 7, 6, 3), (3, 2), (2, 1), (2, 0, 1, 1), 1, (-INF, INF)),
        ("avg_pool 3x2 s2x1 asym pads 2,0,1,1 exclude relu", (2, 7, 6, 3), (3, 2), (2, 1), (2, 0, 1, 1), 0, (0.0, INF)),
    ]
    for i, (name, shape, k, st, pads, cip, (lo, hi)) in enumerate(aspecs):
        g = torch.Generator().manual_seed(450 + i)
        x = rnd(g, *shape)
        pt, pl, pb, pr = pads
        xt = nhwc_to_nchw(x)
        if pt == pb and pl == pr:
            y = F.avg_pool2d(xt, k, st, padding=(pt, pl), count_include_pad=bool(cip))
        else:
            # asymmetric: sum over zero-padded input / (window size or valid taps)
            s = F.avg_pool2d(F.pad(xt, (pl, pr, pt, pb)), k, st, divisor_override=1)
            if cip:
                y = s / (k[0] * k[1])
            else:
                ones = torch.ones_like(xt[:, :1])
                cnt = F.avg_pool2d(F.pad(ones, (pl, pr, pt, pb)), k, st, divisor_override=1)
                y = s / cnt
        y = nchw_to_nhwc(clamp(y, lo, hi))
        params = [I(k[0]), I(k[1]), I(st[0]), I(st[1])] + [I(p) for p in pads] + \
                 [I(cip), Fp(lo), Fp(hi)]
        cases.append(Case(name, "avg_pool2d", [x], y, params))

    for i, shape in enumerate([(1, 4, 4, 3), (2, 3, 5, 7), (1, 1, 1, 6)]):
        g = torch.Generator().manual_seed(480 + i)
        x = rnd(g, *shape)
        y = nchw_to_nhwc(F.adaptive_avg_pool2d(nhwc_to_nchw(x), 1))
        cases.append(Case("global_avg_pool %s" % (shape,), "global_avg_pool", [x], y, []))
    return cases


# ---------------------------------------------------------------- activations
def activation_cases():
    cases = []
    g = torch.Generator().manual_seed(500)
    x = rnd(g, 2, 5, 5, 3, scale=3.0)
    big = np.array([-100.0, -20.0, -1e-3, 0.0, 1e-3, 0.5, 3.0, 20.0, 100.0], dtype=np.float32)
    for nm, arr in (("nhwc", x), ("edge values", big)):
        xt = t64(arr)
        cases.append(Case("relu " + nm, "relu", [arr], F.relu(xt).numpy(), []))
        cases.append(Case("sigmoid " + nm, "sigmoid", [arr], torch.sigmoid(xt).numpy(), []))
        cases.append(Case("tanh " + nm, "tanh", [arr], torch.tanh(xt).numpy(), []))
        cases.append(Case("gelu erf " + nm, "gelu", [arr], F.gelu(xt).numpy(), [I(0)]))
        cases.append(Case("gelu tanh " + nm, "gelu", [arr],
                          F.gelu(xt, approximate="tanh").numpy(), [I(1)]))
        cases.append(Case("clip 0..6 " + nm, "clip", [arr], torch.clamp(xt, 0, 6).numpy(),
                          [Fp(0), Fp(6)]))
        cases.append(Case("leaky_relu 0.1 " + nm, "leaky_relu", [arr],
                          F.leaky_relu(xt, 0.1).numpy(), [Fp(0.1)]))
    xt = t64(x)
    cases.append(Case("clip -1..0.5", "clip", [x], torch.clamp(xt, -1, 0.5).numpy(),
                      [Fp(-1), Fp(0.5)]))
    cases.append(Case("clip -inf..2", "clip", [x], torch.clamp(xt, max=2).numpy(),
                      [Fp(-INF), Fp(2)]))
    cases.append(Case("leaky_relu 0.01 rank1", "leaky_relu", [x.reshape(-1)],
                      F.leaky_relu(xt.reshape(-1), 0.01).numpy(), [Fp(0.01)]))
    cases.append(Case("leaky_relu 1.5", "leaky_relu", [x],
                      torch.where(xt >= 0, xt, xt * float(np.float32(1.5))).numpy(),
                      [Fp(1.5)]))

    # softmax over the last axis, softmax(beta * x)
    g = torch.Generator().manual_seed(510)
    sm = [
        ("softmax [2,10]", rnd(g, 2, 10), 1.0),
        ("softmax [3,4,5] large values", (rnd(g, 3, 4, 5) * 300 + 1000).astype(np.float32), 1.0),
        ("softmax [1,2,2,7] beta 0.5", rnd(g, 1, 2, 2, 7, scale=4.0), 0.5),
        ("softmax [4,3] beta 2 negative large", (rnd(g, 4, 3) * 50 - 5000).astype(np.float32), 2.0),
        ("softmax [5] single row", rnd(g, 5), 1.0),
    ]
    for name, arr, beta in sm:
        b32 = float(np.float32(beta))
        y = torch.softmax(t64(arr) * b32, dim=-1).numpy()
        cases.append(Case(name, "softmax", [arr], y, [Fp(beta)]))

    # batch norm, channels last (torch: channels at dim 1)
    for i, shape in enumerate([(2, 3, 4, 5), (7, 3), (1, 2, 2, 20)]):
        g = torch.Generator().manual_seed(520 + i)
        c = shape[-1]
        x = rnd(g, *shape, scale=2.0)
        gamma = rnd(g, c)
        beta = rnd(g, c)
        mean = rnd(g, c)
        var = (np.abs(rnd(g, c)) + 0.1).astype(np.float32)
        eps = 1e-5 if i != 1 else 1e-3
        xt = t64(x)
        if len(shape) == 4:
            xt = xt.permute(0, 3, 1, 2)
        y = F.batch_norm(xt, t64(mean), t64(var), t64(gamma), t64(beta), training=False,
                         eps=float(np.float32(eps)))
        if len(shape) == 4:
            y = y.permute(0, 2, 3, 1)
        cases.append(Case("batch_norm %s eps %g" % (shape, eps), "batch_norm",
                          [x, gamma, beta, mean, var], y.contiguous().numpy(), [Fp(eps)]))
    return cases


# ---------------------------------------------------------------- add / mul
def binary_cases():
    cases = []
    specs = [  # name, a shape, b shape, act
        ("same shape", (1, 4, 4, 3), (1, 4, 4, 3), (-INF, INF)),
        ("per-channel [3]", (1, 4, 4, 3), (3,), (-INF, INF)),
        ("per-channel [1,1,1,3] relu", (2, 3, 3, 3), (1, 1, 1, 3), (0.0, INF)),
        ("both broadcast [2,1,3,1]x[4,1,5]", (2, 1, 3, 1), (4, 1, 5), (-INF, INF)),
        ("scalar [1]", (2, 3, 4), (1,), (-INF, INF)),
        ("a broadcast [3]x[2,2,3]", (3,), (2, 2, 3), (-INF, INF)),
        ("rank 6 [2,3,4,5,6,2]x[3,1,5,1,2] clamp", (2, 3, 4, 5, 6, 2), (3, 1, 5, 1, 2), (-1.0, 1.5)),
        ("spatial [1,4,4,1]x[1,4,4,6]", (1, 4, 4, 1), (1, 4, 4, 6), (-INF, INF)),
        ("middle [2,3,4]x[3,1]", (2, 3, 4), (3, 1), (-INF, INF)),
        ("rank 0-like [1,1]x[1]", (1, 1), (1,), (-INF, INF)),
    ]
    for op, fn, seed in (("add", torch.add, 600), ("mul", torch.mul, 650)):
        for i, (name, sa, sb, (lo, hi)) in enumerate(specs):
            g = torch.Generator().manual_seed(seed + i)
            a = rnd(g, *sa)
            b = rnd(g, *sb)
            y = clamp(fn(t64(a), t64(b)), lo, hi).numpy()
            cases.append(Case("%s %s" % (op, name), op, [a, b], y, [Fp(lo), Fp(hi)]))
    return cases


# ---------------------------------------------------------------- shape ops
def shape_cases():
    cases = []
    g = torch.Generator().manual_seed(700)
    cspecs = [  # name, shapes, axis
        ("concat channels", [(1, 3, 3, 2), (1, 3, 3, 3), (1, 3, 3, 1)], 3),
        ("concat axis 0", [(1, 2, 3), (2, 2, 3)], 0),
        ("concat axis 1 rank 3", [(2, 1, 4), (2, 3, 4), (2, 2, 4)], 1),
        ("concat single input", [(2, 5)], 1),
        ("concat rank 1", [(3,), (4,)], 0),
        ("concat 8 inputs axis 2", [(1, 2, k + 1) for k in range(8)], 2),
    ]
    for name, shapes, axis in cspecs:
        xs = [rnd(g, *s) for s in shapes]
        y = torch.cat([t64(v) for v in xs], dim=axis).numpy()
        cases.append(Case(name, "concat", xs, y, [I(axis)]))

    for name, si, so in (("reshape flatten [1,2,3,4]->[1,24]", (1, 2, 3, 4), (1, 24)),
                         ("reshape [6]->[2,3]", (6,), (2, 3))):
        x = rnd(g, *si)
        cases.append(Case(name, "reshape", [x], t64(x).reshape(so).numpy(), []))

    # pad: np.pad for the modes over any rank; torch for negative (cropping) pads
    pspecs = [  # name, shape, mode, value, before, after
        ("pad constant nhwc spatial", (1, 3, 4, 2), 0, 0.5, (0, 1, 2, 0), (0, 2, 1, 0)),
        ("pad reflect rank 3", (2, 4, 5), 1, 0.0, (1, 3, 2), (0, 2, 4)),
        ("pad edge rank 4", (1, 3, 4, 2), 2, 0.0, (0, 2, 1, 1), (1, 3, 0, 2)),
        ("pad reflect nhwc", (1, 5, 4, 3), 1, 0.0, (0, 2, 3, 0), (0, 4, 1, 0)),
        ("pad constant rank 1", (5,), 0, -2.0, (3,), (1,)),
        ("pad edge rank 6", (2, 1, 3, 2, 1, 2), 2, 0.0, (1, 0, 1, 0, 2, 1), (0, 2, 0, 1, 1, 0)),
    ]
    mode_names = {0: "constant", 1: "reflect", 2: "edge"}
    for name, shape, mode, value, bef, aft in pspecs:
        x = rnd(g, *shape)
        kw = dict(constant_values=np.float32(value)) if mode == 0 else {}
        y = np.pad(x.astype(np.float64), list(zip(bef, aft)), mode=mode_names[mode], **kw)
        params = [I(mode), Fp(value)] + [I(v) for v in bef] + [I(v) for v in aft]
        cases.append(Case(name, "pad", [x], y, params))
    # negative pads crop (constant mode): torch.nn.functional.pad, pads last dim first
    x = rnd(g, 1, 5, 6, 2)
    bef, aft = (0, -1, 2, 0), (0, 1, -2, 0)
    torch_pads = []
    for d in reversed(range(4)):
        torch_pads += [bef[d], aft[d]]
    y = F.pad(t64(x), torch_pads, value=1.0).numpy()
    cases.append(Case("pad constant negative crop", "pad", [x], y,
                      [I(0), Fp(1.0)] + [I(v) for v in bef] + [I(v) for v in aft]))

    tspecs = [
        ("transpose nhwc->nchw", (1, 3, 4, 5), (0, 3, 1, 2)),
        ("transpose nchw->nhwc", (2, 3, 4, 5), (0, 2, 3, 1)),
        ("transpose rank 2", (7, 3), (1, 0)),
        ("transpose identity rank 3", (2, 3, 4), (0, 1, 2)),
        ("transpose rank 6", (2, 3, 1, 4, 2, 3), (5, 0, 3, 1, 4, 2)),
        ("transpose rank 5 last kept", (2, 3, 2, 2, 3), (2, 0, 3, 1, 4)),
    ]
    for name, shape, perm in tspecs:
        x = rnd(g, *shape)
        y = t64(x).permute(*perm).contiguous().numpy()
        cases.append(Case(name, "transpose", [x], y, [I(p) for p in perm]))
    return cases


# ---------------------------------------------------------------- writer
def c_float(v):
    v = float(v)
    if math.isnan(v) or math.isinf(v):
        raise ValueError("non-finite value in vectors")
    if v == 0.0:
        return "-0.0f" if math.copysign(1.0, v) < 0 else "0.0f"
    mant, exp = v.hex().split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp + "f"


def c_array(name, vals):
    vals = [c_float(v) for v in np.asarray(vals, dtype=np.float32).reshape(-1)]
    lines = []
    for k in range(0, len(vals), 6):
        lines.append("    " + ", ".join(vals[k:k + 6]) + ",")
    return "static const float %s[%d] = {\n%s\n};\n" % (name, len(vals), "\n".join(lines))


def c_tensor(arr_name, arr):
    if arr is None:
        return "{-1, {0}, NULL}"
    dims = list(arr.shape)
    return "{%d, {%s}, %s}" % (len(dims), ", ".join(str(d) for d in dims) or "0", arr_name)


def write_header(fname, table, cases):
    out = ["/* Generated by testdata/gen/op_vectors.py (PyTorch references); do not edit. */",
           "/* clang-format off */", ""]
    rows = []
    for ci, c in enumerate(cases):
        pre = "%s_%d" % (table, ci)
        ins = []
        for k, a in enumerate(c.inputs):
            if a is not None:
                out.append(c_array("%s_in%d" % (pre, k), np.asarray(a, np.float32)))
            ins.append(c_tensor("%s_in%d" % (pre, k), a))
        out.append(c_array("%s_out" % pre, c.out))
        if c.params:
            out.append("static const uint32_t %s_params[%d] = {%s};\n" % (
                pre, len(c.params), ", ".join("0x%08xu" % w for w in c.params)))
        rows.append('    {"%s", %d, %d, {%s}, %s, %d, %s},' % (
            c.name, c.op, len(c.inputs), ", ".join(ins), c_tensor(pre + "_out", c.out),
            len(c.params), (pre + "_params") if c.params else "NULL"))
    out.append("static const nkt_case %s[] = {\n%s\n};\n" % (table, "\n".join(rows)))
    with open(os.path.join(OUT_DIR, fname), "w") as f:
        f.write("\n".join(out))


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT_DIR, exist_ok=True)
    write_header("dense.h", "nkt_dense_cases", dense_cases())
    write_header("conv.h", "nkt_conv_cases", conv_cases() + depthwise_cases())
    write_header("pool.h", "nkt_pool_cases", pool_cases())
    write_header("activation.h", "nkt_activation_cases", activation_cases())
    write_header("elementwise.h", "nkt_binary_cases", binary_cases())
    write_header("shape_ops.h", "nkt_shape_cases", shape_cases())


if __name__ == "__main__":
    main()

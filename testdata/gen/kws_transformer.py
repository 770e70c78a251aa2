#!/usr/bin/python3
"""A small keyword transformer (KWT-style) exported to ONNX, with PyTorch's
outputs: the reference model for LayerNormalization, MatMul with a computed
right-hand side, Softmax attention and GELU (issue 14).

Run with Debian's torch: /usr/bin/python3 testdata/gen/kws_transformer.py
Writes to testdata/pytorch/:
  kws_transformer.onnx            the exported model (opset 17), input
                                  "mfcc" [1, 49, 10], output "logits" [1, 12]
  kws_transformer.input.npy       3 inputs [3, 1, 49, 10] (normal, seed 0)
  kws_transformer.expected.npy    PyTorch's logits for them [3, 1, 12],
                                  computed in float64
The .nk next to them is made by
  netkit convert testdata/pytorch/kws_transformer.onnx
The weights are PyTorch's default initialization from a fixed seed (the
model is a shape and arithmetic reference, not a trained spotter).
"""
import os

import numpy as np
import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch")
FRAMES, COEFFS, DIM, HEADS, MLP, DEPTH, CLASSES = 49, 10, 32, 2, 64, 2, 12


class Attention(nn.Module):
    """Multi-head self-attention written out so the export is plain
    MatMul/Transpose/Reshape/Softmax (as KWT and tiny ViTs export)."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(DIM, DIM), nn.Linear(DIM, DIM), nn.Linear(DIM, DIM)
        self.out = nn.Linear(DIM, DIM)
        self.scale = (DIM // HEADS) ** -0.5

    def heads(self, t):
        return t.reshape(1, FRAMES, HEADS, DIM // HEADS).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * self.scale, dim=-1)
        y = torch.matmul(att, v).permute(0, 2, 1, 3).reshape(1, FRAMES, DIM)
        return self.out(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.att = nn.LayerNorm(DIM), Attention()
        self.norm2 = nn.LayerNorm(DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM, MLP), nn.GELU(), nn.Linear(MLP, DIM))

    def forward(self, x):
        x = x + self.att(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class KWT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(COEFFS, DIM)
        self.pos = nn.Parameter(0.1 * torch.randn(1, FRAMES, DIM))
        self.blocks = nn.Sequential(*[Block() for _ in range(DEPTH)])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, x):
        x = self.blocks(self.embed(x) + self.pos)
        return self.head(self.norm(x).mean(dim=1))


def main():
    torch.manual_seed(0)
    model = KWT().eval()
    os.makedirs(OUT, exist_ok=True)
    x = np.random.default_rng(0).standard_normal((3, 1, FRAMES, COEFFS)).astype(np.float32)
    torch.onnx.export(model, torch.from_numpy(x[0]), os.path.join(OUT, "kws_transformer.onnx"),
                      opset_version=17, input_names=["mfcc"], output_names=["logits"])
    ref = model.double()
    with torch.no_grad():
        y = np.stack([ref(torch.from_numpy(s).double()).numpy() for s in x]).astype(np.float32)
    np.save(os.path.join(OUT, "kws_transformer.input.npy"), x)
    np.save(os.path.join(OUT, "kws_transformer.expected.npy"), y)
    print("kws_transformer: logits", y.shape, "max |y|", float(np.abs(y).max()))


if __name__ == "__main__":
    main()

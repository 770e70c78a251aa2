#!/usr/bin/python3
"""Train a small GRU keyword spotter on synthetic data and export it to ONNX.

Run with Debian's torch: /usr/bin/python3 testdata/gen/kws_gru.py
Needs the apt packages python3-torch and python3-onnx.

The synthetic "audio features": 20 frames of 10 band energies, noise plus,
for keywords 1..3, a band pattern that sweeps up, sweeps down or pulses at
a random time; class 0 is noise only. The model: GRU(10 -> 24) over the
frames, a linear head on the last hidden state (4 logits). PyTorch's GRU
exports as ONNX GRU with linear_before_reset=1.

Writes to testdata/pytorch/ (and prints the accuracy on 512 fresh
synthetic sequences):
  kws_gru.onnx            the exported model (input x [20,1,10], seq-first)
  kws_gru.input.npy       16 test sequences [16,20,1,10] float32
  kws_gru.expected.npy    PyTorch's logits of each [16,1,4]
The .nk next to them is made by
  netkit convert testdata/pytorch/kws_gru.onnx
The Go tests read only these files, so they never need torch.
"""
import os

import numpy as np
import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch")
T, BANDS, HIDDEN, CLASSES = 20, 10, 24, 4


def synth(n, rng):
    x = rng.normal(0.0, 0.3, size=(n, T, BANDS)).astype(np.float32)
    y = rng.integers(0, CLASSES, size=n)
    for i in range(n):
        start = rng.integers(0, T - 8)
        for k in range(8):
            t = start + k
            if y[i] == 1:
                x[i, t, min(k, BANDS - 1)] += 1.5
            elif y[i] == 2:
                x[i, t, BANDS - 1 - min(k, BANDS - 1)] += 1.5
            elif y[i] == 3:
                x[i, t, :] += 1.0 if k % 2 == 0 else -1.0
    return torch.from_numpy(x), torch.from_numpy(y)


class KWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(BANDS, HIDDEN)
        self.head = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x):  # x [T, B, BANDS]
        _, h = self.gru(x)
        return self.head(h.reshape(-1, HIDDEN))  # [B, CLASSES]


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = KWS()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(300):
        x, y = synth(64, rng)
        loss = nn.functional.cross_entropy(model(x.transpose(0, 1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        x, y = synth(512, rng)
        acc = (model(x.transpose(0, 1)).argmax(1) == y).float().mean().item()
        xs, _ = synth(16, rng)
        xs = xs[:, :, None, :]  # [16, T, 1, BANDS]: one sequence per run
        logits = np.stack([model(s).numpy() for s in xs])  # [16, 1, CLASSES]
    os.makedirs(OUT, exist_ok=True)
    torch.onnx.export(model, xs[0], os.path.join(OUT, "kws_gru.onnx"), opset_version=14,
                      input_names=["x"], output_names=["logits"])
    np.save(os.path.join(OUT, "kws_gru.input.npy"), xs.numpy().astype(np.float32))
    np.save(os.path.join(OUT, "kws_gru.expected.npy"), logits.astype(np.float32))
    print("accuracy %.4f" % acc)


if __name__ == "__main__":
    main()

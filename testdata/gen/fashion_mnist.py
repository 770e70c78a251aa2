#!/usr/bin/python3
"""Train three small Fashion-MNIST classifiers and export them to ONNX.

Run with Debian's torch: /usr/bin/python3 testdata/gen/fashion_mnist.py
Needs the apt packages python3-torch, python3-onnx, dataset-fashion-mnist.

Writes to testdata/fashion/:
  mlp.onnx, cnn_bn.onnx, cnn_dw.onnx   the exported models
  input.npy                            100 test images, NCHW float32 [100,1,28,28]
  labels.npy                           their true labels (int64)
  <model>_logits.npy                   PyTorch logits of each model [100,10]
  accuracy.txt                         test-set accuracy of each model
  labels.txt                           the class names, one a line
  layout_mix.onnx (+ _input, _probs, _logits .npy)
                                       an untrained 3-channel model for the
                                       layout pass, with PyTorch's outputs
The .nk files next to them are made from these by
  netkit convert testdata/fashion/NAME.onnx --labels testdata/fashion/labels.txt
The Go tests read only these files, so they never need torch.
"""
import gzip
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn

DATA = "/usr/share/datasets/fashion-mnist"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fashion")
TRAIN_SECONDS = float(os.environ.get("TRAIN_SECONDS", "60"))
LABELS = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
          "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def read_idx(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(prefix):
    x = read_idx(prefix + "-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    x = (x - 0.2860) / 0.3530  # the data set's mean and std
    y = read_idx(prefix + "-labels-idx1-ubyte.gz").astype(np.int64)
    return torch.from_numpy(x[:, None, :, :].copy()), torch.from_numpy(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(), nn.Linear(784, 64), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.net(x)


class CNNBN(nn.Module):
    """Conv + BatchNorm + ReLU + MaxPool twice, then a classifier head."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 7 * 7, 32), nn.ReLU(),
                                  nn.Linear(32, 10))

    def forward(self, x):
        return self.head(self.features(x))


class CNNDW(nn.Module):
    """A stem conv, a depthwise-separable block with a residual Add, GELU, global pooling."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 24, 3, stride=2, padding=1), nn.BatchNorm2d(24),
                                  nn.GELU())
        self.dw = nn.Conv2d(24, 24, 3, padding=1, groups=24)
        self.dw_bn = nn.BatchNorm2d(24)
        self.pw = nn.Conv2d(24, 24, 1)
        self.pw_bn = nn.BatchNorm2d(24)
        self.act = nn.GELU()
        self.down = nn.Sequential(nn.Conv2d(24, 48, 3, stride=2, padding=1), nn.ReLU6())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(48, 10)

    def forward(self, x):
        x = self.stem(x)
        y = self.pw_bn(self.pw(self.act(self.dw_bn(self.dw(x)))))
        x = self.act(x + y)
        x = self.pool(self.down(x))
        return self.fc(torch.flatten(x, 1))


class LayoutMix(nn.Module):
    """Untrained: exercises the importer's NCHW->NHWC handling on 3 channels.

    Input normalization (Sub/Div by per-channel constants), a channel Concat
    of two conv branches, a Pad, a BatchNorm that cannot fold (it follows an
    Add), a broadcast Mul by a [C,1,1] constant, pools with ceil_mode and
    count_include_pad, Softmax over channels, a Transpose, and two outputs:
    a rank-4 one (returned NCHW) and logits through Flatten + MatMul + Add.
    """

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 4, 3, padding=1)
        self.b = nn.Conv2d(3, 4, 1, stride=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.scale = nn.Parameter(torch.randn(8, 1, 1))
        self.w = nn.Parameter(torch.randn(8 * 4 * 3, 5) * 0.1)
        self.bias = nn.Parameter(torch.randn(5))
        self.register_buffer("mean", torch.tensor([0.5, 0.4, 0.3]).view(3, 1, 1))
        self.register_buffer("std", torch.tensor([0.2, 0.25, 0.3]).view(3, 1, 1))

    def forward(self, x):
        x = (x - self.mean) / self.std
        y = torch.cat([torch.relu(self.a(x)), nn.functional.leaky_relu(self.b(x), 0.2)], dim=1)
        y = nn.functional.pad(y, (1, 0, 2, 1), mode="constant", value=0.5)
        y = self.bn(y + 1.0) * self.scale
        y = nn.functional.max_pool2d(y, 3, stride=2, ceil_mode=True)
        y = nn.functional.avg_pool2d(y, 2, stride=1, padding=1, count_include_pad=True)
        probs = torch.softmax(y, dim=1)
        z = torch.sigmoid(y).transpose(2, 3)                 # [1, 8, W, H]
        z = nn.functional.avg_pool2d(torch.tanh(z), 2)           # [1, 8, 3, 4]
        logits = torch.clamp(torch.flatten(z, 1) @ self.w + self.bias, -1.0, 1.0)
        return probs, logits


def export_layout_mix():
    torch.manual_seed(1)
    model = LayoutMix()
    with torch.no_grad():  # give the BatchNorm statistics that are not the identity
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
        model.bn.weight.uniform_(0.5, 1.5)
        model.bn.bias.uniform_(-0.5, 0.5)
    model.eval()
    x = torch.rand(1, 3, 12, 10)
    with torch.no_grad():
        probs, logits = model(x)
    np.save(os.path.join(OUT, "layout_mix_input.npy"), x.numpy())
    np.save(os.path.join(OUT, "layout_mix_probs.npy"), probs.numpy())
    np.save(os.path.join(OUT, "layout_mix_logits.npy"), logits.numpy())
    torch.onnx.export(model, x, os.path.join(OUT, "layout_mix.onnx"), opset_version=13,
                      input_names=["image"], output_names=["probs", "logits"],
                      do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)


def train(model, xs, ys, seconds):
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(0)
    start, steps = time.time(), 0
    model.train()
    while time.time() - start < seconds:
        perm = torch.randperm(len(xs), generator=gen)
        for i in range(0, len(xs), 128):
            idx = perm[i:i + 128]
            opt.zero_grad()
            loss = loss_fn(model(xs[idx]), ys[idx])
            loss.backward()
            opt.step()
            steps += 1
            if time.time() - start >= seconds:
                break
    model.eval()
    return steps


def accuracy(model, xs, ys):
    with torch.no_grad():
        correct = 0
        for i in range(0, len(xs), 1000):
            correct += (model(xs[i:i + 1000]).argmax(1) == ys[i:i + 1000]).sum().item()
    return correct / len(xs)


def main():
    torch.set_num_threads(2)
    os.makedirs(OUT, exist_ok=True)
    export_layout_mix()
    if os.environ.get("ONLY_LAYOUT_MIX"):
        return
    torch.manual_seed(0)
    xtr, ytr = load("train")
    xte, yte = load("t10k")
    ref_x, ref_y = xte[:100], yte[:100]
    np.save(os.path.join(OUT, "input.npy"), ref_x.numpy().astype(np.float32))
    np.save(os.path.join(OUT, "labels.npy"), ref_y.numpy())
    with open(os.path.join(OUT, "labels.txt"), "w") as f:
        f.write("\n".join(LABELS) + "\n")
    lines = []
    # cnn_bn keeps its BatchNormalization nodes so the importer must fold them itself.
    for name, model, fold in (("mlp", MLP(), True), ("cnn_bn", CNNBN(), False),
                              ("cnn_dw", CNNDW(), True)):
        steps = train(model, xtr, ytr, TRAIN_SECONDS)
        acc = accuracy(model, xte, yte)
        with torch.no_grad():
            logits = model(ref_x).numpy().astype(np.float32)
        np.save(os.path.join(OUT, name + "_logits.npy"), logits)
        path = os.path.join(OUT, name + ".onnx")
        # EVAL mode would let the exporter fold Conv+BatchNorm itself; PRESERVE (with the
        # model in eval()) keeps BatchNormalization nodes so our importer's folding is used.
        mode = torch.onnx.TrainingMode.EVAL if fold else torch.onnx.TrainingMode.PRESERVE
        torch.onnx.export(model, ref_x[:1], path, opset_version=13, input_names=["image"],
                          output_names=["logits"], do_constant_folding=fold, training=mode)
        line = "%s: test accuracy %.4f after %d steps (%.0f s)" % (name, acc, steps, TRAIN_SECONDS)
        print(line, file=sys.stderr)
        lines.append(line)
    with open(os.path.join(OUT, "accuracy.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

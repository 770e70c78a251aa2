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
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
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

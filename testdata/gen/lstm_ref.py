#!/usr/bin/python3
"""Reference outputs of a PyTorch LSTM for the TFLite LSTM importer's test.

Run with Debian's torch: /usr/bin/python3 testdata/gen/lstm_ref.py
Needs the apt package python3-torch.

TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM (a Keras LSTM after conversion) is
the LSTM of torch.nn.LSTM: gates i, f, g (cell), o, a cell without clip and
no peepholes or projection. The Go test (internal/tfliteimport
TestUnidirectionalLSTMMatchesPyTorch) builds the TFLite operator from these
weights, converts and runs it, and compares with PyTorch's outputs.

Writes to testdata/pytorch/ (float32, PyTorch's gate order i, f, g, o):
  lstm_ref.w_ih.npy [4H, I]   lstm_ref.w_hh.npy [4H, H]
  lstm_ref.b_ih.npy [4H]      lstm_ref.b_hh.npy [4H]
  lstm_ref.x.npy    [B, T, I] lstm_ref.y.npy    [B, T, H]
"""
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch")
B, T, I, H = 2, 6, 5, 7


def main():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(I, H, batch_first=True)
    with torch.no_grad():
        for p in lstm.parameters():  # wider than the default init, so gates saturate somewhere
            p.uniform_(-0.8, 0.8)
        x = torch.empty(B, T, I).uniform_(-2, 2)
        y, _ = lstm(x)
    os.makedirs(OUT, exist_ok=True)
    arrays = {"w_ih": lstm.weight_ih_l0, "w_hh": lstm.weight_hh_l0, "b_ih": lstm.bias_ih_l0,
              "b_hh": lstm.bias_hh_l0, "x": x, "y": y}
    for name, a in arrays.items():
        np.save(os.path.join(OUT, "lstm_ref.%s.npy" % name), a.detach().numpy().astype(np.float32))


if __name__ == "__main__":
    main()

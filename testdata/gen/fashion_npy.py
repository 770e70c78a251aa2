"""Fashion-MNIST from Debian's dataset-fashion-mnist package as .npy files
netkit takes (normalized as testdata/gen/fashion_mnist.py trained with):

  /usr/bin/python3 testdata/gen/fashion_npy.py DIR [CALIB_COUNT]

writes DIR/calib.npy (the first CALIB_COUNT training images, default 500,
float32 [N,1,28,28]), DIR/test.npy (the 10,000 test images) and
DIR/test_labels.npy (their classes, int64). Used by testdata/gen/fashion_i8.sh
and scripts/quant-accuracy.sh; nothing it writes is committed.
"""
import gzip
import os
import sys

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def normalize(x):
    x = x.astype(np.float32) / 255.0
    return ((x - 0.2860) / 0.3530)[:, None, :, :].astype(np.float32)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    if not os.path.isdir(DATA):
        sys.exit("no %s: install Debian's dataset-fashion-mnist" % DATA)
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "calib.npy"), normalize(read_idx("train-images-idx3-ubyte.gz")[:count]))
    np.save(os.path.join(out, "test.npy"), normalize(read_idx("t10k-images-idx3-ubyte.gz")))
    np.save(os.path.join(out, "test_labels.npy"), read_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))


if __name__ == "__main__":
    main()

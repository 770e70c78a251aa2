#!/usr/bin/python3
"""Quantize the Fashion MLP and CNN with PyTorch; export them as QDQ and QLinear ONNX.

Run with Debian's torch: /usr/bin/python3 testdata/gen/fashion_qdq.py
Needs the apt packages python3-torch, python3-onnx, dataset-fashion-mnist.

PyTorch eager-mode post-training static quantization (qnnpack engine: uint8
activations, int8 weights; the MLP per-tensor, the CNN per-channel), calibrated
on 500 training images, weights taken from testdata/fashion/{mlp,cnn_bn}.onnx.
torch.onnx exports each quantized model as QuantizeLinear/DequantizeLinear
around float ops. Writes to testdata/fashion/:
  <model>_qdq.onnx          the export
  <model>_qdq_logits.npy    PyTorch's quantized outputs (dequantized) on
                            input.npy [100,10]
  <model>_qdq_scale.txt     the output scale and zero point
  <model>_qlinear.onnx, _qlinear_logits.npy, _qlinear_scale.txt
                            the same for a second quantization (every
                            Linear+ReLU fused, the MLP per-channel, the CNN
                            per-tensor), written here from the quantized
                            modules' integer weights and scales in the
                            QOperator form (QLinearConv, com.microsoft.QGemm,
                            MaxPool/Flatten on uint8): torch.onnx exports
                            only QDQ and no fused Linear+ReLU
The Go tests read only these files.
"""
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

import fashion_mnist as fm

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "fashion")
torch.backends.quantized.engine = "qnnpack"
torch.manual_seed(0)


class QMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub()
        self.flatten = nn.Flatten()
        self.fc1, self.relu1 = nn.Linear(784, 64), nn.ReLU()
        self.fc2, self.relu2 = nn.Linear(64, 64), nn.ReLU()
        self.fc3 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.flatten(self.quant(x))
        x = self.relu2(self.fc2(self.relu1(self.fc1(x))))
        return self.dequant(self.fc3(x))

    fuse = []  # torch.onnx cannot export quantized::linear_relu
    fuse_linear = [["fc1", "relu1"], ["fc2", "relu2"]]
    order = ["flatten", "fc1", "fc2", "fc3"]
    weights = {"fc1": "net.1", "fc2": "net.4", "fc3": "net.6"}


class QCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub()
        self.conv1, self.bn1, self.relu1 = nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2, self.bn2, self.relu2 = nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc1, self.relu3 = nn.Linear(32 * 7 * 7, 32), nn.ReLU()
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.bn1(self.conv1(self.quant(x)))))
        x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
        x = self.relu3(self.fc1(self.flatten(x)))
        return self.dequant(self.fc2(x))

    fuse = [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"]]
    fuse_linear = [["fc1", "relu3"]]
    order = ["conv1", "pool1", "conv2", "pool2", "flatten", "fc1", "fc2"]
    weights = {"conv1": "features.0", "bn1": "features.1", "conv2": "features.4", "bn2": "features.5",
               "fc1": "head.1", "fc2": "head.3"}


def qlinear_export(qmodel, order, path):
    """Write qmodel (run as the modules in order) as a QOperator ONNX model."""
    from onnx import TensorProto, helper

    inits, nodes = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def qparams(prefix, scale, zp):
        return [const(prefix + "_scale", np.float32(scale)), const(prefix + "_zp", np.uint8(zp))]

    x = "image"
    in_scale = qmodel.quant.scale.item()  # the scale of x
    act = qparams("image", in_scale, qmodel.quant.zero_point.item())
    nodes.append(helper.make_node("QuantizeLinear", [x] + act, ["image_q"]))
    x = "image_q"
    for name in order:
        mod = getattr(qmodel, name)
        out = name + "_q"
        if name.startswith(("conv", "fc")):
            w = mod.weight()
            if w.qscheme() == torch.per_channel_symmetric or w.qscheme() == torch.per_channel_affine:
                ws = w.q_per_channel_scales().numpy().astype(np.float32)
                wz = w.q_per_channel_zero_points().numpy().astype(np.int8)
            else:
                ws, wz = np.float32(w.q_scale()), np.int8(w.q_zero_point())
            bias = np.round(mod.bias().detach().numpy().astype(np.float64) /
                            (in_scale * np.asarray(ws, np.float64))).astype(np.int32)
            wq = [const(name + "_w", w.int_repr().numpy()), const(name + "_w_scale", ws), const(name + "_w_zp", wz)]
            yq = qparams(name + "_y", mod.scale, mod.zero_point)
            b = const(name + "_b", bias)
            if name.startswith("conv"):
                nodes.append(helper.make_node("QLinearConv", [x] + act + wq + yq + [b], [out], name=name,
                                              kernel_shape=list(mod.kernel_size), pads=list(mod.padding) * 2,
                                              strides=list(mod.stride)))
            else:
                nodes.append(helper.make_node("QGemm", [x] + act + wq + [b] + yq, [out], name=name,
                                              domain="com.microsoft", transB=1))
            act, in_scale = yq, mod.scale
        elif name.startswith("pool"):
            nodes.append(helper.make_node("MaxPool", [x], [out], name=name, kernel_shape=[2, 2], strides=[2, 2]))
        elif name == "flatten":
            nodes.append(helper.make_node("Flatten", [x], [out], name=name))
        x = out
    nodes.append(helper.make_node("DequantizeLinear", [x] + act, ["logits"]))
    graph = helper.make_graph(nodes, "fashion", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 28, 28])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def load_onnx_weights(model, path):
    init = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in onnx.load(path).graph.initializer}
    sd = {}
    for mine, theirs in model.weights.items():
        for k in model.state_dict():
            if k.startswith(mine + ".") and not k.endswith("num_batches_tracked"):
                sd[k] = init[theirs + k[len(mine):]]
    model.load_state_dict(sd, strict=False)


def quantize(model, qconfig, calib):
    model.eval()
    if model.fuse:
        model = torch.ao.quantization.fuse_modules(model, model.fuse)
    model.qconfig = qconfig
    torch.ao.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        model(calib)
    return torch.ao.quantization.convert(model)


def main():
    x_train, _ = fm.load("train")
    calib = x_train[torch.randperm(len(x_train))[:500]]
    images = torch.from_numpy(np.load(os.path.join(OUT, "input.npy")))
    per_tensor = torch.ao.quantization.get_default_qconfig("qnnpack")
    per_channel = torch.ao.quantization.QConfig(
        activation=per_tensor.activation,
        weight=torch.ao.quantization.PerChannelMinMaxObserver.with_args(
            dtype=torch.qint8, qscheme=torch.per_channel_symmetric))
    for name, cls, src, qconfig in [("mlp", QMLP, "mlp.onnx", per_tensor),
                                    ("cnn", QCNN, "cnn_bn.onnx", per_channel)]:
        model = cls()
        model.fuse = cls.fuse + cls.fuse_linear
        load_onnx_weights(model, os.path.join(OUT, src))
        qmodel = quantize(model, per_tensor if qconfig is per_channel else per_channel, calib)
        with torch.no_grad():
            logits = qmodel(images).numpy().astype(np.float32)
        np.save(os.path.join(OUT, name + "_qlinear_logits.npy"), logits)
        last = qmodel.fc3 if name == "mlp" else qmodel.fc2
        with open(os.path.join(OUT, name + "_qlinear_scale.txt"), "w") as f:
            f.write("%.9g %d\n" % (last.scale, last.zero_point))
        qlinear_export(qmodel, cls.order, os.path.join(OUT, name + "_qlinear.onnx"))

        model = cls()
        load_onnx_weights(model, os.path.join(OUT, src))
        qmodel = quantize(model, qconfig, calib)
        with torch.no_grad():
            logits = qmodel(images).numpy().astype(np.float32)
        np.save(os.path.join(OUT, name + "_qdq_logits.npy"), logits)
        last = qmodel.fc3 if name == "mlp" else qmodel.fc2
        with open(os.path.join(OUT, name + "_qdq_scale.txt"), "w") as f:
            f.write("%.9g %d\n" % (last.scale, last.zero_point))
        path = os.path.join(OUT, name + "_qdq.onnx")
        torch.onnx.export(qmodel, images[:1], path, input_names=["image"], output_names=["logits"],
                          opset_version=13)
        print(name, "exported", [n.op_type for n in onnx.load(path).graph.node])


if __name__ == "__main__":
    main()

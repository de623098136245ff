#!/usr/bin/env python3
"""OCR-shaped PaddlePaddle models exported by paddle2onnx, the way PaddleOCR's models reach users.

Built from paddle's own layers with random weights (a fixed seed), in the shapes of PaddleOCR's
three models: a text-direction classifier (PP-LCNet: depthwise-separable blocks with
squeeze-and-excitation, hardswish, a [?,3,48,192] input), a text detector (DB: a strided backbone,
an FPN that upsamples with nearest Resize and adds, a [?,3,?,?] input) and a text recognizer (CRNN:
convolutions, a bidirectional LSTM over the columns, a [?,3,48,?] input). paddle2onnx writes what
torch's exporter does not: convolution biases as a separate Reshape + Add, BatchNorm unfolded,
Resize with its scales or sizes computed from Shape, dynamic dimensions everywhere.

    python tools/models/make_paddle_models.py OUT_DIR [--only cls,det,rec] [--force]

writes OUT_DIR/paddle_<name>/model.onnx and, per shape in SHAPES, test_data_set_<k>/input_0.pb
with output_0.pb computed by paddle itself (ONNX's backend-test layout, as make_onnx_models.py),
and the same as input_<k>.npy and output_<k>.npy for readers without onnx. Needs paddlepaddle,
paddle2onnx and onnx (scripts/install_model_exporters.sh puts them into a venv of their own);
prints one line per model. paddle2onnx may pip-install helpers of its own (onnx_graphsurgeon,
sympy, onnxruntime) into that venv on first use, to fold constants.
"""
import os
import sys
import tempfile

import numpy as np

from exported_models import main, save_last, write_tensor

SHAPES = {
    "cls": [(1, 3, 48, 192), (2, 3, 48, 192)],
    "det": [(1, 3, 96, 128), (1, 3, 64, 160)],
    "rec": [(1, 3, 48, 96), (2, 3, 48, 160)],
}
INPUT_SPECS = {"cls": [None, 3, 48, 192], "det": [None, 3, None, None], "rec": [None, 3, 48, None]}


def build(name):
    import paddle
    from paddle import nn
    import paddle.nn.functional as F

    class ConvBN(nn.Layer):
        def __init__(self, cin, cout, k, stride=1, groups=1, act="hardswish"):
            super().__init__()
            self.conv = nn.Conv2D(cin, cout, k, stride=stride, padding=(k - 1) // 2, groups=groups, bias_attr=False)
            self.bn = nn.BatchNorm2D(cout)
            self.act = act

        def forward(self, x):
            x = self.bn(self.conv(x))
            return {"hardswish": F.hardswish, "relu": F.relu, None: lambda v: v}[self.act](x)

    class SE(nn.Layer):  # PaddleOCR's: average, 1x1 conv with bias, relu, 1x1 conv with bias, hardsigmoid(0.2, 0.5), scale
        def __init__(self, c, r=4):
            super().__init__()
            self.pool = nn.AdaptiveAvgPool2D(1)
            self.conv1 = nn.Conv2D(c, c // r, 1)
            self.conv2 = nn.Conv2D(c // r, c, 1)

        def forward(self, x):
            s = F.relu(self.conv1(self.pool(x)))
            return x * F.hardsigmoid(self.conv2(s), slope=0.2, offset=0.5)

    class DepthwiseSeparable(nn.Layer):
        def __init__(self, cin, cout, stride, k=3, se=False):
            super().__init__()
            self.dw = ConvBN(cin, cin, k, stride, groups=cin)
            self.se = SE(cin) if se else None
            self.pw = ConvBN(cin, cout, 1)

        def forward(self, x):
            x = self.dw(x)
            if self.se is not None:
                x = self.se(x)
            return self.pw(x)

    class Classifier(nn.Layer):  # PP-LCNet x0.25 as the text-direction classifier uses it
        def __init__(self):
            super().__init__()
            self.stem = ConvBN(3, 8, 3, 2)
            self.blocks = nn.Sequential(
                DepthwiseSeparable(8, 16, 1), DepthwiseSeparable(16, 32, 2), DepthwiseSeparable(32, 32, 1),
                DepthwiseSeparable(32, 64, 2), DepthwiseSeparable(64, 64, 1, k=5),
                DepthwiseSeparable(64, 128, 2, k=5, se=True), DepthwiseSeparable(128, 128, 1, k=5, se=True))
            self.pool = nn.AdaptiveAvgPool2D(1)
            self.last = nn.Conv2D(128, 256, 1, bias_attr=False)
            self.fc = nn.Linear(256, 2)

        def forward(self, x):
            x = self.pool(self.blocks(self.stem(x)))
            x = paddle.flatten(F.hardswish(self.last(x)), 1)
            return F.softmax(self.fc(x), axis=-1)

    class Detector(nn.Layer):  # DB: backbone at strides 4..32, FPN, a probability map at 1/4
        def __init__(self):
            super().__init__()
            self.stem = ConvBN(3, 16, 3, 2, act="relu")
            chans = [16, 24, 32, 48, 64]
            self.stages = nn.LayerList([ConvBN(chans[i], chans[i + 1], 3, 2, act="relu") for i in range(4)])
            self.lateral = nn.LayerList([nn.Conv2D(c, 32, 1, bias_attr=False) for c in chans[1:]])
            self.smooth = nn.LayerList([nn.Conv2D(32, 8, 3, padding=1, bias_attr=False) for _ in chans[1:]])
            self.head = ConvBN(32, 16, 3, act="relu")
            self.up1 = nn.Conv2DTranspose(16, 16, 2, stride=2)
            self.up2 = nn.Conv2DTranspose(16, 1, 2, stride=2)

        def forward(self, x):
            feats = []
            x = self.stem(x)
            for stage in self.stages:
                x = stage(x)
                feats.append(x)
            lat = [l(f) for l, f in zip(self.lateral, feats)]
            for i in range(len(lat) - 2, -1, -1):
                lat[i] = lat[i] + F.interpolate(lat[i + 1], size=paddle.shape(lat[i])[2:], mode="nearest")
            outs = [self.smooth[i](lat[i]) for i in range(len(lat))]
            # Sizes from Shape (as PaddleOCR's FPNs upsample to their neighbour): Resize's sizes computed.
            size = paddle.shape(outs[0])[2:]
            outs = [outs[0]] + [F.interpolate(o, size=size, mode="nearest") for o in outs[1:]]
            y = self.head(paddle.concat(outs, axis=1))
            return F.sigmoid(self.up2(F.relu(self.up1(y))))

    class Recognizer(nn.Layer):  # CRNN: convolutions to a height of 1, a BiLSTM over the columns, CTC classes
        def __init__(self):
            super().__init__()
            self.convs = nn.Sequential(ConvBN(3, 16, 3, 1, act="relu"), nn.MaxPool2D(2, 2),
                                       ConvBN(16, 32, 3, 1, act="relu"), nn.MaxPool2D(2, 2),
                                       ConvBN(32, 48, 3, 1, act="relu"), nn.MaxPool2D((2, 1), (2, 1)),
                                       ConvBN(48, 64, 3, 1, act="relu"), nn.MaxPool2D((6, 1), (6, 1)))
            self.lstm = nn.LSTM(64, 48, direction="bidirect")
            self.fc = nn.Linear(96, 37)

        def forward(self, x):
            x = self.convs(x)                      # [N, 64, 1, W/4]
            x = paddle.squeeze(x, axis=2).transpose([0, 2, 1])
            x, _ = self.lstm(x)
            return F.softmax(self.fc(x), axis=2)

    paddle.seed(1234 + sum(map(ord, name)))
    layer = {"cls": Classifier, "det": Detector, "rec": Recognizer}[name]()
    # Running statistics that are not the identity and biases that are not zero, as a trained
    # model's are (paddle starts biases at zero, which hides a bias applied to the wrong channel).
    for sub in layer.sublayers():
        if isinstance(sub, (nn.Conv2D, nn.Conv2DTranspose, nn.Linear)) and sub.bias is not None:
            sub.bias.set_value(paddle.uniform(sub.bias.shape, min=-0.5, max=0.5))
        if isinstance(sub, nn.BatchNorm2D):
            c = sub._mean.shape[0]
            sub._mean.set_value(paddle.uniform([c], min=-0.2, max=0.2))
            sub._variance.set_value(paddle.uniform([c], min=0.5, max=1.5))
            sub.weight.set_value(paddle.uniform([c], min=0.5, max=1.5))
            sub.bias.set_value(paddle.uniform([c], min=-0.2, max=0.2))
    layer.eval()
    return layer


def export(name, out_dir, force):
    import onnx
    import paddle
    target = os.path.join(out_dir, "paddle_" + name)
    model_path = os.path.join(target, "model.onnx")
    if os.path.exists(model_path) and not force:
        return "cached"
    os.makedirs(target, exist_ok=True)
    layer = build(name)
    spec = [paddle.static.InputSpec(INPUT_SPECS[name], "float32", "x")]
    with tempfile.TemporaryDirectory() as tmp:
        paddle.onnx.export(layer, os.path.join(tmp, "model"), input_spec=spec, opset_version=11)
        exported = onnx.load(os.path.join(tmp, "model.onnx"))
    rng = np.random.default_rng(7)
    for k, shape in enumerate(SHAPES[name]):
        x = rng.standard_normal(shape).astype(np.float32)
        y = layer(paddle.to_tensor(x)).numpy()
        data = os.path.join(target, "test_data_set_%d" % k)
        os.makedirs(data, exist_ok=True)
        write_tensor(os.path.join(data, "input_0.pb"), x, exported.graph.input[0].name)
        write_tensor(os.path.join(data, "output_0.pb"), y, exported.graph.output[0].name)
        np.save(os.path.join(target, "input_%d.npy" % k), x)
        np.save(os.path.join(target, "output_%d.npy" % k), y)
    return save_last(exported, model_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], __doc__, "paddle_", list(SHAPES), export))

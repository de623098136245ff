#!/usr/bin/env python3
"""Writes one-op ONNX models (a convolution and its Relu) of the shapes the GPU device's kernels
were measured on, into a folder, for `mosaic benchmark -m MODEL -d GPU -pc` and ab.sh:

  dw<C>_<H>[s2]   depthwise 3x3 (MobileNetV2's), C channels of HxH, stride 1 or 2
  pw<I>_<O>_<H>   1x1, I to O channels over HxH
  c<C>_<H>        3x3 stride 1, C to C channels over HxH (ResNet-50's)

  /usr/bin/python3 benchmarks/gpu/single_op_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def conv_model(path, c_in, c_out, size, kernel, stride, group):
    pad = kernel // 2
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(((rng.random((c_out, c_in // group, kernel, kernel)) - 0.5) * 0.2).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.random(c_out).astype(np.float32), "B")
    conv = helper.make_node("Conv", ["x", "W", "B"], ["c"], group=group, kernel_shape=[kernel, kernel],
                            pads=[pad] * 4, strides=[stride] * 2)
    relu = helper.make_node("Relu", ["c"], ["y"])
    out = (size + 2 * pad - kernel) // stride + 1
    graph = helper.make_graph([conv, relu], os.path.basename(path)[:-5],
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c_in, size, size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c_out, out, out])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "single_op_models"
    os.makedirs(out, exist_ok=True)
    for c, size, stride in [(32, 112, 1), (96, 112, 2), (144, 56, 1), (192, 28, 1), (576, 14, 1), (960, 7, 1)]:
        conv_model(f"{out}/dw{c}_{size}{'s2' if stride == 2 else ''}.onnx", c, c, size, 3, stride, c)
    for c_in, c_out, size in [(16, 96, 112), (24, 144, 56), (32, 192, 28), (96, 576, 14), (160, 960, 7),
                              (64, 256, 56), (256, 64, 56), (128, 128, 64)]:
        conv_model(f"{out}/pw{c_in}_{c_out}_{size}.onnx", c_in, c_out, size, 1, 1, 1)
    for c, size in [(64, 56), (128, 28), (256, 14), (512, 7)]:
        conv_model(f"{out}/c{c}_{size}.onnx", c, c, size, 3, 1, 1)
    print(f"models in {out}")


if __name__ == "__main__":
    main()

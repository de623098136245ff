#!/usr/bin/env python3
"""Quantizes f32 ONNX models as users do, with ONNX Runtime's quantizer, for Mosaic's tests and benchmarks.

    make_quantized_models.py SRC_DIR OUT_DIR [--only resnet50,...] [--force]

SRC_DIR holds models written by make_onnx_models.py (SRC_DIR/NAME/model.onnx and its
test_data_set_0). For each, two quantized forms are written:

- OUT_DIR/NAME_qdq: onnxruntime.quantization.quantize_static in the QDQ format (QuantizeLinear /
  DequantizeLinear pairs around every quantizable op), u8 activations, i8 weights per output
  channel, calibrated with MinMax on a few inputs drawn like the test input (fixed seed);
- OUT_DIR/NAME_dynamic: quantize_dynamic (DynamicQuantizeLinear, MatMulInteger, ConvInteger),
  i8 weights;
- OUT_DIR/NAME_nncf: NNCF's post-training quantization (nncf.quantize, same calibration inputs) of
  the model read by OpenVINO, saved as OpenVINO IR (model.xml/.bin): FakeQuantize on activations,
  int8 weights decompressed by Convert and Multiply.

Each gets a test_data_set_0: the source's inputs and the outputs on the quantized model of the
runtime that made it (ONNX Runtime for the ONNX forms, OpenVINO for NNCF's IR): the oracle a
quantized model is compared with. Needs onnx, onnxruntime, and for nncf openvino and nncf
(scripts/install_model_exporters.sh's torch venv has them).
"""
import argparse
import glob
import os
import shutil
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

CALIBRATION_SAMPLES = 8


def load_inputs(src):
    files = sorted(glob.glob(os.path.join(src, "test_data_set_0", "input_*.pb")),
                   key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    return [(t.name, numpy_helper.to_array(t)) for t in map(onnx.load_tensor, files)]


def like(array, rng):
    """A calibration input drawn like `array`: token ids as ids, masks as they are, images as noise."""
    if array.dtype.kind in "iu":
        if array.max() <= 1:
            return array.copy()  # an attention mask
        return rng.integers(0, int(array.max()) + 1, size=array.shape).astype(array.dtype)
    return rng.standard_normal(array.shape).astype(array.dtype)


class Calibration:
    """onnxruntime.quantization's CalibrationDataReader: the test input first, then draws like it."""

    def __init__(self, inputs, seed):
        rng = np.random.default_rng(seed)
        self.samples = [{n: a for n, a in inputs}]
        self.samples += [{n: like(a, rng) for n, a in inputs} for _ in range(CALIBRATION_SAMPLES - 1)]

    def get_next(self):
        return self.samples.pop(0) if self.samples else None

    def rewind(self):
        pass


def save_test_data(inputs, output_names, outputs, out_dir):
    data = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for i, (name, array) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(array, name), os.path.join(data, f"input_{i}.pb"))
    for i, (name, array) in enumerate(zip(output_names, outputs)):
        onnx.save_tensor(numpy_helper.from_array(np.ascontiguousarray(array), name), os.path.join(data, f"output_{i}.pb"))


def write_test_data(model_path, inputs, out_dir):
    import onnxruntime as ort
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    outputs = session.run(None, {n: a for n, a in inputs})
    save_test_data(inputs, [meta.name for meta in session.get_outputs()], outputs, out_dir)


def quantize_nncf(name, src, out_root):
    import nncf
    import openvino as ov

    out = os.path.join(out_root, f"{name}_nncf")
    os.makedirs(out, exist_ok=True)
    inputs = load_inputs(src)
    core = ov.Core()
    model = core.read_model(os.path.join(src, "model.onnx"))
    calibration = Calibration(inputs, seed=len(name))
    samples = [[sample[n] for n, _ in inputs] for sample in calibration.samples]
    quantized = nncf.quantize(model, nncf.Dataset(samples), subset_size=len(samples))
    target = os.path.join(out, "model.tmp.xml")
    ov.save_model(quantized, target, compress_to_fp16=False)
    # OpenVINO's own run of the IR, in f32 (its CPU plugin would otherwise pick bf16 where it can).
    compiled = core.compile_model(target, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled([a for _, a in inputs])
    names = [o.get_any_name() for o in compiled.outputs]
    save_test_data(inputs, names, [results[o] for o in compiled.outputs], out)
    os.replace(target[:-4] + ".bin", os.path.join(out, "model.bin"))
    os.replace(target, os.path.join(out, "model.xml"))  # model.xml last: its presence marks a complete set
    return out


def quantize(name, src, out_root, form):
    from onnxruntime.quantization import (CalibrationMethod, QuantFormat, QuantType, quantize_dynamic,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if form == "nncf":
        return quantize_nncf(name, src, out_root)
    out = os.path.join(out_root, f"{name}_{form}")
    os.makedirs(out, exist_ok=True)
    inputs = load_inputs(src)
    prepared = os.path.join(out, "prepared.onnx")
    # ORT's recommended pre-processing: shape inference and ORT's own graph optimizations, so that
    # the quantizer sees fused Conv+BN and Gemm as a deployment would.
    quant_pre_process(os.path.join(src, "model.onnx"), prepared, skip_symbolic_shape=True)
    target = os.path.join(out, "model.onnx.tmp")
    if form == "qdq":
        quantize_static(prepared, target, Calibration(inputs, seed=len(name)), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax)
    else:
        quantize_dynamic(prepared, target, weight_type=QuantType.QInt8)
    os.remove(prepared)
    write_test_data(target, inputs, out)
    os.replace(target, os.path.join(out, "model.onnx"))  # model.onnx last: its presence marks a complete set
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--only", help="comma-separated source model names (default: every one in SRC_DIR)")
    parser.add_argument("--forms", default="qdq,dynamic,nncf", help="comma-separated: qdq, dynamic, nncf")
    parser.add_argument("--force", action="store_true", help="quantize again what exists")
    args = parser.parse_args(argv)
    names = [n for n in sorted(os.listdir(args.src_dir)) if os.path.isfile(os.path.join(args.src_dir, n, "model.onnx"))]
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        missing = [n for n in wanted if n not in names]
        if missing:
            parser.error(f"not in {args.src_dir}: {', '.join(missing)} (write them with make_onnx_models.py)")
        names = wanted
    failures = 0
    for name in names:
        for form in args.forms.split(","):
            out = os.path.join(args.out_dir, f"{name}_{form}")
            done = os.path.join(out, "model.xml" if form == "nncf" else "model.onnx")
            if not args.force and os.path.isfile(done):
                print(f"{name}_{form:8s} skipped (exists)", flush=True)
                continue
            t0 = time.perf_counter()
            try:
                quantize(name, os.path.join(args.src_dir, name), args.out_dir, form)
            except Exception as e:  # keep going; report at the end
                failures += 1
                shutil.rmtree(out, ignore_errors=True)
                print(f"{name}_{form:8s} FAILED: {type(e).__name__}: {e}", flush=True)
                continue
            size = os.path.getsize(os.path.join(out, "model.bin" if form == "nncf" else "model.onnx")) / 1e6
            print(f"{name}_{form:8s} {size:8.1f} MB {time.perf_counter() - t0:7.1f} s", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

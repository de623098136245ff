#!/usr/bin/env python3
"""OpenVINO IR with control flow, and OpenVINO's outputs for it: If, Loop and TensorIterator.

    python3 make_ir_control_flow_models.py OUT_DIR

writes OUT_DIR/ir_control_flow/{if,if_squeeze,loop,tensor_iterator}.xml (+ .bin), built with OpenVINO's
opsets (If-8, Loop-5, TensorIterator-1) and saved by ov.save_model, and for each model two cases
OUT_DIR/ir_control_flow/<model>_case_<k>/<input or output name>.npy computed by OpenVINO's CPU
plugin in f32:
  if: y = cond ? x * 2 + 1 : concat(x, x) - 1 (the branches give different shapes), at both conditions;
  if_squeeze: torch.onnx's guarded squeeze, y = (shape(x)[1] == 1) ? squeeze(x, 1) * 2 : x, over
    x [?, 1, 4]: the branches differ in rank, and the condition, a static dimension of a shape with
    a dynamic one, is known when the model is read; at batch 2 and 3;
  loop: n iterations (an input) of acc = acc * 0.5 + x, the final value and every iteration's
    value concatenated along axis 0, at n = 3 and n = 6;
  tensor_iterator: an RNN cell h = tanh(h W + x_t) over axis 1 of x [1, T, 4] (T dynamic), the
    last h and every h concatenated along axis 1, at T = 5 and T = 9.
Needs OpenVINO's Python package (scripts/install_python_tools.sh installs it).
"""
import os
import sys

import numpy as np
import openvino as ov
import openvino.opset8 as o


def if_of(cond, x, then_fn, else_fn):
    """An If-8 on `cond` passing `x` to both branches, each branch fn(parameter) -> its value; the
    If's output, named y."""
    tx = o.parameter(x.get_partial_shape(), np.float32, name="tx")
    then_body = ov.Model([o.result(then_fn(tx))], [tx], "then")
    ex = o.parameter(x.get_partial_shape(), np.float32, name="ex")
    else_body = ov.Model([o.result(else_fn(ex))], [ex], "else")
    node = o.if_op(cond)
    node.set_then_body(then_body)
    node.set_else_body(else_body)
    node.set_input(x.output(0), tx, ex)
    y = node.set_output(then_body.get_results()[0], else_body.get_results()[0])
    y.get_tensor().set_names({"y"})
    return y


def if_model():
    x = o.parameter([2, 3], np.float32, name="x")
    cond = o.parameter([], np.bool_, name="cond")
    y = if_of(cond, x, lambda t: o.add(o.multiply(t, o.constant(np.float32(2))), o.constant(np.float32(1))),
              lambda e: o.subtract(o.concat([e, e], 0), o.constant(np.float32(1))))
    x_value = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    cases = [{"x": x_value, "cond": np.array(True)}, {"x": x_value, "cond": np.array(False)}]
    return ov.Model([y], [x, cond], "if_model"), cases


def if_squeeze_model():
    x = o.parameter([-1, 1, 4], np.float32, name="x")
    dim = o.gather(o.shape_of(x), o.constant(np.array([1], np.int64)), o.constant(np.int64(0)))
    cond = o.equal(dim, o.constant(np.array([1], np.int64))).output(0)  # [1], as torch.onnx writes it
    y = if_of(cond, x, lambda t: o.multiply(o.squeeze(t, o.constant(np.array([1], np.int64))), o.constant(np.float32(2))),
              o.relu)
    rng = np.random.default_rng(5)
    cases = [{"x": rng.uniform(-1, 1, (b, 1, 4)).astype(np.float32)} for b in (2, 3)]
    model = ov.Model([y], [x], "if_squeeze_model")
    model.outputs[0].get_tensor().set_names({"y"})
    return model, cases


def loop_model():
    n = o.parameter([], np.int64, name="n")
    x = o.parameter([1, 4], np.float32, name="x")
    iteration = o.parameter([], np.int64, name="iteration")
    acc_in = o.parameter([1, 4], np.float32, name="acc_in")
    x_in = o.parameter([1, 4], np.float32, name="x_in")
    acc_out = o.add(o.multiply(acc_in, o.constant(np.float32(0.5))), x_in)
    body = ov.Model([o.result(o.constant(True)), o.result(acc_out)], [iteration, acc_in, x_in], "body")
    node = o.loop(n, o.constant(True))
    node.set_function(body)
    node.set_special_body_ports([0, 0])
    node.set_merged_input(acc_in, o.constant(np.zeros((1, 4), np.float32)).output(0), body.get_results()[1].output(0))
    node.set_invariant_input(x_in, x.output(0))
    final = node.get_iter_value(body.get_results()[1].output(0), -1)
    every = node.get_concatenated_slices(body.get_results()[1].output(0), 0, 1, 1, -1, 0)
    final.get_tensor().set_names({"final"})
    every.get_tensor().set_names({"every"})
    x_value = np.array([[1, 2, 3, 4]], np.float32)
    cases = [{"n": np.array(3, np.int64), "x": x_value}, {"n": np.array(6, np.int64), "x": x_value}]
    return ov.Model([final, every], [n, x], "loop_model"), cases


def tensor_iterator_model():
    x = o.parameter([1, -1, 4], np.float32, name="x")
    h0 = o.parameter([1, 4], np.float32, name="h0")
    x_t = o.parameter([1, 1, 4], np.float32, name="x_t")
    h_in = o.parameter([1, 4], np.float32, name="h_in")
    w = o.constant((np.random.default_rng(3).standard_normal((4, 4)) * 0.5).astype(np.float32))
    step = o.reshape(x_t, o.constant(np.array([1, 4], np.int64)), False)
    h_out = o.tanh(o.add(o.matmul(h_in, w, False, False), step))
    body = ov.Model([o.result(h_out), o.result(o.unsqueeze(h_out, o.constant(np.array([1], np.int64))))],
                    [x_t, h_in], "cell")
    node = o.tensor_iterator()
    node.set_body(body)
    node.set_sliced_input(x_t, x.output(0), 0, 1, 1, -1, 1)
    node.set_merged_input(h_in, h0.output(0), body.get_results()[0].output(0))
    last = node.get_iter_value(body.get_results()[0].output(0), -1)
    every = node.get_concatenated_slices(body.get_results()[1].output(0), 0, 1, 1, -1, 1)
    last.get_tensor().set_names({"last"})
    every.get_tensor().set_names({"every"})
    rng = np.random.default_rng(5)
    cases = [{"x": rng.uniform(-1, 1, (1, t, 4)).astype(np.float32), "h0": np.zeros((1, 4), np.float32)}
             for t in (5, 9)]
    return ov.Model([last, every], [x, h0], "tensor_iterator_model"), cases


def main():
    folder = os.path.join(sys.argv[1], "ir_control_flow")
    # Tests call this under a lock, each when it found no "done": the ones that waited for the lock
    # find the models written and must not rewrite them under the readers (a SIGBUS in a reader
    # whose mapped .bin was being rewritten).
    if os.path.exists(os.path.join(folder, "done")):
        return
    os.makedirs(folder, exist_ok=True)
    core = ov.Core()
    for name, build in (("if", if_model), ("if_squeeze", if_squeeze_model), ("loop", loop_model),
                        ("tensor_iterator", tensor_iterator_model)):
        model, cases = build()
        path = os.path.join(folder, name + ".xml")
        ov.save_model(model, path, compress_to_fp16=False)
        # f32 throughout: on CPUs with bf16 units OpenVINO's CPU plugin computes in bf16 by default.
        saved = core.read_model(path)
        compiled = core.compile_model(saved, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        # The outputs by the names the IR gives them (OpenVINO's compiled if_squeeze names its
        # output after its Result instead).
        names = [port.get_any_name() for port in saved.outputs]
        for k, inputs in enumerate(cases):
            case = os.path.join(folder, f"{name}_case_{k}")
            os.makedirs(case, exist_ok=True)
            results = compiled(inputs)
            for key, value in inputs.items():
                np.save(os.path.join(case, key + ".npy"), value)
            for output_name, out in zip(names, compiled.outputs):
                np.save(os.path.join(case, output_name + ".npy"), results[out])
    open(os.path.join(folder, "done"), "w").close()


if __name__ == "__main__":
    main()

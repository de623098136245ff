#!/usr/bin/env python3
"""Models with control flow decided when they run, and ONNX Runtime's outputs for them.

nested_if: a streaming model with nested run-time Ifs whose branches hold only for their own condition.

The shape of voice-activity models that choose a path by sample rate: the audio chunk is 512
samples at 16 kHz and 256 at 8 kHz, and each rate's branch reshapes it in a way that only its own
length allows (the 16 kHz branch to rank 3, the 8 kHz branch to rank 4), so a runtime that computes
both branches cannot even infer shapes. Inside the 16 kHz branch a second If, on the chunk's peak
level (data computed when the model runs), runs an LSTM over loud chunks and lets the state decay
over quiet ones. The LSTM state (h, c) is an input and an output that the caller feeds back.

loop: two Loops whose iteration counts are known only when the model runs: one with its trip count
an input, one a while loop whose condition the body computes from its carried value; both stack a
value per iteration (scan outputs that grow with the count).

scan: a Scan-9 over a sequence whose length is known only when the model runs (build_scan), at
lengths 3 and 7: OUT_DIR/scan/model.onnx and test_data_set_<k>/input_<i>.pb, output_<i>.pb.

    python make_control_flow_models.py OUT_DIR [--chunks N]

writes OUT_DIR/nested_if/model.onnx and, for N chunks (default 20) fed one after the other from a
zero state at 16 kHz and at 8 kHz, ONNX Runtime's outputs: OUT_DIR/nested_if/<rate>/chunk_<k>.pb
(the audio, TensorProto), prob_<k>.pb, h_<k>.pb and c_<k>.pb (the state after chunk k), and
loud_<k> (an empty file) for each 16 kHz chunk that takes the LSTM branch. Weights are random with
a fixed seed; and OUT_DIR/loop/model.onnx with, for each case k, its inputs and ONNX Runtime's
outputs in OUT_DIR/loop/case_<k>/<name>.pb. Needs onnx, onnxruntime and numpy
(build-exporters-venv has them).
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HIDDEN = 16
FEATURES = 32
OPSET = 17


def const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array, name + "_value"))


def lstm_nodes(prefix, rng, seq_input):
    """An LSTM over seq_input [seq, 1, FEATURES] from the outer h, c; outputs <prefix>_h, <prefix>_c."""
    scale = 0.3
    w = (rng.standard_normal((1, 4 * HIDDEN, FEATURES)) * scale).astype(np.float32)
    r = (rng.standard_normal((1, 4 * HIDDEN, HIDDEN)) * scale).astype(np.float32)
    b = (rng.standard_normal((1, 8 * HIDDEN)) * scale).astype(np.float32)
    return [
        const(prefix + "_w", w), const(prefix + "_r", r), const(prefix + "_b", b),
        helper.make_node("LSTM", [seq_input, prefix + "_w", prefix + "_r", prefix + "_b", "", "h", "c"],
                         ["", prefix + "_h", prefix + "_c"], hidden_size=HIDDEN, name=prefix + "_lstm"),
    ]


def state_outputs(h, c):
    return [helper.make_tensor_value_info(h, TensorProto.FLOAT, [1, 1, HIDDEN]),
            helper.make_tensor_value_info(c, TensorProto.FLOAT, [1, 1, HIDDEN])]


def build(rng):
    # Inner If (16 kHz branch): loud chunks through the LSTM, quiet ones decay the state.
    loud_branch = helper.make_graph(lstm_nodes("loud", rng, "seq16"), "loud_branch", [], state_outputs("loud_h", "loud_c"))
    quiet_branch = helper.make_graph([
        const("decay", np.array(0.5, np.float32)),
        helper.make_node("Mul", ["h", "decay"], ["quiet_h"]),
        helper.make_node("Mul", ["c", "decay"], ["quiet_c"]),
    ], "quiet_branch", [], state_outputs("quiet_h", "quiet_c"))

    rate16 = helper.make_graph([
        const("shape16", np.array([1, 16, FEATURES], np.int64)),
        helper.make_node("Reshape", ["x", "shape16"], ["frames16"]),  # 512 samples only
        helper.make_node("Transpose", ["frames16"], ["seq16"], perm=[1, 0, 2]),
        helper.make_node("Abs", ["x"], ["magnitude"]),
        helper.make_node("ReduceMax", ["magnitude"], ["peak"], keepdims=0),
        const("threshold", np.array(0.1, np.float32)),
        helper.make_node("Greater", ["peak", "threshold"], ["loud"]),
        helper.make_node("If", ["loud"], ["h16", "c16"], then_branch=loud_branch, else_branch=quiet_branch,
                         name="level_if"),
    ], "rate16", [], state_outputs("h16", "c16"))

    rate8 = helper.make_graph([
        const("shape8", np.array([1, 8, FEATURES, 1], np.int64)),
        helper.make_node("Reshape", ["x", "shape8"], ["frames8"]),  # 256 samples only, rank 4
        helper.make_node("ReduceMean", ["frames8"], ["pooled8"], axes=[3], keepdims=0),
        helper.make_node("Transpose", ["pooled8"], ["seq8"], perm=[1, 0, 2]),
    ] + lstm_nodes("slow", rng, "seq8"), "rate8", [], state_outputs("slow_h", "slow_c"))

    head = (rng.standard_normal((HIDDEN, 1)) * 0.5).astype(np.float32)
    nodes = [
        const("rate16k", np.array(16000, np.int64)),
        helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
        helper.make_node("If", ["is16k"], ["hn", "cn"], then_branch=rate16, else_branch=rate8, name="rate_if"),
        const("flat", np.array([1, HIDDEN], np.int64)),
        helper.make_node("Reshape", ["hn", "flat"], ["features"]),
        const("head", head),
        helper.make_node("MatMul", ["features", "head"], ["logit"]),
        helper.make_node("Sigmoid", ["logit"], ["prob"], name="prob"),
    ]
    graph = helper.make_graph(
        nodes, "nested_if",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "samples"]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, []),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 1, HIDDEN]),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 1, HIDDEN])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 1])] + state_outputs("hn", "cn"))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="mosaic-tests")
    onnx.checker.check_model(model)
    return model


def write(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def build_loop(rng):
    width = 8
    w = (rng.standard_normal((width, width)) * 0.4).astype(np.float32)
    # for i in range(n): acc = tanh(acc @ w + x); stack sum(acc) + i / 10
    counted = helper.make_graph([
        const("w", w),
        helper.make_node("MatMul", ["acc_in", "w"], ["mixed"]),
        helper.make_node("Add", ["mixed", "x"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["acc_out"]),
        helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
        helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
        const("tenth", np.array(0.1, np.float32)),
        helper.make_node("Mul", ["i_f", "tenth"], ["step"]),
        helper.make_node("Add", ["total", "step"], ["row"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ], "counted_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [1, width])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [1, width]),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, [])])
    # while max(v) < limit: v = v * 1.5 + 0.01; stack v
    grow = helper.make_graph([
        const("rate", np.array(1.5, np.float32)),
        const("bias", np.array(0.01, np.float32)),
        helper.make_node("Mul", ["v_in", "rate"], ["scaled"]),
        helper.make_node("Add", ["scaled", "bias"], ["v_out"]),
        helper.make_node("ReduceMax", ["v_out"], ["top"], keepdims=0),
        helper.make_node("Less", ["top", "limit"], ["more"]),
        helper.make_node("Identity", ["v_out"], ["v_row"]),
    ], "while_body",
        [helper.make_tensor_value_info("j", TensorProto.INT64, []),
         helper.make_tensor_value_info("go", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [1, width])],
        [helper.make_tensor_value_info("more", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1, width]),
         helper.make_tensor_value_info("v_row", TensorProto.FLOAT, [1, width])])
    nodes = [
        helper.make_node("Loop", ["n", "", "x"], ["acc", "rows"], body=counted, name="counted_loop"),
        helper.make_node("ReduceMax", ["x"], ["x_top"], keepdims=0),
        helper.make_node("Less", ["x_top", "limit"], ["start"]),
        helper.make_node("Loop", ["", "start", "x"], ["v", "history"], body=grow, name="while_loop"),
    ]
    graph = helper.make_graph(
        nodes, "loops",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width]),
         helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("limit", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, [1, width]),
         helper.make_tensor_value_info("rows", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, width]),
         helper.make_tensor_value_info("history", TensorProto.FLOAT, ["count", 1, width])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="mosaic-tests")
    onnx.checker.check_model(model)
    return model


def write_loop_cases(folder, rng):
    """Two trip counts and two limits (so two while-loop counts), and a loop that runs no iteration."""
    path = os.path.join(folder, "model.onnx")
    session = ort.InferenceSession(path + ".tmp", providers=["CPUExecutionProvider"])
    x = rng.uniform(0.1, 0.5, (1, 8)).astype(np.float32)
    for k, (n, limit) in enumerate(((3, 4.0), (7, 40.0), (0, 0.2))):
        inputs = {"x": x, "n": np.array(n, np.int64), "limit": np.array(limit, np.float32)}
        outputs = dict(zip(["acc", "rows", "v", "history"], session.run(None, inputs)))
        case = os.path.join(folder, f"case_{k}")
        os.makedirs(case, exist_ok=True)
        for name, value in {**inputs, **outputs}.items():
            write(os.path.join(case, name + ".pb"), value)


def build_scan():
    """A Scan-9 over a length known only when the model runs: a state s [2] threaded through
    s = (s + x_t) * y_t, x scanned along axis 1 from its end, y along axis 0; the scan outputs tanh(s)
    stacked along axis 1 and 0.5/-1.5-scaled tanh(s) stacked along axis 0 from the end."""
    from onnx import helper as h, numpy_helper as nh
    f = onnx.TensorProto.FLOAT
    body = h.make_graph(
        [h.make_node("Add", ["s_in", "x_t"], ["s_sum"]), h.make_node("Mul", ["s_sum", "y_t"], ["s_out"]),
         h.make_node("Tanh", ["s_out"], ["o_t"]), h.make_node("Mul", ["o_t", "w"], ["o2_t"])],
        "body", [h.make_tensor_value_info(n, f, [2]) for n in ("s_in", "x_t", "y_t")],
        [h.make_tensor_value_info(n, f, [2]) for n in ("s_out", "o_t", "o2_t")])
    scan = h.make_node("Scan", ["s0", "xr", "yr"], ["s_final", "o", "o2"], body=body, num_scan_inputs=2,
                       scan_input_axes=[1, 0], scan_input_directions=[1, 0], scan_output_axes=[1, 0],
                       scan_output_directions=[0, 1])
    graph = h.make_graph(
        [h.make_node("Relu", ["x"], ["xr"]), h.make_node("Sigmoid", ["y"], ["yr"]), scan], "scan_dynamic",
        [h.make_tensor_value_info("s0", f, [2]), h.make_tensor_value_info("x", f, [2, "n"]),
         h.make_tensor_value_info("y", f, ["n", 2])],
        [h.make_tensor_value_info("s_final", f, [2]), h.make_tensor_value_info("o", f, [2, "n"]),
         h.make_tensor_value_info("o2", f, ["n", 2])],
        initializer=[nh.from_array(np.array([0.5, -1.5], np.float32), "w")])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 16)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def write_scan_sets(folder, rng):
    """Lengths 3 and 7 (one compiled model), in ONNX's backend-test layout."""
    session = ort.InferenceSession(os.path.join(folder, "model.onnx.tmp"), providers=["CPUExecutionProvider"])
    for k, n in enumerate((3, 7)):
        inputs = {"s0": rng.standard_normal(2).astype(np.float32), "x": rng.standard_normal((2, n)).astype(np.float32),
                  "y": rng.standard_normal((n, 2)).astype(np.float32)}
        data = os.path.join(folder, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        for i, (name, value) in enumerate(inputs.items()):
            write(os.path.join(data, f"input_{i}.pb"), value)
        for i, value in enumerate(session.run(None, inputs)):
            write(os.path.join(data, f"output_{i}.pb"), value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--chunks", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(7)

    folder = os.path.join(args.out, "loop")
    os.makedirs(folder, exist_ok=True)
    onnx.save(build_loop(rng), os.path.join(folder, "model.onnx.tmp"))
    write_loop_cases(folder, rng)
    os.replace(os.path.join(folder, "model.onnx.tmp"), os.path.join(folder, "model.onnx"))

    folder = os.path.join(args.out, "scan")
    os.makedirs(folder, exist_ok=True)
    onnx.save(build_scan(), os.path.join(folder, "model.onnx.tmp"))
    write_scan_sets(folder, np.random.default_rng(11))  # its own: the other models' data stay as they were
    os.replace(os.path.join(folder, "model.onnx.tmp"), os.path.join(folder, "model.onnx"))

    model = build(rng)
    folder = os.path.join(args.out, "nested_if")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    onnx.save(model, path + ".tmp")
    session = ort.InferenceSession(path + ".tmp", providers=["CPUExecutionProvider"])
    for rate, samples in ((16000, 512), (8000, 256)):
        data = os.path.join(folder, str(rate))
        os.makedirs(data, exist_ok=True)
        h = np.zeros((1, 1, HIDDEN), np.float32)
        c = np.zeros((1, 1, HIDDEN), np.float32)
        for k in range(args.chunks):
            # Every third chunk is quiet (peak below the threshold).
            level = 0.05 if k % 3 == 2 else 1.0
            x = (rng.uniform(-1, 1, (1, samples)) * level).astype(np.float32)
            prob, h, c = session.run(None, {"x": x, "sr": np.array(rate, np.int64), "h": h, "c": c})
            write(os.path.join(data, f"chunk_{k}.pb"), x)
            write(os.path.join(data, f"prob_{k}.pb"), prob)
            write(os.path.join(data, f"h_{k}.pb"), h)
            write(os.path.join(data, f"c_{k}.pb"), c)
            if rate == 16000 and np.abs(x).max() > 0.1:
                open(os.path.join(data, f"loud_{k}"), "w").close()
    os.replace(path + ".tmp", path)  # last: its presence means the folder is complete


if __name__ == "__main__":
    main()

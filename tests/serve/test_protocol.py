"""The KServe v2 encoding alone (no server): JSON and binary tensors in, JSON and binary outputs out,
and the protocol's error for each kind of bad request."""
import json

import numpy as np
import pytest

from mosaic.serve.protocol import (HEADER_LENGTH, ProtocolError, TensorSpec, decode_inputs, encode_response,
                                   requested_outputs, split_body)

SPECS = [TensorSpec("data", "FP32", [-1, 2, 3]), TensorSpec("ids", "INT64", [-1, 2])]


def binary_body(tensors, params=None):
    """A request with every tensor as binary data, as tritonclient sends it."""
    header = {"inputs": [{"name": n, "shape": list(a.shape), "datatype": d,
                          "parameters": {"binary_data_size": a.nbytes}} for n, d, a in tensors]}
    if params:
        header["parameters"] = params
    head = json.dumps(header).encode()
    return head + b"".join(a.tobytes() for _, _, a in tensors), str(len(head))


def test_binary_and_json_inputs_decode_to_the_same_arrays():
    x = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    ids = np.array([[1, -2], [3, 2**40]], dtype=np.int64)
    request, tail = split_body(*binary_body([("data", "FP32", x), ("ids", "INT64", ids)]))
    from_binary = decode_inputs(request, tail, SPECS, max_rows=4)
    as_json = {"inputs": [{"name": "data", "shape": [2, 2, 3], "datatype": "FP32", "data": x.tolist()},  # nested
                          {"name": "ids", "shape": [2, 2], "datatype": "INT64", "data": ids.ravel().tolist()}]}
    from_json = decode_inputs(*split_body(json.dumps(as_json).encode(), None), SPECS, max_rows=4)
    for arrays in (from_binary, from_json):
        np.testing.assert_array_equal(arrays["data"], x)
        np.testing.assert_array_equal(arrays["ids"], ids)
        assert arrays["ids"].dtype == np.int64


def json_request(**tensor):
    data = {"name": "data", "shape": [1, 2, 3], "datatype": "FP32", "data": [0.0] * 6, **tensor}
    ids = {"name": "ids", "shape": [1, 2], "datatype": "INT64", "data": [0, 0]}
    return {"inputs": [data, ids]}


@pytest.mark.parametrize("request_, max_rows, message", [
    (json_request(shape=[1, 3, 2]), 4, "has shape [-1, 2, 3] (-1: any size), the request sent [1, 3, 2]"),
    (json_request(shape=[1, 2]), 4, "the request sent [1, 2]"),
    (json_request(shape=[5, 2, 3], data=[0.0] * 30), 4, "takes 1 to 4 rows"),
    (json_request(shape=[2, 2, 3], data=[0.0] * 12), None, "the request sent [2, 2, 3]"),
    (json_request(datatype="FP64"), 4, "has datatype FP32, the request sent FP64"),
    (json_request(datatype="BYTES"), 4, "the request sent BYTES"),
    (json_request(name="image"), 4, "unknown input 'image'; the model's inputs are ['data', 'ids']"),
    (json_request(data=[0.0] * 5), 4, "'data' has 5 elements, the shape needs 6"),
    (json_request(data=["a"] * 6), 4, "does not convert to float32"),
    (json_request(data={"x": 1}), 4, "does not convert"),
    ({"inputs": [json_request()["inputs"][0]]}, 4, "missing input(s) ['ids']"),
    ({"inputs": json_request()["inputs"] * 2}, 4, "is given twice"),
    ({}, 4, "needs an 'inputs' list"),
    ({"inputs": [json_request(shape=[2, 2, 3], data=[0.0] * 12)["inputs"][0], json_request()["inputs"][1]]}, 4,
     "same batch size"),
])
def test_bad_requests_are_400_with_a_message(request_, max_rows, message):
    with pytest.raises(ProtocolError) as e:
        decode_inputs(request_, memoryview(b""), SPECS, max_rows)
    assert e.value.status == 400
    assert message in str(e.value)


def test_a_model_input_of_a_datatype_numpy_lacks_is_a_400():
    request = {"inputs": [{"name": "x", "shape": [1], "datatype": "BF16", "data": [1.0]}]}
    with pytest.raises(ProtocolError, match="is BF16, which this server cannot read") as e:
        decode_inputs(request, memoryview(b""), [TensorSpec("x", "BF16", [1])], None)
    assert e.value.status == 400


def test_binary_sizes_must_match_the_tensors_and_the_body():
    x = np.zeros((1, 2, 3), np.float32)
    ids = np.zeros((1, 2), np.int64)
    body, length = binary_body([("data", "FP32", x), ("ids", "INT64", ids)])
    with pytest.raises(ProtocolError, match="ends 4 bytes short"):
        decode_inputs(*split_body(body[:-4], length), SPECS, 4)
    with pytest.raises(ProtocolError, match="4 bytes of binary data that no input claims"):
        decode_inputs(*split_body(body + b"\0" * 4, length), SPECS, 4)
    with pytest.raises(ProtocolError, match="binary_data_size is 20 but FP32 \\[1, 2, 3\\] takes 24 bytes"):
        decode_inputs(*split_body(body.replace(b'"binary_data_size": 24', b'"binary_data_size": 20'), length), SPECS, 4)
    with pytest.raises(ProtocolError, match=f"header {HEADER_LENGTH} is 9999"):
        split_body(body, "9999")
    with pytest.raises(ProtocolError, match="is not valid JSON.*needs the header"):
        split_body(body, None)


def test_outputs_go_as_json_or_binary_as_asked():
    outputs = {"prob": np.array([[0.25, 0.75]], np.float32), "cls": np.array([[1]], np.int32)}
    specs = [TensorSpec("prob", "FP32", [-1, 2]), TensorSpec("cls", "INT32", [-1, 1])]
    # All outputs binary, but one asked back as JSON.
    request = {"id": "r1", "parameters": {"binary_data_output": True},
               "outputs": [{"name": "cls", "parameters": {"binary_data": False}}, {"name": "prob"}]}
    body, length = encode_response("m", request, requested_outputs(request, specs), outputs)
    header = json.loads(body[:length])
    assert header["id"] == "r1" and header["model_name"] == "m"
    assert [o["name"] for o in header["outputs"]] == ["cls", "prob"]
    assert header["outputs"][0] == {"name": "cls", "datatype": "INT32", "shape": [1, 1], "data": [1]}
    assert header["outputs"][1]["parameters"] == {"binary_data_size": 8}
    np.testing.assert_array_equal(np.frombuffer(body[length:], np.float32), [0.25, 0.75])
    # No "outputs": every output, as JSON by default.
    body, length = encode_response("m", {}, requested_outputs({}, specs), outputs)
    assert length is None
    assert json.loads(body)["outputs"][0]["data"] == [0.25, 0.75]
    with pytest.raises(ProtocolError, match="unknown output 'nope'"):
        requested_outputs({"outputs": [{"name": "nope"}]}, specs)

"""The KServe v2 (Open Inference Protocol) REST encoding of tensors, with the binary tensor extension.

An inference request is JSON, optionally followed by raw tensor bytes: the header
`Inference-Header-Content-Length` gives the JSON's length, and each input whose
`parameters.binary_data_size` is set takes that many bytes of the tail, in input order. Outputs go
back the same way when `parameters.binary_data_output` (all outputs) or an output's own
`parameters.binary_data` asks for it. Tensor data is little-endian, row-major.

Everything here is plain numpy and JSON, with no Ray and no server, so the encoding is testable alone.
"""
import json
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

HEADER_LENGTH = "Inference-Header-Content-Length"

# Protocol datatype <-> numpy dtype. BYTES (length-prefixed strings) and BF16 have no Mosaic tensor a
# request could fill here, so they are not accepted.
DATATYPES = {
    "BOOL": np.dtype(np.bool_), "UINT8": np.dtype(np.uint8), "UINT16": np.dtype(np.uint16),
    "UINT32": np.dtype(np.uint32), "UINT64": np.dtype(np.uint64), "INT8": np.dtype(np.int8),
    "INT16": np.dtype(np.int16), "INT32": np.dtype(np.int32), "INT64": np.dtype(np.int64),
    "FP16": np.dtype(np.float16), "FP32": np.dtype(np.float32), "FP64": np.dtype(np.float64),
}
# Mosaic element type name (str(mosaic.Type.f32) == "Type.f32") -> protocol datatype.
MOSAIC_TYPES = {
    "boolean": "BOOL", "u8": "UINT8", "u16": "UINT16", "u32": "UINT32", "u64": "UINT64", "i8": "INT8",
    "i16": "INT16", "i32": "INT32", "i64": "INT64", "f16": "FP16", "f32": "FP32", "f64": "FP64",
    "bf16": "BF16",
}


class ProtocolError(Exception):
    """A request the protocol rejects: `status` is the HTTP status, the message goes to the client
    as {"error": message}."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # travels between Ray processes with its status
        return ProtocolError, (str(self), self.status)


def datatype_of(mosaic_type) -> str:
    name = str(mosaic_type).rsplit(".", 1)[-1]
    if name not in MOSAIC_TYPES:
        raise ProtocolError(f"element type {name} has no KServe v2 datatype", 500)
    return MOSAIC_TYPES[name]


@dataclass
class TensorSpec:
    """An input or output of a served model, as the protocol's metadata shows it (-1: any size)."""
    name: str
    datatype: str
    shape: List[int]

    def to_json(self) -> dict:
        return {"name": self.name, "datatype": self.datatype, "shape": list(self.shape)}


@dataclass
class OutputRequest:
    name: str
    binary: bool


def split_body(body: bytes, header_length: Optional[str]) -> Tuple[dict, memoryview]:
    """The request's JSON and the binary tail after it."""
    if header_length is None:
        json_part, tail = body, b""
    else:
        try:
            n = int(header_length)
        except ValueError:
            raise ProtocolError(f"header {HEADER_LENGTH} must be an integer, got '{header_length}'") from None
        if n < 0 or n > len(body):
            raise ProtocolError(f"header {HEADER_LENGTH} is {n} but the body has {len(body)} bytes")
        json_part, tail = body[:n], body[n:]
    try:
        request = json.loads(json_part)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        hint = "" if header_length else f" (a body with binary tensor data needs the header {HEADER_LENGTH})"
        raise ProtocolError(f"the request is not valid JSON: {e}{hint}") from None
    if not isinstance(request, dict):
        raise ProtocolError("the request must be a JSON object with an 'inputs' list")
    return request, memoryview(tail)


def decode_inputs(request: dict, tail: memoryview, specs: Sequence[TensorSpec],
                  max_rows: Optional[int]) -> Dict[str, np.ndarray]:
    """The request's input tensors as arrays, checked against the model's inputs.

    max_rows: None when the model takes exactly its own shape; else dim 0 is a batch dimension and
    a request may send 1..max_rows rows (the replica merges requests along it).
    """
    inputs = request.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        raise ProtocolError("the request needs an 'inputs' list with one tensor per model input")
    by_name = {s.name: s for s in specs}
    arrays, offset = {}, 0
    for i, tensor in enumerate(inputs):
        if not isinstance(tensor, dict):
            raise ProtocolError(f"inputs[{i}] must be an object with name, shape, datatype and data")
        name = tensor.get("name")
        if name not in by_name:
            raise ProtocolError(f"unknown input '{name}'; the model's inputs are {sorted(by_name)}")
        if name in arrays:
            raise ProtocolError(f"input '{name}' is given twice")
        spec = by_name[name]
        datatype, shape = tensor.get("datatype"), tensor.get("shape")
        if datatype != spec.datatype:
            raise ProtocolError(f"input '{name}' has datatype {spec.datatype}, the request sent {datatype}")
        if datatype not in DATATYPES:
            raise ProtocolError(f"input '{name}' is {datatype}, which this server cannot read into a tensor; "
                                f"it reads {sorted(DATATYPES)}")
        if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                  for d in shape):
            raise ProtocolError(f"input '{name}': 'shape' must be a list of non-negative integers, got {shape!r}")
        _check_shape(name, shape, spec.shape, max_rows)
        dtype, count = DATATYPES[datatype], int(np.prod(shape, dtype=np.int64))
        params = tensor.get("parameters") or {}
        if "binary_data_size" in params:
            size = params["binary_data_size"]
            if not isinstance(size, int) or size != count * dtype.itemsize:
                raise ProtocolError(f"input '{name}': binary_data_size is {size!r} but {datatype} {shape} "
                                    f"takes {count * dtype.itemsize} bytes")
            if offset + size > len(tail):
                raise ProtocolError(f"input '{name}': the body ends {offset + size - len(tail)} bytes short of "
                                    f"its binary data ({len(tail)} bytes after the JSON header)")
            array = np.frombuffer(tail[offset:offset + size], dtype=dtype.newbyteorder("<")).astype(dtype, copy=True)
            offset += size
        elif "data" in tensor:
            array = _json_data(name, tensor["data"], dtype, count)
        else:
            raise ProtocolError(f"input '{name}' has neither 'data' nor parameters.binary_data_size")
        arrays[name] = array.reshape(shape)
    missing = sorted(set(by_name) - set(arrays))
    if missing:
        raise ProtocolError(f"the request is missing input(s) {missing}")
    if offset != len(tail):
        raise ProtocolError(f"the body has {len(tail) - offset} bytes of binary data that no input claims")
    if max_rows is not None:
        rows = {a.shape[0] for a in arrays.values()}
        if len(rows) > 1:
            raise ProtocolError(f"every input must have the same batch size (dim 0); got {sorted(rows)}")
    return arrays


def _check_shape(name, shape, expected, max_rows):
    ok = len(shape) == len(expected) and all(e == -1 or s == e for s, e in zip(shape[1:], expected[1:]))
    if ok and max_rows is None:
        ok = shape[0] == expected[0]
    elif ok and not 1 <= shape[0] <= max_rows:
        raise ProtocolError(f"input '{name}' has a batch (dim 0) of {shape[0]}; this model takes 1 to "
                            f"{max_rows} rows a request (batching.max_batch_size)")
    if not ok:
        raise ProtocolError(f"input '{name}' has shape {expected} (-1: any size), the request sent {shape}")


def _json_data(name, data, dtype, count) -> np.ndarray:
    try:
        array = np.asarray(data, dtype=dtype)
    except (ValueError, TypeError, OverflowError) as e:
        raise ProtocolError(f"input '{name}': 'data' does not convert to {dtype}: {e}") from None
    if array.size != count:
        raise ProtocolError(f"input '{name}': 'data' has {array.size} elements, the shape needs {count}")
    return array.reshape(-1)


def requested_outputs(request: dict, specs: Sequence[TensorSpec]) -> List[OutputRequest]:
    """Which outputs to return and whether each goes as binary data (all outputs when none are named)."""
    params = request.get("parameters") or {}
    binary_default = bool(params.get("binary_data_output", False))
    wanted = request.get("outputs")
    if wanted is None:
        return [OutputRequest(s.name, binary_default) for s in specs]
    if not isinstance(wanted, list):
        raise ProtocolError("'outputs' must be a list of {name, parameters} objects")
    names = {s.name for s in specs}
    chosen = []
    for i, out in enumerate(wanted):
        if not isinstance(out, dict) or out.get("name") not in names:
            got = out.get("name") if isinstance(out, dict) else out
            raise ProtocolError(f"unknown output '{got}' in outputs[{i}]; the model's outputs are {sorted(names)}")
        binary = (out.get("parameters") or {}).get("binary_data", binary_default)
        chosen.append(OutputRequest(out["name"], bool(binary)))
    return chosen


def encode_response(model_name: str, request: dict, outputs: List[OutputRequest],
                    arrays: Dict[str, np.ndarray]) -> Tuple[bytes, Optional[int]]:
    """The response body, and the JSON part's length when binary data follows it (else None)."""
    tensors, blobs = [], []
    for out in outputs:
        array = arrays[out.name]
        entry = {"name": out.name, "datatype": _datatype_of_dtype(array.dtype), "shape": list(array.shape)}
        if out.binary:
            blob = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
            entry["parameters"] = {"binary_data_size": len(blob)}
            blobs.append(blob)
        else:
            entry["data"] = array.reshape(-1).tolist()
        tensors.append(entry)
    response = {"model_name": model_name, "model_version": "1", "outputs": tensors}
    if "id" in request:
        response["id"] = request["id"]
    header = json.dumps(response, separators=(",", ":")).encode()
    if not blobs:
        return header, None
    return b"".join([header, *blobs]), len(header)


def _datatype_of_dtype(dtype: np.dtype) -> str:
    for name, d in DATATYPES.items():
        if d == dtype:
            return name
    raise ProtocolError(f"an output of numpy dtype {dtype} has no KServe v2 datatype", 500)

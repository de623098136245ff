"""Mosaic: heterogeneous neural-network inference with OpenVINO's Python API.

    import mosaic as ov
    core = ov.Core()
    compiled = core.compile_model("model.xml", "HETERO:GPU,CPU")
    results = compiled({"data": array})
"""
import sys as _sys

from mosaic._mosaic import (
    CompiledModel,
    ConstOutput,
    Core,
    InferRequest,
    InferResults,
    Model,
    Node,
    PartialShape,
    ProfilingInfo,
    RTMap,
    Tensor,
    Type,
)
from mosaic import properties
from mosaic.async_infer_queue import AsyncInferQueue
from mosaic.properties import device, hint

# OpenVINO's documents write `import openvino.device as device` and `import openvino.hint as hints`:
# mosaic.device and mosaic.hint are the very modules mosaic.properties.device and .hint.
_sys.modules[__name__ + ".device"] = device
_sys.modules[__name__ + ".hint"] = hint

__all__ = [
    "AsyncInferQueue", "CompiledModel", "ConstOutput", "Core", "InferRequest", "InferResults", "Model",
    "Node", "PartialShape", "ProfilingInfo", "RTMap", "Tensor", "Type", "device", "hint", "properties",
]

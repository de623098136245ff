#!/usr/bin/env bash
# The LLM benchmark's runtimes and exporters, in a venv of their own (build-llm-bench-venv beside the
# source tree, or $MOSAIC_LLM_BENCH_VENV), so that the tests' exporter venv keeps its versions:
# torch, transformers and optimum(-intel) to build and export the model, nncf to compress its weights
# for OpenVINO; openvino-genai (the
# LLMPipeline Mosaic's is shaped after), onnxruntime-genai (its model builder and generator), gguf
# and llama-cpp-python (llama.cpp, built without -march=native: its native build died on this
# machine with an illegal instruction). Prints the venv's python on the last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${MOSAIC_LLM_BENCH_VENV:-$root/build-llm-bench-venv}
if "$venv/bin/python" -c "import torch, transformers, optimum.intel, nncf, openvino_genai, onnxruntime_genai, onnx_ir, gguf, llama_cpp" 2>/dev/null; then
    echo "$venv/bin/python"
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip >&2
"$venv/bin/python" -m pip install -q torch transformers "optimum[onnx]" optimum-intel nncf openvino openvino-genai \
    openvino-tokenizers onnx onnx-ir onnxruntime "onnxruntime-genai==0.11.4" gguf sentencepiece numpy >&2
CMAKE_ARGS="-DGGML_NATIVE=OFF" "$venv/bin/python" -m pip install -q llama-cpp-python >&2
echo "$venv/bin/python"

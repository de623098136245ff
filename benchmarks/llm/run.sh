#!/usr/bin/env bash
# Mosaic's LLMPipeline against OpenVINO GenAI, ONNX Runtime GenAI and llama.cpp on one
# Qwen2.5-0.5B-shaped model (random weights, f32, every format from the same weights): time to the
# first token and decode tokens/s, greedy, side by side in one run, at 1 and 2 threads.
#
#   benchmarks/llm/run.sh [--prompt 128] [--new 64] [--threads 1,2] [--layers 24] [--weights f32,int8,int4]
#                         [--devices 'CPU;GPU;HETERO:GPU,CPU'] [--runtimes mosaic,mosaic_packed,mosaic_dq,openvino_genai,ort_genai,llama_cpp]
#
# --weights: the same weights compressed by each runtime's tools (make_model.py): optimum-intel's
# int8/int4 IR (Mosaic, OpenVINO GenAI), the builder's int4 (ONNX Runtime GenAI), llama.cpp's
# Q8_0/Q4_0. mosaic_dq: Mosaic with DYNAMIC_QUANTIZATION_GROUP_SIZE 32 (compressed models only);
# mosaic_packed: Mosaic with CPU_WEIGHTS_IN_PLACE off (f32 only: the weights packed beside the model's).
#
# Installs its runtimes into build-llm-bench-venv (install.sh; llama-cpp-python compiles for
# minutes), the mosaic package into it (pip install . from this tree), writes the models into
# build/llm_bench (make_model.py), then prints one row per runtime, device and thread count.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=$(bash "$here/install.sh" | tail -1)
if ! "$py" -c "import mosaic.genai" 2>/dev/null || [ -n "${MOSAIC_BENCH_REINSTALL:-}" ]; then
    "$py" -m pip install -q scikit-build-core nanobind >&2
    "$py" -m pip install -q --no-build-isolation "$root" >&2
fi
exec "$py" "$here/run.py" "$@"

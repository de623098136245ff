#!/bin/bash
# Mosaic CPU against OpenVINO on NNCF's int8 IR (FakeQuantize on activations, i8 weights): each
# model at 1 and 2 threads, two alternating rounds, the same static shapes for both runtimes, median
# latency of 200 inferences (`mosaic benchmark` and OpenVINO's benchmark_app, one request, one
# stream). The models are tests/quantized/quantized_models.sh's (tools/models/make_quantized_models.py
# --forms nncf). Usage: benchmarks/compare/nncf_ir.sh [BUILD_DIR] [MODELS_DIR] [BENCHMARK_APP]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
models=${2:-${MOSAIC_GENERATED_MODELS:-$root/build-generated-models}/quantized}
OVB=${3:-$root/build-llm-bench-venv/bin/benchmark_app}
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
run() { # model mosaic_shape ov_shape threads
  local M=$models/$1/model.xml
  mo=$("$build/bin/mosaic" benchmark -m $M -d CPU -nthreads $4 -niter 200 -hint latency --shape "$2" 2>&1 | grep -E "Median" | awk '{print $2}')
  ov=$("$OVB" -m $M -d CPU -nthreads $4 -nstreams 1 -niter 200 -hint none -shape "$3" 2>&1 | grep -E "Median" | awk '{print $(NF-1)}')
  echo "$1 threads=$4 mosaic=$mo ov=$ov"
}
for t in 1 2; do for r in 1 2; do
  run resnet50_nncf "input[1,3,224,224]" "input[1,3,224,224]" $t
  run mobilenet_v2_nncf "input[1,3,224,224]" "input[1,3,224,224]" $t
  run minilm_l6_nncf "input_ids[1,128],attention_mask[1,128]" "input_ids[1,128],attention_mask[1,128]" $t
done; done

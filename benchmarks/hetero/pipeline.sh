#!/usr/bin/env bash
# Requests flowing through HETERO's stages, and the plan's predicted stage times against measured
# ones (pipeline_bench.cpp):
#   benchmarks/hetero/pipeline.sh [BUILD_DIR [SECONDS]]
# Two runs:
#   real        HETERO:GPU,CPU with MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL on ResNet-50 (the
#               ovc IR of the model suite), the GPU (PoCL here) limited to about half of it: two
#               stages, both computing on this machine's cores, so overlap gains only what the
#               cores left idle by one stage give the other.
#   simulation  HETERO:ACCEL,REFERENCE on mosaic_pipeline (convolutions on ACCEL, MatMul layers on
#               REFERENCE), each device with one queue (EXECUTION_UNITS 1) and SIMULATED_TIME: every
#               inference lasts the sum of its ops' cost estimates, waited out off the cores, as an
#               accelerator computing on its own silicon would; COST_FACTOR 4 makes the estimates
#               longer than the reference kernels' own compute, so the simulated time is what
#               counts. A simulation, labelled so.
# Each prints predicted/measured per subgraph, then inferences/s with 1, 2 and 4 requests in flight.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
seconds=${2:-5}
bin=$build/hetero_pipeline_bench
bash "$root/benchmarks/build_driver.sh" "$root/benchmarks/hetero/pipeline_bench.cpp" "$bin" "$build"
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
echo "command: benchmarks/hetero/pipeline.sh $*"
resnet=$build/onnx_models_ovc/resnet50/model.xml
if [[ -f $resnet ]]; then
    echo "=== real: PIPELINE_PARALLEL, HETERO:GPU,CPU"
    "$bin" "$resnet" HETERO:GPU,CPU \
        '{"MODEL_DISTRIBUTION_POLICY": "PIPELINE_PARALLEL", "PERFORMANCE_HINT_NUM_REQUESTS": 4, "DEVICE_PROPERTIES": {"GPU": {"DEVICE_MEMORY_LIMIT": 100000000}}}' \
        "$seconds" 1,2,4
else
    echo "=== real: skipped, no $resnet (the model suite's ovc IR: tests/ir, make_ovc_models.py)"
fi
echo "=== simulation: HETERO:ACCEL,REFERENCE, one queue each, SIMULATED_TIME"
"$bin" "$build/models/mosaic_pipeline.xml" HETERO:ACCEL,REFERENCE \
    '{"DEVICE_PROPERTIES": {"ACCEL": {"EXECUTION_UNITS": 1, "SIMULATED_TIME": true}, "REFERENCE": {"EXECUTION_UNITS": 1, "SIMULATED_TIME": true}}}' \
    "$seconds" 1,2,4 '{"ACCEL": {"COST_FACTOR": 4}, "REFERENCE": {"COST_FACTOR": 4}}'

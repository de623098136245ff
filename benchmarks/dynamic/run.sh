#!/usr/bin/env bash
# Dynamic-shape inference against the same model compiled static (see dynamic_bench.cpp):
#   benchmarks/dynamic/run.sh [BUILD_DIR [DEVICE [ITERATIONS [ROUNDS]]]]
# Uses the build's libmosaic and plugins and the torch export with dynamic batch and spatial axes
# (tools/models/make_onnx_models.py squeezenet1_1_dynamic), generated into BUILD_DIR when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
device=${2:-CPU}
models=$build/onnx_models_dynamic
[ -f "$models/squeezenet1_1_dynamic/model.onnx" ] ||
    /usr/bin/python3 "$root/tools/models/make_onnx_models.py" "$models" --only squeezenet1_1_dynamic >/dev/null
bin=$build/dynamic_bench
bash "$root/benchmarks/build_driver.sh" "$root/benchmarks/dynamic/dynamic_bench.cpp" "$bin" "$build"
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
echo "command: benchmarks/dynamic/run.sh $*"
exec "$bin" "$models/squeezenet1_1_dynamic/model.onnx" "$device" "${3:-20}" "${4:-5}"

#!/usr/bin/env bash
# Run-time control flow against its static forms (see control_flow_bench.cpp):
#   benchmarks/control_flow/run.sh [BUILD_DIR [DEVICE [ITERATIONS [ROUNDS]]]]
# Uses the build's libmosaic and plugins and the models of tools/models/make_control_flow_models.py,
# generated into BUILD_DIR/onnx_models_control_flow with the exporters' Python when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
device=${2:-CPU}
models=$build/onnx_models_control_flow
python=${MOSAIC_EXPORTERS_PYTHON:-$root/build-exporters-venv/bin/python}
[ -f "$models/nested_if/model.onnx" ] || "$python" "$root/tools/models/make_control_flow_models.py" "$models" >/dev/null
bin=$build/control_flow_bench
bash "$root/benchmarks/build_driver.sh" "$root/benchmarks/control_flow/control_flow_bench.cpp" "$bin" "$build"
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
echo "command: benchmarks/control_flow/run.sh $*"
exec "$bin" "$models" "$device" "${3:-200}" "${4:-5}"

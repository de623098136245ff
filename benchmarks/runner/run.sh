#!/usr/bin/env bash
# The host's per-inference cost in each form a request runs (see overhead_bench.cpp):
#   benchmarks/runner/run.sh [BUILD_DIR [DEVICE [ROUNDS]]]
# Uses the build's libmosaic, plugins and bundled model (build/models/mosaic_cnn.xml).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
bin=$build/runner_overhead_bench
bash "$root/benchmarks/build_driver.sh" "$root/benchmarks/runner/overhead_bench.cpp" "$bin" "$build"
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
echo "command: benchmarks/runner/run.sh $*"
exec "$bin" "$build/models/mosaic_cnn.xml" "${2:-CPU}" "${3:-9}"

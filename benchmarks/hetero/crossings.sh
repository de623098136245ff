#!/usr/bin/env bash
# HETERO's crossing paths between two GPU instances, side by side (see crossing_bench.cpp):
#   benchmarks/hetero/crossings.sh [BUILD_DIR [ROUNDS]]
# On PoCL, two CPU devices stand in for two GPUs in one OpenCL context (POCL_DEVICES; PoCL 3 calls
# the device "pthread", PoCL 4 and later "cpu"); on a machine with two GPUs set nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
bin=$build/hetero_crossing_bench
bash "$root/benchmarks/build_driver.sh" "$root/benchmarks/hetero/crossing_bench.cpp" "$bin" "$build"
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
if [[ -z ${POCL_DEVICES:-} ]] && clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
    export POCL_DEVICES="pthread pthread"
    clinfo -l 2>/dev/null | grep -q "Device #1" || export POCL_DEVICES="cpu cpu"
fi
echo "command: POCL_DEVICES='${POCL_DEVICES:-}' benchmarks/hetero/crossings.sh $*"
exec "$bin" "${2:-7}"

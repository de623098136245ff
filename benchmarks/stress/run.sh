#!/usr/bin/env bash
# Requests per second of the stress load (tests/stress/stress_load.hpp): the same mix of requests
# (four models split by HETERO, infer() / start_async()+wait() / callbacks, each output checked bit
# for bit against the serial result) from one thread, then from 8 threads.
#   benchmarks/stress/run.sh [BUILD_DIR [DEVICE [REQUESTS_PER_THREAD]]]
# Defaults: build/, HETERO:CPU,REFERENCE, 10000 (80,000 requests each way). Runs the disabled
# StressOn.DISABLED_OneThreadThenEight test of mosaic_stress_test; prints figures, asserts no speed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
device=${2:-HETERO:CPU,REFERENCE}
test_name=$(echo "$device" | sed 's/[^A-Za-z0-9]/_/g')
echo "command: benchmarks/stress/run.sh $*"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json} MOSAIC_BUILD_DIR=$build \
  MOSAIC_STRESS_REQUESTS=${3:-10000} "$build/bin/mosaic_stress_test" --gtest_also_run_disabled_tests \
  --gtest_filter="Devices/StressOn.DISABLED_OneThreadThenEight/$test_name" | grep -E "FIGURES|FAILED|Failure|differ"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

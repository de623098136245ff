#!/usr/bin/env bash
# Mosaic's main job on its bundled default model: installs what is missing, builds, lists the
# devices, then compiles the default CNN for HETERO:GPU,CPU, which splits it (the GPU device, on
# OpenCL, takes the convolutions, pooling, classifier and Softmax; it has no TopK, so the CPU device
# takes the top-5), runs it and prints its outputs, the split ("Split: ..."), and the per-layer
# counters of each subgraph ("subgraph<N>: ...") and of each tensor crossing devices ("transfer:
# ..."), then "Total time: N microseconds". Without a GPU the GPU device runs on PoCL's OpenCL CPU
# device, and `mosaic devices` says so.
#   bash scripts/run_default_model.sh [DEVICE]     (default HETERO:GPU,CPU; e.g. REFERENCE, HETERO:ACCEL,REFERENCE)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install_deps.sh"
# The main job needs no test suites, so they are left out of this build; the cached switch is then
# put back as it was (ON for a new folder), else scripts/test.sh, which shares build/, would find
# no tests there.
tests_were=$(sed -n 's/^MOSAIC_BUILD_TESTS:BOOL=//p' "$root/build/CMakeCache.txt" 2>/dev/null || true)
bash "$root/scripts/build.sh" "$root/build" -DMOSAIC_BUILD_TESTS=OFF
cmake -S "$root" -B "$root/build" -DMOSAIC_BUILD_TESTS="${tests_were:-ON}" >/dev/null ||
  echo "run_default_model: could not switch the test suites back on in $root/build; scripts/test.sh will" \
    "configure them again" >&2
mosaic="$root/build/bin/mosaic"
"$mosaic" devices
"$mosaic" run -m "$root/build/models/mosaic_cnn.xml" -d "${1:-HETERO:GPU,CPU}" -pc

#!/usr/bin/env bash
# Mosaic's main job on its bundled default model: installs what is missing, builds, lists the
# devices, then compiles and runs the default CNN and prints its outputs and per-layer counters.
#   bash scripts/run_default_model.sh [DEVICE]     (default REFERENCE)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install_deps.sh"
bash "$root/scripts/build.sh" "$root/build" -DMOSAIC_BUILD_TESTS=OFF
mosaic="$root/build/bin/mosaic"
"$mosaic" devices
"$mosaic" run -m "$root/build/models/mosaic_cnn.xml" -d "${1:-REFERENCE}" -pc

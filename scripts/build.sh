#!/usr/bin/env bash
# Configures and builds Mosaic: scripts/build.sh [BUILD_DIR] [extra cmake arguments...]
# Uses ccache when present. BUILD_DIR defaults to ./build. MOSAIC_TARGETS="a b" builds only those.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >/dev/null
targets=()
for t in ${MOSAIC_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "${MOSAIC_JOBS:-$(nproc)}" "${targets[@]}"

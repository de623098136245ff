#!/usr/bin/env bash
# Compiles a one-file benchmark driver against a build's libmosaic when the binary is missing or
# older than its source, so each run.sh measures the code it sits beside:
#   benchmarks/build_driver.sh SOURCE.cpp BINARY BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source=$1 bin=$2 build=$3
if [[ ! -x $bin || $source -nt $bin ]]; then
    g++ -std=c++17 -O2 -I"$root/framework/include" -I"$root/plugin_sdk/include" -I"$root/benchmarks" -o "$bin" \
        "$source" -L"$build/lib" -lmosaic -Wl,-rpath,"$build/lib"
fi

#!/usr/bin/env bash
# Packs a built Mosaic for a machine that has a GPU but none of Mosaic's Debian packages (the
# `device` tool's NVIDIA machines: Ubuntu with CUDA, PyTorch and NVIDIA's driver, nothing to apt-get
# from). The pack holds the build's programs and plugins (stripped), the shared libraries they need
# that such a machine lacks (oneDNN, CLBlast, the OpenCL ICD loader, ONNX, protobuf, pugixml, ...),
# the GEMM benchmark built against the plugin's kernels, and ONNX's node tests. on_device.sh runs it.
#
#   benchmarks/gpu/pack.sh [BUILD_DIR] [OUT_FILE]     (defaults: build, .devpack/mosaic.tar.xz)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$root/.devpack/mosaic.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/build/bin" "$stage/build/lib" "$stage/syslib" "$stage/bench"
for b in mosaic mosaic_gpu_test hello_query_device; do cp "$build/bin/$b" "$stage/build/bin/"; done
cp -a "$build/lib/mosaic" "$build/models" "$build/config" "$stage/build/" 2>/dev/null || true
mv "$stage/build/mosaic" "$stage/build/lib/mosaic"
cp -L "$build/lib/libmosaic.so.0" "$stage/build/lib/"

# The GEMM benchmark reads the plugin's kernels from the repository, relative to where it runs.
gpu=$root/plugins/gpu
g++ -std=c++17 -O2 -fopenmp -I"$gpu" -I"$root/plugin_sdk/include" -DMOSAIC_GEMM_KERNELS='"plugins/gpu/kernels"' \
    -o "$stage/bench/gemm_bench" "$root/benchmarks/gemm/gemm_bench.cpp" "$gpu/gemm/clblast_tuning.cpp" "$gpu/gemm/tiled_gemm.cpp" \
    -lclblast -lOpenCL -ldnnl

# Every library the programs and plugins load, but the C/C++ runtime the other machine has newer.
find "$stage" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-unneeded {} + 2>/dev/null || true
bash "$root/scripts/copy_needed_libs.sh" "$stage/syslib" "$stage/build/lib" \
    "$stage"/build/bin/* "$stage"/build/lib/*.so* "$stage"/build/lib/mosaic/plugins/*.so "$stage"/bench/*

# ONNX's backend node tests, for the GPU's node conformance there.
if [ -d /usr/share/libonnx-testdata/data/node ]; then
    tar -C /usr/share/libonnx-testdata/data -cf "$stage/node.tar" node
fi
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - . | xz -T2 -6 >"$out"
echo "pack.sh: $out $(du -h "$out" | cut -f1); libraries: $(ls "$stage/syslib" | tr '\n' ' ')"

#!/usr/bin/env bash
# Single-precision GEMM: CLBlast on the first OpenCL device against oneDNN's matmul on the CPU.
#
#   benchmarks/gemm/run.sh [M [N [K]]] [--threads T] [--iterations N] [--rounds R] [--warmup W]
#
# Compiles gemm_bench.cpp with g++ (not through the project's CMake: this is a measurement of the
# libraries, not of Mosaic) into $GEMM_BENCH_DIR (default /tmp/mosaic-gemm-bench), rebuilding only
# when the source is newer, then runs it with the arguments given. See README.md beside this script.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${GEMM_BENCH_DIR:-/tmp/mosaic-gemm-bench}
bin=$out/gemm_bench

for header in CL/opencl.hpp clblast.h oneapi/dnnl/dnnl.hpp; do
    if ! echo "#include <$header>" | g++ -std=c++17 -E -x c++ - >/dev/null 2>&1; then
        echo "run.sh: <$header> not found: apt-get install opencl-clhpp-headers ocl-icd-opencl-dev libclblast-dev libdnnl-dev" >&2
        exit 1
    fi
done

mkdir -p "$out"
gpu=$(cd "$here/../../plugins/gpu" && pwd)
tuning=$gpu/gemm/clblast_tuning.cpp  # the GPU plugin's CLBlast parameters, applied as it does
tiled=$gpu/gemm/tiled_gemm.cpp       # the GPU plugin's tiled GEMM, enqueued as it does
# kernel_interface.h: the tile sizes the host packs with, compiled in (the kernels are read at run time).
if [[ ! -x $bin || $here/gemm_bench.cpp -nt $bin || $tuning -nt $bin || $tiled -nt $bin || $gpu/gemm/tiled_gemm.hpp -nt $bin ||
      $gpu/gemm/gemm.hpp -nt $bin || $gpu/kernels/kernel_interface.h -nt $bin || $here/../common/machine.hpp -nt $bin ]]; then
    # -fopenmp: oneDNN on Debian 12 uses OpenMP threads (DNNL_CPU_RUNTIME OMP), set with omp_set_num_threads.
    g++ -std=c++17 -O2 -fopenmp -Wall -Wextra -I"$gpu" -I"$here/.." -I"$here/../../plugin_sdk/include" \
        -DMOSAIC_GEMM_KERNELS="\"$gpu/kernels\"" -o "$bin" "$here/gemm_bench.cpp" "$tuning" "$tiled" \
        -lclblast -lOpenCL -ldnnl
fi
echo "packages:  $(dpkg-query -W -f '${Package} ${Version}; ' libclblast1 libdnnl2 libpocl2 2>/dev/null || true)"
exec "$bin" "$@"

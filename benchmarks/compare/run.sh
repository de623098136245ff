#!/usr/bin/env bash
# Mosaic, on one or several of its devices, against ONNX Runtime and OpenVINO on the CPU: batch-1
# latency, compile time, peak memory.
#
#   benchmarks/compare/run.sh [--models m1,m2] [--threads 1,2] [--devices 'CPU;GPU;HETERO:GPU,CPU' | --device CPU]
#                             [--iterations N] [--warmup N] [--rounds R] [--mosaic BUILD]
#                             [--runtimes mosaic,ort,ov] [--models-dir DIR] [--out DIR] [--timeout S]
#
# See README.md beside this script. Uses the `python3` on PATH (PYTHON=... to choose another) and
# installs onnxruntime, openvino and numpy into it with pip when it lacks them. Models are
# generated with /usr/bin/python3 (torch) by tools/models/make_onnx_models.py when missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
command -v "$py" >/dev/null || { echo "run.sh: no '$py' on PATH (set PYTHON=/path/to/python3)" >&2; exit 1; }

# need MODULE PACKAGE: pip-installs PACKAGE when MODULE cannot be imported.
need() {
    "$py" -c "import $1" 2>/dev/null && return
    echo "run.sh: $py cannot import $1; installing it: $py -m pip install $2" >&2
    "$py" -m pip install --quiet "$2" || { echo "run.sh: pip install $2 failed" >&2; exit 1; }
}

case " $* " in
*" -h "* | *" --help "*) ;;  # help needs nothing installed
*)
    need numpy numpy
    need onnxruntime onnxruntime
    need openvino openvino
    ;;
esac
exec "$py" "$here/compare.py" "$@"

#!/usr/bin/env bash
# Installs the exporters the real-model tests build their models with, into a venv of their own
# (build-exporters-venv; $MOSAIC_EXPORTERS_VENV), so that their pinned dependencies (PaddlePaddle's
# numpy and protobuf) never meet the system's: PaddlePaddle and paddle2onnx
# (tools/models/make_paddle_models.py), with onnx to write the reference data and what paddle2onnx
# folds constants with (onnx_graphsurgeon, polygraphy, sympy, onnxruntime), which it would otherwise
# pip-install itself on first use. Optional: when pip or
# the package index is unreachable this says so, and the tests that need the models are skipped
# saying why. Prints the venv's python on success.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${MOSAIC_EXPORTERS_VENV:-$root/build-exporters-venv}
packages=(paddlepaddle paddle2onnx onnx onnx_graphsurgeon polygraphy sympy onnxruntime)
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import paddle, paddle2onnx, onnx" >/dev/null 2>&1; then
  echo "$venv/bin/python"
  exit 0
fi
echo "install_model_exporters: pip installing ${packages[*]} into $venv" >&2
if python3 -m venv "$venv" >&2 && "$venv/bin/python" -m pip install -q "${packages[@]}" >&2; then
  echo "$venv/bin/python"
  exit 0
fi
echo "install_model_exporters: could not install ${packages[*]}; the real-model tests that need them are skipped" >&2
exit 1

#!/usr/bin/env bash
# Installs the exporters the real-model tests build their models with, each set into a venv of its
# own, so that their pinned dependencies never meet each other's or the system's:
#
# - build-exporters-venv ($MOSAIC_EXPORTERS_VENV): PaddlePaddle and paddle2onnx
#   (tools/models/make_paddle_models.py), with onnx to write the reference data and what paddle2onnx
#   folds constants with (onnx_graphsurgeon, polygraphy, sympy, onnxruntime), which it would
#   otherwise pip-install itself on first use; PaddlePaddle pins its numpy and protobuf.
# - build-torch-exporters-venv ($MOSAIC_TORCH_EXPORTERS_VENV): torch, transformers, optimum's ONNX
#   exporter and optimum-intel's OpenVINO exporter, with onnxruntime and openvino for the references
#   (tools/models/make_optimum_models.py), onnxscript for torch.onnx's dynamo exporter
#   (tools/models/make_dynamo_models.py), and NNCF for OpenVINO IR quantized as NNCF does it
#   (tools/models/make_quantized_models.py). Installed in one pip call, so that pip picks an
#   optimum-intel that agrees with optimum-onnx's pin of optimum.
# - build-tf-exporters-venv ($MOSAIC_TF_EXPORTERS_VENV): TensorFlow (CPU wheels, with Keras 3) and
#   tf2onnx (tools/models/make_tf_models.py), with onnx to write the reference data and onnxruntime
#   to check the exports against TensorFlow; TensorFlow pins its numpy (<2.2) and protobuf (<6),
#   which tf2onnx 1.17 accepts.
#
# Optional: when pip or the package index is unreachable this says so, and the tests that need the
# models are skipped saying why. Prints each venv's python that is ready; fails when one is not.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
status=0

# install_set VENV "IMPORTS" PACKAGE...: VENV/bin/python once it imports IMPORTS.
install_set() {
  local venv=$1 imports=$2
  shift 2
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $imports" >/dev/null 2>&1; then
    echo "$venv/bin/python"
    return 0
  fi
  echo "install_model_exporters: pip installing $* into $venv" >&2
  if python3 -m venv "$venv" >&2 && "$venv/bin/python" -m pip install -q "$@" >&2 &&
    "$venv/bin/python" -c "import $imports" >&2; then
    echo "$venv/bin/python"
    return 0
  fi
  echo "install_model_exporters: could not install $*; the real-model tests that need them are skipped" >&2
  status=1
}

install_set "${MOSAIC_EXPORTERS_VENV:-$root/build-exporters-venv}" "paddle, paddle2onnx, onnx" \
  paddlepaddle paddle2onnx onnx onnx_graphsurgeon polygraphy sympy onnxruntime
# torch's CPU-only wheels where PyTorch's index is reachable: PyPI's carry CUDA and Triton, 4 GB
# that this CPU-only work never loads. Asked once: pip would retry an unreachable index per package.
cpu_torch=()
if python3 -c "import urllib.request; urllib.request.urlopen('https://download.pytorch.org/whl/cpu/torch/', timeout=5)" 2>/dev/null; then
  cpu_torch=(--extra-index-url https://download.pytorch.org/whl/cpu)
fi
install_set "${MOSAIC_TORCH_EXPORTERS_VENV:-$root/build-torch-exporters-venv}" \
  "torch, transformers, optimum.exporters.onnx, optimum.intel, openvino, onnxruntime, onnxruntime_genai, onnx_ir, onnxscript, nncf" \
  "${cpu_torch[@]}" torch transformers "optimum[onnx]" optimum-intel openvino onnx onnxruntime "onnxruntime-genai==0.11.4" onnx-ir onnxscript nncf
install_set "${MOSAIC_TF_EXPORTERS_VENV:-$root/build-tf-exporters-venv}" "tensorflow, tf2onnx, onnx, onnxruntime" \
  "tensorflow-cpu==2.19.*" "tf2onnx==1.17.0" onnx onnxruntime
exit $status

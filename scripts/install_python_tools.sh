#!/usr/bin/env bash
# Installs the Python packages that tests and benchmarks compare Mosaic with: OpenVINO (its `ovc`
# converter writes the IR that tests/onnx/architectures.sh reads) and ONNX Runtime, and matplotlib,
# which draws benchmarks/compare's chart of the ratios. Optional: when
# pip or the package index is unreachable this says so and the tests that need them are skipped.
set -uo pipefail
py=${MOSAIC_PYTHON:-python3}
missing=()
for p in openvino onnxruntime matplotlib; do
  "$py" -m pip show -q "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install_python_tools: pip installing ${missing[*]}"
"$py" -m pip install -q "${missing[@]}" || echo "install_python_tools: could not install ${missing[*]}; the tests that use them are skipped"
exit 0

#!/usr/bin/env bash
# The architectures of tools/models/make_onnx_models.py (ResNet-50, MobileNets, EfficientNet-B0,
# SqueezeNet, BERT-base- and MiniLM-shaped encoders, BiLSTM, BiGRU) on REFERENCE:
#   1. read as ONNX, run, compared with torch's outputs (atol 1e-4);
#   2. the same through `mosaic convert`'s path (IR v11 written and read back);
#   3. where OpenVINO's `ovc` is installed (pip openvino), the IR ovc writes from each model;
# then on the GPU device (OpenCL; PoCL in CI) with the same tolerance: alone, where a model has an op
# the GPU's query leaves out (an LSTM, a HardSigmoid) it is reported unsupported, and on
# HETERO:GPU,CPU, where every model must pass.
# Usage: tests/onnx/architectures.sh BUILD_DIR [model,model...]   (models are generated once into
# BUILD_DIR/onnx_models; they are large, so they are never committed.)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: architectures.sh BUILD_DIR [models]}
only=${2:-}
models=$build/onnx_models
mosaic=$build/bin/mosaic
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
tolerance=(--atol 1e-4 --rtol 1e-4)

/usr/bin/python3 "$root/tools/models/make_onnx_models.py" "$models" ${only:+--only "$only"}
# The generator's models only: the folder may also hold others (the benchmarks quantize models
# into it: NAME_qdq, NAME_dynamic, compared with their own tolerances by tests/quantized).
folders=()
for name in $(/usr/bin/python3 "$root/tools/models/make_onnx_models.py" --list); do
    [ -n "$only" ] && [[ ",$only," != *",$name,"* ]] && continue
    folders+=("$models/$name")
done

echo "== ONNX on REFERENCE"
"$mosaic" conformance -d REFERENCE "${tolerance[@]}" "${folders[@]}"
echo "== ONNX -> IR v11 -> REFERENCE"
"$mosaic" conformance -d REFERENCE "${tolerance[@]}" --via-ir "${folders[@]}"
echo "== ONNX on GPU"
"$mosaic" conformance -d GPU "${tolerance[@]}" "${folders[@]}"
echo "== ONNX on HETERO:GPU,CPU"
"$mosaic" conformance -d HETERO:GPU,CPU "${tolerance[@]}" "${folders[@]}"

if ! command -v ovc >/dev/null; then
    echo "== OpenVINO's ovc is not installed (pip install openvino): its IR is not checked"
    exit 0
fi
echo "== IR written by OpenVINO's ovc -> REFERENCE"
ovc_dir=$build/onnx_models_ovc
ovc_folders=()
for f in "${folders[@]}"; do
    name=$(basename "$f")
    out=$ovc_dir/$name
    mkdir -p "$out"
    # ovc stores weights as f16 unless told not to (the reference outputs are f32), and is given the
    # test data's input shapes: Mosaic resolves value-dependent shapes when the IR is read.
    shapes=$(/usr/bin/python3 -c '
import glob, sys, onnx
files = sorted(glob.glob(sys.argv[1] + "/test_data_set_0/input_*.pb"), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
print(",".join("%s[%s]" % (t.name, ",".join(map(str, t.dims))) for t in map(onnx.load_tensor, files)))' "$f")
    [ -f "$out/model.xml" ] || ovc "$f/model.onnx" --output_model "$out/model.xml" --compress_to_fp16=False \
        --input "$shapes" >/dev/null
    ln -sfn "$f/test_data_set_0" "$out/test_data_set_0"
    ovc_folders+=("$out")
done
"$mosaic" conformance -d REFERENCE "${tolerance[@]}" "${ovc_folders[@]}"

#!/usr/bin/env bash
# Quantized models as users make them: ResNet-50, MobileNetV2 and a MiniLM-shaped encoder
# (tools/models/make_onnx_models.py, torch) quantized by ONNX Runtime's quantizer
# (tools/models/make_quantized_models.py: quantize_static in QDQ with per-channel i8 weights, and
# quantize_dynamic) and by NNCF to OpenVINO IR, each run on REFERENCE, CPU (its integer kernels),
# GPU and HETERO:GPU,CPU and compared with the quantizing runtime's outputs on the same model.
#
# Tolerance, in steps of the output's own quantization (the scale of the DequantizeLinear that
# writes it): two integer runtimes round the same reals at different points (an accumulator scaled
# once, or products scaled one by one), so a value may land one grid step apart, and a step
# early in the network can move a later value by another. 2 steps for the CNNs; 6 for the encoder,
# which is OpenVINO's own distance from ONNX Runtime on it (LayerNorm and Softmax between
# quantized MatMuls amplify a step). Dynamic quantization (each activation quantized from its own
# range at run time, the integer products on i32) on REFERENCE and CPU within 0.05 + 1%: its outputs
# are not quantized. Not on the GPU alone, which has no i32 convolution or MatMul (its query says
# so); HETERO:GPU,CPU puts those on the CPU.
#
# NNCF's IR (FakeQuantize on activations, int8 weights; OpenVINO's outputs as the oracle): OpenVINO
# runs it on integer kernels with its own rounding, REFERENCE computes FakeQuantize's formula
# exactly, the CPU and GPU its quantize-dequantize form (plugin_sdk's fake_quantize_rewrite.hpp; the
# CPU on its integer kernels), and they land about a percent of the output's range apart on the
# CNNs and five on the encoder: 2% and 6% of the largest expected output. The CNNs are skipped on
# the GPU alone: their global pooling's axes are computed from the input's shape, whose batch is
# dynamic, and the GPU's pooling needs them constant (HETERO:GPU,CPU runs it on the CPU).
#
# Usage: tests/quantized/quantized_models.sh BUILD_DIR. Models go to
# $MOSAIC_GENERATED_MODELS/quantized (default BUILD_DIR/quantized_models), made once. Exits 77
# (skipped) when the exporters' venv with onnxruntime is missing (scripts/install_model_exporters.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: quantized_models.sh BUILD_DIR}
out=${MOSAIC_GENERATED_MODELS:+$MOSAIC_GENERATED_MODELS/quantized}
out=${out:-$build/quantized_models}
mosaic=$build/bin/mosaic
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}
py=${MOSAIC_TORCH_EXPORTERS_PYTHON:-$root/build-torch-exporters-venv/bin/python}
if ! "$py" -c "import onnxruntime.quantization, nncf, openvino" 2>/dev/null; then
    echo "quantized_models: $py cannot import onnxruntime.quantization, nncf or openvino (run scripts/install_model_exporters.sh): skipped"
    exit 77
fi

sources=resnet50,mobilenet_v2,minilm_l6
mkdir -p "$out"
# One writer at a time: ctest may run this beside a build that writes the same folder.
exec 9>"$out/.lock"
flock 9
/usr/bin/python3 "$root/tools/models/make_onnx_models.py" "$out/src" --only "$sources"
"$py" "$root/tools/models/make_quantized_models.py" "$out/src" "$out" --only "$sources"

# The largest magnitude among a model's expected outputs.
output_range() {
    "$py" - "$1/test_data_set_0" <<'EOF'
import glob, sys, onnx
import numpy as np
from onnx import numpy_helper
print(max(float(np.abs(numpy_helper.to_array(onnx.load_tensor(f))).max()) for f in glob.glob(sys.argv[1] + "/output_*.pb")))
EOF
}

# The output step of a quantized model: the largest scale of a DequantizeLinear writing a graph
# output, directly or through one element-wise op (the encoder's pooler Tanh).
step() {
    "$py" - "$1/model.onnx" <<'EOF'
import sys, onnx
from onnx import numpy_helper
g = onnx.load(sys.argv[1], load_external_data=False).graph
init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
producer = {o: n for n in g.node for o in n.output}
steps = []
for out in g.output:
    n = producer.get(out.name)
    if n is not None and n.op_type != "DequantizeLinear" and n.input[0] in producer:
        n = producer[n.input[0]]
    if n is not None and n.op_type == "DequantizeLinear" and n.input[1] in init:
        steps.append(float(init[n.input[1]].max()))
print(max(steps) if steps else 0.005)
EOF
}

failed=0
for form in qdq dynamic nncf; do
    for name in resnet50 mobilenet_v2 minilm_l6; do
        folder=$out/${name}_$form
        devices=(REFERENCE CPU GPU HETERO:GPU,CPU)
        bound=2  # steps or percent: 6 for the encoder
        [ "$name" = minilm_l6 ] && bound=6
        case $form in
        # Values on the output's grid differ by whole steps, less a float rounding: N + 0.5 steps.
        qdq) why="$bound output steps"
             tolerance=(--atol "$("$py" -c "print(($bound + 0.5) * $(step "$folder"))")" --rtol 0) ;;
        dynamic) why="outputs not quantized"; tolerance=(--atol 0.05 --rtol 0.01); devices=(REFERENCE CPU HETERO:GPU,CPU) ;;
        nncf) why="$bound% of the output range"
              tolerance=(--atol "$("$py" -c "print($bound / 100 * $(output_range "$folder"))")" --rtol 0) ;;
        esac
        for device in "${devices[@]}"; do
            echo "== ${name}_$form on $device (${tolerance[*]}: $why)"
            "$mosaic" conformance -d "$device" "${tolerance[@]}" "$folder" || failed=1
        done
    done
done
exit $failed

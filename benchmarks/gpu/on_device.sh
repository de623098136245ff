#!/usr/bin/env bash
# The GPU device's checks and figures on a machine with a real GPU (NVIDIA's OpenCL), from a pack
# made by pack.sh on a machine with Mosaic's packages. Run from the repository root:
#
#   benchmarks/gpu/on_device.sh PACK OUT_DIR [SECONDS_FOR_MODELS]
#
# ROUNDS=N repeats each latency block N times. STEPS=tests,main,gemm,tune,models,latency,profile,cache,f16 (the default: all) picks steps; MODEL_PYTHON and
# MODELS_ONLY choose the interpreter (with torch) and the models made; TUNE_SIZE and TUNE_FRACTION
# (512, 0.0005) the tuner's. Everything written goes into OUT_DIR/results.tar.gz as well, for tools
# that bring back only a few files.
#
# 1. the machine: GPU, driver, CPU, load; `mosaic devices` (what the GPU plugin reports);
# 2. the GPU tests (mosaic_gpu_test) and ONNX's node tests on GPU with tests/gpu/node_expected.txt;
#    the main job (`mosaic run -pc` of the bundled model on HETERO:GPU,CPU), whose crossing a
#    discrete GPU copies;
# 3. GEMM GFLOP/s: CLBlast and Mosaic's tiled kernel on the GPU against oneDNN on all CPU cores;
#    `tune`: CLBlast's Xgemm tuner on this GPU, its parameters saved to OUT_DIR/tune/xgemm.params,
#    then checked at sizes that are no multiple of any tile and timed on BERT-base's GEMMs and 4096^3
#    beside CLBlast's own (200 s at most), for an entry of plugins/gpu/gemm/clblast_tuning.cpp;
# 4. the architectures of tools/models/make_onnx_models.py (made here with this machine's torch) on
#    GPU and HETERO:GPU,CPU against torch's outputs;
# 5. latency of ResNet-50, MobileNetV2 and BERT-base on CPU, GPU and HETERO:GPU,CPU; ResNet-50's
#    per-kernel profile on GPU; its first and cached compile (CACHE_DIR); f16 asked of the GPU.
# Each step is bounded by `timeout` and the steps go on after one fails; logs and reports go to OUT_DIR.
set -u
root=$(pwd)
pack=${1:?usage: on_device.sh PACK OUT_DIR [SECONDS_FOR_MODELS]}
out=${2:?usage: on_device.sh PACK OUT_DIR [SECONDS_FOR_MODELS]}
model_seconds=${3:-240}
step() { echo; echo "== $(date +%T) $*"; }
want() { [[ ",${STEPS:-tests,main,gemm,tune,models,latency,profile,cache,f16}," == *",$1,"* ]]; }
needs_models() { want models || want latency || want profile || want cache || want f16; }
# --shape for a model's inputs, from its test data (the encoders' inputs are dynamic: 1 token otherwise)
shapes_of() {
    "${MODEL_PYTHON:-python3}" -c '
import glob, sys, onnx
files = sorted(glob.glob(sys.argv[1] + "/test_data_set_0/input_*.pb"), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
print(",".join("%s[%s]" % (t.name, ",".join(map(str, t.dims))) for t in map(onnx.load_tensor, files)))' "$1"
}
mkdir -p "$out"
work=/tmp/mosaic-device
mkdir -p "$work" && tar -xJf "$pack" -C "$work" || exit 1
b=$work/build
export LD_LIBRARY_PATH=$work/syslib:$b/lib
export MOSAIC_PLUGINS=$b/lib/mosaic/plugins.json MOSAIC_BUILD_DIR=$b MOSAIC_TEST_DATA=$root/tests/data
mosaic=$b/bin/mosaic

# The pack's ICD loader finds NVIDIA's OpenCL driver through a vendors folder of our own.
icd=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}')
[ -n "$icd" ] || icd=$(find /usr/local/nvidia /usr/lib /usr/lib64 /usr/lib/x86_64-linux-gnu -name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
[ -n "$icd" ] || icd=$(timeout 20 find / -xdev -name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
ls /etc/OpenCL/vendors 2>/dev/null
if [ -n "$icd" ]; then  # else the system's own vendors (PoCL where this runs on a machine without a GPU)
    mkdir -p "$work/icd" && echo "$icd" >"$work/icd/nvidia.icd"
    export OCL_ICD_VENDORS=$work/icd
fi

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv
echo "OpenCL driver: ${icd:-none found}"
lscpu | grep -E "Model name|^CPU\(s\)"
echo "vector units: $(grep -o -w -E 'avx2|avx512f|amx_tile' /proc/cpuinfo | sort -u | tr '\n' ' ')"
uptime

# The models take minutes to export: made in the background while the tests run.
models=$work/models
needs_models && (timeout "$model_seconds" "${MODEL_PYTHON:-python3}" tools/models/make_onnx_models.py "$models" ${MODELS_ONLY:+--only "$MODELS_ONLY"} >"$out/models.log" 2>&1; echo "exit $?" >>"$out/models.log") &
models_pid=$!

step "mosaic devices"
"$mosaic" devices 2>&1 | tee "$out/devices.txt"

mkdir -p /usr/share/libonnx-testdata/data && tar -xf "$work/node.tar" -C /usr/share/libonnx-testdata/data
if want tests; then
step "GPU tests"
(cd "$b" && timeout 300 ./bin/mosaic_gpu_test --gtest_brief=1 --gtest_output=xml:"$out/gpu_test.xml" 2>&1 |
    grep -v -E "Skipped$|query does not take it" | tail -60)

step "ONNX node tests on GPU"
timeout 300 "$mosaic" conformance -q -d GPU --expect tests/gpu/node_expected.txt /usr/share/libonnx-testdata/data/node 2>&1 | tail -15
fi

if want main; then
step "main job: the bundled model on HETERO:GPU,CPU with -pc"
timeout 60 "$mosaic" run -m "$b/models/mosaic_cnn.xml" -d HETERO:GPU,CPU -pc 2>&1 | grep -E "^Split|Transfer|^Total|^subgraph1"
fi

if needs_models; then
step "waiting for the models"
wait "$models_pid"; cat "$out/models.log"; uptime
fi

if want gemm; then
step "GEMM (CLBlast and tiled on the GPU, oneDNN on $(nproc) cores)"
for n in 1024 4096; do timeout 120 "$work/bench/gemm_bench" $n --threads "$(nproc)" 2>&1; done
fi

if want tune; then
step "tune: CLBlast's Xgemm tuner on the GPU, its parameters checked and timed beside CLBlast's own"
# The whole step ends within 200 s: the tuner may take 150 (it cannot be stopped early; killed, it
# saves nothing), the runs after it what is left, 30 s each at most. At 1024^3 and 0.003 (about 410
# kernels: 362 of CLBlast 1.5.3's 120,800 GEMMK=0 candidates, whose best it then discards, see
# gemm_bench.cpp, and 49 of its 16,566 GEMMK=1 ones) the H200 had not finished in 150 s; at 512^3
# and 0.0005 it took 7 s there (2026-11-27). Its GEMMK=1 proposal then failed the check at every
# shape below, and ran at 0.25-0.79 of CLBlast's own speed (docs/benchmarks.md).
tune=$out/tune end=$((SECONDS + 200))
rm -rf "$tune" && mkdir -p "$tune"  # no parameters or logs of an earlier run taken for this one's
timeout 150 "$work/bench/gemm_bench" "${TUNE_SIZE:-512}" --tune "${TUNE_SIZE:-512}" --fraction "${TUNE_FRACTION:-0.0005}" \
    --save-params "$tune/xgemm.params" --threads "$(nproc)" --iterations 5 --rounds 1 --warmup 1 >"$tune/tune.txt" 2>&1
echo "tuner: exit $? after $((SECONDS + 200 - end)) s"
grep -A2 -E "^tuned:" "$tune/tune.txt"; grep -E "^(saved|CLBlast|check|gemm_bench):" "$tune/tune.txt"
if [ -f "$tune/xgemm.params" ]; then
    # CLBlast runs its direct kernel, untouched by Xgemm's parameters, below XGEMM_MIN_INDIRECT_SIZE^3
    # (M*N*K): for NVIDIA GPUs it does not know, 1472^3, above every shape here but 4096^3. 64 makes
    # the tuned kernel run at all of them, as an entry of the table with that value would.
    { cat "$tune/xgemm.params"; echo "XGEMM_MIN_INDIRECT_SIZE=64"; } >"$tune/check.params"
    # Odd sizes first (a wrong kernel shows there), then BERT-base at sequence 128 (M N K), then 4096^3.
    for shape in "1024 1024 1000" "1030 1024 1027" "17 1000 2048" "128 768 768" "128 3072 768" "128 768 3072" "4096 4096 4096"; do
        for run in tuned own; do
            args=(--params "$tune/check.params"); [ "$run" = own ] && args=(--clblast-defaults)
            left=$((end - SECONDS)) log=$tune/${shape// /x}_$run.txt
            [ "$left" -gt 5 ] || { echo "$shape $run: skipped, the step's 200 s are spent"; continue; }
            timeout $((left < 30 ? left : 30)) "$work/bench/gemm_bench" $shape "${args[@]}" --threads "$(nproc)" \
                --iterations 10 --rounds 1 --warmup 2 >"$log" 2>&1
            awk -v what="$shape $run" -v rc=$? '/^CLBlast  median/ {gf = $5 " / " $10 " GFLOP/s (wall / event)"}
                /^CLBlast: .*direct kernel/ {kernel = "direct"} /^CLBlast: .*runs the Xgemm kernel/ {kernel = "Xgemm"}
                /^check: .*C_CLBlast/ {check = $NF} /^gemm_bench:/ {error = $0} END {if (rc == 124) error = "(timed out)"
                printf "%-20s %-42s kernel %-6s check %-6s exit %d %s\n", what, gf, kernel, check, rc, error}' "$log"
        done
        # tuned over CLBlast's own, from OpenCL event times: the GPU's time, not the launch's
        awk '/^CLBlast  median/ {g[FILENAME ~ /_tuned/] = $10} END {if (g[0] > 0 && g[1] > 0) printf "%-20s tuned / own = %.2f\n", "", g[1] / g[0]}' \
            "$tune/${shape// /x}_tuned.txt" "$tune/${shape// /x}_own.txt" 2>/dev/null
    done
else
    echo "no parameters saved: the checks are skipped (the tuner's output: $tune/tune.txt)"
fi
fi

if want models; then
step "architectures on GPU and HETERO:GPU,CPU (atol/rtol 1e-4 against torch)"
folders=$(ls -d "$models"/*/ 2>/dev/null | while read -r d; do [ -f "$d/model.onnx" ] && echo "${d%/}"; done)
for d in GPU HETERO:GPU,CPU; do
    timeout 300 "$mosaic" conformance -d "$d" --atol 1e-4 --rtol 1e-4 $folders 2>&1 | tail -14
done
fi

if want latency; then
step "latency, sync, one request ($(nproc) CPU threads for the CPU device)"
for m in resnet50 mobilenet_v2 bert_base; do
    [ -f "$models/$m/model.onnx" ] || { echo "$m: not made"; continue; }
    shape=$(shapes_of "$models/$m")
    for round in $(seq "${ROUNDS:-1}"); do
    for d in CPU GPU HETERO:GPU,CPU; do
        r=$out/bench_${m}_${d//[:,]/_}_$round.json
        timeout 120 "$mosaic" benchmark -m "$models/$m/model.onnx" --shape "$shape" -d "$d" -api sync -niter 100 --report "$r" >"$r.log" 2>&1 ||
            { echo "$m $d: failed"; tail -5 "$r.log"; continue; }
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); l=r["latency_ms"]
print("%-13s %-15s median %8.2f ms  min %8.2f  compile %7.0f ms" % (sys.argv[2], sys.argv[3], l["median"], l["min"], r.get("compile_ms") or 0))' "$r" "$m" "$d"
        grep -m1 "^Split:" "$r.log" || true
    done
    done
done
fi

if want profile; then
for m in resnet50 bert_base; do
step "$m on GPU: the kernels' share (-pc, one request)"
timeout 120 "$mosaic" benchmark -m "$models/$m/model.onnx" --shape "$(shapes_of "$models/$m")" -d GPU -api sync -niter 20 -pc >"$out/${m}_gpu_pc.txt" 2>&1
python3 - "$out/${m}_gpu_pc.txt" <<'PY' || true
import re, sys, collections
share = collections.Counter()
for line in open(sys.argv[1]):
    m = re.search(r"realTime: *([0-9.]+).*execType: *(\S+)", line)
    if m: share[m.group(2)] += float(m.group(1)) / 1000.0  # the counters are in microseconds
for k, v in share.most_common(10): print("%-32s %8.3f ms" % (k, v))
print("%d kernels counted, %.3f ms in all" % (sum(1 for _ in share), sum(share.values())))
PY
done
fi

if want cache; then
step "ResNet-50 compile on GPU: first, then from CACHE_DIR"
echo '{"CACHE_DIR": "/tmp/mosaic-cache"}' >"$work/cache.json"
for i in 1 2; do
    timeout 120 "$mosaic" benchmark -m "$models/resnet50/model.onnx" -d GPU -api sync -niter 1 --config "$work/cache.json" \
        --report "$out/cache$i.json" >/dev/null 2>&1
    python3 -c 'import json,sys; print("compile %d: %.0f ms" % (int(sys.argv[2]), json.load(open(sys.argv[1]))["compile_ms"]))' "$out/cache$i.json" "$i"
done

fi
if want latency; then
step "GPU_GEMM_KERNEL=TILED against the default on ResNet-50 and BERT-base"
echo '{"GPU_GEMM_KERNEL": "TILED"}' >"$work/tiled.json"
for m in resnet50 bert_base; do
    timeout 120 "$mosaic" benchmark -m "$models/$m/model.onnx" --shape "$(shapes_of "$models/$m")" -d GPU -api sync -niter 50 --config "$work/tiled.json" \
        --report "$out/tiled_$m.json" >/dev/null 2>&1
    python3 -c 'import json,sys; print("%s TILED median %.2f ms" % (sys.argv[2], json.load(open(sys.argv[1]))["latency_ms"]["median"]))' "$out/tiled_$m.json" "$m"
done

fi
if want f16; then
step "f16 asked of the GPU"
timeout 60 "$mosaic" benchmark -m "$models/resnet50/model.onnx" -d GPU -api sync -niter 5 --infer_precision f16 2>&1 | tail -3
fi
uptime
(cd "$out" && tar -czf /tmp/results.tar.gz . && mv /tmp/results.tar.gz .)

#!/usr/bin/env bash
# The cost of isolation: per-inference latency of the same device in process and isolated in a
# mosaic-plugin-host process ("isolation": "process"), in the same run (in, isolated, isolated, in), with
# `mosaic benchmark -api sync` (one request, so each figure is one round trip's latency); then the
# throughput of $REQUESTS (default: the cores) requests in flight at once (`-api async -nireq`), which
# an isolated plugin serves on as many threads of its host process.
#   benchmarks/isolation/run.sh [BUILD_DIR [ITERATIONS [RESNET50_MODEL]]]
# Defaults: build/, 300 iterations; the bundled default model on REFERENCE and CPU, and ResNet-50
# on CPU when a model path is given (tools/models/make_onnx_models.py writes one). Prints a figure
# per device and model with the CPU model and the load; asserts nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
iterations=${2:-300}
resnet=${3:-}
plugins=$build/lib/mosaic/plugins
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/plugins.json" <<JSON
{"version": 1, "plugins": [
  {"device": "REFERENCE", "library": "$plugins/libmosaic_reference_plugin.so"},
  {"device": "REFERENCE_ISOLATED", "library": "$plugins/libmosaic_reference_plugin.so", "isolation": "process"},
  {"device": "CPU", "library": "$plugins/libmosaic_cpu_plugin.so"},
  {"device": "CPU_ISOLATED", "library": "$plugins/libmosaic_cpu_plugin.so", "isolation": "process"}]}
JSON
echo "command: benchmarks/isolation/run.sh $*"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# Median and average latency (ms) of `mosaic benchmark` on MODEL and DEVICE.
latency() {
  MOSAIC_PLUGINS=$work/plugins.json "$build/bin/mosaic" benchmark -m "$1" -d "$2" -api sync -niter "$3" 2>&1 |
    awk '/Median:/ {m=$2} /Average:/ {a=$2} END {print m, a}'
}

# Throughput (inferences/s) of `mosaic benchmark` on MODEL and DEVICE with REQUESTS in flight.
throughput() {
  MOSAIC_PLUGINS=$work/plugins.json "$build/bin/mosaic" benchmark -m "$1" -d "$2" -api async -nireq "$requests" \
    -niter "$3" 2>&1 | awk '/Throughput:/ {print $2}'
}
requests=${REQUESTS:-$(nproc)}

# In process, isolated, isolated, in process (ABBA): a drift in the machine's load over the run
# weighs on both sides alike. Each side's figure is the mean of its two medians.
measure() {  # measure MODEL_NAME MODEL DEVICE ITERATIONS
  read -r a1 _ < <(latency "$2" "$3" "$4")
  read -r b1 _ < <(latency "$2" "$3_ISOLATED" "$4")
  read -r b2 _ < <(latency "$2" "$3_ISOLATED" "$4")
  read -r a2 _ < <(latency "$2" "$3" "$4")
  awk -v name="$1" -v dev="$3" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" -v n="$4" 'BEGIN {
    a = (a1 + a2) / 2; b = (b1 + b2) / 2
    printf "%-10s %-9s %5d iter x2  in-process median %8.3f ms (%.3f, %.3f)  isolated %8.3f ms (%.3f, %.3f)  overhead %+7.3f ms (%+.1f%%)\n",
           name, dev, n, a, a1, a2, b, b1, b2, b - a, (b - a) / a * 100}'
}

measure mosaic_cnn "$build/models/mosaic_cnn.xml" REFERENCE "$iterations"
measure mosaic_cnn "$build/models/mosaic_cnn.xml" CPU "$iterations"
# The same ABBA order for throughput with several requests in flight.
measure_throughput() {  # measure_throughput MODEL_NAME MODEL DEVICE ITERATIONS
  a1=$(throughput "$2" "$3" "$4"); b1=$(throughput "$2" "$3_ISOLATED" "$4")
  b2=$(throughput "$2" "$3_ISOLATED" "$4"); a2=$(throughput "$2" "$3" "$4")
  awk -v name="$1" -v dev="$3" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" -v n="$4" -v r="$requests" 'BEGIN {
    a = (a1 + a2) / 2; b = (b1 + b2) / 2
    printf "%-10s %-9s %5d iter x2  %d requests in flight: in-process %9.1f inferences/s (%.1f, %.1f)  isolated %9.1f (%.1f, %.1f)  ratio %.2f\n",
           name, dev, n, r, a, a1, a2, b, b1, b2, b / a}'
}

measure_throughput mosaic_cnn "$build/models/mosaic_cnn.xml" REFERENCE "$iterations"
if [ -n "$resnet" ]; then
  measure resnet50 "$resnet" CPU $((iterations / 10 > 10 ? iterations / 10 : 10))
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

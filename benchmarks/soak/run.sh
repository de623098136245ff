#!/usr/bin/env bash
# Soak: many inferences in one long-running process with its RSS sampled, printed as figures and
# drawn as a plot; the memory must stay flat after the warm-up (see docs/reliability.md).
#   benchmarks/soak/run.sh [BUILD_DIR [DEVICE [INFERENCES [MODEL]]]]
# Defaults: build/, HETERO:CPU,REFERENCE, 100000, the bundled default model. The Softmax goes to
# REFERENCE (MOSAIC_SOAK_REFERENCE_OPS, comma-separated op types; empty for HETERO's own placement),
# so every inference crosses CPU -> REFERENCE -> CPU. 4 requests in flight (MOSAIC_SOAK_REQUESTS),
# RSS sampled every 1000 inferences (MOSAIC_SOAK_EVERY), figures after a warm-up of a tenth of the
# inferences. Writes rss.csv and rss.png under BUILD_DIR/soak (MOSAIC_SOAK_OUT).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
device=${2:-HETERO:CPU,REFERENCE}
inferences=${3:-100000}
model=${4:-$build/models/mosaic_cnn.xml}
every=${MOSAIC_SOAK_EVERY:-1000}
requests=${MOSAIC_SOAK_REQUESTS:-4}
reference_ops=${MOSAIC_SOAK_REFERENCE_OPS-Softmax}
out=${MOSAIC_SOAK_OUT:-$build/soak}
mkdir -p "$out"
[ -f "$model" ] || { echo "soak: no model at $model; build first (scripts/build.sh)" >&2; exit 1; }

bin=$build/soak_driver
bash "$root/benchmarks/build_driver.sh" "$root/benchmarks/soak/soak.cpp" "$bin" "$build"
export MOSAIC_PLUGINS=${MOSAIC_PLUGINS:-$build/lib/mosaic/plugins.json}

echo "command: benchmarks/soak/run.sh $*"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "model: $model on $device, $inferences inferences, $requests requests in flight," \
    "REFERENCE ops: ${reference_ops:-none}, RSS every $every"
"$bin" "$model" "$device" "$inferences" "$every" "$requests" ${reference_ops:+"$reference_ops"} >"$out/rss.csv"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$root/benchmarks/soak/report.py" "$out/rss.csv" --warmup $((inferences / 10)) --plot "$out/rss.png" \
    --title "RSS of $(basename "$model") on $device, $inferences inferences"

#!/usr/bin/env bash
# Two builds of the GPU plugin side by side: each model runs on GPU with plugin A, then B, for
# several rounds, so that both see the same machine (on a shared VM the speed drifts by up to 2x
# within minutes, and only figures alternated like this compare).
#
#   benchmarks/gpu/ab.sh BUILD A.so B.so MODEL... [ROUNDS=3 ITERATIONS=20 SHAPE='input_ids[1,128],...'
#                                                  DEVICE=HETERO:GPU,CPU (default GPU)]
#
# A.so and B.so: copies of BUILD/lib/mosaic/plugins/libmosaic_gpu_plugin.so from two builds (copy
# one, change and rebuild, copy the other). BUILD gives the mosaic tool and the other plugins.
# Prints, per model and plugin, the median and minimum latency (ms) of each round, then per model
# the median over rounds of B's median / A's (below 1: B is faster).
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n 2,10p "$0"; exit 2; }
build=$(cd "$1" && pwd) a=$2 b=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for side in A B; do
    lib=$([[ $side == A ]] && echo "$a" || echo "$b")
    [[ -f $lib ]] || { echo "ab.sh: no plugin $lib" >&2; exit 2; }
    # The build's registry with the GPU entry pointing at this plugin, every path absolute.
    python3 - "$build/lib/mosaic" "$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")" > "$tmp/$side.json" <<'PY'
import json, sys
root, lib = sys.argv[1], sys.argv[2]
registry = json.load(open(root + "/plugins.json"))
for entry in registry["plugins"]:
    entry["library"] = lib if entry["device"] == "GPU" else root + "/" + entry["library"]
json.dump(registry, sys.stdout, indent=1)
PY
done
export POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-2}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) online; load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "${ROUNDS:-3}"); do
    for model in "$@"; do
        for side in A B; do
            out=$(MOSAIC_PLUGINS=$tmp/$side.json "$build/bin/mosaic" benchmark -m "$model" -d "${DEVICE:-GPU}" -api sync \
                  -niter "${ITERATIONS:-20}" ${SHAPE:+--shape "$SHAPE"} 2>&1) || { echo "$out" >&2; exit 1; }
            echo "round $round  $side  $(echo "$out" | awk '/Median:/ {m=$2} /Min:/ {n=$2} END {printf "median %8s  min %8s ms", m, n}')  $model"
        done
    done
done | tee "$tmp/rounds"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The machine's speed drifts between rounds more than a change moves it; within a round A and B ran
# seconds apart, so the ratio of their medians round by round is the figure to read.
python3 - "$tmp/rounds" <<'PY'
import statistics, sys
medians = {}
for line in open(sys.argv[1]):
    _, _, side, _, median, *_, model = line.split()
    medians.setdefault(model, {}).setdefault(side, []).append(float(median))
for model, sides in medians.items():
    ratios = [b / a for a, b in zip(sides["A"], sides["B"])]
    print(f"B/A {statistics.median(ratios):.3f} (rounds: {' '.join(f'{r:.2f}' for r in ratios)})  {model}")
PY

#!/usr/bin/env bash
# What does transfer-aware placement buy? Compiles mosaic_scattered on HETERO:ACCEL,REFERENCE with
# HETERO_PLACEMENT GREEDY (each op on the first device that runs it) and MIN_TRANSFER (cheap ops
# moved where they save device crossings, by the cost model), and for each prints the split (number
# of subgraphs and transfers, from one `mosaic run -pc`) and the median latency of one request in a
# loop (`mosaic benchmark --api sync`), runs of the two placements interleaved.
#
# Reproduce:
#   bash scripts/build.sh                    # or MOSAIC_BUILD=/path/to/build below
#   bash benchmarks/hetero/placement.sh      # MODEL=... BENCH_SECONDS=10 ROUNDS=3
#
# Settings (environment): MOSAIC_BUILD (default: build/), MODEL (default: mosaic_scattered from the
# build), DEVICE (default HETERO:ACCEL,REFERENCE), BENCH_SECONDS per run (default 10), ROUNDS
# (default 3), ACCEL_COST_FACTOR (default: the registry's, 0.5), KEEP (a folder to keep the
# configs, logs and JSON reports in). Figures are measurements of this machine, not checked by any
# test.
#
# MIN_TRANSFER weighs estimated compute against transfers, so its split depends on ACCEL's
# COST_FACTOR. That is a property of the device, not of a compilation (estimate_cost takes no
# compile properties), so ACCEL_COST_FACTOR runs everything with a copy of the build's registry
# (MOSAIC_PLUGINS) where ACCEL has that factor. On mosaic_scattered: 0.5 moves the two one-op ACCEL
# islands caught between REFERENCE ops (pool3, fc/add_bias); 0.1 only fc/add_bias; 1.0 (devices
# equally fast) everything to REFERENCE, one subgraph.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${MOSAIC_BUILD:-$root/build}
mosaic=$build/bin/mosaic
model=${MODEL:-$build/models/mosaic_scattered.xml}
device=${DEVICE:-HETERO:ACCEL,REFERENCE}
seconds=${BENCH_SECONDS:-10}
rounds=${ROUNDS:-3}
accel_cost=${ACCEL_COST_FACTOR:-}
placements=(GREEDY MIN_TRANSFER)

die() { echo "placement.sh: $*" >&2; exit 1; }
[[ -x $mosaic ]] || die "no mosaic binary at $mosaic; build first (bash scripts/build.sh) or set MOSAIC_BUILD"
[[ -f $model ]] || die "no model at $model; the build generates build/models/mosaic_scattered.xml (target mosaic_hetero_models)"
[[ -f $build/lib/mosaic/plugins/libmosaic_hetero_plugin.so ]] ||
    die "no HETERO plugin in $build/lib/mosaic/plugins; rebuild with plugins/hetero present"
command -v python3 >/dev/null || die "python3 is needed to read the JSON reports"

work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT

if [[ -n $accel_cost ]]; then
    # The registry's library paths are relative to it: the copy gets absolute ones, and the per-device
    # files (devices/<NAME>.json) come along.
    python3 - "$build/lib/mosaic/plugins.json" "$work/plugins.json" "$accel_cost" <<'PY'
import json, os, sys
source, target, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
registry = json.load(open(source))
for entry in registry["plugins"]:
    entry["library"] = os.path.join(os.path.dirname(os.path.abspath(source)), entry["library"])
    if entry["device"] == "ACCEL":
        entry.setdefault("properties", {})["COST_FACTOR"] = factor
json.dump(registry, open(target, "w"), indent=2)
PY
    [[ ! -d $build/lib/mosaic/devices ]] || cp -r "$build/lib/mosaic/devices" "$work/"
    export MOSAIC_PLUGINS=$work/plugins.json
fi
for p in "${placements[@]}"; do
    printf '{"HETERO_PLACEMENT": "%s"}\n' "$p" >"$work/$p.json"
done

# show_split PLACEMENT: one profiled inference; prints the `Split:` line `mosaic run` prints for a
# HETERO model, and the subgraphs and transfers counted from the profiling records
# ("subgraph<N>: <layer>" per op, "transfer: ..." per tensor crossing devices).
show_split() {
    local p=$1 log=$work/$1_run.log
    "$mosaic" run -m "$model" -d "$device" --config "$work/$p.json" -pc >"$log" 2>&1 ||
        { cat "$log" >&2; die "mosaic run failed with HETERO_PLACEMENT $p"; }
    python3 - "$log" "$p" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
line = next((l for l in text.splitlines() if l.startswith("Split:")), "Split: (not printed by this mosaic)")
subgraphs = set(re.findall(r"^subgraph(\d+): ", text, re.M))
transfers = len(re.findall(r"^transfer: ", text, re.M))
n = len(subgraphs)
print(f"  {sys.argv[2]:<13} {n} subgraph{'' if n == 1 else 's'}, {transfers} transfer{'' if transfers == 1 else 's'}   ({line})")
PY
}

# latency PLACEMENT ROUND: one run of one request in a loop; prints its median latency.
latency() {
    local p=$1 round=$2 report=$work/$1_round$2.json
    "$mosaic" benchmark -m "$model" -d "$device" --config "$work/$p.json" --api sync --hint none \
        -t "$seconds" --report "$report" >"$work/${p}_round${round}.log" 2>&1 ||
        { cat "$work/${p}_round${round}.log" >&2; die "benchmark failed with HETERO_PLACEMENT $p"; }
    python3 - "$report" "$p" "$round" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"  {sys.argv[2]:<13} round {sys.argv[3]}: median latency {r['latency_ms']['median']:8.2f} ms"
      f"  ({r['iterations']} iterations)")
PY
}

echo "Model: $model"
echo "Device: $device (ACCEL COST_FACTOR ${accel_cost:-from the registry})"
echo "Split:"
for p in "${placements[@]}"; do show_split "$p"; done
echo "Latency, runs of ${seconds} s, ${rounds} rounds:"
for ((round = 1; round <= rounds; ++round)); do
    for p in "${placements[@]}"; do latency "$p" "$round"; done
done

echo
echo "Median over $rounds rounds:"
python3 - "$work" "${placements[@]}" <<'PY'
import glob, json, statistics, sys
work, placements = sys.argv[1], sys.argv[2:]
medians = {}
for p in placements:
    runs = [json.load(open(f))["latency_ms"]["median"] for f in sorted(glob.glob(f"{work}/{p}_round*.json"))]
    medians[p] = statistics.median(runs)
    print(f"{p:<13} median latency {medians[p]:8.2f} ms")
first, second = placements[0], placements[1]
print(f"{second} / {first} latency: {medians[second] / medians[first]:5.3f}")
PY
[[ -z ${KEEP:-} ]] || echo "Reports kept in $work"

#!/usr/bin/env bash
# The runner overhead (overhead_bench.cpp) of two builds side by side, alternating A, B, A, B...:
#   benchmarks/runner/ab.sh BUILD_A BUILD_B [DEVICE [PAIRS]]
# One driver (built against BUILD_B) runs on each build's libmosaic and plugins; prints each run
# and, per form, the median over the runs of each build.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd) device=${3:-CPU} pairs=${4:-3}
bin=$b/runner_overhead_bench
bash "$root/benchmarks/build_driver.sh" "$root/benchmarks/runner/overhead_bench.cpp" "$bin" "$b"
out=$(mktemp -d)
echo "command: benchmarks/runner/ab.sh $*"
for i in $(seq "$pairs"); do
  for side in a b; do
    build=${!side}
    LD_LIBRARY_PATH=$build/lib MOSAIC_PLUGINS=$build/lib/mosaic/plugins.json \
      "$bin" "$b/models/mosaic_cnn.xml" "$device" 5 > "$out/$side.$i"
  done
done
head -2 "$out/a.1"
printf "%-24s %12s %12s %8s\n" form "A us" "B us" "B/A"
grep -E "^(bundled|Add|NonZero|stateful)" "$out/a.1" | cut -c1-24 | while IFS= read -r form; do
  med() { for f in "$out/$1".*; do grep -F "$form" "$f" | awk '{print $NF}'; done | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
  ma=$(med a) mb=$(med b)
  printf "%-24s %12s %12s %8.2f\n" "$form" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
done
tail -1 "$out/b.$pairs"
rm -rf "$out"

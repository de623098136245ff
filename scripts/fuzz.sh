#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) in build-fuzz/ and runs them:
#   scripts/fuzz.sh --smoke [TARGET...]   each target for $FUZZ_SECONDS (default 35) from its seeds and
#                                         regression inputs, in a fresh corpus; what CI runs
#   scripts/fuzz.sh --long  [TARGET...]   each target for $FUZZ_SECONDS (default 3600), growing the
#                                         corpus kept in build-fuzz/corpus/<target> from run to run
# $FUZZ_RUNS stops each target after that many executions (libFuzzer's -runs), before its time is up.
# $FUZZ_FORKS runs that many fuzzer processes per target (libFuzzer's -fork), for machines with cores
# to spare. MOSAIC_FUZZ_PREBUILT=1 runs what is already in $MOSAIC_FUZZ_BUILD without building
# (a pack of the fuzzers copied to another machine: scripts/pack_fuzzers.sh).
# One fuzzer process at a time. A crash, leak, timeout or out-of-memory leaves its input in
# build-fuzz/artifacts/<target>/; fix the bug and keep the input in tests/fuzz/regressions/ (see
# docs/reliability.md). Ends with a table of executions and coverage per target and the line
# "fuzz: N passed, N failed"; exits non-zero when a target failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MOSAIC_FUZZ_BUILD:-$root/build-fuzz}
mode=${1:-}
case "$mode" in
  --smoke) seconds=${FUZZ_SECONDS:-35} ;;
  --long) seconds=${FUZZ_SECONDS:-3600} ;;
  *) echo "usage: $0 --smoke|--long [TARGET...]" >&2; exit 2 ;;
esac
shift

# target:inputs, as MOSAIC_FUZZ_TARGETS in tests/fuzz/fuzz_targets.hpp lists them; dictionary by inputs.
all_targets=(ir_reader:ir_reader onnx_reader:onnx_reader registry:registry device_properties:device_properties
             cli_shape:cli_shape cli_config:cli_config reference_plugin:onnx_reader tokenizer:tokenizer
             chat_template:chat_template)
declare -A dict=([ir_reader]=ir_reader [onnx_reader]=onnx_reader [registry]=json [device_properties]=json
                 [cli_shape]=cli_shape [cli_config]=json [tokenizer]=json [chat_template]=chat_template)
targets=()
for t in "${all_targets[@]}"; do
  if [ $# -eq 0 ] || [[ " $* " == *" ${t%%:*} "* ]]; then targets+=("$t"); fi
done
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no target named $*; the targets are: ${all_targets[*]%%:*}" >&2; exit 2; }

# Only what the fuzzers need: the runtime, the CLI's parsers, the REFERENCE plugin and the registry.
if [ "${MOSAIC_FUZZ_PREBUILT:-0}" != 1 ]; then
  echo "=== fuzz: building in $build"
  MOSAIC_TARGETS=mosaic_fuzzers bash "$root/scripts/build.sh" "$build" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DMOSAIC_FUZZ=ON -DMOSAIC_ARCHITECTURE_TESTS=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1"
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export MOSAIC_PLUGINS="$build/lib/mosaic/plugins.json"
fuzz=$root/tests/fuzz
passed=0 failed=0 table=()
for entry in "${targets[@]}"; do
  target=${entry%%:*} inputs=${entry#*:}
  corpus=$build/corpus/$target
  [ "$mode" = --smoke ] && corpus=$build/smoke-corpus/$target && rm -rf "$corpus"
  artifacts=$build/artifacts/$target/ log=$build/fuzz-logs/${mode#--}-$target.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  args=(-max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$artifacts")
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  [ "${FUZZ_FORKS:-1}" -gt 1 ] && args+=(-fork="$FUZZ_FORKS")
  [ -n "${dict[$inputs]:-}" ] && args+=(-dict="$fuzz/dicts/${dict[$inputs]}.dict")
  dirs=("$corpus" "$fuzz/seeds/$inputs")
  [ -d "$fuzz/regressions/$inputs" ] && dirs+=("$fuzz/regressions/$inputs")
  echo "=== fuzz: $target for ${seconds}s"
  status=0
  "$build/bin/mosaic_fuzz_$target" "${args[@]}" "${dirs[@]}" >"$log" 2>&1 || status=$?
  # Fork mode prints no final stats: its "fuzzed for N iterations" (when -runs stopped it) or else
  # its last "#N:" line counts the executions of all its processes.
  runs=$(grep -oE "stat::number_of_executed_units: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+$" ||
         grep -oE "fuzzed for [0-9]+ iterations" "$log" | tail -1 | grep -oE "[0-9]+" ||
         grep -oE "^#[0-9]+:" "$log" | tail -1 | tr -d '#:' || echo "?")
  cov=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "$log" | tail -1 || echo "cov: ?")
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1)) result=passed
  else
    failed=$((failed + 1)) result="FAILED (exit $status)"
    tail -40 "$log"
    echo "=== fuzz: $target FAILED; its log is $log, the input in $artifacts"
  fi
  table+=("$(printf '%-18s %12s executions  %-22s %s' "$target" "$runs" "$cov" "$result")")
done
printf '%s\n' "${table[@]}"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Runs every test: installs what is missing, then
#   1. a normal build and the whole ctest suite,
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build and the whole suite again,
#   3. a ThreadSanitizer build and the threaded suites (runtime: concurrent requests, async).
# Ends with the line "N passed, N failed" summing the three runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install_deps.sh"
export MOSAIC_JOBS=${MOSAIC_JOBS:-$(nproc)}
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1

total_pass=0 total_fail=0
run_suite() {  # run_suite NAME BUILD_DIR CTEST_ARGS... ; cmake args come from $CMAKE_ARGS
  local name=$1 build=$2; shift 2
  echo "=== $name: building in $build"
  # shellcheck disable=SC2086
  bash "$root/scripts/build.sh" "$build" $CMAKE_ARGS
  echo "=== $name: testing"
  local log="$build/ctest.log" rc=0
  (cd "$build" && ctest --output-on-failure -j "$MOSAIC_JOBS" "$@") 2>&1 | tee "$log" || rc=$?
  local line pass fail
  line=$(grep -E "tests passed, [0-9]+ tests failed out of" "$log" | tail -1 || true)
  fail=$(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/')
  local all; all=$(echo "$line" | sed -E 's/.* out of ([0-9]+).*/\1/')
  if [ -z "$line" ]; then fail=1; all=1; fi
  pass=$((all - fail))
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
  [ "$rc" -eq 0 ] || echo "=== $name: FAILED"
}

CMAKE_ARGS="" run_suite "release" "$root/build"
CMAKE_ARGS="-DMOSAIC_SANITIZE=address,undefined" \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite "asan+ubsan" "$root/build-asan"
CMAKE_ARGS="-DMOSAIC_SANITIZE=thread" TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  run_suite "tsan" "$root/build-tsan" -R "Threads|Infer\\.|Async|Concurren"

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]

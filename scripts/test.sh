#!/usr/bin/env bash
# Runs every test: installs what is missing, then
#   1. a normal build and the whole ctest suite, then the Python package: `pip install .` into a
#      fresh venv and pytest on tests/python (scripts/test_python.sh), then serving: `pip install
#      .[serve]` (Ray Serve) into a venv of its own and pytest on tests/serve (scripts/test_serve.sh),
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build and the whole suite again (but the
#      full-size ONNX architectures, which take minutes even unsanitized),
#   3. a ThreadSanitizer build of the threaded suites (runtime, registry/host services, HETERO's and
#      the CPU device's threaded tests, the stress load in a reduced form),
#   4. the fuzz smoke: each libFuzzer target of tests/fuzz for about half a minute (scripts/fuzz.sh
#      --smoke, a clang build of what the fuzzers need), each target one test in the totals.
# Ends with the line "N passed, N failed" summing every run; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# MOSAIC_CI=1 (.ci/run): the disk is small. pip keeps no cache, ccache stays under 3 GB, and each
# stage's build is removed once its results are counted (free_stage); every stage prints the disk
# left, so a log shows where it goes.
ci=${MOSAIC_CI:-0}
if [ "$ci" = 1 ]; then export PIP_NO_CACHE_DIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-3G}; fi
disk() { echo "=== disk: $(df -h --output=avail "$root" | tail -1 | tr -d ' ') free after $1"; }
remove_entries() {  # remove_entries DIR KEEP...: removes DIR's entries but its logs (*.log) and KEEP
  local dir=$1 keep=(); shift
  for k in "$@"; do keep+=(! -name "$k"); done
  if [ -d "$dir" ]; then find "$dir" -mindepth 1 -maxdepth 1 ! -name '*.log' "${keep[@]}" -exec rm -rf {} +; fi
}
free_stage() {  # free_stage DIR...: under MOSAIC_CI, removes the folders but their logs
  [ "$ci" = 1 ] || return 0
  for d in "$@"; do remove_entries "$d"; done
  disk "freeing $*"
}
free_all_but() {  # free_all_but DIR KEEP...: under MOSAIC_CI, removes DIR's entries but its logs and KEEP
  [ "$ci" = 1 ] || return 0
  remove_entries "$@"
  disk "freeing $1 but ${*:2}"
}
bash "$root/scripts/install_deps.sh"
bash "$root/scripts/install_python_tools.sh"
bash "$root/scripts/install_python_deps.sh"
# The exporters of the real-model tests (PaddlePaddle and paddle2onnx; torch, transformers and
# optimum; TensorFlow and tf2onnx), each set in a venv of its own; optional.
bash "$root/scripts/install_model_exporters.sh" >/dev/null || true
disk "install"
export MOSAIC_JOBS=${MOSAIC_JOBS:-$(nproc)}
# The models the tests export on first use (torch, paddle2onnx, optimum, OpenVINO; tens of MB) go
# beside the builds, not in them: the sanitizer suites read what the release suite exported instead
# of exporting it all again, and free_stage leaves them.
export MOSAIC_GENERATED_MODELS=${MOSAIC_GENERATED_MODELS:-$root/build-generated-models}
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1

total_pass=0 total_fail=0
failed_names=()  # what failed, stage by stage: repeated after the totals, where a log's tail shows it
count() {  # count LOG: adds ctest's "N tests failed out of M" to the totals
  local line all fail
  line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$1" | tail -1 || true)
  if [ -z "$line" ]; then total_fail=$((total_fail + 1)); failed_names+=("$1: no ctest summary (the build failed?)"); return; fi
  all=$(echo "$line" | sed -E 's/.* out of ([0-9]+).*/\1/')
  fail=$(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of.*/\1/')
  total_pass=$((total_pass + all - fail)); total_fail=$((total_fail + fail))
  local named=${#failed_names[@]}
  while IFS= read -r t; do failed_names+=("$(basename "$(dirname "$1")"): ${t#"${t%%[![:space:]]*}"}"); done < <(sed -n '/The following tests FAILED:/,/^Errors while running/p' "$1" | grep -E "^\s+[0-9]+ - " || true)
  if [ "$fail" -gt 0 ] && [ "${#failed_names[@]}" -eq "$named" ]; then failed_names+=("$1: $fail failed, unnamed in the log"); fi
}

stage_times=("install: $SECONDS s")  # "stage: seconds", repeated after the totals: where CI's time goes
ctest_suite() {  # ctest_suite NAME BUILD_DIR [cmake args...]
  local name=$1 build=$2 start=$SECONDS; shift 2
  echo "=== $name: building in $build"
  bash "$root/scripts/build.sh" "$build" "$@"
  stage_times+=("$name build: $((SECONDS - start)) s")
  start=$SECONDS
  echo "=== $name: testing"
  (cd "$build" && ctest --output-on-failure -j "$MOSAIC_JOBS") 2>&1 | tee "$build/ctest.log" || echo "=== $name: FAILED"
  stage_times+=("$name tests: $((SECONDS - start)) s")
  count "$build/ctest.log"
}

# The op-case sweeps (Cases/*: every op case on REFERENCE, CPU and GPU, thousands) run one process
# per suite (tests/CMakeLists.txt, MOSAIC_OP_CASES_ONE_PROCESS; on by itself in the sanitizer builds):
# a process per case cost more in starting than in testing. A build without the option keeps one
# ctest test per case.
ctest_suite "release" "$root/build" -DMOSAIC_OP_CASES_ONE_PROCESS=ON

# The Python package, after the release build: its build reuses that build's objects through ccache,
# and its tests read that build's bundled model (models/) and run its C++ sample (bin/); the rest of
# the release build goes first on a CI machine, where the disk may be small.
free_all_but "$root/build" models bin lib
count_pytest() {  # count_pytest LOG: adds pytest's final "N passed, N failed, N errors" to the totals
  local line pass fail err
  line=$(grep -E "[0-9]+ (passed|failed|errors?|skipped).* in [0-9.]+s" "$1" 2>/dev/null | tail -1 || true)
  if [ -z "$line" ]; then  # pip or pytest stopped before its summary: say where, from the stage's own output ($2)
    total_fail=$((total_fail + 1))
    failed_names+=("$1: no pytest summary; the stage's last error: $( (grep -iE "error|no space|not found|cannot|failed" "$2" 2>/dev/null || true) | grep -v "^=== " | tail -1 | cut -c1-300); $(df -h --output=avail "$root" | tail -1 | tr -d ' ') of disk free")
    return
  fi
  pass=$(echo "$line" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+" || echo 0)
  fail=$(echo "$line" | grep -oE "[0-9]+ failed" | grep -oE "[0-9]+" || echo 0)
  err=$(echo "$line" | grep -oE "[0-9]+ errors?" | grep -oE "[0-9]+" || echo 0)
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail + err))
  while IFS= read -r t; do failed_names+=("$(basename "$(dirname "$1")"): $t"); done < <(grep -E "^(FAILED|ERROR) " "$1" || true)
}
echo "=== python: pip install . and pytest"
start=$SECONDS
# Each stage's whole output (venv, pip, pytest) is kept beside its build too: a pip that fails says why there.
bash "$root/scripts/test_python.sh" "$root/build-venv/pytest.log" 2>&1 | tee "$root/build-python-stage.log" || echo "=== python: FAILED"
count_pytest "$root/build-venv/pytest.log" "$root/build-python-stage.log"
stage_times+=("python: $((SECONDS - start)) s")
echo "=== serve: pip install .[serve] and pytest on tests/serve"
start=$SECONDS
bash "$root/scripts/test_serve.sh" "$root/build-serve-venv/pytest.log" 2>&1 | tee "$root/build-serve-stage.log" || echo "=== serve: FAILED"
count_pytest "$root/build-serve-venv/pytest.log" "$root/build-serve-stage.log"
stage_times+=("serve: $((SECONDS - start)) s")
# The release build, the package's build and its venvs are done with (their logs stay).
free_stage "$root/build" "$root/build-python" "$root/build-venv" "$root/build-serve-venv"

# Sanitizer builds: -O1 and line tables only, which compile much faster and still give stack traces.
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads the dynamic TLS that oneDNN (loaded by
# the CPU plugin) leaves in OpenMP's pool threads and crashes at exit; the blocks stay reachable
# from each thread's DTV, so leak checking is unchanged.
SAN_FLAGS=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1")
# The LeakSanitizer suppressions name only the OpenCL driver stack (PoCL, LLVM, the ICD loader,
# CLBlast), whose process-lifetime allocations the GPU plugin's tests would otherwise report.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions="$root/tests/lsan_suppressions.txt":print_suppressions=0 \
  ctest_suite "asan+ubsan" "$root/build-asan" -DMOSAIC_SANITIZE=address,undefined -DMOSAIC_ARCHITECTURE_TESTS=OFF "${SAN_FLAGS[@]}"
free_stage "$root/build-asan"

# ThreadSanitizer: the suites that run threads (concurrent requests, async completion, callbacks
# that restart requests, orchestration through the host services, plugins loaded and unloaded),
# HETERO's threaded tests (concurrent requests over subgraphs, overlapping subgraphs), and the CPU
# device's concurrent requests with one thread each and its stream limiter (oneDNN's OpenMP
# runtime, libgomp, is not instrumented, so only single-threaded inferences are checked), and the
# GPU device's concurrent requests (PoCL's own threads are not instrumented; the plugin's queues,
# events and buffers are), HETERO's crossings in device memory over two GPU instances (concurrent
# requests copying GPU.0 -> GPU.1), and the stress load (8 threads of mixed requests over split models, bit-
# identical to serial) in a reduced form, 8 x 100 requests, on HETERO:ACCEL,REFERENCE: its release
# form runs HETERO:CPU,REFERENCE, whose oneDNN OpenMP threads TSan cannot see, and ACCEL is REFERENCE
# restricted, so every thread of that variant is instrumented. Plugins isolated in their own process
# (the proxy's calls from 4 threads, requests served at once by threads of the host, asynchronous
# requests, HETERO falling back from a dead device) run in a mosaic-plugin-host built with TSan too. Every plugin of the
# build registry is built: a registered device whose library is missing is a problem that Core's
# tests see.
echo "=== tsan: building in $root/build-tsan"
start=$SECONDS
MOSAIC_TARGETS="mosaic_runtime_test mosaic_registry_test mosaic_hetero_test mosaic_cpu_test mosaic_gpu_test mosaic_stress_test mosaic_isolation_test mosaic_device_memory_test mosaic_genai_test mosaic_plugin_host mosaic_test_plugins mosaic_reference_plugin mosaic_hetero_plugin mosaic_cpu_plugin mosaic_gpu_plugin mosaic_config" \
  bash "$root/scripts/build.sh" "$root/build-tsan" -DMOSAIC_SANITIZE=thread "${SAN_FLAGS[@]}"
# The runtime suite's tests that infer on the CPU device (named .../CPU, .../HETERO_CPU_REFERENCE,
# .../HETERO_GPU_CPU) run oneDNN's uninstrumented OpenMP threads; the same tests run on REFERENCE here.
declare -A tsan_filter=([runtime]="*-*/CPU:*/HETERO_CPU_REFERENCE:*/HETERO_GPU_CPU" [registry]="*" [hetero]="HeteroThreads.*:HeteroOverlap.*:HeteroSubgraphErrors.*"
                        [cpu]="CpuThreads.ConcurrentRequestsAreBitIdenticalToSerial:CpuStreamLimiter.*:CpuStreamThreads.*:CpuStreams.MoreRequestsThanStreamsOnTwoSingleThreadStreams"
                        [gpu]="GpuThreads.*" [stress]="*/HETERO_ACCEL_REFERENCE"
                        [isolation]="HealthyPlugins/IsolatedResults.*/0:IsolatedHetero.*:IsolationRegistry.*:IsolatedConcurrency.*"
                        [device_memory]="HeteroCrossings.*:HostMemory.*"
                        [genai]="ContinuousBatchingRequests.JoinWhileSteppingReadAsTheyGrowAndDropFreesARow")
stage_times+=("tsan build: $((SECONDS - start)) s")
start=$SECONDS
for suite in runtime registry hetero cpu gpu stress isolation device_memory genai; do
  echo "=== tsan: mosaic_${suite}_test"
  log="$root/build-tsan/tsan_$suite.log"
  MOSAIC_PLUGINS="$root/build-tsan/lib/mosaic/plugins.json" MOSAIC_BUILD_DIR="$root/build-tsan" \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 MOSAIC_STRESS_REQUESTS=100 \
    "$root/build-tsan/bin/mosaic_${suite}_test" --gtest_filter="${tsan_filter[$suite]}" 2>&1 | tee "$log" \
    || echo "=== tsan: $suite FAILED"
  pass=$(grep -E "^\[  PASSED  \] [0-9]+ test" "$log" | sed -E 's/.* ([0-9]+) test.*/\1/' || true)
  fail=$(grep -E "^\[  FAILED  \] [0-9]+ tests?, listed below" "$log" | sed -E 's/[^0-9]*([0-9]+).*/\1/' || true)
  fail=${fail:-0}
  if [ -z "$pass" ] && [ "$fail" -eq 0 ]; then
    fail=1  # crashed (or a race halted it) before its summary
    failed_names+=("tsan $suite: stopped in $(grep -E '^\[ RUN      \]' "$log" | tail -1 | sed -E 's/^\[ RUN +\] //')")
  fi
  while IFS= read -r t; do failed_names+=("tsan $suite: $t"); done < <(grep -E "^\[  FAILED  \] [A-Za-z]" "$log" | sed -E 's/^\[  FAILED  \] //' | sort -u || true)
  total_pass=$((total_pass + ${pass:-0})); total_fail=$((total_fail + fail))
done

stage_times+=("tsan tests: $((SECONDS - start)) s")
free_stage "$root/build-tsan"

# The fuzz smoke ends with "fuzz: N passed, N failed" (a target each); no such line means its build failed.
echo "=== fuzz: smoke"
start=$SECONDS
fuzz_log=$root/build-fuzz/fuzz-smoke.log
mkdir -p "$root/build-fuzz"
bash "$root/scripts/fuzz.sh" --smoke 2>&1 | tee "$fuzz_log" || echo "=== fuzz: FAILED"
line=$(grep -E "^fuzz: [0-9]+ passed, [0-9]+ failed$" "$fuzz_log" | tail -1 || true)
if [ -z "$line" ]; then
  total_fail=$((total_fail + 1)); failed_names+=("fuzz: no summary line (its build failed? see $fuzz_log)")
else
  total_pass=$((total_pass + $(echo "$line" | sed -E 's/fuzz: ([0-9]+) passed.*/\1/')))
  total_fail=$((total_fail + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
fi

stage_times+=("fuzz: $((SECONDS - start)) s")

echo "=== time per stage (${SECONDS} s in all):"
printf '  %s\n' "${stage_times[@]}"
if [ "${#failed_names[@]}" -gt 0 ]; then
  echo "=== what failed:"
  printf '  %s\n' "${failed_names[@]}"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]

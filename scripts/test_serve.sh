#!/usr/bin/env bash
# Tests serving (mosaic.serve: Ray Serve + the KServe v2 protocol) as users install it:
# `pip install .[serve]` and tritonclient[http] into a venv of its own, then pytest on tests/serve
# from outside the source tree, on one local Ray instance.
#   bash scripts/test_serve.sh [LOG]      (LOG: where pytest's output goes; default build-serve-venv/pytest.log)
# Ray is only for serving: it never goes into build-venv (tests/python) or the runtime's dependencies.
# The venv is kept between runs (Ray is a large download); the package itself is reinstalled each
# time. Where Ray cannot be installed, the serving tests are skipped and say why; the encoding and
# configuration tests still run. Needs the bundled model of a normal build (build/models, or
# $MOSAIC_TEST_MODELS).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/build-serve-venv
log=${1:-$venv/pytest.log}
bash "$root/scripts/install_python_deps.sh"
[ -x "$venv/bin/python" ] || python3 -m venv --system-site-packages "$venv"
start=$(date +%s)
if ! "$venv/bin/python" -m pip install -q --no-build-isolation "$root[serve]" "tritonclient[http]"; then
  echo "=== serve: could not install the serve extra or tritonclient[http]; installing the package alone" >&2
  "$venv/bin/python" -m pip install -q --no-build-isolation "$root"
fi
echo "=== serve: pip install .[serve] took $(( $(date +%s) - start )) s"
mkdir -p "$(dirname "$log")"
# RAY_USAGE_STATS_ENABLED=0: Ray would otherwise try to report usage over the network.
(cd "$venv" && env -u MOSAIC_PLUGINS RAY_USAGE_STATS_ENABLED=0 \
  "$venv/bin/python" -m pytest -p no:cacheprovider -q -rs "$root/tests/serve") 2>&1 | tee "$log"

#!/usr/bin/env bash
# Tests the Python package as users get it: `pip install .` into a fresh venv, then pytest on
# tests/python from outside the source tree, so nothing is imported from python/.
#   bash scripts/test_python.sh [LOG]      (LOG: where pytest's output goes; default build-venv/pytest.log)
# Needs the bundled model of a normal build (build/models, or $MOSAIC_TEST_MODELS). The venv sees the
# python3 on PATH's packages (scikit-build-core, nanobind, numpy, pytest from
# scripts/install_python_deps.sh), so the build needs no network; pip builds in build-python/, beside
# build/, where ccache finds the normal build's objects.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/build-venv
log=${1:-$venv/pytest.log}
bash "$root/scripts/install_python_deps.sh"
rm -rf "$venv"
python3 -m venv --system-site-packages "$venv"
start=$(date +%s)
"$venv/bin/python" -m pip install -q --no-build-isolation "$root"
echo "=== python: pip install . took $(( $(date +%s) - start )) s"
mkdir -p "$(dirname "$log")"
(cd "$venv" && env -u MOSAIC_PLUGINS "$venv/bin/python" -m pytest -p no:cacheprovider -q -rs "$root/tests/python") 2>&1 | tee "$log"

#!/usr/bin/env bash
# Installs what building and testing the Python package needs into the python3 on PATH (or
# $MOSAIC_PYTHON): scikit-build-core and nanobind (the build backend and the bindings library, used
# by `pip install --no-build-isolation .`), numpy (the package's one dependency), pytest, and Pillow
# (the Python samples read images with it).
# Required: a failed install fails this script, naming the packages.
set -euo pipefail
py=${MOSAIC_PYTHON:-python3}
missing=()
for p in scikit-build-core nanobind numpy pytest pillow; do
  "$py" -m pip show -q "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install_python_deps: pip installing ${missing[*]}"
if ! "$py" -m pip install -q "${missing[@]}"; then
  echo "install_python_deps: could not install ${missing[*]} for $py; the Python package cannot be built or tested" >&2
  exit 1
fi

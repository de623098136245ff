#!/usr/bin/env bash
# Installs the Debian 12 packages Mosaic builds and tests with, skipping those already present.
# Runs apt-get as root (directly, or through sudo when not root).
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache
  libboost-dev libboost-filesystem-dev nlohmann-json3-dev libpugixml-dev libcli11-dev
  libgtest-dev libgmock-dev graphviz python3 python3-venv python3-numpy python3-jsonschema libstb-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  python3-onnx python3-torch python3-torchvision
  libdnnl-dev ocl-icd-opencl-dev opencl-headers opencl-c-headers opencl-clhpp-headers
  pocl-opencl-icd clinfo libclblast-dev
  libpcre2-dev libicu-dev  # genai: the tokenizer's Unicode regexes and normalization
  clang libclang-rt-14-dev llvm  # scripts/fuzz.sh: libFuzzer and the sanitizers' runtimes, llvm-symbolizer
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install_deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "install_deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

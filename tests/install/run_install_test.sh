#!/usr/bin/env bash
# Out-of-tree test of Mosaic's installed package.
#
#   run_install_test.sh BUILD_DIR
#
# Installs the (complete) build in BUILD_DIR to a temporary prefix, checks the installed layout,
# builds the vendor project in vendor/ (a plugin made with mosaic_add_plugin and an application
# linking Mosaic::runtime) against it with find_package(Mosaic CONFIG), registers the plugin through
# a JSON registry and runs a model on it and on the installed REFERENCE device.
# Set MOSAIC_KEEP_INSTALL_TEST=1 to keep the temporary folder for inspection.
set -euo pipefail

if [[ $# -ne 1 || ! -f "$1/CMakeCache.txt" ]]; then
  echo "usage: $0 BUILD_DIR   (a configured and built Mosaic build tree)" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mosaic-install-test.XXXXXX")
if [[ -n "${MOSAIC_KEEP_INSTALL_TEST:-}" ]]; then
  echo "keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix

step() { echo; echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -n1; }

step "installing $build to $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log" || {
  cat "$work/install.log"; fail "cmake --install (build everything first: cmake --build $build)"; }

step "checking the installed layout"
config=$(find "$prefix" -path '*/cmake/Mosaic/MosaicConfig.cmake' | head -n1)
[[ -n "$config" ]] || fail "no MosaicConfig.cmake under $prefix"
cmakedir=$(dirname "$config")
libdir=$(cd "$cmakedir/../.." && pwd)
for f in \
    "$cmakedir/MosaicConfigVersion.cmake" "$cmakedir/MosaicTargets.cmake" "$cmakedir/MosaicPlugin.cmake" \
    "$prefix/include/mosaic/plugin_abi.h" "$prefix/include/mosaic/sdk/plugin.hpp" \
    "$prefix/include/mosaic/reference/kernels.hpp" "$prefix/include/mosaic/core.hpp" "$prefix/include/mosaic/mosaic.hpp" \
    "$libdir/libmosaic.so" "$libdir/libmosaic_reference_kernels.a" \
    "$libdir/mosaic/plugins.json" "$libdir/mosaic/plugins/libmosaic_reference_plugin.so" \
    "$libdir/mosaic/schemas/plugins.schema.json" "$libdir/mosaic/schemas/device-properties.schema.json" \
    "$prefix/bin/hello_classification" "$prefix/bin/hello_query_device"; do
  [[ -e "$f" ]] || fail "missing installed file ${f#$prefix/}"
  echo "ok   ${f#$prefix/}"
done
# The export must be relocatable: no path into the source or build tree, no build-only target.
src=$(cd "$here/../.." && pwd)
if grep -n -e "$build" -e "$src" "$cmakedir"/*.cmake; then fail "installed CMake files name the build or source tree"; fi
if grep -n "mosaic_ops" "$cmakedir"/MosaicTargets*.cmake; then fail "the export names the build-only mosaic_ops"; fi
for target in Mosaic::runtime Mosaic::plugin_sdk Mosaic::reference_kernels; do
  grep -q "add_library($target " "$cmakedir/MosaicTargets.cmake" || fail "the export does not define $target"
done
# libmosaic exports its public API and nothing else: every exported symbol belongs to a class or
# function the installed headers mark MOSAIC_API (include/mosaic/export.hpp).
step "checking libmosaic's exported symbols"
nm -DC --defined-only "$libdir/libmosaic.so" > "$work/exports.txt" || fail "nm cannot read libmosaic.so"
python3 - "$work/exports.txt" "$prefix/include/mosaic" <<'PY' || fail "libmosaic exports symbols outside its public API"
import glob, re, sys
exports, include = sys.argv[1], sys.argv[2]
public = set()
for header in glob.glob(include + "/*.hpp"):
    text = open(header).read()
    public |= set(re.findall(r"\b(?:class|struct) MOSAIC_API (\w+)", text))
    public |= set(re.findall(r"^MOSAIC_API [^(]*?(\w+)\(", text, re.M))
names = [line.split(" ", 2)[2].strip() for line in open(exports) if line.count(" ") >= 2]
bad = []
for name in names:
    bare = re.sub(r"^(typeinfo name for|typeinfo for|vtable for|VTT for|(non-)?virtual thunk to|guard variable for) ", "", name)
    m = re.match(r"mosaic::(?:onnx::)?(\w+)", bare)
    if not m or m.group(1) not in public:
        bad.append(name)
for name in bad[:20]:
    print("  not public:", name)
print(f"libmosaic exports {len(names)} symbols; {len(names) - len(bad)} of the public API "
      f"({len(public)} classes and functions marked MOSAIC_API), {len(bad)} outside it")
sys.exit(1 if bad or not names else 0)
PY

# The test plugins are never installed.
if find "$prefix" -name 'libmosaic_test_*' -o -name 'libbroken.so' | grep .; then fail "test plugins were installed"; fi

configure_against_install() {  # configure_against_install SOURCE_DIR BUILD_DIR
  local args=(-S "$1" -B "$2" "-DCMAKE_PREFIX_PATH=$prefix" -DCMAKE_BUILD_TYPE=Release)
  local generator value sanitize
  generator=$(cache_value CMAKE_GENERATOR)
  [[ -n "$generator" ]] && args+=(-G "$generator")
  for var in CMAKE_CXX_COMPILER CMAKE_CXX_COMPILER_LAUNCHER; do
    value=$(cache_value "$var")
    [[ -n "$value" ]] && args+=("-D$var=$value")
  done
  sanitize=$(cache_value MOSAIC_SANITIZE)
  if [[ -n "$sanitize" ]]; then
    # libmosaic was built with sanitizers: the application must link their runtimes too.
    args+=("-DCMAKE_CXX_FLAGS=-fsanitize=$sanitize" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=$sanitize"
           "-DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=$sanitize")
  fi
  cmake "${args[@]}"
}

step "configuring the vendor project against the installed package"
configure_against_install "$here/vendor" "$work/vendor-build"

step "building the vendor project"
cmake --build "$work/vendor-build" -j "$(nproc 2>/dev/null || echo 2)"
plugin=$work/vendor-build/libacme_plugin.so
app=$work/vendor-build/acme_app
[[ -f "$plugin" && -x "$app" ]] || fail "the vendor build made no libacme_plugin.so or acme_app"
# Only the entry point is exported (mosaic_add_plugin hides everything else).
if command -v nm > /dev/null; then
  exported=$(nm -D --defined-only "$plugin" | awk '$2 ~ /^[TDBRW]$/ {print $3}' | grep -v '^_' || true)
  echo "exported by the plugin: $exported"
  [[ "$exported" == "mosaic_plugin_entry" ]] || fail "the plugin exports more than mosaic_plugin_entry: $exported"
fi
# The plugin links the SDK only, never libmosaic.
if command -v ldd > /dev/null && ldd "$plugin" | grep -q 'libmosaic\.so'; then fail "the plugin links libmosaic"; fi

step "installing the vendor plugin"
cmake --install "$work/vendor-build" --prefix "$work/vendor-prefix" > /dev/null
installed_plugin=$(find "$work/vendor-prefix" -path '*/mosaic/plugins/libacme_plugin.so' | head -n1)
[[ -n "$installed_plugin" ]] || fail "mosaic_add_plugin did not install to <libdir>/mosaic/plugins"
echo "ok   ${installed_plugin#$work/}"

step "running the application with a registry naming ACME and the installed REFERENCE"
mkdir -p "$work/registry/devices"
rel() { realpath --relative-to="$work/registry" "$1"; }
cat > "$work/registry/plugins.json" <<JSON
{
  "version": 1,
  "plugins": [
    {"device": "ACME", "library": "$(rel "$installed_plugin")"},
    {"device": "REFERENCE", "library": "$(rel "$libdir/mosaic/plugins/libmosaic_reference_plugin.so")"}
  ]
}
JSON
echo '{"PERF_COUNT": "YES"}' > "$work/registry/devices/ACME.json"
cat "$work/registry/plugins.json"
expected="1 2 3 2.5 5 3"
output=$(env -u MOSAIC_PLUGINS "$app" "$work/registry/plugins.json" ACME REFERENCE 2>&1) || { echo "$output"; fail "acme_app failed"; }
echo "$output"
grep -q '^problem:' <<< "$output" && fail "the registry has problems"
grep -Eq "^ACME \(ACME .*\): $expected\$" <<< "$output" || fail "ACME did not print: $expected"
grep -Eq "^REFERENCE \(.*\): $expected\$" <<< "$output" || fail "REFERENCE did not print: $expected"
grep -q "^ACME PERF_COUNT: true\$" <<< "$output" || fail "devices/ACME.json beside the registry was not applied"
grep -q "^REFERENCE PERF_COUNT: false\$" <<< "$output" || fail "ACME's device file leaked into REFERENCE"

step "running the application with the registry installed beside libmosaic"
output=$(env -u MOSAIC_PLUGINS "$app" - REFERENCE 2>&1) || { echo "$output"; fail "acme_app with the installed registry failed"; }
echo "$output"
grep -Eq "^registry: $prefix/.*mosaic/plugins.json\$" <<< "$output" || fail "Core() did not pick the registry installed in $prefix"
grep -Eq "^REFERENCE \(.*\): $expected\$" <<< "$output" || fail "REFERENCE did not print: $expected"

step "building the seed documents' C++ snippets against the installed package"
configure_against_install "$here/seeds" "$work/seeds-build"
cmake --build "$work/seeds-build" -j "$(nproc 2>/dev/null || echo 2)"
step "running them on HETERO:GPU,CPU with the installed registry: manual, automatic and combined modes"
output=$(env -u MOSAIC_PLUGINS "$work/seeds-build/hetero_seeds" "$build/models/mosaic_cnn.xml" 2>&1) || {
  echo "$output"; fail "the seed snippets failed"; }
echo "$output"
for mode in manual automatic combined "fallback devices" errors; do
  grep -q "^PASS $mode" <<< "$output" || fail "the seed snippets did not pass: $mode"
done

echo
echo "PASS: out-of-tree plugin and application built and ran against the installed Mosaic"

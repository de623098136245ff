#!/usr/bin/env bash
# Packs the libFuzzer build (the fuzzers, libmosaic and the REFERENCE plugin with its registry, all
# built by scripts/fuzz.sh) and the libraries they load, for a machine with cores to spare but none
# of Mosaic's packages (the `device` tool's machines). The corpora kept so far go along, so the runs
# there continue them. There, from the repository root:
#
#   mkdir -p /tmp/f && tar -xJf .devpack/fuzzers.tar.xz -C /tmp/f
#   LD_LIBRARY_PATH=/tmp/f/syslib:/tmp/f/build-fuzz/lib MOSAIC_FUZZ_BUILD=/tmp/f/build-fuzz MOSAIC_FUZZ_PREBUILT=1 \
#     FUZZ_FORKS=8 FUZZ_SECONDS=240 bash scripts/fuzz.sh --long reference_plugin
#
#   scripts/pack_fuzzers.sh [FUZZ_BUILD] [OUT_FILE]     (defaults: build-fuzz, .devpack/fuzzers.tar.xz)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build-fuzz}" && pwd)
out=${2:-$root/.devpack/fuzzers.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/build-fuzz" "$stage/syslib"
cp -a "$build/bin" "$build/lib" "$stage/build-fuzz/"
[ -d "$build/corpus" ] && cp -a "$build/corpus" "$stage/build-fuzz/"
# Symbols stay: a crash report there must name the code.
bash "$root/scripts/copy_needed_libs.sh" "$stage/syslib" "$stage/build-fuzz/lib" \
    "$stage"/build-fuzz/bin/* "$stage"/build-fuzz/lib/*.so* "$stage"/build-fuzz/lib/mosaic/plugins/*.so
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - . | xz -T2 -6 >"$out"
echo "pack_fuzzers.sh: $out $(du -h "$out" | cut -f1); libraries: $(ls "$stage/syslib" | tr '\n' ' ')"

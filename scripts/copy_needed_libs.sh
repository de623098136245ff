#!/usr/bin/env bash
# Copies into DEST every shared library that FILES (programs, plugins) load, as this machine resolves
# them, except the C and C++ runtimes, which the machine a pack goes to has (newer). Used by the
# packs for machines without Mosaic's Debian packages (benchmarks/gpu/pack.sh, scripts/pack_fuzzers.sh).
#
#   scripts/copy_needed_libs.sh DEST LIBRARY_PATH FILE...   (LIBRARY_PATH: where the pack's own libraries are)
set -euo pipefail
dest=$1 own=$2
shift 2
for f in "$@"; do
    LD_LIBRARY_PATH=$own ldd "$f" | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    grep -v "^$own" | while read -r lib; do cp -L "$lib" "$dest/"; done

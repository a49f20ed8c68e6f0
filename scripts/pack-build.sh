#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs what `ctest -L gpu` needs from a build tree into one compressed file,
# for running the GPU suite on another machine (see scripts/gpu-suite.sh):
#   scripts/pack-build.sh <build-dir> <out.tar.xz>
# Keeps bin/, lib/, include/ (generated headers), the CTest files and the cubins that tests load (cumodule-2);
# drops object files and GoogleTest discovery includes (host-only tests, which
# need CMake's GoogleTest module).
# STRIP=1 strips the host symbols of the programs and libraries (their device
# code stays): a Release build packs to about a quarter of the size.
set -euo pipefail
build=${1:?usage: pack-build.sh <build-dir> <out.tar.xz>}
out=${2:?usage: pack-build.sh <build-dir> <out.tar.xz>}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
name=$(basename "$build")
mkdir -p "$stage/$name"
cp -a "$build/bin" "$build/lib" "$stage/$name/"
# The generated headers (gshmem/version.h): kernels built on the GPU machine (Python, torch) need them.
[[ -d $build/include ]] && cp -a "$build/include" "$stage/$name/"
if [[ ${STRIP:-0} == 1 ]]; then
  find "$stage/$name/bin" "$stage/$name/lib" -type f -exec sh -c 'file -b "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
fi
(cd "$build" && find . -name CMakeFiles -prune -o \( -name '*.cmake' -o -name '*.sh' -o -name '*.cubin' \) -print) |
  while read -r f; do mkdir -p "$stage/$name/$(dirname "$f")" && cp -a "$build/$f" "$stage/$name/$f"; done
find "$stage/$name" -name CTestTestfile.cmake -exec sed -i '/_include\.cmake")$/d' {} +
tar -C "$stage" -cf - "$name" | xz -T0 -6 >"$out"
ls -l "$out"

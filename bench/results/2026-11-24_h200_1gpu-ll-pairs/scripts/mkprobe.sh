#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds perftest/probe/coll_small_probe.cu against the headers of each variant and packs them
# with this checkout's libgshmem and gshmrun into build/llp.tar.xz (for run_probe.sh). (The
# runs here used a copy of it taking sizes on the command line, ll_size_probe.cu in c574ec7,
# whose device code was instruction for instruction the probe's as it is now.)
#   mkprobe.sh <label>=<include dir> ...   e.g. H=/tmp/head/include R=include
# (the probe's device code is all in the headers, so one library serves every variant).
set -eu
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../../.." && pwd)
st=$(mktemp -d); trap 'rm -rf "$st"' EXIT
mkdir -p $st/pk/bin $st/pk/lib
for lv in "$@"; do
  l=${lv%%=*}; inc=${lv#*=}
  nvcc -O3 -DNDEBUG -arch=sm_90 -std=c++17 -I"$inc" -I"$root/perftest/probe" "$root/perftest/probe/coll_small_probe.cu" \
    -o $st/pk/bin/probe_$l -L"$root/build/default/lib" -lgshmem
done
cp "$root/build/default/bin/gshmrun" $st/pk/bin/; cp -a "$root"/build/default/lib/libgshmem.so* $st/pk/lib/
tar -C $st -cf - pk | xz -T0 -6 > "$root/build/llp.tar.xz"
ls -l "$root/build/llp.tar.xz"

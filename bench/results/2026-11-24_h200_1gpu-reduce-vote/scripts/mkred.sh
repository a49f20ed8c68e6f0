#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mkred.sh X <include dir>: gshmem-perf with its reduction and reducescatter objects compiled
# against <include dir> and its other objects, lib and gshmrun from build/default (as ninja
# built them from this checkout), packed as build/cmpX.tar.xz for run.sh.
set -eu
X=$1; inc=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/build/default"
st=$(mktemp -d); trap 'rm -rf "$st"' EXIT
mkdir -p $st/cmp$X/bin $st/cmp$X/lib $st/obj
link=$(ninja -t commands bin/gshmem-perf | tail -1 | sed "s@ -o bin/gshmem-perf@ -o $st/cmp$X/bin/gshmem-perf@")
for b in reduction reducescatter; do
  o=perftest/CMakeFiles/gshmem-perf.dir/device/$b.cu.o
  cmd=$(ninja -t commands $o | tail -1 | sed "s@-o $o@-o $st/obj/$b.cu.o@; s@-MD -MT [^ ]* -MF [^ ]*@@; s@-I$root/include@-I$inc@")
  eval "$cmd" &
  link=${link/ $o / $st/obj/$b.cu.o }
done
wait
eval "$link"
cp bin/gshmrun $st/cmp$X/bin/; cp -a lib/libgshmem.so* $st/cmp$X/lib/
strip --strip-unneeded $st/cmp$X/bin/* $st/cmp$X/lib/libgshmem.so.0.1.0
tar -C $st -cf - cmp$X | xz -T0 -6 > "$root/build/cmp$X.tar.xz"
ls -l "$root/build/cmp$X.tar.xz"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds one variant of gshmem-perf for run_ab.sh from the checkout's current headers:
#   mkvar.sh <X>   ->  build/cmp<X>.tar.xz (gshmem-perf, gshmrun, libgshmem)
# Only the device reduction benchmarks are recompiled (reduction.cu, reducescatter.cu: their
# kernels inline the device API's reductions); the rest of gshmem-perf, gshmrun and libgshmem
# come from build/default as it stands. X=A packs build/default's own gshmem-perf unchanged.
set -eu
X=$1
root=$(cd "$(dirname "$0")/../../../../.." && pwd)
cd "$root/build/default"
st=$(mktemp -d); mkdir -p $st/cmp$X/bin $st/cmp$X/lib
if [[ $X == A ]]; then
  cp bin/gshmem-perf $st/cmp$X/bin/
else
  ninja perftest/CMakeFiles/gshmem-perf.dir/device/reduction.cu.o perftest/CMakeFiles/gshmem-perf.dir/device/reducescatter.cu.o > /dev/null
  ninja -t commands bin/gshmem-perf | tail -1 | sed "s@-o bin/gshmem-perf@-o $st/cmp$X/bin/gshmem-perf@" | bash
fi
cp bin/gshmrun $st/cmp$X/bin/; cp -a lib/libgshmem.so* $st/cmp$X/lib/
strip --strip-unneeded $st/cmp$X/bin/* $st/cmp$X/lib/libgshmem.so.0.1.0
tar -C $st -cf - cmp$X | xz -T0 -6 > "$root/build/cmp$X.tar.xz"
rm -rf $st
ls -l "$root/build/cmp$X.tar.xz"

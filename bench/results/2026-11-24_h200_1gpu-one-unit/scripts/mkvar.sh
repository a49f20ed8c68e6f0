#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds one variant for run_ab.sh from the checkout's current headers, in about a minute:
#   mkvar.sh <X>   ->  build/cmp<X>.tar.xz (gshmem-perf, gshmem-put-block-probe, gshmrun, libgshmem)
# Only the objects the A/B runs time are recompiled (rma_latency, pingpong, pingpong_signal and
# the probe; their kernels inline the copy); the rest of gshmem-perf, gshmrun and libgshmem come
# from build/default as it stands (none of their code is timed by run_ab.sh's default list).
set -eu
X=$1
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root/build/default"
ninja perftest/CMakeFiles/gshmem-perf.dir/device/rma_latency.cu.o perftest/CMakeFiles/gshmem-perf.dir/device/pingpong.cu.o \
  perftest/CMakeFiles/gshmem-perf.dir/device/pingpong_signal.cu.o \
  perftest/CMakeFiles/gshmem-put-block-probe.dir/probe/put_block_probe.cu.o > /dev/null
st=$(mktemp -d); mkdir -p $st/cmp$X/bin $st/cmp$X/lib
for t in gshmem-perf gshmem-put-block-probe; do
  ninja -t commands bin/$t | tail -1 | sed "s@-o bin/$t@-o $st/cmp$X/bin/$t@" | bash
done
cp bin/gshmrun $st/cmp$X/bin/; cp -a lib/libgshmem.so* $st/cmp$X/lib/
strip --strip-unneeded $st/cmp$X/bin/* $st/cmp$X/lib/libgshmem.so.0.1.0
tar -C $st -cf - cmp$X | xz -T0 -6 > "$root/build/cmp$X.tar.xz"
rm -rf $st
ls -l "$root/build/cmp$X.tar.xz"

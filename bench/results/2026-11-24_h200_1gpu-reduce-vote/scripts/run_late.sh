#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, no MPS: trapping kernels stall an MPS server): coll_errors.sh, with its
# late_* cases, and (when build/late.tar.xz has test_reduce_errors) reduce_errors.sh, on CI's
# build of the change (build/late.tar.xz: gshmrun, the test programs, libgshmem), at PES PEs
# time-sharing the GPU.
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
rm -rf build/late; tar -C build -xJf build/late.tar.xz
B=$here/build/late
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
for n in ${PES:-2 3 4}; do for t in coll_errors reduce_errors; do
  [[ -x $B/bin/test_$t ]] || continue
  LD_LIBRARY_PATH=$B/lib GT_SHARE_GPUS=1 timeout 280 bash tests/functional/$t.sh $B/bin/gshmrun \
    $B/bin/test_$t $n > $R/$t-$n.log 2>&1
  echo "$t-$n rc=$? $(el) $(tail -1 $R/$t-$n.log)"; pack
done; done

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, no MPS: trapping kernels stall an MPS server): coll_errors.sh, with its
# late_* cases, on CI's build of the change plus the new test_coll_errors (build/late.tar.xz:
# gshmrun, test_coll_errors, libgshmem), at PES PEs time-sharing the GPU.
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
rm -rf build/late; tar -C build -xJf build/late.tar.xz
B=$here/build/late
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
for n in ${PES:-2 3 4}; do
  LD_LIBRARY_PATH=$B/lib GT_SHARE_GPUS=1 timeout 280 bash tests/functional/coll_errors.sh $B/bin/gshmrun \
    $B/bin/test_coll_errors $n > $R/coll_errors-$n.log 2>&1
  echo "coll_errors-$n rc=$? $(el) $(tail -1 $R/coll_errors-$n.log)"; pack
done

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the collective tests after their typed sweeps were cut to
# every type at thread scope plus warp/block for one type of each size
# (tests/functional/coll_test.cuh). Build: CI's build of 50aa3a8 at BUILT_AT with the
# three tests rebuilt from the change, packed by scripts/pack-build.sh into
# build/carry.tar.xz. ctest on the one GPU (multi-PE tests skip), then 2-4 PEs under MPS.
set -u
here=$PWD; at=${BUILT_AT:-/tmp/ci45}
[[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
sel='^coll_(collect|bcast|alltoall)-'
(cd build/default && timeout 100 ctest -L gpu -R "$sel" --output-on-failure --timeout 60 > $R/ctest-1gpu.log 2>&1)
echo "ctest-1gpu rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-1gpu.log)"; pack
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpst-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpst-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
(cd build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 400 ctest -L gpu -R "$sel" \
  -E '^coll_bcast-[34]$' --output-on-failure --timeout 200 > $R/ctest-mps.log 2>&1)
echo "ctest-mps rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
grep -E "Test +#" $R/ctest-mps.log
pack

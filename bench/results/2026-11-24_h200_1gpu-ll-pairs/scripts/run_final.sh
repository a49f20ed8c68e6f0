#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; 2-4 PEs share it under a user-level MPS daemon) on CI's build of the
# commit (build/carry.tar.xz: scripts/pack-build.sh of the CI clone's build/default; its whole
# gpu suite runs in a call of its own, ../../2026-11-24_h200_1gpu-ll-tail/scripts/run_gpu_suite.sh):
#  1. test_coll_ll with GSHMEM_LL_MAX_BYTES=32 (8 words a sender) at 2, 3 and 4 PEs;
#  2. run.sh's perf step, FIN (build/cmpFIN.tar.xz, the parent commit's gshmem-perf) against
#     this build's gshmem-perf (R).
set -u
here=$PWD
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
rm -rf build/cmpR; mkdir -p build/cmpR/bin build/cmpR/lib
cp build/default/bin/gshmem-perf build/default/bin/gshmrun build/cmpR/bin/; cp -a build/default/lib/libgshmem.so* build/cmpR/lib/
tar -C build -cf - cmpR | xz -T0 -1 > build/cmpR.tar.xz
R=$OUT/r; mkdir -p $R
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsf-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsf-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
B=build/default/bin
for n in 2 3 4; do
  GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 GSHMEM_WAIT_TIMEOUT=60 GSHMEM_LL_MAX_BYTES=32 timeout 150 \
    $B/gshmrun -n $n --timeout 140 -- $B/test_coll_ll > $R/ll32-test_coll_ll-$n.log 2>&1
  echo "ll32 test_coll_ll -n $n rc=$? $(tail -1 $R/ll32-test_coll_ll-$n.log)"
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
STEPS=perf VARS="FIN R" bash bench/results/2026-11-24_h200_1gpu-ll-pairs/scripts/run.sh

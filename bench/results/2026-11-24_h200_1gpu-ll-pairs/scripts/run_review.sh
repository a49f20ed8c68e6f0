#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200) after the review commit (e484f2b): the whole gpu suite of CI's build of
# it (run_gpu_suite.sh of the ll-tail run, BUILT_AT=/tmp/ci32), then that build's
# gshmem-coll-small-probe at 2 PEs under MPS, with its defaults and with run_probe.sh's
# arguments.
set -u
BUILT_AT=/tmp/ci32 bash bench/results/2026-11-24_h200_1gpu-ll-tail/scripts/run_gpu_suite.sh
R=$OUT/r; B=build/default/bin
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsv-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsv-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for args in "e484f2b" "e484f2b 4 8 32 64 128 256 --scopes warp,blk128,blk1024 --ops alltoall,fcollect,broadcast"; do
  GT_SHARE_GPUS=1 timeout 100 $B/gshmrun -n 2 --timeout 95 -- $B/gshmem-coll-small-probe $args >> $R/probe.txt 2>> $R/probe-err.txt
  echo "probe rc=$? ($args)"
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C $OUT -czf $OUT/all.tar.gz r

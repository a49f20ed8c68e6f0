#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scope_v7 (d06fec6) against scope_v9 (a warp/block thread with several pairs polls 4 at a time):
# warp-scope calls at 2 and 4 PEs, LL bounds 256 and 1K; thread scope once as a control.
set -u
cd "$(dirname "$0")"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsw-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsw-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
export GSHMEM_WAIT_TIMEOUT=15 NCCL_NVLS_ENABLE=0
for n in 2 4; do for cap in 256 1K; do for v in v7 v9; do
  GSHMEM_LL_MAX_BYTES=$cap timeout 60 ./gshmrun -n $n --timeout 55 -- ./scope_$v $v-warp-$cap warp 2>&1 | grep -v WARN
done; done; done
for v in v7 v9; do GSHMEM_LL_MAX_BYTES=256 timeout 60 ./gshmrun -n 4 --timeout 55 -- ./scope_$v $v-thread-256 thread 2>&1 | grep -v WARN; done
for n in 2 4; do for v in v7 v9; do GSHMEM_LL_MAX_BYTES=1K timeout 60 ./gshmrun -n $n --timeout 55 -- ./scope_$v $v-block-1K block 2>&1 | grep -v WARN; done; done
echo quit | nvidia-cuda-mps-control

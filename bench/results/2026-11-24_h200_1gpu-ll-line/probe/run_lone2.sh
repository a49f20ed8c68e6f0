#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
set -u
cd "$(dirname "$0")"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsr-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsr-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
export GSHMEM_WAIT_TIMEOUT=15 NCCL_NVLS_ENABLE=0
for v in v3 v4 v5 v0; do GSHMEM_LL_MAX_BYTES=1K timeout 60 ./gshmrun -n 2 --timeout 55 -- ./lone_$v $v 2>&1 | grep -v WARN; done
for v in v4 v5; do GSHMEM_LL_MAX_BYTES=1K timeout 60 ./gshmrun -n 4 --timeout 55 -- ./lone_$v $v 2>&1 | grep -v WARN; done
for v in v4; do GSHMEM_LL_MAX_BYTES=1K timeout 60 ./gshmrun -n 3 --timeout 55 -- ./lone_$v $v 2>&1 | grep -v WARN; done
echo quit | nvidia-cuda-mps-control

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
set -u
cd "$(dirname "$0")"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpss-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpss-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
export GSHMEM_WAIT_TIMEOUT=15 NCCL_NVLS_ENABLE=0
for n in 2 3 4; do for v in v4 v6; do GSHMEM_LL_MAX_BYTES=1K timeout 60 ./gshmrun -n $n --timeout 55 -- ./lone_$v $v 2>&1 | grep -v WARN | grep reduce; done; done
for v in v0 v6; do GSHMEM_LL_MAX_BYTES=64 timeout 60 ./gshmrun -n 2 --timeout 55 -- ./lone_$v $v-b64 2>&1 | grep -v WARN; done
echo quit | nvidia-cuda-mps-control

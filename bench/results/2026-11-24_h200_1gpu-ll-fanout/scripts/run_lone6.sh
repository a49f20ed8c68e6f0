#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lone_v7 (HEAD's headers) against lone_v11 (fan-out with the outboxes in registers)
# and lone_v12 (receives from me - 1 first), alternated, 3 and 4 PEs, LL bounds 256 and 1K.
set -u
cd "$(dirname "$0")"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsg-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsg-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
export GSHMEM_WAIT_TIMEOUT=15 NCCL_NVLS_ENABLE=0
for b in 256 1K; do for n in 4 3; do for v in v7 v11 v12 v7 v11 v12; do
  GSHMEM_LL_MAX_BYTES=$b timeout 60 ./gshmrun -n $n --timeout 55 -- ./lone_$v $v-b$b 2>&1 | grep -v WARN | grep -E "broadcast|fcollect|alltoall"
done; done; done
echo quit | nvidia-cuda-mps-control

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# 2 PEs on one GPU under a user-level MPS daemon: ll_mps_probe at the default LL bound and at 1K.
set -u
cd "$(dirname "$0")"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsp-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
export GSHMEM_WAIT_TIMEOUT=15 NCCL_NVLS_ENABLE=0
for cap in 64 1K; do
  echo "== GSHMEM_LL_MAX_BYTES=$cap"
  GSHMEM_LL_MAX_BYTES=$cap timeout 100 ./gshmrun -n 2 --timeout 95 -- ./ll_mps_probe 2>&1 | grep -v WARN
done
echo quit | nvidia-cuda-mps-control

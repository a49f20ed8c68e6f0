#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lone_v0..v3 at 2 PEs (and v2 at 4) under MPS, LL bound 1K; then test_coll_ll at 4K (M = 1 KiB).
set -u
cd "$(dirname "$0")"
here=$(cd ../.. && pwd)
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
(cd ../ && rm -rf default && tar -xf carry.tar.xz)
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsq-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsq-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
export GSHMEM_WAIT_TIMEOUT=15 NCCL_NVLS_ENABLE=0
for v in v0 v1 v2 v3; do
  GSHMEM_LL_MAX_BYTES=1K timeout 60 ./gshmrun -n 2 --timeout 55 -- ./lone_$v $v 2>&1 | grep -v WARN
done
for v in v0 v2; do GSHMEM_LL_MAX_BYTES=64 timeout 60 ./gshmrun -n 2 --timeout 55 -- ./lone_$v $v-b64 2>&1 | grep -v WARN; done
for v in v0 v2; do GSHMEM_LL_MAX_BYTES=1K timeout 60 ./gshmrun -n 4 --timeout 55 -- ./lone_$v $v 2>&1 | grep -v WARN; done
B=/work/main/build/default/bin
for n in 2 4; do
  GSHMEM_LL_MAX_BYTES=4K GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 90 $B/gshmrun -n $n --timeout 85 -- $B/test_coll_ll 2>&1 | grep -E "checks|FAIL|rror" | head -3
done
echo quit | nvidia-cuda-mps-control

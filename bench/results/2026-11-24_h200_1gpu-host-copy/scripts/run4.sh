#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 4 (one H200, 2 PEs sharing it under MPS), after the review commit that shares
# host_rma.cpp's bare copy between the bandwidth ceiling and the latency floor: the four host
# RMA benchmarks, results verified. build/carry.tar.xz: bin/{gshmrun,gshmem-perf}, lib/.
set -u
mkdir -p /tmp/hc4 && tar -C /tmp/hc4 -xJf build/carry.tar.xz
B=/tmp/hc4/default/bin
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15 LD_LIBRARY_PATH=/tmp/hc4/default/lib
export CUDA_MPS_PIPE_DIRECTORY=/tmp/hc4-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/hc4-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
GSHMEM_PERF_SHARE_GPUS=1 timeout 150 $B/gshmrun -n 2 --timeout 145 -- $B/gshmem-perf \
  host_put_bw host_get_bw host_put_latency host_get_latency -b 8 -e 4M -f 8 --json $R/gshmem.jsonl > $R/gshmem.txt 2>&1
echo "gshmem-perf rc=$?"
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
grep -E "^ +[0-9]" $R/gshmem.txt; tar -C $OUT -czf $OUT/all.tar.gz r

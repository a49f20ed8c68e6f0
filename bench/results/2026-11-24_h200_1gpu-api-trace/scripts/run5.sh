#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, 2 PEs under MPS): scripts/host_call_latency.cu built against the parent
# (ce54eb6, CI's build in /tmp/ci39) and this change (e34643d, /tmp/ci40), each with its own
# gshmrun and library, alternated three times; the change also with GSHMEM_HIGH_PRIORITY_STREAM=0.
# build/carry.tar.xz: hcl/ci39/{hcl,gshmrun,libgshmem.so*}, hcl/ci40/{...}.
set -u
D=/tmp/r5-$$; mkdir -p $D && tar -C $D -xJf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
export GSHMEM_WAIT_TIMEOUT=15 GSHMEM_PERF_SHARE_GPUS=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/r5-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/r5-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for rep in 1 2 3; do for v in ci39 ci40 ci40-prio0; do
  b=$D/hcl/${v%-prio0}; prio=1; [[ $v == *prio0 ]] && prio=0
  GSHMEM_HIGH_PRIORITY_STREAM=$prio timeout 60 $b/gshmrun -n 2 --timeout 55 -- $b/hcl > $R/$v-$rep.txt 2>&1
  echo "$v rep $rep rc=$? $(grep 'us per call' $R/$v-$rep.txt)"
done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C $OUT -czf $OUT/all.tar.gz r

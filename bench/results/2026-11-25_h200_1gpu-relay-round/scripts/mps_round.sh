#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): gshmem-relay-round-probe at 2 PEs sharing GPU 0 under MPS, 64 and 16
# CTAs a PE (2 x 64 CTAs of 1024 threads fit the 132 SMs), twice.
# ${CARRY:-build/rr.tar.xz}: bin/{gshmrun,gshmem-relay-round-probe}, lib/libgshmem.so*.
set -u
D=/tmp/rr-$$; mkdir -p $D && tar -C $D -xJf ${CARRY:-build/rr.tar.xz}
R=$OUT/r; mkdir -p $R
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_VISIBLE_DEVICES=0 GSHMEM_WAIT_TIMEOUT=15
export CUDA_MPS_PIPE_DIRECTORY=/tmp/rr-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/rr-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for rep in 1 2; do
  LD_LIBRARY_PATH=$D/lib timeout 200 $D/bin/gshmrun -n 2 --timeout 195 -- $D/bin/gshmem-relay-round-probe ${CTAS:-64 16} \
    > $R/round-$rep.txt 2>&1
  echo "rep $rep rc=$? $(el)"
  cat $R/round-$rep.txt
  tar -C $OUT -czf $OUT/all.tar.gz r
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): test_rma_put, test_rma_get and test_rma_strided at 2, 3 and 4 PEs
# sharing the GPU under MPS, from a carry of bin/{gshmrun,test_rma_*} and lib/libgshmem.so*.
set -u
D=/tmp/rma-$$; mkdir -p $D && tar -C $D -xJf ${CARRY:-build/rma.tar.xz}
R=$OUT/r; mkdir -p $R
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_VISIBLE_DEVICES=0 GSHMEM_WAIT_TIMEOUT=60 GT_SHARE_GPUS=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/rma-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/rma-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for t in rma_put rma_get rma_strided; do
  for n in 2 3 4; do
    LD_LIBRARY_PATH=$D/lib timeout 170 $D/bin/gshmrun -n $n --timeout 165 -- $D/bin/test_$t > $R/$t-$n.txt 2>&1
    echo "$t $n PEs rc=$? $(el) $(grep -ho 'PE [0-9]*: [0-9]* checks passed' $R/$t-$n.txt | sort | tr '\n' ' ')"
    tar -C $OUT -czf $OUT/all.tar.gz r
  done
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): test_coll_ll at 2, 3 and 4 PEs sharing the GPU under MPS, built
# without the LL tags' refresh ("before": only the test's new phase) and with it ("after").
# Carry: bin/gshmrun, {before,after}/bin/test_coll_ll, {before,after}/lib/libgshmem.so*.
set -u
D=/tmp/wrap-$$; mkdir -p $D && tar -C $D -xJf ${CARRY:-build/wrap.tar.xz}
R=$OUT/r; mkdir -p $R
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_VISIBLE_DEVICES=0 GSHMEM_WAIT_TIMEOUT=30 GT_SHARE_GPUS=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/wrap-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/wrap-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for v in ${VARIANTS:-before after}; do
  for n in 2 3 4; do
    LD_LIBRARY_PATH=$D/$v/lib timeout 130 $D/bin/gshmrun -n $n --timeout 120 -- $D/$v/bin/test_coll_ll > $R/$v-$n.txt 2>&1
    echo "$v $n PEs rc=$? $(el) $(grep -ho 'PE [0-9]*: [0-9]* checks passed' $R/$v-$n.txt | sort | tr '\n' ' ')" | tee -a $R/summary.txt
    tar -C $OUT -czf $OUT/all.tar.gz r
  done
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200), after the review commit (host_amo.cu, host_wait.cu): test_host_busy at 1 PE
# alone, and test_amo, test_wait, test_signal, test_host_busy at 2-4 PEs under MPS.
# build/carry.tar.xz: default/bin/{gshmrun,test_amo,test_wait,test_signal,test_host_busy}, default/lib/.
set -u
D=/tmp/r4-$$; mkdir -p $D && tar -C $D -xJf build/carry.tar.xz
B=$D/default/bin
R=$OUT/r; mkdir -p $R
export GSHMEM_WAIT_TIMEOUT=15 LD_LIBRARY_PATH=$D/default/lib
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
timeout 60 $B/gshmrun -n 1 --timeout 55 -- $B/test_host_busy > $R/host_busy-1pe.txt 2>&1
echo "host_busy 1 PE rc=$? $(el)"; grep -h "returned\|took\|checks" $R/host_busy-1pe.txt
export CUDA_MPS_PIPE_DIRECTORY=/tmp/r4-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/r4-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for n in 2 3 4; do for t in amo wait signal host_busy; do
  GT_SHARE_GPUS=1 timeout 120 $B/gshmrun -n $n --timeout 115 -- $B/test_$t > $R/test_$t-${n}pe-mps.txt 2>&1
  echo "test_$t $n PEs MPS rc=$? $(el) $(grep -c 'checks passed' $R/test_$t-${n}pe-mps.txt) PEs passed"
done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C $OUT -czf $OUT/all.tar.gz r

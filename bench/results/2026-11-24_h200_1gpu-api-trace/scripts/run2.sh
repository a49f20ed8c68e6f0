#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the internal stream's priority (GSHMEM_HIGH_PRIORITY_STREAM).
#  1. test_host_busy, one PE alone on the GPU, with the setting on (default) and off: a
#     blocking host call made while the application's kernel fills the GPU must return
#     before that kernel ends (off: the kernel cases are expected to fail).
#  2. the same at 2, 3 and 4 PEs sharing the GPU under MPS, on and off.
#  3. the functional tests of the calls whose results now come back through pinned memory
#     (amo, signal, wait, rma_pg), 2-4 PEs under MPS.
#  4. host_put_latency / host_get_latency, 2 PEs under MPS, off / on alternated, twice each:
#     the priority must not cost the blocking copies anything.
# build/carry.tar.xz: default/bin/{gshmrun,gshmem-perf,gshmem-info,test_host_busy,test_amo,
# test_signal,test_wait,test_rma_pg}, default/lib/.
set -u
D=/tmp/pr-$$; mkdir -p $D && tar -C $D -xJf build/carry.tar.xz
B=$D/default/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15 LD_LIBRARY_PATH=$D/default/lib
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
$B/gshmem-info > $R/gshmem-info.txt 2>&1; grep -A4 HIGH_PRIORITY $R/gshmem-info.txt | head -6
for on in 1 0; do
  GSHMEM_HIGH_PRIORITY_STREAM=$on GSHMEM_DEBUG=INFO timeout 60 $B/gshmrun -n 1 --timeout 55 -- $B/test_host_busy \
    > $R/host_busy-1pe-prio$on.txt 2>&1
  echo "host_busy 1 PE prio=$on rc=$? $(el)"; grep -h "returned\|took\|checks\|priority" $R/host_busy-1pe-prio$on.txt
done
pack
export CUDA_MPS_PIPE_DIRECTORY=/tmp/pr-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/pr-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for n in 2 3 4; do for on in 1 0; do
  GT_SHARE_GPUS=1 GSHMEM_HIGH_PRIORITY_STREAM=$on timeout 60 $B/gshmrun -n $n --timeout 55 -- $B/test_host_busy \
    > $R/host_busy-${n}pe-mps-prio$on.txt 2>&1
  echo "host_busy $n PEs MPS prio=$on rc=$? $(el)"; grep -h "checks" $R/host_busy-${n}pe-mps-prio$on.txt
done; done
pack
for n in 2 3 4; do for t in amo signal wait rma_pg; do
  GT_SHARE_GPUS=1 timeout 120 $B/gshmrun -n $n --timeout 115 -- $B/test_$t > $R/test_$t-${n}pe-mps.txt 2>&1
  echo "test_$t $n PEs MPS rc=$? $(el) $(grep -c 'checks passed' $R/test_$t-${n}pe-mps.txt) PEs passed"
done; done
pack
for rep in 1 2; do for on in 0 1; do
  GSHMEM_HIGH_PRIORITY_STREAM=$on GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n 2 --timeout 95 -- $B/gshmem-perf \
    host_put_latency host_get_latency -b 8 -e 4M -f 4 --json $R/lat-prio$on-$rep.jsonl > $R/lat-prio$on-$rep.txt 2>&1
  echo "latency prio=$on rep $rep rc=$? $(el)"
done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

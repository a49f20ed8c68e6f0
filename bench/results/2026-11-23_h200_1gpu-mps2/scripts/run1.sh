#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 1 (one H200, MPS): early launches and the reduction loop, this build against
# HEAD's (build/base: libgshmem + gshmem-perf of bc60848). Everything in $OUT/all.tar.gz.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base; tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
R=/tmp/r1-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps1-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps1-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s]"; }
run() {  # run <label> <npes> <env...> -- <perf args>;  PERF=<binary> in env picks the binary
  local label=$1 n=$2; shift 2; local e=(); local perf=$B/gshmem-perf
  while [[ $1 != -- ]]; do if [[ $1 == PERF=* ]]; then perf=${1#PERF=}; else e+=("$1"); fi; shift; done; shift
  env "${e[@]}" GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n $n --timeout 95 -- $perf "$@" --no-nccl \
    --json $R/$label.jsonl > $R/$label.log 2>&1
  echo "$label rc=$? $(el)"
}
tst() {  # tst <label> <npes> <env...> -- <binary>
  local label=$1 n=$2; shift 2; local e=(); while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  env "${e[@]}" GT_SHARE_GPUS=1 timeout 100 $B/gshmrun -n $n --timeout 95 -- "$@" > $R/$label.log 2>&1
  echo "$label rc=$? $(el): $(grep -h 'checks passed' $R/$label.log | head -1)"
}
for n in 2 3 4; do tst stream_order-$n $n -- $B/test_stream_order; done
tst stream_order-2-e0 2 GSHMEM_EARLY_LAUNCH=0 -- $B/test_stream_order
R1=(reduction_on_stream reducescatter_on_stream -e 1M -f 2 --graph)
for rep in 1 2; do
  run g-base-$rep 2 LD_LIBRARY_PATH=$BASE -- "${R1[@]}"
  run g-new-$rep 2 -- "${R1[@]}"
done
S=(broadcast_on_stream fcollect_on_stream alltoall_on_stream reduction_on_stream barrier_on_stream -e 64K -f 4 -n 50 -r 5)
for rep in 1 2; do
  run s-base-$rep 2 LD_LIBRARY_PATH=$BASE -- "${S[@]}"
  run s-e0-$rep 2 GSHMEM_EARLY_LAUNCH=0 -- "${S[@]}"
  run s-e1-$rep 2 -- "${S[@]}"
done
D=(reduction reducescatter -s block -e 64K -f 4)
run d-base 2 PERF=$BASE/gshmem-perf LD_LIBRARY_PATH=$BASE -- "${D[@]}"
run d-new 2 -- "${D[@]}"
run g4-base 4 LD_LIBRARY_PATH=$BASE -- "${R1[@]}"
run g4-new 4 -- "${R1[@]}"
for n in 2 3 4; do for t in reduce reducescatter; do
  tst $t-$n $n GSHMEM_REDUCE_CTAS=16 -- $B/test_$t
done; done
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .

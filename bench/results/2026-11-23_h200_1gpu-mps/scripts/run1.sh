#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 1 (one H200): HEAD's GPU tests on one GPU, malloc with PEs sharing it,
# and (if MPS starts) the on-stream collectives of 2 PEs on the one GPU under MPS.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
tar -C build -xf build/carry.tar.xz; tar -C build -xf build/exp.tar.xz
B=/work/main/build/default/bin
EXP=/work/main/build/exp
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=20
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv; which nvidia-cuda-mps-control; nproc; } > $OUT/env.txt 2>&1
# 1. GPU tests on one GPU (multi-PE tests skip: one GPU)
t0=$(date +%s)
(cd /work/main/build/default && timeout 200 ctest -L gpu --output-on-failure --timeout 60 > $OUT/ctest-1gpu.log 2>&1)
echo "ctest-1gpu rc=$? $(( $(date +%s)-t0 )) s: $(grep -E 'tests passed' $OUT/ctest-1gpu.log)"
# 2. malloc, PEs sharing the GPU (host-bound)
for n in 2 4; do for spin in default 0; do
  e=(); [[ $spin = 0 ]] && e=(GSHMEM_BOOTSTRAP_SPIN_US=0)
  env "${e[@]}" GSHMEM_PERF_SHARE_GPUS=1 GSHMEM_LOG_LEVEL=INFO timeout 60 $B/gshmrun -n $n --timeout 55 -- $B/gshmem-perf malloc -e 1G -f 4 -n 5 --no-nccl \
     --json $OUT/malloc.jsonl > $OUT/malloc-$n-$spin.log 2>&1
  echo "malloc n=$n spin=$spin rc=$?"
done; done
# 3. MPS: 2 PEs on the one GPU, running at once
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
if timeout 20 nvidia-cuda-mps-control -d; then
  sleep 1
  run() {  # run <label> <env...> -- <perf args>
    local label=$1; shift; local e=(); while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
    env "${e[@]}" GSHMEM_PERF_SHARE_GPUS=1 timeout 90 $B/gshmrun -n 2 --timeout 85 -- $B/gshmem-perf "$@" --no-nccl \
      > $OUT/mps-$label.log 2>&1
    echo "mps $label rc=$?"
  }
  run dev-small -- broadcast reduction fcollect alltoall -s block -e 4K -f 4
  run graph-base -- broadcast_on_stream reduction_on_stream fcollect_on_stream alltoall_on_stream -e 64K -f 4 --graph
  if [[ -e $EXP/libgshmem.so.0 ]]; then
    for v in "x0" "x1 GSHMEM_X_PLAIN1=1" "x2 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS=512" "x3 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS=256" "x4 GSHMEM_X_THREADS=512"; do
      set -- $v; label=$1; shift
      run graph-$label LD_LIBRARY_PATH=$EXP "$@" -- broadcast_on_stream reduction_on_stream fcollect_on_stream alltoall_on_stream -e 64K -f 4 --graph
    done
  fi
  GT_SHARE_GPUS=1 timeout 120 $B/gshmrun -n 2 --timeout 110 -- $B/test_coll_bcast > $OUT/mps-test_coll_bcast-2.log 2>&1
  echo "mps test_coll_bcast-2 rc=$?"
  echo quit | nvidia-cuda-mps-control
  sleep 1
else
  echo "MPS did not start"; ls -la $CUDA_MPS_LOG_DIRECTORY; cat $CUDA_MPS_LOG_DIRECTORY/* 2>/dev/null | tail -20
fi
cp -r $CUDA_MPS_LOG_DIRECTORY $OUT/mps-log 2>/dev/null
for f in $OUT/mps-graph-*.log $OUT/mps-dev-small.log; do echo "== $f"; grep -E "^ *[0-9]" $f | head -60; done 2>/dev/null | head -150
tail -3 $OUT/ctest-1gpu.log

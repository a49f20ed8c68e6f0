#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; 2 PEs share it under a user-level MPS daemon): the gshmem-perf builds
# of VARS (build/cmp<V>.tar.xz, made by ../../2026-11-24_h200x2_cf7c2ec/lone-rs/scripts/mkvar.sh),
# alternated, REPS times: device reduction and reducescatter at thread and warp scope,
# 4 B - 16 KiB by powers of two, then the sizes of SIZES one by one (sizes whose last group
# of elements is not a whole 16-word line).
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
VARS=${VARS:-A V6 V12}
REPS=${REPS:-2}
SIZES=${SIZES:-12 20 24 28 36 40 48 56 60 72 96 100 136 200 252}
for v in $VARS; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpst-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpst-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
perf() {  # variant rep args...
  local v=$1 rep=$2; shift 2
  local B=$here/build/cmp$v
  LD_LIBRARY_PATH=$B/lib GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/bin/gshmrun -n 2 --timeout 95 -- \
    $B/bin/gshmem-perf reduction reducescatter -s thread,warp "$@" --no-nccl --json $R/perf-$v-$rep.jsonl \
    >> $R/perf-$v-$rep.log 2>&1 || echo "perf $v rep=$rep $* rc=$?"
}
for rep in $(seq 1 $REPS); do for v in $VARS; do
  perf $v $rep -b 4 -e 16K -f 2
  for s in $SIZES; do perf $v $rep -b $s -e $s; done
  echo "perf $v rep=$rep done $(el)"
done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

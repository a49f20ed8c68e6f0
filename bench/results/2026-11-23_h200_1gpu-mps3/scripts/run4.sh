#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 4 (one H200, MPS): what the 0.05-0.2 us that small on-stream reductions lost
# is. build/var: this change's library without participant 0 advancing the uniform slots a
# call leaves unused (valid only while every call has one slot: 64 B - 4 KiB here).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base build/var; tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz
tar -C build -xf build/var.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
VAR=/work/main/build/var
R=/tmp/r4-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps4-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps4-log-$$
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
OLD=(PERF=$BASE/gshmem-perf LD_LIBRARY_PATH=$BASE)
G=(reduction_on_stream reducescatter_on_stream -b 64 -e 4K -f 4 --graph)
for rep in 1 2 3; do
  run gv-base-$rep 2 "${OLD[@]}" -- "${G[@]}"; run gv-new-$rep 2 -- "${G[@]}"; run gv-var-$rep 2 LD_LIBRARY_PATH=$VAR -- "${G[@]}"
done
for rep in 1 2; do
  run gv4-base-$rep 4 "${OLD[@]}" -- "${G[@]}"; run gv4-new-$rep 4 -- "${G[@]}"; run gv4-var-$rep 4 LD_LIBRARY_PATH=$VAR -- "${G[@]}"
done
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .

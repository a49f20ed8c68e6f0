#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 2 (one H200, MPS): HEAD (build/base: libgshmem + gshmem-perf of 9e04c8a) against
# this change, small and device-scope reductions, several runs; ctest on the one GPU first. Everything in $OUT/all.tar.gz.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base; tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
R=/tmp/r2-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
(cd build/default && timeout 200 ctest -L gpu --output-on-failure --timeout 60 > $R/ctest-1gpu.log 2>&1); echo "ctest-1gpu rc=$? $(tail -n 3 $R/ctest-1gpu.log | head -1)"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps2-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps2-log-$$
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
G=(reduction_on_stream reducescatter_on_stream -b 64 -e 64K -f 4 --graph)
for rep in 1 2 3; do run gs-base-$rep 2 "${OLD[@]}" -- "${G[@]}"; run gs-new-$rep 2 -- "${G[@]}"; done
for rep in 1 2; do run gs4-base-$rep 4 "${OLD[@]}" -- "${G[@]}"; run gs4-new-$rep 4 -- "${G[@]}"; done
D=(reduction reducescatter -s all -b 64 -e 1M -f 4)
for rep in 1 2; do run d-base-$rep 2 "${OLD[@]}" -- "${D[@]}"; run d-new-$rep 2 -- "${D[@]}"; done
run d4-base 4 "${OLD[@]}" -- reduction reducescatter -s block -b 1K -e 1M -f 4
run d4-new 4 -- reduction reducescatter -s block -b 1K -e 1M -f 4
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .

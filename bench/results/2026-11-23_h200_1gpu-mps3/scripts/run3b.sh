#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# (call3b: run3.sh again with the tests taken out and the files packed, by the sed in commands.txt)
# Device call 3 (one H200, MPS), the committed code: HEAD (build/base) against this change for
# small on-stream reductions, several runs; ctest under MPS at 2-4 PEs; the reductions' tests
# with the library's kernel at 1 and 3 CTAs. Writes straight into $OUT (a call cut short
# keeps what it did).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base; tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
R=/tmp/r3b-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps3-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps3-log-$$
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
  env "${e[@]}" GT_SHARE_GPUS=1 timeout 60 $B/gshmrun -n $n --timeout 55 -- "$@" > $R/$label.log 2>&1
  echo "$label rc=$? $(el): $(grep -hE 'checks passed|checks failed|FAIL' $R/$label.log | head -1)"
}
OLD=(PERF=$BASE/gshmem-perf LD_LIBRARY_PATH=$BASE)
G=(reduction_on_stream reducescatter_on_stream -b 64 -e 1M -f 4 --graph)
for rep in 1 2 3; do run gs-base-$rep 2 "${OLD[@]}" -- "${G[@]}"; run gs-new-$rep 2 -- "${G[@]}"; done
for rep in 1 2; do run gs4-base-$rep 4 "${OLD[@]}" -- "${G[@]}"; run gs4-new-$rep 4 -- "${G[@]}"; done
true \
  -E '^(launch|kill_in_barrier|coll_bcast-[34]|compat_.*|perf_smoke)-?' --output-on-failure --timeout 120 \
echo quit | nvidia-cuda-mps-control
tar -C $R -czf $OUT/all.tar.gz .

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 2 (one H200): the final build. 1) ctest -L gpu on the one GPU; under MPS:
# 2) test_stream_order, also against a library whose kernels lack the wait (build/mut: must
# fail when launched early, pass with GSHMEM_EARLY_LAUNCH=0); 3) device-scope and on-stream
# reductions against HEAD's (build/base); 4) on-stream calls without a graph, early launch
# off / on; 5) the multi-PE GPU tests under MPS. Everything in $OUT/all.tar.gz.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base build/mut
tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz; tar -C build -xf build/mut.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
MUT=/work/main/build/mut
R=/tmp/r2-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s]"; }
(cd /work/main/build/default && timeout 150 ctest -L gpu --output-on-failure --timeout 60 > $R/ctest-1gpu.log 2>&1; echo "ctest rc=$?" >> $R/ctest-1gpu.log)
echo "ctest-1gpu $(el): $(grep -E 'tests passed' $R/ctest-1gpu.log)"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps2-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps2-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
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
  echo "$label rc=$? $(el): $(grep -hE 'checks passed|checks failed|FAIL' $R/$label.log | head -1)"
}
for n in 2 3 4; do tst stream_order-$n $n -- $B/test_stream_order; done
tst stream_order-2-mut 2 LD_LIBRARY_PATH=$MUT -- $B/test_stream_order
tst stream_order-4-mut 4 LD_LIBRARY_PATH=$MUT -- $B/test_stream_order
tst stream_order-2-mut-e0 2 LD_LIBRARY_PATH=$MUT GSHMEM_EARLY_LAUNCH=0 -- $B/test_stream_order
D=(reduction reducescatter -s all -e 64K -f 4)
for rep in 1 2; do
  run d-base-$rep 2 PERF=$BASE/gshmem-perf LD_LIBRARY_PATH=$BASE -- "${D[@]}"
  run d-new-$rep 2 -- "${D[@]}"
done
G=(reduction_on_stream reducescatter_on_stream -e 1M -f 2 --graph)
run g-base 2 LD_LIBRARY_PATH=$BASE -- "${G[@]}"
run g-new 2 -- "${G[@]}"
S=(broadcast_on_stream fcollect_on_stream alltoall_on_stream reduction_on_stream barrier_on_stream -e 64K -f 4 -n 100 -r 10)
for rep in 1 2 3; do
  run s-e0-$rep 2 GSHMEM_EARLY_LAUNCH=0 -- "${S[@]}"
  run s-e1-$rep 2 -- "${S[@]}"
done
(cd /work/main/build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 280 ctest -L gpu -R '.*-[234]$' \
   -E '^(launch|kill_in_barrier|coll_bcast-[34]|compat_.*|perf_smoke)-?' --output-on-failure --timeout 90 > $R/ctest-mps.log 2>&1; echo "ctest rc=$?" >> $R/ctest-mps.log)
echo "ctest-mps $(el): $(grep -E 'tests passed' $R/ctest-mps.log)"
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .
grep -E "\*\*\*|Failed|Timeout|ctest rc" $R/ctest-mps.log | tail -20

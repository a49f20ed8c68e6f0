#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 3 (one H200, MPS): test_stream_order with a source writer that lets dependents
# launch early, against this build's library and one whose kernels lack the wait (build/mut);
# device-scope reductions with pairing off at thread scope against HEAD's (build/base); the
# reduction tests at 2-4 PEs. Everything in $OUT/all.tar.gz.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base build/mut
tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz; tar -C build -xf build/mut.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
MUT=/work/main/build/mut
R=/tmp/r3-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps3-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps3-log-$$
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
for n in 2 3 4; do for t in reduce reducescatter; do
  tst $t-$n $n GSHMEM_REDUCE_CTAS=16 -- $B/test_$t
done; done
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .

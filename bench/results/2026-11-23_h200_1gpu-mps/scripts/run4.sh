#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, MPS): the collective kernel's launch shape for small on-stream
# collectives (experiment lib: GSHMEM_X_PLAIN1, GSHMEM_X_THREADS), malloc under MPS, then the
# multi-PE GPU tests at 2-4 PEs on the one GPU under MPS. Everything ends up in $OUT/all.tar.gz.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
[[ -d build/default/bin ]] || tar -C build -xf build/carry.tar.xz
rm -rf build/exp; tar -C build -xf build/exp.tar.xz
B=/work/main/build/default/bin
EXP=/work/main/build/exp
R=/tmp/r3-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=20
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps3-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps3-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
run() {  # run <label> <npes> <env...> -- <perf args>
  local label=$1 n=$2; shift 2; local e=(); while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  env "${e[@]}" GSHMEM_PERF_SHARE_GPUS=1 timeout 90 $B/gshmrun -n $n --timeout 85 -- $B/gshmem-perf "$@" --no-nccl \
    --json $R/$label.jsonl > $R/$label.log 2>&1
  echo "$label rc=$?"
}
C=(alltoall_on_stream broadcast_on_stream fcollect_on_stream -e 4M -f 4 --graph)
for rep in 1 2; do
  run g-base-$rep 2 -- "${C[@]}"
  for v in "p256 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS=256" "a256 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS_ALL=256" \
           "a512 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS_ALL=512" "a128 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS_ALL=128" \
           "a256c8 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS_ALL=256 GSHMEM_X_CTA_BYTES=8192" \
           "a256c32 GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS_ALL=256 GSHMEM_X_CTA_BYTES=32768"; do
    set -- $v; label=$1; shift
    run g-$label-$rep 2 LD_LIBRARY_PATH=$EXP "$@" -- "${C[@]}"
  done
done
run g4-base 4 -- "${C[@]}"
run g4-a256 4 LD_LIBRARY_PATH=$EXP GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS_ALL=256 -- "${C[@]}"
run g4-p256 4 LD_LIBRARY_PATH=$EXP GSHMEM_X_PLAIN1=1 GSHMEM_X_THREADS=256 -- "${C[@]}"
run malloc-2 2 -- malloc -e 1G -f 4 -n 5
run malloc-2-nospin 2 GSHMEM_BOOTSTRAP_SPIN_US=0 -- malloc -e 1G -f 4 -n 5
run malloc-4 4 -- malloc -e 1G -f 4 -n 5
# the multi-PE GPU tests on the one GPU (GT_SHARE_GPUS=1: correctness only)
(cd /work/main/build/default && GT_SHARE_GPUS=1 timeout ${BUDGET:-400} ctest -L gpu -R '.*-[234]$' --output-on-failure --timeout 120 > $R/ctest-mps.log 2>&1; echo "ctest rc=$?" >> $R/ctest-mps.log)
echo quit | nvidia-cuda-mps-control
sleep 1
cp -r $CUDA_MPS_LOG_DIRECTORY $R/mps-log 2>/dev/null
tar -C $R -czf $OUT/all.tar.gz .
grep -E "tests passed|Total Test|ctest rc|\*\*\*|Failed|Timeout" $R/ctest-mps.log | tail -30

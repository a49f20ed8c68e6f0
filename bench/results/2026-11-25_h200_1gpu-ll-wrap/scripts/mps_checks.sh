#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): reduce_errors (tests/functional/reduce_errors.sh: host checks, and
# device checks compiled in, whose argument record reduce_check.cuh now fences after the scope
# barrier) at 2 and 4 PEs sharing GPU 0 under MPS, from build/carry.tar.xz (scripts/pack-build.sh).
set -u
[[ -f build/carry.tar.xz ]] && { rm -rf build/default && tar -C build -xJf build/carry.tar.xz; }
B=$PWD/build/default
R=$OUT/r; mkdir -p $R
export CUDA_VISIBLE_DEVICES=0 GSHMEM_WAIT_TIMEOUT=15 GT_SHARE_GPUS=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/chk-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/chk-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for n in 2 4; do
  LD_LIBRARY_PATH=$B/lib timeout 200 bash tests/functional/reduce_errors.sh $B/bin/gshmrun $B/bin/test_reduce_errors $n \
    > $R/reduce_errors-$n.txt 2>&1
  echo "reduce_errors $n PEs rc=$? $(grep -c '^FAIL' $R/reduce_errors-$n.txt) FAIL lines" | tee -a $R/checks-summary.txt
  tar -C $OUT -czf $OUT/all.tar.gz r
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'

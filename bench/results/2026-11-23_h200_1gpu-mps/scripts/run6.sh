#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, MPS): (1) reduce at 3 PEs with HEAD's library, as run5's ctest ran it
# (does it hang under MPS too?); (2) the multi-PE GPU tests run5 did not reach, and reduce-3/4,
# with GSHMEM_REDUCE_CTAS=16 so that 3-4 PEs' reduction grids fit on the one GPU together.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
[[ -d build/default/bin ]] || tar -C build -xf build/carry.tar.xz
[[ -d build/base ]] || tar -C build -xf build/base.tar.xz
B=/work/main/build/default/bin
R=/tmp/r6-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GT_SHARE_GPUS=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps6-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps6-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
LD_LIBRARY_PATH=/work/main/build/base GSHMEM_WAIT_TIMEOUT=20 timeout 60 $B/gshmrun -n 3 --timeout 55 -- $B/test_reduce > $R/reduce-3-base-lib.log 2>&1
echo "reduce-3 with HEAD's lib, default CTAs: rc=$?"
GSHMEM_REDUCE_CTAS=16 GSHMEM_WAIT_TIMEOUT=20 timeout 60 $B/gshmrun -n 3 --timeout 55 -- $B/test_reduce > $R/reduce-3-new-16ctas.log 2>&1
echo "reduce-3 with this lib, 16 CTAs: rc=$?"
(cd /work/main/build/default && GSHMEM_REDUCE_CTAS=16 timeout ${BUDGET:-360} ctest -L gpu -I 73,200 -R '.*-[234]$' -E '^(launch|kill_in_barrier)-' --output-on-failure --timeout 90 > $R/ctest-mps-rest.log 2>&1; echo "ctest rc=$?" >> $R/ctest-mps-rest.log)
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|Total Test|ctest rc" $R/ctest-mps-rest.log | tail -40

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the whole gpu-labelled ctest suite of CI's build of the change
# (build/carry.tar.xz: scripts/pack-build.sh of a fresh clone's build/default at BUILT_AT,
# default /tmp/ci40): on the one GPU (multi-PE tests skip), then 2-4 PEs sharing it under MPS
# (tests/CMakeLists.txt says which tests cannot run there: launch, kill_in_barrier,
# coll_bcast-3/4, compat_*, perf_smoke, and the error-path tests).
set -u
here=$PWD; at=${BUILT_AT:-/tmp/ci40}
[[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
(cd build/default && timeout 200 ctest -L gpu --output-on-failure --timeout 60 > $R/ctest-1gpu.log 2>&1)
echo "ctest-1gpu rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-1gpu.log)"; pack
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsg-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsg-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
(cd build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 330 ctest -L gpu -R '.*-[234]$' \
  -E '^(launch|kill_in_barrier|coll_bcast-[34]|compat_.*|perf_smoke|coll_errors|reduce_errors|rma_errors|p2p_debug_checks)-?' \
  --output-on-failure --timeout 150 > $R/ctest-mps.log 2>&1)
echo "ctest-mps rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
grep -E "Test +#" $R/ctest-mps.log | grep -v Passed
pack

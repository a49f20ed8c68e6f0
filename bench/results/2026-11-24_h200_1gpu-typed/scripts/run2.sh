#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200), CI's build of the commit (build/carry.tar.xz from scripts/pack-build.sh
# of a fresh clone's build/default at BUILT_AT): the whole gpu-labelled ctest suite on the one
# GPU (multi-PE tests skip), then 2-4 PEs sharing it under MPS without the tests that cannot run
# there (tests/CMakeLists.txt). Verbose logs: each test's "PE n: N checks passed" lines.
set -u
here=$PWD; at=${BUILT_AT:-/tmp/ci46}
[[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
(cd build/default && timeout 200 ctest -L gpu -V --timeout 60 > $R/ctest-1gpu.log 2>&1)
echo "ctest-1gpu rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-1gpu.log)"; pack
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps2-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps2-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
(cd build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 360 ctest -L gpu -R '.*-[234]$' \
  -E '^(launch|kill_in_barrier|coll_bcast-[34]|compat_.*|perf_smoke|coll_errors|reduce_errors|rma_errors|p2p_debug_checks)-?' \
  -V --timeout 150 > $R/ctest-mps.log 2>&1)
echo "ctest-mps rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
grep -E "Test +#" $R/ctest-mps.log | grep -v Passed
grep -E "checks passed \((coll_collect|coll_bcast|coll_alltoall)\)" $R/ctest-mps.log | sort | uniq -c | head -20
pack

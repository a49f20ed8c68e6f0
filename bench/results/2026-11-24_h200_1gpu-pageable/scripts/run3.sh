#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200), CI's build of the commit (build/carry.tar.xz: scripts/pack-build.sh of
# a fresh clone's build/default at BUILT_AT, default /tmp/ci43):
#  1. test_host_busy, 1 PE alone, GSHMEM_HIGH_PRIORITY_STREAM 1 and 0 (which cases need it);
#  2. the whole gpu-labelled ctest suite: on the one GPU (multi-PE tests skip), then 2-4 PEs
#     sharing it under MPS, without the tests that cannot run there (tests/CMakeLists.txt).
set -u
here=$PWD; at=${BUILT_AT:-/tmp/ci43}
[[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
B=$here/build/default/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
for p in 1 0; do
  LD_LIBRARY_PATH=build/default/lib GSHMEM_HIGH_PRIORITY_STREAM=$p GSHMEM_WAIT_TIMEOUT=15 timeout 90 \
    $B/gshmrun -n 1 --timeout 85 -- $B/test_host_busy > $R/host_busy-1pe-prio$p.txt 2>&1
  echo "host_busy 1 PE prio=$p rc=$? $(el) waited: $(grep -ho 'host [a-z_]* took' $R/host_busy-1pe-prio$p.txt | awk '{print $2}' | sort | uniq -c | tr '\n' ' ')"
done
pack
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

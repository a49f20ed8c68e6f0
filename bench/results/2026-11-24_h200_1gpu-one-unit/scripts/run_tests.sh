#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the gpu-labelled ctest suite of this checkout's build (build/carry.tar.xz,
# made by scripts/pack-build.sh from build/default): on the one GPU (multi-PE tests skip), then
# 2-4 PEs sharing it under MPS (GT_SHARE_GPUS=1, GSHMEM_REDUCE_CTAS=16; launch, kill_in_barrier,
# coll_bcast-3/4, compat_* and perf_smoke excluded: grids sized for a whole GPU or a GPU per PE).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default; tar -C build -xf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
(cd build/default && timeout 150 ctest -L gpu --output-on-failure --timeout 60 > $R/ctest-1gpu.log 2>&1)
echo "ctest-1gpu rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-1gpu.log)"; pack
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpst-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpst-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
(cd build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 420 ctest -L gpu -R '.*-[234]$' \
  -E '^(launch|kill_in_barrier|coll_bcast-[34]|compat_.*|perf_smoke)-?' --output-on-failure --timeout 150 \
  > $R/ctest-mps.log 2>&1); echo "ctest-mps rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"
echo quit | nvidia-cuda-mps-control
grep -E "Test +#" $R/ctest-mps.log | grep -v Passed
pack

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 7 (one H200): the committed build (9fbdece), ctest on the one GPU, then under
# MPS at 2-4 PEs. $OUT/all.tar.gz is rewritten after each stage.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default; tar -C build -xf build/carry.tar.xz
R=/tmp/r7-$$; mkdir -p $R
pack() { tar -C $R -czf $OUT/all.tar.gz .; }
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
(cd build/default && timeout 150 ctest -L gpu --output-on-failure --timeout 60 > $R/ctest-1gpu.log 2>&1)
echo "ctest-1gpu rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-1gpu.log)"; pack
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps7-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps7-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
(cd build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 330 ctest -L gpu -R '.*-[234]$' \
  -E '^(launch|kill_in_barrier|coll_bcast-[34]|compat_.*|perf_smoke)-?' --output-on-failure --timeout 120 \
  > $R/ctest-mps.log 2>&1); echo "ctest-mps rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"
echo quit | nvidia-cuda-mps-control
sleep 1
pack

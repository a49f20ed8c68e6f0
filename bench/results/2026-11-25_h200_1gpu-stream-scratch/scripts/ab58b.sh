#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 35, second call (the build with the "not ready" guard in StreamCallMemory::acquire):
# test_wait at 2 and 3 PEs, and at 2 PEs with each PE under compute-sanitizer memcheck, PEs
# sharing GPU 0 under MPS. (API errors are not reported: the test fails cudaMallocAsync on purpose.)
set -u
here=$PWD
for at in /work/main /tmp/ci57; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=60
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-58b CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-58b
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
for n in 2 3; do
  timeout 70 "$B/bin/gshmrun" -n $n --timeout 60 -- "$B/bin/test_wait" >"$R/wait-$n.log" 2>&1
  echo "test_wait n=$n rc=$? $(el)"; grep -E "ERROR|checks|FAIL" "$R/wait-$n.log" | head -4
done
timeout 190 "$B/bin/gshmrun" -n 2 --timeout 180 -- "$CS" --tool memcheck --report-api-errors no --error-exitcode 86 --print-limit 30 \
  --target-processes all "$B/bin/test_wait" >"$R/memcheck-wait-2.log" 2>&1
echo "memcheck test_wait n=2 rc=$? $(el)"; grep -E "ERROR SUMMARY|Invalid|checks|FAIL" "$R/memcheck-wait-2.log" | head -6
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
echo "ab58b done $(el)"

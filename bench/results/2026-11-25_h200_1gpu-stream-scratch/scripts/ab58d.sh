#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 35, after the review: test_wait with the host forms' arrays of 3 and 41 elements in
# host and in device memory, at 2, 3 and 4 PEs and at 2 under memcheck, PEs sharing GPU 0 under
# MPS (the library as in ab58c.sh).
set -u
here=$PWD
for at in /work/main /tmp/ci57; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
CS=$(command -v compute-sanitizer || find /usr/local/cuda*/bin -name compute-sanitizer 2>/dev/null | head -1)
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=60
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-58d CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-58d
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
for n in 2 3 4; do
  LD_LIBRARY_PATH=$B/lib timeout 100 "$B/bin/gshmrun" -n $n --timeout 90 -- "$B/bin/test_wait" >"$R/wait-$n.log" 2>&1
  echo "test_wait n=$n rc=$? $(el)"; grep -E "ERROR|checks|FAIL" "$R/wait-$n.log" | head -5
done
LD_LIBRARY_PATH=$B/lib timeout 190 "$B/bin/gshmrun" -n 2 --timeout 180 -- "$CS" --tool memcheck --report-api-errors no \
  --error-exitcode 86 --print-limit 30 --target-processes all "$B/bin/test_wait" >"$R/wait-2-memcheck.log" 2>&1
echo "memcheck test_wait n=2 rc=$? $(el)"; grep -E "ERROR SUMMARY|Invalid|checks|FAIL" "$R/wait-2-memcheck.log" | head -6
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
echo "ab58d done $(el)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 34, third call: collective launch sized by each PE's share. test_launch on 1 PE (no
# sharing), the whole MPS suite (launch-N now in it), then the tests still left out under MPS.
set -u
here=$PWD
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
for at in /work/main /tmp/ci56; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
GSHMEM_WAIT_TIMEOUT=15 timeout 120 "$B/bin/gshmrun" -n 1 --timeout 110 -- "$B/bin/test_launch" >"$R/launch-1.log" 2>&1
echo "launch 1 PE rc=$? $(el)"; grep -E "checks|FAIL|ERROR" "$R/launch-1.log" | head -5
STEPS=mps REV=a124662+share2 BUILT_AT=/tmp/ci56 timeout 430 bash scripts/nvl-run.sh 2>&1 | tail -8
mv "$R/ctest-mps.log" "$R/ctest-mps-all.log" 2>/dev/null
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-c CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-c
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
(cd "$B" && CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 GSHMEM_WAIT_TIMEOUT=15 timeout 100 ctest -L gpu \
  -R '^(compat_.*|perf_smoke)-[234]$' -V --timeout 40 >"$R/ctest-mps-rest.log" 2>&1)
echo "rest rc=$? $(el)"; grep -E "Test +#.*(Passed|Failed|Timeout|Skipped|Exception)" "$R/ctest-mps-rest.log" | head -30
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
echo "ab57c done $(el)"

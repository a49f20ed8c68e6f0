#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 37, step 3: step 2 + host forms' indices written by the kernel into pinned memory, and
# a third parameter form of 2560 elements (30 KB; a launch may carry 32 KB), copy kernels
# carrying 32000 bytes each. test_wait with arrays of 3, 41, 320, 2560, 3001 and 12000 elements.
# Carries build/ab60c.tar.xz (test_wait, wait_cost, gshmrun and three libraries of /tmp/ci62: new =
# the working tree, lib/warp = step 2 + the indices change, lib/old = dd31427's). wait_cost new/old alternated, 2 runs each (1 PE, no
# MPS); test_wait at 2, 3, 4 PEs sharing GPU 0 under MPS and at 2 under memcheck.
# Run from the repository root: bash bench/results/2026-11-25_h200_1gpu-wait-params/scripts/ab60c.sh
set -u
here=$PWD
rm -rf /tmp/ab60c && mkdir -p /tmp/ab60c && tar -C /tmp/ab60c -xJf build/ab60c.tar.xz
B=/tmp/ab60c/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
pack() { tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r; }
CS=$(command -v compute-sanitizer || find /usr/local/cuda*/bin -name compute-sanitizer 2>/dev/null | head -1)
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=60
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$R/gpu.txt" 2>&1
for rep in 1 2; do
  for v in new warp old; do
    lp=$B/lib; [[ $v != new ]] && lp=$B/lib/$v
    LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n 1 --timeout 90 -- "$B/bin/wait_cost" >"$R/cost-$v-$rep.txt" 2>&1
    echo "wait_cost $v $rep rc=$? $(el)"
  done
done
pack
(
  export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-60c CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-60c
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  for n in 2 3 4; do
    LD_LIBRARY_PATH=$B/lib timeout 170 "$B/bin/gshmrun" -n $n --timeout 160 -- "$B/bin/test_wait" >"$R/wait-$n.log" 2>&1
    echo "test_wait n=$n rc=$? $(el)"; grep -E "ERROR|checks|FAIL" "$R/wait-$n.log" | head -5
  done
  LD_LIBRARY_PATH=$B/lib timeout 240 "$B/bin/gshmrun" -n 2 --timeout 230 -- \
    "$CS" --tool memcheck --report-api-errors no --error-exitcode 86 --print-limit 30 --target-processes all \
    "$B/bin/test_wait" >"$R/wait-2-memcheck.log" 2>&1
  echo "memcheck test_wait n=2 rc=$? $(el)"; grep -E "ERROR SUMMARY|Invalid|checks|FAIL" "$R/wait-2-memcheck.log" | head -6
  LD_LIBRARY_PATH=$B/lib timeout 240 "$B/bin/gshmrun" -n 2 --timeout 230 -- \
    "$CS" --tool synccheck --error-exitcode 86 --print-limit 30 --target-processes all \
    "$B/bin/test_wait" >"$R/wait-2-synccheck.log" 2>&1
  echo "synccheck test_wait n=2 rc=$? $(el)"; grep -E "ERROR SUMMARY|checks|FAIL" "$R/wait-2-synccheck.log" | head -6
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
pack
for f in "$R"/cost-*.txt; do echo "== $f"; grep -E 'n=(321|500|2560|2561) ' "$f"; done
echo "ab60c done $(el)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 36, after the review: ab59c.sh again on the fresh CI build of dd31427 (/tmp/ci62),
# whose scans read with the existing ld_relaxed_sys (the same ld.relaxed.sys as before).
# Run from the repository root: bash bench/results/2026-11-25_h200_1gpu-wait-scan/scripts/ab59d.sh
set -u
here=$PWD
for at in /work/main /tmp/ci62; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
pack() { tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r; }
CS=$(command -v compute-sanitizer || find /usr/local/cuda*/bin -name compute-sanitizer 2>/dev/null | head -1)
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=60
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$R/gpu.txt" 2>&1
for rep in 1 2; do
  for v in new old; do
    p=$B/bin/gshmem-wait-scan-probe; lp=$B/lib; [[ $v == old ]] && { p=$p-old; lp=$B/lib/old; }
    LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n 1 --timeout 90 -- "$p" >"$R/probe-$v-$rep.txt" 2>&1
    echo "wait_scan_probe $v $rep rc=$? $(el)"
    LD_LIBRARY_PATH=$lp timeout 60 "$B/bin/gshmrun" -n 1 --timeout 50 -- "$B/bin/wait_cost" >"$R/cost-$v-$rep.txt" 2>&1
    echo "wait_cost $v $rep rc=$? $(el)"
  done
done
pack
(
  export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-59c CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-59c
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  for n in 2 3 4; do
    LD_LIBRARY_PATH=$B/lib timeout 150 "$B/bin/gshmrun" -n $n --timeout 140 -- "$B/bin/test_wait" >"$R/wait-$n.log" 2>&1
    echo "test_wait n=$n rc=$? $(el)"; grep -E "ERROR|checks|FAIL" "$R/wait-$n.log" | head -5
  done
  LD_LIBRARY_PATH=$B/lib timeout 240 "$B/bin/gshmrun" -n 2 --timeout 230 -- \
    "$CS" --tool memcheck --report-api-errors no --error-exitcode 86 --print-limit 30 --target-processes all \
    "$B/bin/test_wait" >"$R/wait-2-memcheck.log" 2>&1
  echo "memcheck test_wait n=2 rc=$? $(el)"; grep -E "ERROR SUMMARY|Invalid|checks|FAIL" "$R/wait-2-memcheck.log" | head -6
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
pack
STEPS=mps REV=dd31427 BUILT_AT=/tmp/ci62 bash scripts/nvl-run.sh
pack
echo "ab59c done $(el)"

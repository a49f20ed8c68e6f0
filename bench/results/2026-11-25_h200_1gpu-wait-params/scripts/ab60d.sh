#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 37, the final code: ab60c.sh's library with the host forms' arrays in the kernel's
# parameters up to 320 elements only (staged beyond), on the whole build of /tmp/ci62 (CI's build
# of dd31427 with this change built in: build/carry.tar.xz, scripts/pack-build.sh), with lib/warp
# (step 2 + the indices change) and lib/old (dd31427) beside it; then the MPS suite.
# Run from the repository root: bash bench/results/2026-11-25_h200_1gpu-wait-params/scripts/ab60d.sh
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
  for v in new warp old; do
    lp=$B/lib; [[ $v != new ]] && lp=$B/lib/$v
    LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n 1 --timeout 90 -- "$B/bin/wait_cost" >"$R/cost-$v-$rep.txt" 2>&1
    echo "wait_cost $v $rep rc=$? $(el)"
  done
done
pack
(
  export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-60d CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-60d
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
STEPS=mps REV=final BUILT_AT=/tmp/ci62 bash scripts/nvl-run.sh
pack
for f in "$R"/cost-*.txt; do echo "== $f"; grep -E 'n=(321|500|2560|2561) ' "$f"; done
echo "ab60d done $(el)"

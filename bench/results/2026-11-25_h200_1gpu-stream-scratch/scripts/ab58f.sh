#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 35, after ab58e.sh (run twice: 6-span, then 7-local-memory with the library of two inline sizes and
# wait_cost of 3, 41 and 500 elements): the stream form carries a wait's host arrays in one span (one copy
# kernel up to 4000 bytes, not one per array). test_wait at 2 and 4 PEs and at 2 under memcheck,
# PEs sharing GPU 0 under MPS; wait_cost (1 PE, no MPS), new and old (2e5cdd0) alternated.
set -u
here=$PWD
for at in /work/main /tmp/ci57; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
CS=$(command -v compute-sanitizer || find /usr/local/cuda*/bin -name compute-sanitizer 2>/dev/null | head -1)
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=60
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-58f CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-58f
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
for n in 2 4; do
  CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 LD_LIBRARY_PATH=$B/lib timeout 100 "$B/bin/gshmrun" -n $n --timeout 90 -- \
    "$B/bin/test_wait" >"$R/wait-$n.log" 2>&1
  echo "test_wait n=$n rc=$? $(el)"; grep -E "ERROR|checks|FAIL" "$R/wait-$n.log" | head -5
done
CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 LD_LIBRARY_PATH=$B/lib timeout 190 "$B/bin/gshmrun" -n 2 --timeout 180 -- \
  "$CS" --tool memcheck --report-api-errors no --error-exitcode 86 --print-limit 30 --target-processes all \
  "$B/bin/test_wait" >"$R/wait-2-memcheck.log" 2>&1
echo "memcheck test_wait n=2 rc=$? $(el)"; grep -E "ERROR SUMMARY|Invalid|checks|FAIL" "$R/wait-2-memcheck.log" | head -6
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
for rep in 1 2; do
  for v in new old; do
    lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
    LD_LIBRARY_PATH=$lp timeout 60 "$B/bin/gshmrun" -n 1 --timeout 50 -- "$B/bin/wait_cost" >"$R/cost-$v-$rep.txt" 2>&1
    echo "wait_cost $v $rep rc=$? $(el)"; cat "$R/cost-$v-$rep.txt"
  done
done
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
echo "ab58f done $(el)"

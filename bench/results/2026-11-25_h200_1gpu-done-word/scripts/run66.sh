#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 38, the final code: CI's build of b102fc6 (/tmp/ci65, packed as build/carry.tar.xz with
# rt_cost in bin/ and f96e3a3's library in lib/old/). rt_cost at 1 PE, three rounds of new /
# new with GSHMEM_HOST_SPIN_US=0 / old; at 2 and 4 PEs sharing the GPU under MPS, two rounds;
# then ctest -L gpu on one GPU and the MPS step (scripts/nvl-run.sh).
set -u
here=$PWD
for at in /tmp/ci65; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz && rm -f build/carry.tar.xz
B=$here/build/default
R=$OUT/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
rt() {  # variant, PEs, output
  local lp=$B/lib sp=-1
  [[ $1 == old ]] && lp=$B/lib/old
  [[ $1 == spin0 ]] && sp=0
  GSHMEM_HOST_SPIN_US=$sp LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n "$2" --timeout 90 -- "$B/bin/rt_cost" >"$3" 2>&1
  echo "rt $1 $2 PEs rc=$? $(el)"
}
for rep in 1 2 3; do for v in new spin0 old; do rt $v 1 "$R/rt1-$v-$rep.txt"; done; done
(
  export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-66 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-66
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  for n in 2 4; do for rep in 1 2; do for v in new spin0 old; do rt $v $n "$R/rt$n-$v-$rep.txt"; done; done; done
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
STEPS="ctest mps" REV=b102fc6 BUILT_AT=/tmp/ci65 timeout 500 bash scripts/nvl-run.sh
grep -E "host-timeout|ivars\[260\]" "$R/ctest-1gpu.log" | head -3
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
python3 bench/results/2026-11-25_h200_1gpu-done-word/scripts/table.py "$R" 2>/dev/null
echo "done $(el)"

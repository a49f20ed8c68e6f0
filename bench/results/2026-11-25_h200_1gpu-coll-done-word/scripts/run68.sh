#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 39, the final code: CI's build of 9133b84 (/tmp/ci68; its code is 06befd8's: the done
# word's missing-word report and the cpus_to_spin helper on top of ab713f2), packed with
# coll_cost in bin/. coll_cost new / spin0 once at 1 PE and once at 4 PEs under MPS, then ctest
# -L gpu on one GPU and the MPS step; last, every log searched for the missing-word report
# ("completion word"), which must not appear.
set -u
here=$PWD
for at in /tmp/ci68; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz && rm -f build/carry.tar.xz
B=$here/build/default
R=$OUT/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
cc() {  # variant, PEs, output
  local sp=-1
  [[ $1 == spin0 ]] && sp=0
  GSHMEM_HOST_SPIN_US=$sp timeout 150 "$B/bin/gshmrun" -n "$2" --timeout 140 -- "$B/bin/coll_cost" >"$3" 2>&1
  echo "cc $1 $2 PEs rc=$? $(el)"
}
for v in new spin0; do cc $v 1 "$R/cc1-$v-1.txt"; done
(
  export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-68 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-68
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  for v in new spin0; do cc $v 4 "$R/cc4-$v-1.txt"; done
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
python3 bench/results/2026-11-25_h200_1gpu-coll-done-word/scripts/table.py "$R" >"$R/table.txt" 2>&1
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
STEPS="ctest mps" REV=9133b84 BUILT_AT=/tmp/ci68 timeout 480 bash scripts/nvl-run.sh
echo "missing-word reports in all logs: $(cat "$R"/*.txt "$R"/*.log | grep -c 'completion word')"
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
cat "$R/table.txt"
echo "done $(el)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 39: CI's build of ab713f2 (/tmp/ci67, packed as build/carry.tar.xz with coll_cost and
# copy_word in bin/). coll_cost at 1 PE, three rounds of new / GSHMEM_HOST_SPIN_US=0 (spin0: the
# stream synchronisation these calls made before), copy_word three times; coll_cost at 2, 3 and
# 4 PEs sharing the GPU under MPS, two rounds; then (unless SKIP_CTEST=1) ctest -L gpu on one
# GPU and the MPS step (scripts/nvl-run.sh).
set -u
here=$PWD
for at in /tmp/ci67; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
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
for rep in 1 2 3; do for v in new spin0; do cc $v 1 "$R/cc1-$v-$rep.txt"; done; done
for rep in 1 2 3; do  # a stream-written word after a copy (copy_word.cu), one PE
  timeout 60 "$B/bin/gshmrun" -n 1 --timeout 50 -- "$B/bin/copy_word" >"$R/cw-$rep.txt" 2>&1
  echo "cw rc=$? $(el)"
done
(
  export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-67 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-67
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  for n in 2 3 4; do for rep in 1 2; do for v in new spin0; do cc $v $n "$R/cc$n-$v-$rep.txt"; done; done; done
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
python3 bench/results/2026-11-25_h200_1gpu-coll-done-word/scripts/table.py "$R" >"$R/table.txt" 2>&1
[[ ${SKIP_CTEST:-0} == 1 ]] || STEPS="ctest mps" REV=ab713f2 BUILT_AT=/tmp/ci67 timeout 420 bash scripts/nvl-run.sh
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
cat "$R/table.txt"
grep -h "median\|late" "$R"/cw-*.txt
echo "done $(el)"

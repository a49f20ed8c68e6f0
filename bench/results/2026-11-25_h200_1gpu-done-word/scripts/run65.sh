#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 38: rt_cost new / new with GSHMEM_HOST_SPIN_US=0 / old (f96e3a3), 1 PE and 2 PEs under MPS; then ctest + MPS suite.
set -u
here=$PWD
for at in /tmp/ci64; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz && rm -f build/carry.tar.xz
B=$here/build/default
R=$OUT/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
for rep in 1 2; do
  for v in new spin0 old; do
    lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
    sp=-1; [[ $v == spin0 ]] && sp=0
    GSHMEM_HOST_SPIN_US=$sp LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n 1 --timeout 90 -- "$B/bin/rt_cost" >"$R/rt1-$v-$rep.txt" 2>&1
    echo "rt 1 PE $v $rep rc=$? $(el)"
  done
done
(
  export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-65 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-65
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  for v in new spin0 old; do
    lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
    sp=-1; [[ $v == spin0 ]] && sp=0
    GSHMEM_HOST_SPIN_US=$sp LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n 2 --timeout 90 -- "$B/bin/rt_cost" >"$R/rt2-$v.txt" 2>&1
    echo "rt 2 PEs (MPS) $v rc=$? $(el)"
  done
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
(cd "$B" && timeout 120 ctest -R p2p_debug_checks -V --timeout 100 >"$R/ctest-debug-checks.log" 2>&1); echo "p2p_debug_checks rc=$? $(el)"
grep -E "host-timeout|ivars\[260\]|Passed|Failed" "$R/ctest-debug-checks.log" | head -8
STEPS=mps REV=done-word BUILT_AT=/tmp/ci64 timeout 490 bash scripts/nvl-run.sh
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
for v in new spin0 old; do echo "== $v"; grep -E "^gshmem_|scan3" "$R/rt1-$v-1.txt" | awk '{printf "%-50s %s\n", $1" "$2" "$3" "$4, $(NF-4)}' | head -30; done 2>/dev/null | head -70
echo "done $(el)"

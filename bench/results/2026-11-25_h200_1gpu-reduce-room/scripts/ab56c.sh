#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 33: reduce_room (new), the same test against ac10852 (old), reduction perf A/B, under MPS on GPU 0.
set -u
here=$PWD
for at in /work/main /tmp/ci53; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
mps_on() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-$1 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-$1
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
}
mps_off() { timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1; }
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 GSHMEM_PERF_SHARE_GPUS=1
mps_on perf
for rep in 1 2; do
  for v in new old; do
    exe=$B/bin/gshmem-perf; lp=""
    [[ $v == old ]] && { exe=$B/bin/gshmem-perf-old; lp=$B/lib/old; }
    LD_LIBRARY_PATH=$lp timeout 150 "$B/bin/gshmrun" -n 2 --timeout 140 -- "$exe" reduction -s block,warp -d float -o sum \
      -b 64K -e 16M -f 4 --json "$R/dev-$v-$rep.jsonl" >"$R/dev-$v-$rep.txt" 2>&1; echo "dev $v $rep rc=$? $(el)"
  done
done
mps_off
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/perf.tar.gz" r
OUT=${OUT:-/tmp/out}/suite STEPS="ctest mps" REV=${REV:-wip} BUILT_AT=/tmp/ci53 bash scripts/nvl-run.sh

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 35: on-stream waits with status/comparison arrays where cudaMallocAsync fails take the
# library's own blocks (StreamCallMemory) instead of cudaMalloc + a stream synchronisation.
# test_wait (its new part swaps the device's pool for a capped, filled one) against the
# previous library (old, by LD_LIBRARY_PATH) and the new, PEs sharing GPU 0 under MPS; then the
# whole MPS suite (scripts/nvl-run.sh STEPS=mps).
set -u
here=$PWD
for at in /work/main /tmp/ci57; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
mps_on() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-$1 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-$1
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
}
mps_off() { timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
for v in new old; do
  mps_on w$v
  lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
  LD_LIBRARY_PATH=$lp timeout 70 "$B/bin/gshmrun" -n 2 --timeout 60 -- "$B/bin/test_wait" >"$R/wait-$v.log" 2>&1
  echo "test_wait $v rc=$? $(el)"; grep -E "ERROR|checks|FAIL|timeout|waiting" "$R/wait-$v.log" | head -6
  mps_off
done
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
unset CUDA_VISIBLE_DEVICES GT_SHARE_GPUS
STEPS=mps REV=${REV:-unknown} BUILT_AT=/tmp/ci57 bash scripts/nvl-run.sh
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
echo "ab58 done $(el)"

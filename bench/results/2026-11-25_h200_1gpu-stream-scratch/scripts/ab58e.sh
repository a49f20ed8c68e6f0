#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 35, last call (the carried copies): a wait's host arrays of up to 32 elements travel
# in the wait kernel's parameters, up to 16000 bytes (and in stream capture) in copy kernels'
# parameters, larger ones through pinned memory of the library, all read at the call; device
# arrays in stream order; graphs in each capture mode. PEs sharing GPU 0 under MPS: test_wait at
# 2, 3 and 4 PEs and at 2 under memcheck (API errors not reported: the test fails
# cudaMallocAsync on purpose); wait_cost (host cost of the waits with arrays, 1 PE, no MPS), new
# and old alternated, 2 runs each; the whole MPS suite (scripts/nvl-run.sh STEPS=mps); last, as
# a failing test leaves the MPS server refusing clients for a while, test_wait at 2 PEs with
# 2e5cdd0's library (old, by LD_LIBRARY_PATH).
set -u
here=$PWD
for at in /work/main /tmp/ci57; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
pack() { tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r; }
CS=$(command -v compute-sanitizer || find /usr/local/cuda*/bin -name compute-sanitizer 2>/dev/null | head -1)
mps_on() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-$1 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-$1
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
}
mps_off() { timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY; }
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=60
wait_test() {  # lib tag npes [wrapper...]
  local lp=$B/lib; [[ $1 == old ]] && lp=$B/lib/old
  LD_LIBRARY_PATH=$lp timeout 190 "$B/bin/gshmrun" -n "$2" --timeout 180 -- "${@:3}" "$B/bin/test_wait" \
    >"$R/wait-$1-$2${3:+-memcheck}.log" 2>&1
  echo "test_wait $1 n=$2${3:+ memcheck} rc=$? $(el)"
  grep -E "ERROR|checks|FAIL|exited" "$R/wait-$1-$2${3:+-memcheck}.log" | head -8
}
mps_on a
wait_test new 2
wait_test new 3
wait_test new 4
wait_test new 2 "$CS" --tool memcheck --report-api-errors no --error-exitcode 86 --print-limit 30 \
  --target-processes all
mps_off
pack
unset CUDA_VISIBLE_DEVICES GT_SHARE_GPUS
for rep in 1 2; do
  for v in new old; do
    lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
    LD_LIBRARY_PATH=$lp timeout 60 "$B/bin/gshmrun" -n 1 --timeout 50 -- "$B/bin/wait_cost" >"$R/cost-$v-$rep.txt" 2>&1
    echo "wait_cost $v $rep rc=$? $(el)"; cat "$R/cost-$v-$rep.txt"
  done
done
pack
STEPS=mps REV=${REV:-unknown} BUILT_AT=/tmp/ci57 bash scripts/nvl-run.sh
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1
mps_on b
wait_test old 2
mps_off
pack
echo "ab58c done $(el)"

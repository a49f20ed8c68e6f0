#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 34, second call: 3 PEs on one GPU under MPS, on-stream collectives, new and old library alternated.
set -u
here=$PWD
for at in /work/main /tmp/ci56; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
[[ -d build/default/bin ]] || tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
export CUDA_VISIBLE_DEVICES=0 GSHMEM_PERF_SHARE_GPUS=1 NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-b CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-b
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
for rep in 1 2; do
  for v in new old; do
    lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
    LD_LIBRARY_PATH=$lp timeout 120 "$B/bin/gshmrun" -n 3 --timeout 110 -- "$B/bin/gshmem-perf" broadcast_on_stream \
      fcollect_on_stream alltoall_on_stream reduction_on_stream -d float -o sum -b 4 -e 64M -f 8 \
      --json "$R/c3-$v-$rep.jsonl" >"$R/c3-$v-$rep.txt" 2>&1
    echo "coll 3 PEs $v $rep rc=$? $(el)"; grep -E "ERROR|FAIL" "$R/c3-$v-$rep.txt" | head -3
  done
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
echo "ab57b done $(el)"

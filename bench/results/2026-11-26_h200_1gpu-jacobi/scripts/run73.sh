#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 40, final call: CI's build of the committed code (/tmp/ci70; packed with
# STRIP=1 scripts/pack-build.sh), one H200.
#   1. jacobi at 1 PE (grids 1024^2 ... 16384^2, the default 128 threads);
#   2. under MPS: jacobi at 4 PEs, the odd grids at 3, gshmem and the NVSHMEM build of the same
#      source at 2 PEs (--no-nccl: NCCL refuses two ranks on one GPU);
#   3. ctest -L gpu and the MPS step (scripts/nvl-run.sh), whose perf_smoke-2/-3 run jacobi too.
set -u
here=$PWD
for at in /work/main /tmp/ci70; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz && rm -f build/carry.tar.xz
B=$here/build/default
R=$OUT/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=30
run() {  # name, PEs, timeout, program arguments...
  local name=$1 n=$2 t=$3
  shift 3
  timeout -k 5 "$t" "$B/bin/gshmrun" -n "$n" --timeout "$((t - 5))" -- "$@" --json "$R/results.jsonl" >"$R/$name.txt" 2>&1
  echo "$name: $n PEs rc=$? $(el)"
}
run jac1 1 150 "$B/bin/gshmem-perf" jacobi -b 8M -e 2G -f 4
(
  export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-73 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-73
  export GSHMEM_PERF_SHARE_GPUS=1
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  run jac4-mps 4 120 "$B/bin/gshmem-perf" jacobi -b 8M -e 2G -f 4 --no-nccl
  run jac3-odd 3 90 "$B/bin/gshmem-perf" jacobi -b 100 -e 40M -f 7 --no-nccl -n 37 -r 3
  run jac2-mps 2 120 "$B/bin/gshmem-perf" jacobi -b 8M -e 512M -f 4 --no-nccl
  d=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)
  if [[ -n $d && -e $d/lib/libnvshmem_host.so.3 ]]; then
    LD_LIBRARY_PATH=$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} NVSHMEM_SYMMETRIC_SIZE=8G \
      run nv2-mps 2 120 "$B/bin/gshmem-perf-nvshmem" jacobi -b 8M -e 512M -f 4 --no-nccl
  else echo "no NVSHMEM wheel here"; fi
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
python3 perftest/summary.py "$R/results.jsonl" >"$R/summary.txt" 2>&1
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
STEPS="ctest mps" REV=2510c28 BUILT_AT=/tmp/ci70 timeout 470 bash scripts/nvl-run.sh
grep -h "VERIFY FAILED" "$R"/*.txt | head -5
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
for f in "$R"/jac*.txt "$R"/nv2-mps.txt; do echo "== $f"; grep -v '^{\|GSHMEM_PERF_SHARE\|WARN' "$f" | head -20; done
grep -v "^{" "$R/summary.txt" | grep -i "jacobi\|verified"
echo "done $(el)"

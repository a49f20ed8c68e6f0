#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 40, last call: this machine's build of 4b0a47d (jacobi's grid side from a square
# root, small tidying; library sources unchanged since 3d16053), the default 128 threads,
# one H200. carry.tar.xz holds bin/gshmem-perf, bin/gshmem-perf-nvshmem, bin/gshmrun and lib/
# of this machine's build.
#   1. one PE: grids 1024^2 ... 16384^2, the gshmem form against the one-GPU solve (ceiling);
#   2. under MPS, 2, 3 and 4 PEs sharing the GPU (--no-nccl: NCCL refuses two ranks on one
#      GPU): the default sweep, odd grids, the smoke test's arguments; every PE's rows checked;
#   3. the same benchmark built against NVSHMEM at 2 PEs under MPS;
#   4. compute-sanitizer memcheck at 2 PEs on small grids, under MPS too.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default && mkdir -p build && tar -C build -xJf build/carry.tar.xz && rm -f build/carry.tar.xz
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
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$R/machine.txt" 2>&1
run jac1 1 150 "$B/bin/gshmem-perf" jacobi -b 8M -e 2G -f 4
(
  export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-74 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-74
  export GSHMEM_PERF_SHARE_GPUS=1
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
  for n in 2 3 4; do run jac$n-mps $n 120 "$B/bin/gshmem-perf" jacobi -b 8M -e 2G -f 4 --no-nccl; done
  run jac3-odd 3 90 "$B/bin/gshmem-perf" jacobi -b 100 -e 40M -f 7 --no-nccl -n 37 -r 3
  for n in 2 3; do run smoke$n $n 60 "$B/bin/gshmem-perf" jacobi -b 4 -e 16K -f 32 -n 5 -w 1 -r 2 -s all -d all -o all --no-nccl; done
  d=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)
  if [[ -n $d && -e $d/lib/libnvshmem_host.so.3 ]]; then
    LD_LIBRARY_PATH=$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} NVSHMEM_SYMMETRIC_SIZE=8G \
      run nv2-mps 2 120 "$B/bin/gshmem-perf-nvshmem" jacobi -b 8M -e 512M -f 4 --no-nccl
  else echo "no NVSHMEM wheel here"; fi
  run memcheck2 2 150 compute-sanitizer --tool memcheck --error-exitcode 86 \
    "$B/bin/gshmem-perf" jacobi -b 4 -e 1M -f 16 -n 4 -w 1 -r 1 --no-nccl
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1
)
python3 perftest/summary.py "$R/results.jsonl" >"$R/summary.txt" 2>&1
grep -h "VERIFY FAILED\|ERROR\|error" "$R"/*.txt | head -20
tar -C "$OUT" -czf "$OUT/all.tar.gz" r
for f in "$R"/jac*.txt "$R"/nv2-mps.txt; do echo "== $f"; grep -v '^{' "$f" | head -40; done
for f in "$R"/smoke*.txt "$R"/memcheck2.txt; do echo "== $f"; tail -n 8 "$f"; done
grep -v "^{" "$R/summary.txt" | grep -i "jacobi\|verified"
echo "done $(el)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (2 x H200): where test_amo and test_signal stop when 3 PEs share the 2 GPUs under MPS
# (ctest's amo-3/amo-4/signal-3 ran into gshmrun's 120 s timeout there, with no output). Each case
# runs with line-buffered output and GSHMEM_DEBUG=INFO; after 25 s, a stack of every thread of every
# PE still running (gdb, if the machine has it), then it is stopped.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
B=$here/build/default
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15 GSHMEM_DEBUG=INFO GT_SHARE_GPUS=1
one() {  # name npes test
  local name=$1 n=$2 t=$3
  (LD_LIBRARY_PATH=$B/lib timeout 40 stdbuf -oL -eL $B/bin/gshmrun -n $n --timeout 35 -- stdbuf -oL -eL $B/bin/$t \
     > $R/$name.log 2>&1; echo "rc=$?" >> $R/$name.log) &
  local job=$!
  for i in $(seq 25); do sleep 1; kill -0 $job 2>/dev/null || break; done
  if kill -0 $job 2>/dev/null && command -v gdb >/dev/null; then
    for p in $(pgrep -f "$B/bin/$t"); do
      timeout 20 gdb -p $p -batch -ex "thread apply all bt" > $R/$name-gdb-$p.txt 2>&1
    done
  fi
  wait $job; echo "$name: $(tail -1 $R/$name.log)"
}
one nomps-amo-3 3 test_amo
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps3-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps3-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
one mps-amo-2 2 test_amo
one mps-amo-3 3 test_amo
one mps-signal-3 3 test_signal
one mps-rma_put-3 3 test_rma_put
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
cp -r $CUDA_MPS_LOG_DIRECTORY $R/mps-log
pack

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; 2 PEs share it under a user-level MPS daemon): gshmem-perf builds of the
# variants VARS (default "A V1"; build/cmp<V>.tar.xz from mkvar.sh), alternated, twice: device
# reducescatter and reduction at thread and warp scope, 4 B - 16 KiB (or PERF_ARGS).
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
VARS=${VARS:-A V1}
for v in $VARS; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsr-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsr-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
if [[ -n ${PERF_ARGS:-} ]]; then read -r -a P <<< "$PERF_ARGS"; else
  P=(reducescatter reduction -s thread,warp -b 4 -e 16K -f 2)
fi
for rep in 1 2; do for v in $VARS; do
  B=$here/build/cmp$v
  LD_LIBRARY_PATH=$B/lib GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/bin/gshmrun -n 2 --timeout 95 -- \
    $B/bin/gshmem-perf "${P[@]}" --no-nccl --json $R/perf-$v-$rep.jsonl > $R/perf-$v-$rep.log 2>&1
  echo "perf $v rep=$rep rc=$? $(el)"
done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

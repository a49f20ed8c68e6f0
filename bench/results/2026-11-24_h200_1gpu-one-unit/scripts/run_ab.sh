#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; 2 PEs share it under a user-level MPS daemon): builds of gshmem-perf,
# gshmem-put-block-probe, gshmrun and libgshmem, one per variant (VARS, default "A B";
# build/cmp<V>.tar.xz), alternated, twice: gshmem-perf's put/get latency and put ping-pongs of
# 1-64 bytes (MAXSIZE) at thread, warp and block scope (or PERF_ARGS), then the put-block probe
# (unless NOPROBE=1). A is HEAD (the CI clone's build); the others are named in ../README.md.
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
VARS=${VARS:-A B}
for v in $VARS; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsu-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsu-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
if [[ -n ${PERF_ARGS:-} ]]; then read -r -a P <<< "$PERF_ARGS"; else
  P=(put_latency get_latency pingpong_put pingpong_put_signal -s thread,warp,block -b 1 -e ${MAXSIZE:-64} -f 2)
fi
for rep in 1 2; do for v in $VARS; do
  B=$here/build/cmp$v
  LD_LIBRARY_PATH=$B/lib GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/bin/gshmrun -n 2 --timeout 95 -- \
    $B/bin/gshmem-perf "${P[@]}" --no-nccl --json $R/perf-$v-$rep.jsonl > $R/perf-$v-$rep.log 2>&1
  echo "perf $v rep=$rep rc=$? $(el)"
done; done
pack
[[ ${NOPROBE:-0} == 1 ]] || for rep in 1 2; do for v in $VARS; do
  B=$here/build/cmp$v
  LD_LIBRARY_PATH=$B/lib timeout 120 $B/bin/gshmrun -n 2 --timeout 115 -- $B/bin/gshmem-put-block-probe \
    > $R/probe-$v-$rep.txt 2>&1
  echo "probe $v rep=$rep rc=$? $(el)"
done; done
echo quit | nvidia-cuda-mps-control
pack

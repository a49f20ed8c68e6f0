#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; 2 PEs share it under MPS): the LL-sized device collectives of f477b18's
# gshmem-perf and library (base/) against this change's (new/), alternated REPS times:
# broadcast, fcollect, alltoall and reduction at thread, warp and block scope, 4 B - 1 KiB.
# Carry build/llab.tar.xz: bin/gshmrun, {base,new}/bin/gshmem-perf, {base,new}/lib/libgshmem.so*.
set -u
D=/tmp/llab-$$; mkdir -p $D && tar -C $D -xJf ${CARRY:-build/llab.tar.xz}
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15 CUDA_VISIBLE_DEVICES=0
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/llab-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/llab-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
for rep in $(seq 1 ${REPS:-2}); do for v in base new; do
  LD_LIBRARY_PATH=$D/$v/lib GSHMEM_PERF_SHARE_GPUS=1 timeout 150 $D/bin/gshmrun -n 2 --timeout 140 -- \
    $D/$v/bin/gshmem-perf broadcast fcollect alltoall reduction -s thread,warp,block -b 4 -e 1K -f 4 --no-nccl \
    --json $R/d-$v-$rep.jsonl > $R/d-$v-$rep.log 2>&1
  echo "$v rep=$rep rc=$? $(el) $(grep -c '"verified":true' $R/d-$v-$rep.jsonl) verified"
  tar -C $OUT -czf $OUT/all.tar.gz r
done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'

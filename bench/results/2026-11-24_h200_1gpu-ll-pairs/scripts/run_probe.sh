#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; PES share it under a user-level MPS daemon): the small-collective
# probe (perftest/probe/coll_small_probe.cu, built once per header variant by
# scripts/mkprobe.sh into build/llp.tar.xz) for each variant of VARS, alternated, REPS times: alltoall, fcollect and
# broadcast at warp, 128-thread and 1024-thread block scope, SIZES bytes a message.
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
VARS=${VARS:-H P}; REPS=${REPS:-2}; PES=${PES:-2 4}; SIZES=${SIZES:-4 8 32 64 128 256}
rm -rf build/llp; mkdir -p build/llp; tar -C build/llp -xJf build/llp.tar.xz
B=$here/build/llp/pk
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsq-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsq-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
for rep in $(seq 1 $REPS); do for n in $PES; do for v in $VARS; do
  LD_LIBRARY_PATH=$B/lib GT_SHARE_GPUS=1 timeout 100 $B/bin/gshmrun -n $n --timeout 95 -- \
    $B/bin/probe_$v $v $SIZES --scopes warp,blk128,blk1024 --ops alltoall,fcollect,broadcast >> $R/probe-$rep.txt 2>> $R/probe-err.txt || echo "probe $v n=$n rep=$rep rc=$?"
done; echo "rep=$rep n=$n done $(el)"; done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

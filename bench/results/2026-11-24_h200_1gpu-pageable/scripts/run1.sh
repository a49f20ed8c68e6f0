#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): test_host_busy with its new cases (pageable buffers, long double
# reduction, broadcast; every case also with the application's kernel on the legacy default
# stream), against the parent's library (lib-parent/, CI's build of 0945660) and this change's
# (lib/), GSHMEM_DEBUG_CHECKS 0 and 1; at 1 PE alone and at 2-4 PEs sharing the GPU under MPS.
# build/carry.tar.xz: hb/bin/{gshmrun,test_host_busy}, hb/lib/, hb/lib-parent/.
set -u
D=/tmp/hb-$$; mkdir -p $D && tar -C $D -xJf build/carry.tar.xz
B=$D/hb/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
one() {  # one <lib dir name> <checks> <npes> <log>
  LD_LIBRARY_PATH=$D/hb/$1 GSHMEM_DEBUG_CHECKS=$2 timeout 90 $B/gshmrun -n $3 --timeout 85 -- $B/test_host_busy > $R/$4 2>&1
  echo "$4 rc=$? $(el) $(grep -c 'checks passed' $R/$4) PEs passed; waited: $(grep -ho 'host [a-z_]* took [0-9.]* ms and returned only after the application.s kernel on [a-z ]*stream' $R/$4 | sed 's/ and returned only after the application.s kernel on / | /' | sort | uniq -c | tr '\n' ';')"
}
for lib in lib-parent lib; do for c in 0 1; do one $lib $c 1 host_busy-1pe-$lib-checks$c.txt; done; done
pack
export CUDA_MPS_PIPE_DIRECTORY=/tmp/hb-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/hb-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
export GT_SHARE_GPUS=1
for n in 2 3 4; do for c in 0 1; do one lib $c $n host_busy-${n}pe-mps-lib-checks$c.txt; done; done
one lib-parent 1 2 host_busy-2pe-mps-lib-parent-checks1.txt
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

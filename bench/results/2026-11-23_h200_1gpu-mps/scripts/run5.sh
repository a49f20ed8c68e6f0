#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the change's build. 1) ctest -L gpu on the one GPU; 2) under MPS,
# 2 and 4 PEs on the one GPU: the on-stream collectives and reductions in a CUDA graph, this
# build's library against HEAD's (build/base, same gshmem-perf), two runs each; 3) the
# multi-PE GPU tests under MPS (correctness only). Everything in $OUT/all.tar.gz.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base; tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
R=/tmp/r5-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
(cd /work/main/build/default && timeout 150 ctest -L gpu --output-on-failure --timeout 60 > $R/ctest-1gpu.log 2>&1; echo "ctest rc=$?" >> $R/ctest-1gpu.log)
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps5-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps5-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
run() {  # run <label> <npes> <env...> -- <perf args>
  local label=$1 n=$2; shift 2; local e=(); while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  env "${e[@]}" GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n $n --timeout 95 -- $B/gshmem-perf "$@" --no-nccl \
    --json $R/$label.jsonl > $R/$label.log 2>&1
  echo "$label rc=$?"
}
C=(alltoall_on_stream broadcast_on_stream fcollect_on_stream reduction_on_stream reducescatter_on_stream -e 4M -f 4 --graph)
for rep in 1 2; do
  run g-base-$rep 2 LD_LIBRARY_PATH=$BASE -- "${C[@]}"
  run g-new-$rep 2 -- "${C[@]}"
done
run g4-base 4 LD_LIBRARY_PATH=$BASE -- "${C[@]}" -e 1M
run g4-new 4 -- "${C[@]}" -e 1M
run s-base 2 LD_LIBRARY_PATH=$BASE -- "${C[@]:0:5}" -e 1M -n 50 -r 5
run s-new 2 -- "${C[@]:0:5}" -e 1M -n 50 -r 5
run dev-new 2 -- broadcast fcollect alltoall reduction reducescatter -s block -e 64K -f 4
(cd /work/main/build/default && GT_SHARE_GPUS=1 timeout ${BUDGET:-300} ctest -L gpu -R '.*-[234]$' -E '^(launch|kill_in_barrier)-' --output-on-failure --timeout 90 > $R/ctest-mps.log 2>&1; echo "ctest rc=$?" >> $R/ctest-mps.log)
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .
grep -E "tests passed|Total Test|ctest rc" $R/ctest-1gpu.log
grep -E "tests passed|Total Test|ctest rc|\*\*\*Failed|Timeout" $R/ctest-mps.log | tail -30

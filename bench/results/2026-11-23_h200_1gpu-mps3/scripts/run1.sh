#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call 1 (one H200, MPS): the reductions' push buffers over the whole scratch, 16
# push slots sharing one epoch, a lone group taking every slot at once; against HEAD's
# library (build/base: libgshmem of 9e04c8a). Everything in $OUT/all.tar.gz.
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default build/base; tar -C build -xf build/carry.tar.xz; tar -C build -xf build/base.tar.xz
B=/work/main/build/default/bin
BASE=/work/main/build/base
R=/tmp/r1-$$; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps1-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps1-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s]"; }
run() {  # run <label> <npes> <env...> -- <perf args>
  local label=$1 n=$2; shift 2; local e=(); local perf=$B/gshmem-perf
  while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  env "${e[@]}" GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n $n --timeout 95 -- $perf "$@" --no-nccl \
    --json $R/$label.jsonl > $R/$label.log 2>&1
  echo "$label rc=$? $(el)"
}
tst() {  # tst <label> <npes> <env...> -- <binary>
  local label=$1 n=$2; shift 2; local e=(); while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  env "${e[@]}" GT_SHARE_GPUS=1 timeout 150 $B/gshmrun -n $n --timeout 145 -- "$@" > $R/$label.log 2>&1
  echo "$label rc=$? $(el): $(grep -hE 'checks passed|checks failed|FAIL' $R/$label.log | head -1)"
}
$B/test_scratch_layout > $R/scratch_layout.log 2>&1; echo "scratch_layout rc=$?"
# Device scope (one group per PE): 4 KiB - 1 MiB, the push path's 1-16 slots and the pull path.
D=(reduction reducescatter -s block,warp -b 4K -e 1M -f 2)
run d-new 2 -- "${D[@]}"
run d-new-s256k 2 GSHMEM_TEAM_SCRATCH_SIZE=256K -- reduction reducescatter -s block -b 4K -e 1M -f 2
# On-stream in a graph: HEAD's library, this change, and this change with the push path
# held to 64 KiB (scratch 256 KiB) and stretched to 1 MiB (scratch 4 MiB); 2 PEs twice, 4 PEs once.
G=(reduction_on_stream reducescatter_on_stream -b 4K -e 1M -f 2 --graph)
for rep in 1 2; do
  run g-base-$rep 2 LD_LIBRARY_PATH=$BASE -- "${G[@]}"
  run g-new-$rep 2 -- "${G[@]}"
  run g-s256k-$rep 2 GSHMEM_TEAM_SCRATCH_SIZE=256K -- "${G[@]}"
  run g-s4m-$rep 2 GSHMEM_TEAM_SCRATCH_SIZE=4M -- "${G[@]}"
done
run g4-base 4 LD_LIBRARY_PATH=$BASE -- "${G[@]}"
run g4-new 4 -- "${G[@]}"
run g4-s4m 4 GSHMEM_TEAM_SCRATCH_SIZE=4M -- "${G[@]}"
tst reduce-2 2 GSHMEM_REDUCE_CTAS=16 -- $B/test_reduce
tst reducescatter-3 3 GSHMEM_REDUCE_CTAS=3 -- $B/test_reducescatter
echo quit | nvidia-cuda-mps-control
sleep 1
tar -C $R -czf $OUT/all.tar.gz .

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; PES share it under a user-level MPS daemon), two builds alternated
# REPS times:
#  1. the small-collective probe (perftest/probe/coll_small_probe.cu) of PVARS, built per
#     header variant by ../../2026-11-24_h200_1gpu-ll-pairs/scripts/mkprobe.sh into
#     build/llp.tar.xz: sum-reduce of floats at warp, 128- and 1024-thread block scope;
#  2. gshmem-perf of VARS (build/cmp<V>.tar.xz, by scripts/mkred.sh): device reduction and
#     reducescatter of floats and doubles at warp and block scope, 4 B - 1 KiB by powers of
#     two and 12 B - 972 B by powers of three;
#  3. (onstream) gshmem-perf of VARS: on-stream reduction and reducescatter in a CUDA graph, floats
#     and doubles, 4 B - 1 KiB.
# STEPS picks (probe perf; onstream only when named).
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
PVARS=${PVARS:-H V}; VARS=${VARS:-RH RV}; REPS=${REPS:-2}; PES=${PES:-2 3 4}
SIZES=${SIZES:-4 8 16 32 64 128 256}
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsr-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsr-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for s in ${STEPS:-probe perf}; do case $s in
probe)
  rm -rf build/llp; mkdir -p build/llp; tar -C build/llp -xJf build/llp.tar.xz
  P=$here/build/llp/pk
  for rep in $(seq 1 $REPS); do for n in $PES; do for v in $PVARS; do
    LD_LIBRARY_PATH=$P/lib GT_SHARE_GPUS=1 timeout 100 $P/bin/gshmrun -n $n --timeout 95 -- \
      $P/bin/probe_$v $v $SIZES --scopes warp,blk128,blk1024 --ops reduce >> $R/probe-$rep.txt 2>> $R/probe-err.txt \
      || echo "probe $v n=$n rep=$rep rc=$?"
  done; echo "probe rep=$rep n=$n done $(el)"; done; done; pack ;;
perf)
  for v in $VARS; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
  perf() {  # variant rep pes args...
    local v=$1 rep=$2 n=$3; shift 3
    local C=$here/build/cmp$v
    LD_LIBRARY_PATH=$C/lib GSHMEM_PERF_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 100 \
      $C/bin/gshmrun -n $n --timeout 95 -- $C/bin/gshmem-perf reduction reducescatter -s warp,block \
      -d float,double "$@" --no-nccl --json $R/perf-$v-$n-$rep.jsonl >> $R/perf-$v-$n-$rep.log 2>&1 \
      || echo "perf $v n=$n rep=$rep $* rc=$?"
  }
  for rep in $(seq 1 $REPS); do for n in ${PPES:-2 4}; do for v in $VARS; do
    perf $v $rep $n -b 4 -e 1K -f 2
    perf $v $rep $n -b 12 -e 972 -f 3
    echo "perf $v n=$n rep=$rep done $(el)"
  done; pack; done; done ;;
onstream)  # the library's on-stream reductions (its kernels are blocks), in a CUDA graph
  for v in $VARS; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
  for rep in $(seq 1 $REPS); do for n in ${PPES:-2 4}; do for v in $VARS; do
    C=$here/build/cmp$v
    LD_LIBRARY_PATH=$C/lib GSHMEM_PERF_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 100 \
      $C/bin/gshmrun -n $n --timeout 95 -- $C/bin/gshmem-perf reduction_on_stream reducescatter_on_stream --graph \
      -d float,double -b 4 -e 1K -f 2 --no-nccl --json $R/perf-$v-$n-$rep.jsonl >> $R/perf-$v-$n-$rep.log 2>&1 \
      || echo "onstream $v n=$n rep=$rep rc=$?"
    echo "onstream $v n=$n rep=$rep done $(el)"
  done; pack; done; done ;;
esac; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

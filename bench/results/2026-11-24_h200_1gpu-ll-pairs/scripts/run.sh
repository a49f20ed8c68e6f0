#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; 2-4 PEs share it under a user-level MPS daemon):
#  1. the collective tests through ctest as CI defines them (build/tests.tar.xz, made by
#     ../../2026-11-24_h200_1gpu-ll-tail/scripts/pack_tests.sh from this checkout's build);
#  2. gshmem-perf of VARS (build/cmp<V>.tar.xz) alternated, REPS times, at 2, 3 and 4 PEs:
#     broadcast, fcollect and alltoall at thread, warp and block scope and on a stream (in a
#     CUDA graph), 4 B - 1 KiB by powers of two, then 12 B - 1 KiB by powers of three (12, 36, 108,
#     324, 972: messages of an odd number of words).
# STEPS picks (tests perf).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0
VARS=${VARS:-FIN P}
REPS=${REPS:-2}
PES=${PES:-2 4}
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsp-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
for s in ${STEPS:-tests perf}; do case $s in
tests)
  rm -rf build/default; tar -C build -xJf build/tests.tar.xz
  (cd build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 300 ctest -L gpu \
    -R '^((coll_ll|coll_ll_4k|coll_collect|coll_alltoall)-[234]|coll_bcast-2)$' \
    --output-on-failure --timeout 150 > $R/ctest-mps.log 2>&1)
  echo "ctest-mps rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"
  B=build/default/bin
  for n in 2 3 4; do
    GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 GSHMEM_WAIT_TIMEOUT=60 GSHMEM_LL_MAX_BYTES=32 timeout 150 \
      $B/gshmrun -n $n --timeout 140 -- $B/test_coll_ll > $R/ll32-test_coll_ll-$n.log 2>&1
    echo "ll32 test_coll_ll -n $n rc=$? $(el) $(tail -1 $R/ll32-test_coll_ll-$n.log)"
  done; pack ;;
perf)
  for v in $VARS; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
  perf() {  # variant rep pes args...
    local v=$1 rep=$2 n=$3; shift 3
    local C=$here/build/cmp$v
    LD_LIBRARY_PATH=$C/lib GSHMEM_PERF_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 GSHMEM_WAIT_TIMEOUT=15 timeout 100 \
      $C/bin/gshmrun -n $n --timeout 95 -- $C/bin/gshmem-perf "$@" --no-nccl \
      --json $R/perf-$v-$n-$rep.jsonl >> $R/perf-$v-$n-$rep.log 2>&1 || echo "perf $v n=$n rep=$rep $* rc=$?"
  }
  for rep in $(seq 1 $REPS); do for n in $PES; do for v in $VARS; do
    perf $v $rep $n broadcast fcollect alltoall -s thread,warp,block -b 4 -e 1K -f 2
    perf $v $rep $n broadcast_on_stream fcollect_on_stream alltoall_on_stream --graph -b 4 -e 1K -f 2
    perf $v $rep $n broadcast fcollect alltoall -s thread,warp,block -b 12 -e 1K -f 3
    echo "perf $v n=$n rep=$rep done $(el)"
  done; pack; done; done ;;
esac; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

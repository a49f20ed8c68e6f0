#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200; 2-4 PEs share it under a user-level MPS daemon): the collective tests
# that run the LL reductions (build/tests.tar.xz: build/default with only their programs, made
# by pack_tests.sh), through ctest as CI defines them, then test_coll_ll and test_reduce with
# GSHMEM_LL_MAX_BYTES=32 (8 words a sender: a lone thread's reductions by kLLThreadBatch
# words only); then gshmem-perf A against FIN (build/cmp<V>.tar.xz): the lone thread's LL
# broadcast, fcollect and alltoall (their receive tail changed with FIN's ll_wait_words).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default; tar -C build -xJf build/tests.tar.xz
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsu-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsu-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
(cd build/default && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout 360 ctest -L gpu \
  -R '^((coll_ll|coll_ll_4k|reduce|reduce_ll4k|reducescatter|coll_collect|coll_alltoall)-[234]|coll_bcast-2)$' \
  --output-on-failure --timeout 150 > $R/ctest-mps.log 2>&1)
echo "ctest-mps rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"; pack
B=build/default/bin
for n in 2 3 4; do for t in test_coll_ll test_reduce; do
  GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 GSHMEM_WAIT_TIMEOUT=60 GSHMEM_LL_MAX_BYTES=32 timeout 150 \
    $B/gshmrun -n $n --timeout 140 -- $B/$t > $R/ll32-$t-$n.log 2>&1
  echo "ll32 $t -n $n rc=$? $(el) $(tail -1 $R/ll32-$t-$n.log)"
done; done; pack
for v in ${VARS:-A FIN}; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
for rep in 1 2; do for v in ${VARS:-A FIN}; do
  C=$here/build/cmp$v
  LD_LIBRARY_PATH=$C/lib GSHMEM_PERF_SHARE_GPUS=1 GSHMEM_WAIT_TIMEOUT=15 timeout 100 $C/bin/gshmrun -n 2 --timeout 95 -- \
    $C/bin/gshmem-perf broadcast fcollect alltoall -s thread,warp,block -b 4 -e 1K --no-nccl \
    --json $R/perf-$v-$rep.jsonl > $R/perf-$v-$rep.log 2>&1
  echo "perf $v rep=$rep rc=$? $(el)"
done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

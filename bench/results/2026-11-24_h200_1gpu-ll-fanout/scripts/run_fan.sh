#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, 2-4 PEs under a user-level MPS daemon): gshmem-perf's device
# broadcast, fcollect and alltoall at thread and block scope, HEAD's build (build/cmpA.tar.xz:
# the CI clone's gshmem-perf, gshmrun and libgshmem) against the fan-out build (cmpB.tar.xz, the
# same and the collective tests), alternated, twice; then the fan-out build's collective tests.
set -u
here=$PWD
R=$OUT/r; mkdir -p $R
for v in A B; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsc-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsc-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
P=(broadcast fcollect alltoall -s thread,block -b 4 -e 1K -f 2)
for rep in 1 2; do for n in 4 3 2; do for v in A B; do
  B=$here/build/cmp$v
  LD_LIBRARY_PATH=$B/lib GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/bin/gshmrun -n $n --timeout 95 -- $B/bin/gshmem-perf "${P[@]}" \
    --no-nccl --json $R/$v-$n-$rep.jsonl > $R/$v-$n-$rep.log 2>&1
  echo "perf $v n=$n rep=$rep rc=$? $(el)"
done; done; done
pack
B=$here/build/cmpB
tst() {  # tst <label> <npes> <env...> -- <test>
  local label=$1 n=$2; shift 2; local e=(); while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  (cd $R && env "${e[@]}" LD_LIBRARY_PATH=$B/lib GT_SHARE_GPUS=1 timeout 90 $B/bin/gshmrun -n $n --timeout 85 -- $B/bin/$1 > $R/$label.log 2>&1)
  echo "$label rc=$? $(el): $(grep -hE 'checks passed|checks failed|FAIL' $R/$label.log | head -2 | tr '\n' ' ')"
}
for n in 2 3 4; do
  tst coll_ll-$n $n -- test_coll_ll
  tst coll_ll_1k-$n $n GSHMEM_LL_MAX_BYTES=1K -- test_coll_ll
  tst coll_collect-$n $n -- test_coll_collect
done
tst coll_bcast-2 2 -- test_coll_bcast
echo quit | nvidia-cuda-mps-control
pack

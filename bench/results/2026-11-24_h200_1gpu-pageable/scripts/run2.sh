#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the tests whose paths this change touched, with this change's library
# (build/carry.tar.xz: scripts/pack-build.sh of CI's build of 0945660 with the change built in
# it: libgshmem and test_host_busy), 2-4 PEs sharing the GPU under MPS:
#  - the host cases of coll_errors and reduce_errors (the drivers, less their device cases,
#    whose kernels trap on purpose and would take the MPS server down): the argument exchange
#    and the agreement check report mismatches through the new path;
#  - ctest: team, team_sync(_dissemination) (team split exchanges through the same gather),
#    host_busy(_checks), reduce, reducescatter, coll_collect, coll_alltoall, coll_bcast-2.
set -u
here=$PWD; at=/tmp/ci42
[[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
B=$here/build/default/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15 GT_SHARE_GPUS=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/r2-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/r2-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
grep -v '^  "dev_\|^  "late_' tests/functional/coll_errors.sh > /tmp/ce-host.sh
sed '/^run device_overlap/,/^lines device_mismatch/d' tests/functional/reduce_errors.sh > /tmp/re-host.sh
for n in 2 3 4; do
  LD_LIBRARY_PATH=build/default/lib timeout 200 bash /tmp/ce-host.sh $B/gshmrun $B/test_coll_errors $n > $R/coll_errors-host-$n.txt 2>&1
  echo "coll_errors host cases n=$n rc=$? $(el) $(grep -c '^---- case' $R/coll_errors-host-$n.txt) cases; $(grep -c FAIL $R/coll_errors-host-$n.txt) FAIL lines"
  LD_LIBRARY_PATH=build/default/lib timeout 200 bash /tmp/re-host.sh $B/gshmrun $B/test_reduce_errors $n > $R/reduce_errors-host-$n.txt 2>&1
  echo "reduce_errors host cases n=$n rc=$? $(el) $(grep -c '^---- ' $R/reduce_errors-host-$n.txt) cases; $(grep -c FAIL $R/reduce_errors-host-$n.txt) FAIL lines"
done
pack
(cd build/default && GSHMEM_REDUCE_CTAS=16 timeout 400 ctest -L gpu \
  -R '^(team|team_sync|team_sync_dissemination|host_busy|host_busy_checks|reduce|reducescatter|coll_collect|coll_alltoall)-[234]$|^coll_bcast-2$' \
  --output-on-failure --timeout 150 > $R/ctest-mps.log 2>&1)
echo "ctest-mps rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/ctest-mps.log)"
grep -E "Test +#" $R/ctest-mps.log | grep -v Passed
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
pack

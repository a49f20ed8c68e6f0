#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the tests of the changed paths (rma_put, rma_get, signal) at 2 PEs under
# compute-sanitizer memcheck, one sanitizer per PE, the PEs sharing the GPU under a user-level MPS
# daemon. The build is this checkout's (build/carry.tar.xz, as run_tests.sh).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default; tar -C build -xf build/carry.tar.xz
B=/work/main/build/default/bin
R=$OUT/r; mkdir -p $R
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "sanitizer: $CS $($CS --version | tail -1)"
export NCCL_NVLS_ENABLE=0 GT_SHARE_GPUS=1 GSHMEM_WAIT_TIMEOUT=200
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsm-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsm-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
cd $B/../tests/functional 2>/dev/null || cd $R
for t in ${TESTS:-test_signal test_rma_put test_rma_get}; do
  timeout ${PER_TEST_S:-240} $B/gshmrun -n 2 --timeout $(( ${PER_TEST_S:-240} - 5 )) -- \
    $CS --tool memcheck --error-exitcode 86 $B/$t > $R/memcheck-$t.log 2>&1
  rc=$?
  pkill -f compute-sanitizer; pkill -f "$B/$t"
  echo "$t rc=$rc $(el): $(grep -hE 'ERROR SUMMARY' $R/memcheck-$t.log | sort | uniq -c | tr '\n' ' ') $(grep -hE 'checks passed|checks failed|FAIL' $R/memcheck-$t.log | head -2 | tr '\n' ' ')"
done
echo quit | nvidia-cuda-mps-control
tar -C $OUT -czf $OUT/all.tar.gz r

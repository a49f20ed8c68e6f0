#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): GPU tests through ctest with the build configured as
#   cmake -DGSHMEM_TEST_WRAPPER="compute-sanitizer;--tool;memcheck;--error-exitcode;86" \
#         -DGSHMEM_TEST_TIMEOUT=600 build/default
# (carried as build/carry_w.tar.xz), the PEs sharing the GPU under a user-level MPS daemon.
#   [BUILD_ROOT=<the checkout that built it, default /work/main>] ctest_wrapped.sh <ctest -R regex> [ctest args]
set -u
here=$PWD
root=${BUILD_ROOT:-/work/main}
[[ -e $root ]] || { mkdir -p "$(dirname "$root")" && ln -s "$here" "$root"; }
rm -rf build/default; tar -C build -xf build/carry_w.tar.xz
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 GT_SHARE_GPUS=1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsw-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsw-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
re=$1; shift
(cd build/default && timeout 540 ctest -R "$re" -V "$@" > $R/ctest-wrapped.log 2>&1)
echo "ctest rc=$?"
echo quit | nvidia-cuda-mps-control
grep -E "Test +#|tests passed|tests failed" $R/ctest-wrapped.log
grep -hE "ERROR SUMMARY" $R/ctest-wrapped.log | sort | uniq -c
tar -C $OUT -czf $OUT/all.tar.gz r

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (2 x H200, NV18): this checkout's build (build/carry.tar.xz, made by
# scripts/pack-build.sh from build/default, with gshmem-perf-nvshmem): the whole suite at 2 PEs with
# NCCL and NVSHMEM, the put-block probe twice, then `ctest -L gpu` with a GPU per PE (STEPS picks).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default; tar -C build -xJf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nvidia-smi --query-gpu=index,name,driver_version --format=csv > $R/gpus.txt 2>&1
STEPS=${STEPS:-suite probe ctest}
B=$here/build/default
for s in $STEPS; do case $s in
suite)
  GSHMEM_GIT_REV=${REV:-cf7c2ec} OUT=$R timeout 330 perftest/run_suite.sh 2 > $R/run_suite-output.txt 2>&1
  echo "suite rc=$? $(el)"; tail -3 $R/run_suite-output.txt ;;
probe)
  for rep in 1 2; do
    LD_LIBRARY_PATH=$B/lib GSHMEM_WAIT_TIMEOUT=15 timeout 120 $B/bin/gshmrun -n 2 --timeout 115 -- \
      $B/bin/gshmem-put-block-probe > $R/probe-$rep.txt 2>&1
    echo "probe rep=$rep rc=$? $(el)"
  done ;;
ctest)
  (cd $B && timeout 400 ctest -L gpu --output-on-failure --timeout 150 > $R/gpu-tests-2gpu-ctest.log 2>&1)
  echo "ctest rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/gpu-tests-2gpu-ctest.log)" ;;
mps34)
  # 3 and 4 PEs on the 2 GPUs under MPS; the exclusions of the one-GPU runs (grids sized for a
  # whole GPU or a GPU per PE).
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps2-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mps2-log-$$
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
  sleep 1
  # MPS_R narrows the tests (a second run: the ones the first did not pass); every 20 s the
  # test processes still running and their kernel wait channel go to mps-ps.log.
  (while sleep 20; do date +%T; ps -eo pid,etime,stat,wchan:32,args | grep -E 'test_|gshmrun|mps' | grep -v grep; done \
    > $R/mps-ps.log 2>&1) & watch=$!
  (cd $B && GT_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16 timeout ${MPS_T:-420} ctest -L gpu -R "${MPS_R:-.*-[34]\$}" \
    -E '^(launch|kill_in_barrier|coll_bcast-[34]|compat_.*|perf_smoke)-?' --output-on-failure --timeout 150 \
    > $R/gpu-tests-3-4pe-mps-ctest.log 2>&1)
  echo "ctest-mps34 rc=$? $(el) $(grep -E 'tests passed|tests failed' $R/gpu-tests-3-4pe-mps-ctest.log)"
  kill $watch
  timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
  cp -r $CUDA_MPS_LOG_DIRECTORY $R/mps-log ;;
esac; pack; done

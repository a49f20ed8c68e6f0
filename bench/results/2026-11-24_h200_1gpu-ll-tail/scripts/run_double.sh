#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, 2 PEs under MPS): thread-scope reduction and reducescatter of doubles,
# A against FIN (build/cmp<V>.tar.xz), alternated twice; powers of two, then sizes with a
# partial last line.
set -u; here=$PWD; R=$OUT/r; mkdir -p $R
for v in A FIN; do rm -rf build/cmp$v; tar -C build -xJf build/cmp$v.tar.xz; done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsd-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsd-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d; sleep 1
for rep in 1 2; do for v in A FIN; do C=$here/build/cmp$v
  for a in "-b 8 -e 16K -f 2" "-b 24 -e 24" "-b 40 -e 40" "-b 56 -e 56" "-b 72 -e 72" "-b 120 -e 120" "-b 200 -e 200"; do
  LD_LIBRARY_PATH=$C/lib GSHMEM_PERF_SHARE_GPUS=1 GSHMEM_WAIT_TIMEOUT=15 timeout 60 $C/bin/gshmrun -n 2 --timeout 55 -- \
    $C/bin/gshmem-perf reduction reducescatter -s thread -d double $a --no-nccl --json $R/perf-$v-$rep.jsonl >> $R/perf-$v-$rep.log 2>&1 || echo "fail $v $a"
  done; echo "$v $rep done"; done; done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; tar -C $OUT -czf $OUT/all.tar.gz r

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): 2-4 PEs sharing the GPU under MPS with GSHMEM_COLL_CTAS=16, so that
# the host and on-stream collectives' kernels of every PE are resident at once:
#   - for each relay variant (<variant>/lib and its test_coll_bcast): test_coll_bcast at 3 and 4
#     PEs (every form and size; the relay from 256 KiB; 16 MiB - 4083 bytes, the taper's
#     pieces where GSHMEMI_RELAY_TAPER is set) and gshmem-perf's on-stream broadcast of
#     256 KiB - 64 MiB (results verified; times mean nothing here);
#   - the first variant's test_coll_bcast, test_coll_collect and test_coll_alltoall at 2-4 PEs,
#     also with GSHMEM_COLL_CTAS=3 (fewer CTAs than pieces).
# ${CARRY:-build/carry.tar.xz}: bin/{gshmrun,gshmem-perf}, <variant>/{lib,bin/test_coll_*}
# (gshmem-perf's on-stream broadcast is the library's kernel: one gshmem-perf serves all).
set -u
D=/tmp/mr-$$; mkdir -p $D && tar -C $D -xJf ${CARRY:-build/carry.tar.xz}
R=$OUT/r; mkdir -p $R
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_VISIBLE_DEVICES=0 GSHMEM_WAIT_TIMEOUT=60 GT_SHARE_GPUS=1 GSHMEM_PERF_SHARE_GPUS=1
export GSHMEM_REDUCE_CTAS=16 GSHMEM_COLL_CTAS=16
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mr-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mr-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
# run <log> <variant> <npes> <timeout> <program> [args]: one job, its summary line.
run() {
  local log=$1 v=$2 n=$3 t=$4; shift 4
  LD_LIBRARY_PATH=$D/$v/lib timeout $t $D/bin/gshmrun -n $n --timeout $((t - 5)) -- "$@" > $R/$log.txt 2>&1
  local rc=$?
  echo "$log rc=$rc $(el) $(grep -ho 'PE [0-9]*: [0-9]* checks passed' $R/$log.txt | tr '\n' ' ')"
  tar -C $OUT -czf $OUT/all.tar.gz r  # what a call cut short did comes back too
}
variants=(${VARIANTS:-t0 t2})
for v in "${variants[@]}"; do
  for n in 3 4; do
    run bcast-$v-$n $v $n 120 $D/$v/bin/test_coll_bcast
    run perf-$v-$n $v $n 60 $D/bin/gshmem-perf broadcast_on_stream -b 256K -e 64M -f 4 -n 5 -w 2 --no-nccl \
      --json $R/perf-$v-$n.jsonl
    echo "  verified $(grep -c '"verified":true' $R/perf-$v-$n.jsonl) of $(grep -c '"type":"result"' $R/perf-$v-$n.jsonl)"
  done
done
v=${variants[0]}
for c in 3 16; do
  for t in coll_collect coll_alltoall coll_bcast; do
    for n in 2 3 4; do
      [[ $c == 16 && $t == coll_bcast && $n != 2 ]] && continue  # above
      GSHMEM_COLL_CTAS=$c run $t-ctas$c-$n $v $n 120 $D/$v/bin/test_$t
    done
  done
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C $OUT -czf $OUT/all.tar.gz r

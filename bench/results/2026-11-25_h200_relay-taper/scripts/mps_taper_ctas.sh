#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): does the taper's cost under MPS come from the CTAs' number of lanes?
# gshmem-perf's on-stream broadcast of 16 and 64 MiB at 3 PEs sharing GPU 0 under MPS, with
# GSHMEM_COLL_CTAS 16, 32 and 44 (each CTA walks 4, 2 or 1-2 of the 64 lanes; 3 x 44 CTAs of
# 1024 threads fill the 132 SMs) and the libraries of taper 0, 1 and 2, alternated twice.
# ${CARRY:-build/relay-ab.tar.xz}: bin/{gshmrun,gshmem-perf}, <variant>/lib.
set -u
D=/tmp/mt-$$; mkdir -p $D && tar -C $D -xJf ${CARRY:-build/relay-ab.tar.xz}
R=$OUT/r; mkdir -p $R
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_VISIBLE_DEVICES=0 GSHMEM_WAIT_TIMEOUT=15 GSHMEM_PERF_SHARE_GPUS=1 GSHMEM_REDUCE_CTAS=16
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mt-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mt-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
# "size median_us" of each point of a run.
pts() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
  r=json.loads(l)
  if r.get("type")=="result": print("%dM %.1f%s" % (r["size"]>>20, r["lat_us_median"], "" if r["verified"] else " FAILED"), end="  ")' "$1" 2>/dev/null; }
for rep in 1 2; do
  for c in 16 32 44; do
    for v in t0 t1 t2; do
      GSHMEM_COLL_CTAS=$c LD_LIBRARY_PATH=$D/$v/lib timeout 60 $D/bin/gshmrun -n 3 --timeout 55 -- $D/bin/gshmem-perf \
        broadcast_on_stream -b 16M -e 64M -f 4 -n 20 -w 5 --no-nccl --json $R/c$c-$v-$rep.jsonl > $R/c$c-$v-$rep.txt 2>&1
      echo "ctas $c $v rep $rep rc=$? $(el) $(pts $R/c$c-$v-$rep.jsonl)"
    done
  done
  tar -C $OUT -czf $OUT/all.tar.gz r
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C $OUT -czf $OUT/all.tar.gz r

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (4 x H200, NV18): gshmem-perf's on-stream broadcast of 4-256 MiB at 4 and 3 PEs,
# NCCL timed in the same runs, with libraries that differ only in GSHMEMI_RELAY_TAPER (how many
# times the relay halves each lane's last chunk; coll_plan.cuh), loaded by the same gshmem-perf
# through LD_LIBRARY_PATH, alternated three times.
# ${CARRY:-build/carry.tar.xz}: bin/{gshmrun,gshmem-perf}, <variant>/lib.
set -u
D=/tmp/ab-$$; mkdir -p $D && tar -C $D -xJf ${CARRY:-build/carry.tar.xz}
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
# "size busbw/ratio" of each point of a run.
pts() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
  r=json.loads(l)
  if r.get("type")=="result": print("%dM %.1f/%.3f%s" % (r["size"]>>20, r["busbw_GBps"], r.get("ratio") or 0, "" if r["verified"] else " FAILED"), end="  ")' "$1" 2>/dev/null; }
for rep in 1 2 3; do
  for n in 4 3; do
    for v in ${VARIANTS:-t0 t1 t2}; do
      LD_LIBRARY_PATH=$D/$v/lib timeout 100 $D/bin/gshmrun -n $n --timeout 95 -- $D/bin/gshmem-perf \
        broadcast_on_stream -b 4M -e 256M -f 4 --json $R/$v-$n-$rep.jsonl > $R/$v-$n-$rep.txt 2>&1
      echo "$v $n PEs rep $rep rc=$? $(el) $(pts $R/$v-$n-$rep.jsonl)"
    done
  done
done
tar -C $OUT -czf $OUT/all.tar.gz r

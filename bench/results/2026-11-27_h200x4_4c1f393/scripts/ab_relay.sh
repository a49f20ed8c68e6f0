#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (4 x H200, NV18): the on-stream broadcast of 4-256 MiB at 4 and 3 PEs (NCCL timed
# in the same runs) with libraries that differ only in how the relay cuts a lane into chunks:
# src/host/coll/coll.cu compiled with GSHMEMI_RELAY_TAPER / GSHMEMI_RELAY_CHUNKS (coll_plan.cuh)
# and linked with the other objects of the build, loaded by the same gshmem-perf through
# LD_LIBRARY_PATH (its RUNPATH comes after it). Variants alternate, REPS rounds.
#   build/default          the build (unpacked from build/carry.tar.xz where that is here)
#   build/var.tar.xz       <variant>/libgshmem.so.0 for each variant but t0 (the build's own)
#   VARIANTS="t0 t1 ..." REPS=3 NPES_LIST="4 3" bash .../ab_relay.sh
set -u
if [[ -f build/carry.tar.xz ]]; then rm -rf build/default && tar -C build -xJf build/carry.tar.xz; fi
B=$PWD/build/default
V=/tmp/relay-var-$$
mkdir -p "$V" && tar -C "$V" -xJf build/var.tar.xz
R=${OUT:-$PWD/ab-out}/r/relay
mkdir -p "$R"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
if [[ -z ${NCCL_LIB:-} ]] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl.so.2 '; then  # as run_suite.sh
  d=$(python3 -c "import nvidia.nccl as m; print(list(m.__path__)[0])" 2>/dev/null)
  [[ -n $d && -e $d/lib/libnccl.so.2 ]] && export NCCL_LIB=$d/lib/libnccl.so.2
fi
t0=$(date +%s)
el() { echo "[$(($(date +%s) - t0)) s]"; }
# "size busbw/ratio-to-NCCL" of each point of a run (FAILED where a result was not verified).
pts() {
  python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("type") == "result":
        print("%dM %.1f/%.3f%s" % (r["size"] >> 20, r["busbw_GBps"], r.get("ratio") or 0,
                                   "" if r["verified"] else " FAILED"), end="  ")' "$1" 2>/dev/null
}
for rep in $(seq 1 "${REPS:-3}"); do
  for n in ${NPES_LIST:-4 3}; do
    for v in ${VARIANTS:-t0 t1 t2 t3 c8 c8t2}; do
      lib=$B/lib
      [[ $v == t0 ]] || lib=$V/$v
      LD_LIBRARY_PATH=$lib timeout 60 "$B/bin/gshmrun" -n "$n" --timeout 55 -- "$B/bin/gshmem-perf" \
        broadcast_on_stream -b 4M -e 256M -f 4 --json "$R/$v-$n-$rep.jsonl" >"$R/$v-$n-$rep.txt" 2>&1
      echo "$v $n PEs rep $rep rc=$? $(el) $(pts "$R/$v-$n-$rep.jsonl")"
    done
  done
done
tar -C "$R/../.." -czf "${OUT:-$PWD/ab-out}/relay.tar.gz" r/relay

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 33: reduce_room (new), the same test against ac10852 (old), reduction perf A/B, under MPS on GPU 0.
set -u
here=$PWD
for at in /work/main /tmp/ci53; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
t0=$SECONDS; el() { echo "$((SECONDS - t0))s"; }
mps_on() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe-$1 CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log-$1
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d || echo "MPS did not start"; sleep 1
}
mps_off() { timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'; sleep 1; }
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 GSHMEM_PERF_SHARE_GPUS=1
cuobjdump --dump-resource-usage "$B/lib/libgshmem.so.0" 2>&1 | grep -A1 "reduce_kernel" | grep -o "REG:[0-9]*" | sort | uniq -c | sort -rn | head -4
mps_on a
(cd "$B" && timeout 300 ctest -R '^reduce_room' -V --timeout 60 >"$R/room-new.log" 2>&1); echo "room new rc=$? $(el)"
grep -E "Passed|Failed|\*\*\*|checks|returned in|room for|ERROR|FAIL" "$R/room-new.log" | head -70
mps_off
for n in 2 3; do
  mps_on old$n
  GSHMEM_WAIT_TIMEOUT=15 timeout 60 "$B/bin/gshmrun" -n $n --timeout 50 -- \
    "$B/bin/test_reduce_room_old" >"$R/room-old-$n.log" 2>&1
  echo "room old n=$n rc=$? $(el)"; grep -E "ERROR|checks|returned in|FAIL" "$R/room-old-$n.log" | head -8
  mps_off
done
mps_on perf
for rep in 1 2; do
  for v in new old; do
    exe=$B/bin/gshmem-perf; lp=""
    [[ $v == old ]] && { exe=$B/bin/gshmem-perf-old; lp=$B/lib/old; }
    LD_LIBRARY_PATH=$lp timeout 150 "$B/bin/gshmrun" -n 2 --timeout 140 -- "$exe" reduction -s block,warp -d float -o sum \
      -b 64K -e 16M -f 4 --json "$R/dev-$v-$rep.jsonl" >"$R/dev-$v-$rep.txt" 2>&1; echo "dev $v $rep rc=$? $(el)"
    LD_LIBRARY_PATH=$lp timeout 150 "$B/bin/gshmrun" -n 2 --timeout 140 -- "$exe" reduction_on_stream reducescatter_on_stream \
      -d float -o sum -b 4 -e 64M -f 8 --json "$R/st-$v-$rep.jsonl" >"$R/st-$v-$rep.txt" 2>&1; echo "stream $v $rep rc=$? $(el)"
  done
done
mps_off
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r

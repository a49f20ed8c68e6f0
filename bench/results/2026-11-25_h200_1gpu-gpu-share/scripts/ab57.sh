#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 34: PEs sharing one GPU size the library's grids by their share. Under MPS on GPU 0:
# gpu_share-N, reduce-3/4 with the default CTAs against the previous library (old), perf A/B.
set -u
here=$PWD
for at in /work/main /tmp/ci56; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
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
export CUDA_VISIBLE_DEVICES=0 GT_SHARE_GPUS=1 GSHMEM_PERF_SHARE_GPUS=1 NCCL_NVLS_ENABLE=0
mps_on share
(cd "$B" && timeout 200 ctest -R '^gpu_share-' -V --timeout 100 >"$R/share.log" 2>&1); echo "gpu_share rc=$? $(el)"
grep -E "Passed|Failed|FAIL|PCI|skipped|passed" "$R/share.log" | head -30
mps_off
# reduce-3 and -4, default CTAs: new library, then the previous one (LD_LIBRARY_PATH).
for v in new old; do
  for n in 3 4; do
    mps_on r$v$n
    lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
    GSHMEM_WAIT_TIMEOUT=15 LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n $n --timeout 90 -- \
      "$B/bin/test_reduce" >"$R/reduce-$v-$n.log" 2>&1
    echo "reduce $v n=$n rc=$? $(el)"; grep -E "ERROR|checks|FAIL" "$R/reduce-$v-$n.log" | head -5
    mps_off
  done
done
mps_on perf
for rep in 1 2; do
  for v in new old; do
    lp=$B/lib; [[ $v == old ]] && lp=$B/lib/old
    LD_LIBRARY_PATH=$lp timeout 100 "$B/bin/gshmrun" -n 2 --timeout 90 -- "$B/bin/gshmem-perf" reduction_on_stream \
      reducescatter_on_stream -d float -o sum -b 4 -e 64M -f 8 --json "$R/st-$v-$rep.jsonl" >"$R/st-$v-$rep.txt" 2>&1
    echo "stream $v $rep rc=$? $(el)"
  done
done
mps_off
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
echo "ab57 done $(el)"

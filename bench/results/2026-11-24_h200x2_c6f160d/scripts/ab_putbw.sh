#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (2 x H200, NV18): device put_bw (block scope, 32 CTAs x 1024 threads, 16-256 MiB)
# of cf7c2ec's gshmem-perf, this commit's (c6f160d) and NVSHMEM's build of this commit's sources,
# alternated three times: is this run's 256 MiB put (355.7 GB/s against cf7c2ec's 371.1) the code
# or the machine? build/carry.tar.xz: old/{bin,lib} (cf7c2ec), new/{bin,lib} (c6f160d).
# MPS=1: on one GPU instead, the 2 PEs sharing it under MPS (local HBM copies, not NVLink: only a
# difference in the code path's own cost could show there).
set -u
D=/tmp/ab-$$; mkdir -p $D && tar -C $D -xJf build/carry.tar.xz
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15 NVSHMEM_SYMMETRIC_SIZE=8G
nv=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)/lib
args=(put_bw -s block -b 16M -e 256M -f 4 --no-nccl)
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
if [[ ${MPS:-0} == 1 ]]; then
  export GSHMEM_PERF_SHARE_GPUS=1 CUDA_MPS_PIPE_DIRECTORY=/tmp/ab-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/ab-log-$$
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
  sleep 1
fi
for rep in 1 2 3; do
  for v in old new nvshmem; do
    case $v in
      old) lib=$D/old/lib; perf=$D/old/bin/gshmem-perf; run=$D/old/bin/gshmrun ;;
      new) lib=$D/new/lib; perf=$D/new/bin/gshmem-perf; run=$D/new/bin/gshmrun ;;
      nvshmem) lib=$nv:$D/new/lib; perf=$D/new/bin/gshmem-perf-nvshmem; run=$D/new/bin/gshmrun ;;
    esac
    LD_LIBRARY_PATH=$lib timeout 100 $run -n 2 --timeout 95 -- $perf "${args[@]}" --json $R/$v-$rep.jsonl > $R/$v-$rep.txt 2>&1
    echo "$v rep $rep rc=$? $(el) $(grep -o '"size":268435456[^}]*"busbw_GBps":[0-9.]*' $R/$v-$rep.jsonl | grep -o 'busbw_GBps":[0-9.]*')"
  done
done
[[ ${MPS:-0} == 1 ]] && timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tar -C $OUT -czf $OUT/all.tar.gz r

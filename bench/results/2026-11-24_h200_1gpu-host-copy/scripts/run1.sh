#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, 2 PEs sharing it under MPS): the host copy probe and the host
# latency benchmarks with their new floor (a lone cudaMemcpyAsync), gshmem and NVSHMEM.
# The "remote" heap is on the same GPU here, so the copies do not cross NVLink: this checks
# the probe and the column, it does not measure the NVLink path.
# build/carry.tar.xz: bin/{gshmrun,gshmem-perf,gshmem-perf-nvshmem,gshmem-host-copy-probe}, lib/.
set -u
mkdir -p /tmp/hc && tar -C /tmp/hc -xJf build/carry.tar.xz
B=/tmp/hc/default/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15 LD_LIBRARY_PATH=/tmp/hc/default/lib
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/hc-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/hc-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
GSHMEM_PERF_SHARE_GPUS=1 timeout 120 $B/gshmrun -n 2 --timeout 115 -- $B/gshmem-host-copy-probe \
  > $R/host-copy-probe.txt 2>&1
echo "host-copy-probe rc=$? $(el)"; pack
for rep in 1 2; do
  GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n 2 --timeout 95 -- $B/gshmem-perf \
    host_put_latency host_get_latency -b 8 -e 4M -f 4 --json $R/gshmem-$rep.jsonl > $R/gshmem-$rep.txt 2>&1
  echo "gshmem-perf rep $rep rc=$? $(el)"
  nv=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)/lib
  LD_LIBRARY_PATH=$nv:$LD_LIBRARY_PATH GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n 2 --timeout 95 -- \
    $B/gshmem-perf-nvshmem host_put_latency host_get_latency -b 8 -e 4M -f 4 \
    --json $R/nvshmem-$rep.jsonl > $R/nvshmem-$rep.txt 2>&1
  echo "gshmem-perf-nvshmem rep $rep rc=$? $(el)"; pack
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tail -25 $R/host-copy-probe.txt; grep -h "latency\|^ " $R/gshmem-1.txt $R/nvshmem-1.txt | head -60
pack

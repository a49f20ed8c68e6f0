#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): the device reduction and reducescatter benchmarks after their kernels
# moved to a file per datatype (perftest/device/reduce_<datatype>.cu), gshmem-perf and
# gshmem-perf-nvshmem, 2 PEs sharing the GPU under MPS: every datatype, three operations, every
# scope; each result is verified by the benchmark (a wrong element fails the run).
# build/carry.tar.xz: perf/bin/{gshmrun,gshmem-perf,gshmem-perf-nvshmem}, perf/lib/.
set -u
D=/tmp/rp-$$; mkdir -p $D && tar -C $D -xJf build/carry.tar.xz
B=$D/perf/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15 LD_LIBRARY_PATH=$D/perf/lib GSHMEM_PERF_SHARE_GPUS=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/rp-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/rp-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
args=(reduction reducescatter -d int32,int64,float,double -o sum,xor,max -s all -b 8 -e 64K -f 8 -n 20 -w 2)
timeout 200 $B/gshmrun -n 2 --timeout 195 -- $B/gshmem-perf "${args[@]}" --json $R/gshmem.jsonl > $R/gshmem.txt 2>&1
echo "gshmem-perf rc=$? $(el) $(grep -c '"type":"result"' $R/gshmem.jsonl) results"
nv=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)
LD_LIBRARY_PATH=$nv/lib:$LD_LIBRARY_PATH timeout 200 $B/gshmrun -n 2 --timeout 195 -- $B/gshmem-perf-nvshmem "${args[@]}" \
  --no-nccl --json $R/nvshmem.jsonl > $R/nvshmem.txt 2>&1
echo "gshmem-perf-nvshmem rc=$? $(el) $(grep -c '"type":"result"' $R/nvshmem.jsonl 2>/dev/null) results"
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
tail -5 $R/gshmem.txt; tail -5 $R/nvshmem.txt
pack

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200, 2 PEs sharing it under MPS): which CUDA calls each library's host
# operations reduce to, seen from outside. gshmem-perf and gshmem-perf-nvshmem run a few
# iterations of the host RMA and on-stream benchmarks with scripts/api_trace.cpp injected
# (CUDA_INJECTION64_PATH: CUPTI callbacks on every driver and runtime API call), one trace
# file per process. build/carry.tar.xz: default/bin/{gshmrun,gshmem-perf,gshmem-perf-nvshmem},
# default/lib/, trace/{libapi_trace.so,libcupti.so.13}.
set -u
D=/tmp/at-$$; mkdir -p $D && tar -C $D -xJf build/carry.tar.xz
B=$D/default/bin
R=$OUT/r; mkdir -p $R/trace
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15 LD_LIBRARY_PATH=$D/default/lib:$D/trace
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/at-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/at-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
nv=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)/lib
# name, benchmarks and flags of each traced run
runs=(
  "rma host_put_latency,host_get_latency -b 8 -e 256K -f 32 -n 10 -w 2"
  "bar barrier_on_stream,sync_on_stream -n 10 -w 2 --no-nccl"
  "coll broadcast_on_stream,reduction_on_stream -b 4 -e 64M -f 16384 -n 5 -w 1 --no-nccl"
)
for lib in gshmem nvshmem; do
  exe=$B/gshmem-perf; lp=$LD_LIBRARY_PATH
  [[ $lib == nvshmem ]] && { exe=$B/gshmem-perf-nvshmem; lp=$nv:$LD_LIBRARY_PATH; }
  for r in "${runs[@]}"; do
    set -- $r; name=$1; benches=${2//,/ }; shift 2
    # untraced first: the same run's own timings, for the trace's overhead
    LD_LIBRARY_PATH=$lp GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n 2 --timeout 95 -- $exe $benches "$@" \
      > $R/$lib-$name-plain.txt 2>&1
    echo "$lib $name plain rc=$? $(el)"
    LD_LIBRARY_PATH=$lp GSHMEM_PERF_SHARE_GPUS=1 CUDA_INJECTION64_PATH=$D/trace/libapi_trace.so \
      API_TRACE_OUT=$R/trace/$lib-$name timeout 150 $B/gshmrun -n 2 --timeout 145 -- $exe $benches "$@" \
      > $R/$lib-$name-traced.txt 2>&1
    echo "$lib $name traced rc=$? $(el)"; pack
  done
done
timeout 10 bash -c 'echo quit | nvidia-cuda-mps-control'
ls -la $R/trace; grep -h "FAIL\|rror" $R/*.txt | head -20
pack

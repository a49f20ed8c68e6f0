# SPDX-License-Identifier: BSD-3-Clause
# Sourced by run*.sh (one device call each, one H200; 2-4 PEs share it under a user-level
# MPS daemon started here and stopped by mps_stop): unpacks the carried build, starts MPS,
# and defines run (gshmem-perf), tst (a functional test) and pack ($OUT/all.tar.gz).
set -u
here=$PWD
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$here" /work/main; }
rm -rf build/default; tar -C build -xf build/carry.tar.xz
B=/work/main/build/default/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=15
nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv > $R/machine.txt 2>&1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsl-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl-log-$$
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
sleep 1
mps_stop() { echo quit | nvidia-cuda-mps-control; }
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s]"; }
run() {  # run <label> <npes> <env...> -- <perf args>
  local label=$1 n=$2; shift 2; local e=()
  while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  env "${e[@]}" GSHMEM_PERF_SHARE_GPUS=1 timeout 100 $B/gshmrun -n $n --timeout 95 -- $B/gshmem-perf "$@" --no-nccl \
    --json $R/$label.jsonl > $R/$label.log 2>&1
  echo "$label rc=$? $(el)"
}
tst() {  # tst <label> <npes> <env...> -- <binary>
  local label=$1 n=$2; shift 2; local e=(); while [[ $1 != -- ]]; do e+=("$1"); shift; done; shift
  env "${e[@]}" GT_SHARE_GPUS=1 timeout 90 $B/gshmrun -n $n --timeout 85 -- "$@" > $R/$label.log 2>&1
  echo "$label rc=$? $(el): $(grep -hE 'checks passed|checks failed|FAIL' $R/$label.log | head -1)"
}

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (one H200): GPU tests under compute-sanitizer, each PE its own sanitizer
# process: gshmrun -n NPES -- compute-sanitizer --tool TOOL <test> (NPES default 2). The PEs
# share the one GPU (GT_SHARE_GPUS=1) under a user-level MPS daemon (MODE=timeshare: without
# it). The build is the CI clone's (/tmp/ci23), carried as build/carry.tar.xz.
#   san1.sh <tool> <test>[:ENV=V,ENV=V[:args]] ...   (a test: a name in the build's bin/, or a path)
# A test stopped by its time limit (PER_TEST_S, default 150) left the sanitizer's child process
# running and the MPS server refusing new clients (cudaErrorDevicesUnavailable at the next
# init, even 20 s later), so its processes are killed before the next test.
set -u
here=$PWD
[[ -e /tmp/ci23 ]] || ln -s "$here" /tmp/ci23
[[ -x build/default/bin/gshmrun ]] || { rm -rf build/default; tar -C build -xf build/carry.tar.xz; }
B=/tmp/ci23/build/default/bin
R=$OUT/r; mkdir -p $R
pack() { tar -C $OUT -czf $OUT/all.tar.gz r; }
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
echo "sanitizer: $CS $($CS --version | tail -1)"
export NCCL_NVLS_ENABLE=0 GT_SHARE_GPUS=1 GSHMEM_WAIT_TIMEOUT=${GSHMEM_WAIT_TIMEOUT:-200}
tool=$1; shift
mode=${MODE:-mps}
if [[ $mode = mps ]]; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsz-pipe-$$ CUDA_MPS_LOG_DIRECTORY=/tmp/mpsz-log-$$
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  timeout 20 nvidia-cuda-mps-control -d || { echo "MPS did not start"; exit 1; }
  sleep 1
fi
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
cd $B/../tests/functional
for spec in "$@"; do   # name[:ENV=V,ENV=V][:args]
  IFS=: read -r name envs args <<<"$spec"
  e=(); [[ -n $envs ]] && IFS=, read -ra e <<<"$envs"
  bin=$B/$name; [[ $name = */* ]] && { bin=$here/$name; name=${name##*/}; }   # a path: from the checkout
  tag=${envs//[^A-Za-z0-9]/_}; log=$R/$tool-${NPES:-2}-$name${tag:+-$tag}${args:+-$args}.log
  env "${e[@]}" timeout ${PER_TEST_S:-150} $B/gshmrun -n ${NPES:-2} --timeout $(( ${PER_TEST_S:-150} - 5 )) -- \
    $CS --tool $tool --error-exitcode 86 --print-limit 30 --target-processes all $bin $args > $log 2>&1
  rc=$?
  [[ $rc = 124 ]] && { pkill -9 -f "$bin"; sleep 5; }  # the sanitizer's child outlives a stopped PE
  echo "$tool ${NPES:-2}pe $name ${envs} rc=$rc $(el): $(grep -hE 'ERROR SUMMARY|Invalid|oob_control|checks passed|checks failed|PASSED|FAILED|skipp' $log | sort | uniq -c | tr '\n' ' ' | cut -c1-200)"
  pack
done
[[ $mode = mps ]] && echo quit | nvidia-cuda-mps-control
pack

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The apps' README tables at one PE count: every app at the sizes of its table, through gshmrun,
# each run's whole output (checks and table) into $OUT (default ./apps-out)/apps-<NPES>pe/<step>.log
# and printed.
#   apps/run.sh [NPES] [BUILD_DIR]          (defaults: 2, build/default)
# ONLY="jacobi bfs" runs only the apps named. Exit status 1 when any run failed its checks.
set -uo pipefail
npes=${1:-2}
build=${2:-build/default}
here=$(cd "$(dirname "$0")/.." && pwd)
[[ $build = /* ]] || build=$here/$build
gshmrun=$build/bin/gshmrun
out=${OUT:-$here/apps-out}/apps-${npes}pe
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 GSHMEM_WAIT_TIMEOUT=${GSHMEM_WAIT_TIMEOUT:-60}
if [[ -z ${NCCL_LIB:-} ]] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl.so.2 '; then
  d=$(python3 -c "import nvidia.nccl as m; print(list(m.__path__)[0])" 2>/dev/null)
  [[ -n $d && -e $d/lib/libnccl.so.2 ]] && export NCCL_LIB=$d/lib/libnccl.so.2
fi

failed=()
# run <step> <app> <arguments...>
run() {
  local step=$1 app=$2
  shift 2
  [[ -z ${ONLY:-} || " $ONLY " == *" $app "* ]] || return 0
  local bin=$build/bin/gshmem-$app
  [[ -x $bin ]] || { echo "apps/run.sh: $bin not built (cmake --build $build --target gshmem-$app)"; failed+=("$step"); return; }
  echo "==== $step: gshmrun -n $npes gshmem-$app $*"
  timeout -k 5 600 "$gshmrun" -n "$npes" --timeout 590 -- "$bin" "$@" 2>&1 | tee "$out/$step.log"
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || failed+=("$step(rc=$rc)")
}

# jacobi: the scaling table, 1K^2 to 32K^2 (fewer iterations where one takes milliseconds).
for n in 1024 2048 4096 8192 16384; do run jacobi_$n jacobi --n $n --iters 200; done
run jacobi_32768 jacobi --n 32768 --iters 50
for n in 2048 4096; do run matmul_$n matmul --n $n; done
run transpose_8192_float transpose --n 8192 --type float
run transpose_8191_float transpose --n 8191 --type float
run transpose_8192_double transpose --n 8192 --type double
run transpose_16384_float transpose --n 16384 --type float
for s in 18 22 24; do run bfs_$s bfs --scale $s --roots 16; done
# train_step: 8 buckets of 25 MiB, fp32 and bf16, at three amounts of compute per bucket.
for k in 32 64 128; do run train_step_k$k train_step --buckets 8 --bucket 25M --k $k; done
# The on-stream form with the library's reduction kernel held to 16 CTAs (default 128), so that
# it leaves the GEMMs the SMs NCCL leaves them.
GSHMEM_REDUCE_CTAS=16 run train_step_k64_rctas16 train_step --buckets 8 --bucket 25M --k 64
# The device form with half the CTAs (16; more SMs left to the GEMMs, less bandwidth).
run train_step_k64_ctas16 train_step --buckets 8 --bucket 25M --k 64 --comm-ctas 16

if ((${#failed[@]})); then
  echo "apps/run.sh: failed: ${failed[*]}"
  exit 1
fi
echo "apps/run.sh: every run checked out; logs in $out"

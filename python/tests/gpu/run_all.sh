#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Python package's GPU tests, run from the repository root of a built tree:
#   bash python/tests/gpu/run_all.sh [STAGE...]     (default: unit gpu1 gpu2 examples)
# Stages: unit (the CPU unittest files, with torch, each in its own process with its own
# PASS/FAIL line), unit-v (the same with unittest -v: every test's name and outcome as it runs),
# gpu1 / gpu2 (pytest python/tests/gpu under torchrun with 1 / 2 processes), examples
# (put_signal_kernel, moe_dispatch on 2 GPUs), bench (python/bench/bench_torch.py on 2 GPUs; not
# in the default). Every process runs under
# `timeout`; the last lines are a PASS/FAIL summary and the exit status is non-zero on a FAIL
# (77, "skipped", without torch or with fewer than 2 GPUs: ctest's python_torch_gpu runs it so).
# Environment: BUILD (default build/default) holds lib/libgshmem.so and include/gshmem/version.h;
# T_GPU (default 420) and T_SHORT (default 240) are the per-process time limits in seconds.
set -u
cd "$(dirname "$0")/../../.."
BUILD=${BUILD:-build/default}
export GSHMEM_LIBRARY=${GSHMEM_LIBRARY:-$PWD/$BUILD/lib/libgshmem.so}
export GSHMEM_INCLUDE_DIR=${GSHMEM_INCLUDE_DIR:-$PWD/$BUILD/include}
export PYTHONPATH=$PWD/python/src${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1 TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
# The Triton test's bitcode, built on a machine with clang >= 19 (the GPU image has none):
# GSHMEM_LIBRARY=$PWD/build/default/lib/libgshmem.so PYTHONPATH=python/src python3 -m gshmem.triton \
#   build/triton/gshmem_triton.bc  (clang-19 and llvm-19 needed; no Triton)
if [[ -z ${GSHMEM_TRITON_BITCODE:-} && -e build/triton/gshmem_triton.bc ]]; then
  export GSHMEM_TRITON_BITCODE=$PWD/build/triton/gshmem_triton.bc
fi
export TORCH_NCCL_ASYNC_ERROR_HANDLING=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
PY=${PYTHON:-python3}
T_GPU=${T_GPU:-420}
T_SHORT=${T_SHORT:-240}
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(unit gpu1 gpu2 examples)
# Exit 77 (ctest's "skipped") where the tests cannot run: no torch, or fewer than 2 GPUs.
if ! gpus=$("$PY" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null); then
  echo "run_all: skipped: $PY cannot import torch"
  exit 77
fi
if [[ $gpus -lt 2 ]]; then
  echo "run_all: skipped: $gpus CUDA GPU(s) visible, the tests need 2"
  exit 77
fi
[[ -e $GSHMEM_LIBRARY ]] || { echo "run_all: no $GSHMEM_LIBRARY (build the library, or set BUILD/GSHMEM_LIBRARY)"; exit 2; }

results=()
run() {  # run NAME LIMIT COMMAND...
  local name=$1 limit=$2 t0=$SECONDS rc
  shift 2
  echo "=== $name: $*"
  timeout -k 15 "$limit" "$@"
  rc=$?
  if [[ $rc -eq 0 ]]; then results+=("PASS $name ($((SECONDS - t0)) s)")
  elif [[ $rc -eq 124 || $rc -eq 137 ]]; then results+=("FAIL $name (timed out after $limit s)")
  else results+=("FAIL $name (exit $rc, $((SECONDS - t0)) s)"); fi
}
# torchrun with a free port each time (--standalone); one process per GPU of this host.
TORCHRUN=("$PY" -m torch.distributed.run --standalone --nproc-per-node)

for stage in "${stages[@]}"; do
  case $stage in
    unit | unit-v)
      # One process per file: a process that dies (an abort inside a native library) takes only
      # its own file's results with it, and its FAIL line names the file.
      verbose=()
      [[ $stage == unit-v ]] && verbose=(-v)
      for t in import no_gpu prototypes dtypes errors calls torch triton; do
        run "$stage-$t" "$T_SHORT" bash -c "cd python/tests && exec $PY -m unittest ${verbose[*]} test_$t"
      done ;;
    gpu1) run gpu-1pe "$T_GPU" "${TORCHRUN[@]}" 1 -m pytest -q -rfEs -p no:cacheprovider python/tests/gpu ;;
    gpu2) run gpu-2pe "$T_GPU" "${TORCHRUN[@]}" 2 -m pytest -q -rfEs -p no:cacheprovider python/tests/gpu ;;
    examples)
      run example-put_signal_kernel "$T_SHORT" "${TORCHRUN[@]}" 2 examples/python/put_signal_kernel.py
      run example-moe_dispatch "$T_SHORT" "${TORCHRUN[@]}" 2 examples/python/moe_dispatch.py ;;
    bench) run bench_torch "$T_GPU" "${TORCHRUN[@]}" 2 python/bench/bench_torch.py ;;
    *) echo "run_all: unknown stage $stage (unit unit-v gpu1 gpu2 examples bench)"; exit 2 ;;
  esac
done

echo
echo "=== summary (python/tests/gpu/run_all.sh ${stages[*]})"
fails=0
for r in "${results[@]}"; do
  echo "$r"
  [[ $r == FAIL* ]] && fails=$((fails + 1))
done
echo "$(( ${#results[@]} - fails )) passed, $fails failed"
[[ $fails -eq 0 ]]

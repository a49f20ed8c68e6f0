#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the GPU test suite on a machine with GPUs, from a build made elsewhere.
#   scripts/gpu-suite.sh <build-dir> [ctest args...]
# The build dir's CTest files hold absolute paths of the machine that built
# it; BUILD_ROOT (default /work/main) is linked to this checkout so they resolve.
# Logs go to $OUT (default ./gpu-out); the summary is printed last.
set -uo pipefail
build=${1:?usage: gpu-suite.sh <build-dir> [ctest args]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
root=${BUILD_ROOT:-/work/main}
if [[ $here != "$root" && ! -e $root ]]; then
  mkdir -p "$(dirname "$root")" && ln -s "$here" "$root"
fi
out=${OUT:-$here/gpu-out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvidia-smi topo -m
} >"$out/machine.txt" 2>&1
cd "$root/$build" || exit 1
timeout 540 ctest -L gpu --output-on-failure --timeout 150 "$@" >"$out/ctest.log" 2>&1
rc=$?
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|Total Test time" "$out/ctest.log" | tail -60
exit $rc

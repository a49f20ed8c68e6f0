#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device call (4 x H200): the matmul application beyond the suite's step - the row-by-row shift
# at every scope, the textbook shape (one CTA), and matrices the PE count does not divide.
# After scripts/nvl-run.sh unpacked the build into build/default.
set -u
B=$PWD/build/default
R=${OUT:-$PWD/mm-out}/r/matmul
mkdir -p "$R"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 GSHMEM_WAIT_TIMEOUT=15
run() {
  local name=$1 n=$2
  shift 2
  LD_LIBRARY_PATH=$B/lib timeout 100 "$B/bin/gshmrun" -n "$n" --timeout 95 -- "$B/bin/gshmem-perf" "$@" \
    --json "$R/$name.jsonl" >"$R/$name.txt" 2>&1
  echo "$name rc=$? $(grep -c '"verified":true' "$R/$name.jsonl") verified, $(grep -c '"verified":false' "$R/$name.jsonl") not"
}
run shift-scopes-4 4 matmul matmul_rowwise -o shift -s all -b 2M -e 128M -f 4
run shift-1cta-4 4 matmul matmul_rowwise -o shift -s all -c 1 -b 2M -e 32M -f 4
run uneven-3 3 matmul matmul_rowwise -b 9M -e 17M -f 1.85 -s all -n 2 -r 2
run uneven-4 4 matmul matmul_rowwise -b 9M -e 17M -f 1.85 -s all -n 2 -r 2
tar -C "$R/../.." -czf "${OUT:-$PWD/mm-out}/matmul.tar.gz" r/matmul

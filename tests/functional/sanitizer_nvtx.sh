#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for sanitizer_nvtx (sanitizer_nvtx.cu says what each run does): runs 2 PEs, each under
# compute-sanitizer's memcheck, and reads memcheck's report:
#   vmm-clean  in-bounds device puts on the VMM heap (grown once)   ERROR SUMMARY: 0 errors, twice,
#              and the library's line that it leaves the cuMemMap'd heap undescribed (compute-
#              sanitizer refuses such windows as pools: each try was one more error in its summary)
#   ipc-clean  the same puts on the cudaMalloc + IPC heap (GSHMEM_DISABLE_VMM=1): 0 errors, twice,
#              with the heap described (its "NVTX: the symmetric heap" line)
#   ipc-bad    three bad puts by PE 0 on that heap                 an "Invalid __global__ write"
#              naming each of nvtx_overrun_padding, nvtx_put_into_freed_peer, nvtx_overrun_grown
#   ipc-off    the same with GSHMEM_NVTX_HEAP=0                    no error: without the pools
#              memcheck sees one valid allocation (this shows what the registration adds)
# GSHMEM_SANITIZER_CASES picks some of them (default: all four). 2 PEs may share one GPU.
# Exits 77 (skipped) without compute-sanitizer (PATH, or CUDA's bin directory given as $3) or
# without a GPU.
# usage: sanitizer_nvtx.sh GSHMRUN PROG [CUDA_BIN_DIR]
set -u
gshmrun=$1 prog=$2 cuda_bin=${3:-}
sanitizer=$(command -v compute-sanitizer 2>/dev/null)
for c in "$cuda_bin/compute-sanitizer" "$cuda_bin/../compute-sanitizer/compute-sanitizer" \
         /usr/local/cuda/bin/compute-sanitizer; do
  [ -n "$sanitizer" ] && break
  [ -x "$c" ] && sanitizer=$c
done
if [ -z "$sanitizer" ]; then
  echo "SKIP: compute-sanitizer is not on PATH nor in CUDA's bin directory ($cuda_bin)"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sanitizer_nvtx.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# Small team slots, so that a 40 MiB block overflows a 32 MiB heap and the VMM heap grows for it.
common=(GT_SHARE_GPUS=1 GSHMEM_MAX_TEAMS=8 GSHMEM_TEAM_SCRATCH_SIZE=1M GSHMEM_DEBUG=INFO)
# Device backtraces: the faulting store may lie in an out-of-line copy function; the kernel is then
# named in the report's device frames. No host backtraces (long, and of no use here). API errors
# are not counted: the runs are about memory accesses (the library probes some features by calls
# that may fail).
memcheck=("$sanitizer" --tool memcheck --nvtx yes --destroy-on-device-error kernel --show-backtrace device
          --report-api-errors no --print-limit 100)

run() {  # name mode env...
  local name=$1 mode=$2
  shift 2
  local out="$tmp/$name.out"
  env "${common[@]}" "$@" timeout -s KILL 300 "$gshmrun" -n 2 --timeout 280 -- "${memcheck[@]}" "$prog" "$mode" \
    >"$out" 2>&1
  local rc=$?
  echo "---- $name (exit status $rc)"
  cat "$out"
  if grep -q '^SKIP:' "$out"; then
    echo "SKIP: sanitizer_nvtx needs a GPU"
    exit 77
  fi
  return $rc
}
# The report of one kernel: a block of memcheck's lines from "Invalid __global__ write" to the
# next line that is only "=========" names the kernel ("at kernel(...)+0x60", "at 0x60 in
# kernel(...)", or a "Device Frame:" line).
reported() {
  awk -v k="$2" '/Invalid __global__ write/ { inblock = 1 } inblock && index($0, k) { found = 1 }
                 inblock && /^=+ *$/ { inblock = 0 } END { exit found ? 0 : 1 }' "$1"
}

for c in ${GSHMEM_SANITIZER_CASES:-vmm-clean ipc-clean ipc-bad ipc-off}; do
  case $c in
    vmm-clean)
      run "$c" clean GSHMEM_SYMMETRIC_SIZE=32M || bad "$c: the job failed"
      [ "$(grep -c 'ERROR SUMMARY: 0 errors' "$tmp/$c.out")" -eq 2 ] || bad "$c: memcheck did not report 0 errors on both PEs"
      ! grep -q 'Invalid __global__' "$tmp/$c.out" || bad "$c: memcheck reported an access of the in-bounds puts"
      grep -q 'is not described to it' "$tmp/$c.out" || bad "$c: the library did not say it leaves the VMM heap undescribed"
      grep -q 'growing the symmetric heap' "$tmp/$c.out" || bad "$c: the heap did not grow (big should span two chunks)"
      grep -q 'checks passed' "$tmp/$c.out" || bad "$c: the puts' data was wrong";;
    ipc-clean)
      run "$c" clean GSHMEM_DISABLE_VMM=1 GSHMEM_SYMMETRIC_SIZE=96M || bad "$c: the job failed"
      [ "$(grep -c 'ERROR SUMMARY: 0 errors' "$tmp/$c.out")" -eq 2 ] || bad "$c: memcheck did not report 0 errors on both PEs"
      ! grep -q 'Invalid __global__' "$tmp/$c.out" || bad "$c: memcheck reported an access of the in-bounds puts"
      grep -q 'NVTX: the symmetric heap' "$tmp/$c.out" || bad "$c: the library did not describe its heap to the tool"
      grep -q 'checks passed' "$tmp/$c.out" || bad "$c: the puts' data was wrong";;
    ipc-bad)
      run "$c" bad GSHMEM_DISABLE_VMM=1 GSHMEM_SYMMETRIC_SIZE=96M || bad "$c: the job failed"
      for k in nvtx_overrun_padding nvtx_put_into_freed_peer nvtx_overrun_grown; do
        reported "$tmp/$c.out" "$k" || bad "$c: memcheck did not report the bad write of $k"
      done
      grep -Eq 'ERROR SUMMARY: [1-9][0-9]* error' "$tmp/$c.out" || bad "$c: no error in memcheck's summary"
      grep -q 'PE 0: bad run done' "$tmp/$c.out" || bad "$c: PE 0 did not survive its bad kernels";;
    ipc-off)
      run "$c" bad GSHMEM_DISABLE_VMM=1 GSHMEM_SYMMETRIC_SIZE=96M GSHMEM_NVTX_HEAP=0 || bad "$c: the job failed"
      [ "$(grep -c 'ERROR SUMMARY: 0 errors' "$tmp/$c.out")" -eq 2 ] ||
        bad "$c: memcheck found errors without the NVTX pools (the writes stay inside the allocation: expected none)";;
    *) bad "unknown case $c";;
  esac
done
[ "$fail" -eq 0 ] && echo "sanitizer_nvtx: OK"
exit "$fail"

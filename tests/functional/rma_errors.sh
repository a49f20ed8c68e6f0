#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for test_rma_errors: runs every bad-argument case in its own `gshmrun -n N prog <case>`
# and checks, per case,
#   - the exit status: device cases must fail (the kernel traps), host cases and "ok" must
#     succeed (a bad host call only logs and does nothing);
#   - the output (stdout + stderr) holds the expected message: the call's name, the PE, the
#     cause and the remedy, in one "gshmem ERROR [PE ..." line;
#   - "ok" (valid calls at the edges of the checks) prints no gshmem ERROR at all.
# Exits 77 (skipped) when the program reports that the GPUs are missing.
# usage: rma_errors.sh GSHMRUN PROG NPES
set -u
gshmrun=$1 prog=$2 n=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rma_errors.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail=0
bad() { echo "FAIL: $*"; fail=1; }

# case | expected exit ("fail" or "ok") | extended regex the output must match
P='gshmem ERROR \[PE [0-9]+[]/]'  # line prefix: device "[PE 0]", host log "[PE 0/2 host:pid]"
cases=(
  "dev_pe_range|fail|$P.*gshmem_int_p: target PE $n is out of range \[0, $n\).*pass a PE number from 0 to gshmem_n_pes\(\)-1"
  "dev_pe_negative|fail|$P.*gshmem_double_g: target PE -1 is out of range \[0, $n\).*pass a PE number"
  "dev_not_symmetric|fail|$P.*gshmemx_putmem_block: target PE [0-9]+: remote range \[0x[0-9a-f]+, \+64 bytes\) is not inside the symmetric heap.*gshmem_malloc"
  "dev_past_heap|fail|$P.*gshmem_int_put: target PE [0-9]+: remote range \[0x[0-9a-f]+, \+4398046511104 bytes\) is not inside the symmetric heap"
  "dev_overlap|fail|$P.*gshmem_putmem: target PE [0-9]+: source \[0x[0-9a-f]+, \+64 bytes\) and destination \[0x[0-9a-f]+, \+64 bytes\) overlap.*non-overlapping buffers"
  "dev_bad_dst_stride|fail|$P.*gshmemx_int_iput_warp: target PE [0-9]+: destination \(dst\) stride 0 is invalid.*must be >= 1"
  "dev_bad_sst_stride|fail|$P.*gshmem_long_iget: target PE [0-9]+: source \(sst\) stride -2 is invalid.*must be >= 1"
  "dev_span_overflow|fail|$P.*gshmemx_int_iget_block: target PE [0-9]+: stride 4611686018427387904 over 5 elements does not fit the address space"
  "dev_misaligned|fail|$P.*gshmem_iput32: target PE [0-9]+: address 0x[0-9a-f]+ is not aligned to the 4-byte element size"
  "dev_strided_overlap|fail|$P.*gshmem_int_iput: target PE [0-9]+: source .* and destination .* overlap"
  "dev_cxx_overlap|fail|$P.*gshmem::iget: target PE [0-9]+: source .* and destination .* overlap"
  "host_pe_range|ok|$P.*gshmem_int_put: target PE $n is out of range \[0, $n\); pass a PE number from 0 to gshmem_n_pes\(\)-1"
  "host_not_symmetric|ok|$P.*gshmem_putmem: target PE [0-9]+: remote range \[0x[0-9a-f]+, \+16 bytes\) is not inside the symmetric heap.*gshmem_malloc"
  "host_overlap|ok|$P.*gshmem_getmem: target PE [0-9]+: source \[0x[0-9a-f]+, \+64 bytes\) and destination \[0x[0-9a-f]+, \+64 bytes\) overlap"
  "host_bad_stride|ok|$P.*gshmem_int_iput: target PE [0-9]+: source \(sst\) stride 0 is invalid.*must be >= 1"
  "host_on_stream_pe|ok|$P.*gshmemx_int_iget_on_stream: target PE -3 is out of range \[0, $n\)"
  "host_p_on_stream_local|ok|$P.*gshmemx_double_p_on_stream: target PE [0-9]+: remote range .* is not inside the symmetric heap"
  "host_past_heap|ok|$P.*gshmem_iget64: target PE [0-9]+: remote range .* is not inside the symmetric heap"
  "ok|ok|case ok: done"
)

for entry in "${cases[@]}"; do
  name=${entry%%|*}
  rest=${entry#*|}
  want=${rest%%|*}
  regex=${rest#*|}
  timeout -s KILL 120 "$gshmrun" -n "$n" --timeout 60 -- "$prog" "$name" >"$tmp/out" 2>&1
  rc=$?
  if [ "$rc" -eq 77 ] || grep -q '^SKIP:' "$tmp/out"; then
    cat "$tmp/out"
    echo "SKIP: rma_errors needs $n GPUs"
    exit 77
  fi
  echo "---- case $name: gshmrun exit status $rc"
  grep -E 'gshmem ERROR|case |FAIL' "$tmp/out" | head -n 8
  if [ "$want" = fail ]; then
    [ "$rc" -ne 0 ] || bad "$name: exited 0, the bad call did not stop the kernel"
  else
    [ "$rc" -eq 0 ] || { bad "$name: exited $rc"; cat "$tmp/out"; }
  fi
  grep -Eq -- "$regex" "$tmp/out" || bad "$name: no output line matches: $regex"
  if [ "$name" = ok ] && grep -q 'gshmem ERROR' "$tmp/out"; then
    bad "ok: valid calls produced an error message"
  fi
done

[ "$fail" -eq 0 ] && echo "rma_errors-$n: OK"
exit "$fail"

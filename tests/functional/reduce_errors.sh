#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for reduce_errors: runs `gshmrun -n N test_reduce_errors MODE` (GSHMEM_DEBUG_CHECKS=1)
# once per invalid call and checks what is reported:
#   host_mismatch    PE 1 passes another nreduce: every PE returns GSHMEM_ERROR_MISMATCH and
#                    logs "<call>: the members of team 0 disagree on nreduce ..."
#   host_overlap     dest = source + 1: every PE returns GSHMEM_ERROR_INVALID_VALUE and logs
#                    "... overlap but are not the same address ..."
#   host_team        team 42 (no such team): "... team 42 is not a valid team on PE ..."
#   device_overlap   the same from a kernel (checks compiled in): the kernel traps after
#                    printing the message, the job fails
#   device_mismatch  nreduce differs in a kernel: the members compare their records and trap
# Exits 77 (skipped) when the program reports that the GPUs are missing.
# usage: reduce_errors.sh GSHMRUN PROG NPES
set -u
gshmrun=$1 prog=$2 n=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reduce_errors.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run MODE: runs it, prints its output; sets rc.
run() {
  GSHMEM_DEBUG_CHECKS=1 timeout -s KILL 150 "$gshmrun" -n "$n" --timeout 120 -- "$prog" "$1" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  echo "---- $1: exit status $rc"
  echo "-- stdout"; cat "$tmp/out"
  echo "-- stderr"; cat "$tmp/err"
  if [ "$rc" -eq 77 ] || grep -q '^SKIP:' "$tmp/out"; then
    echo "SKIP: reduce_errors needs $n GPUs"
    exit 77
  fi
}
# lines MODE FILE PATTERN MIN: at least MIN lines of FILE match PATTERN (extended regex).
lines() {
  local c
  c=$(grep -Ec -- "$3" "$tmp/$2")
  [ "$c" -ge "$4" ] || bad "$1: expected at least $4 line(s) matching '$3' in $2, found $c"
}

run host_mismatch
[ "$rc" -eq 0 ] || bad "host_mismatch: exit status $rc (every PE should have returned GSHMEM_ERROR_MISMATCH)"
lines host_mismatch err \
  'gshmem_int_sum_reduce: the members of team 0 disagree on nreduce: this PE \(team PE [0-9]+\) passed [78], PE [0-9]+ \(team PE [0-9]+\) passed [78]' \
  "$n"

run host_overlap
[ "$rc" -eq 0 ] || bad "host_overlap: exit status $rc (every PE should have returned GSHMEM_ERROR_INVALID_VALUE)"
lines host_overlap err 'gshmem_int_sum_reduce: dest \[.*\) and source \[.*\) overlap but are not the same address' "$n"

run host_team
[ "$rc" -eq 0 ] || bad "host_team: exit status $rc (every PE should have returned GSHMEM_ERROR_INVALID_VALUE)"
lines host_team err 'gshmemx_float_max_reducescatter_on_stream: team 42 is not a valid team on PE [0-9]+' "$n"

run device_overlap
[ "$rc" -ne 0 ] || bad "device_overlap: the job succeeded although every kernel should have trapped"
lines device_overlap out 'gshmem ERROR \[PE [0-9]+\]: gshmemx_int_sum_reduce_warp: dest \[.*\) and source \[.*\) overlap but are not the same address.*Trapping' 1

run device_mismatch
[ "$rc" -ne 0 ] || bad "device_mismatch: the job succeeded although the members passed different nreduce"
lines device_mismatch out 'gshmem ERROR \[PE [0-9]+\]: gshmem_int_sum_reduce: the members disagree: this PE passed nreduce=[78] .* passed nreduce=[78]' 1

[ "$fail" -eq 0 ] && echo "reduce_errors-$n: OK"
exit "$fail"

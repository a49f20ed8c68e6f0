#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for p2p_debug_checks: runs each bad-call mode as its own one-PE gshmrun
# job and checks that the output names the call, the PE and the cause:
#   device modes (GSHMEM_DEBUG_CHECKS build, printf + trap): the job fails and
#   the message is printed (device-good: in-bounds calls, nothing reported, exit 0); host modes: the error is logged, the call returns
#   (host-timeout: its kernel traps with the message, the call returns, the job fails).
# Exits 77 (skipped) when the program reports that the GPUs are missing.
# usage: p2p_debug_checks.sh GSHMRUN PROG
set -u
gshmrun=$1 prog=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/p2p_debug_checks.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# mode | expect failure (1) or success (0) | extended regex the output must contain
cases=(
  "device-pe|1|gshmem ERROR \[PE 0\]: gshmem_atomic_fetch_add: (target )?PE 1 is out of range"
  "device-cmp|1|gshmem ERROR \[PE 0\]: gshmem_wait_until: invalid comparison 42"
  "device-sigop|1|gshmem ERROR \[PE 0\]: gshmem_putmem_signal: invalid sig_op 7 for PE 0"
  "device-sym|1|gshmem ERROR \[PE 0\]: gshmemx_signal_op: .*(not in|not inside) the symmetric heap"
  "device-timeout|1|gshmem ERROR \[PE 0\]: gshmem_wait_until: still waiting after 1 s \(GSHMEM_WAIT_TIMEOUT\) for the variable at 0x[0-9a-f]+, which holds 0, to become EQ 12345"
  "device-align|1|gshmem ERROR \[PE 0\]: gshmem_atomic_fetch_add: target PE 0: address 0x[0-9a-f]+ is not aligned to the 8-byte element size"
  "device-freed|1|gshmem ERROR \[PE 0\]: gshmem_putmem: target PE 0: \[0x[0-9a-f]+, \+8 bytes\) lies in symmetric heap memory that no live allocation covers \(freed, never allocated, or padding; the allocation below it is \[0x[0-9a-f]+, \+[0-9]+ bytes\)\)"
  "device-past-end|1|gshmem ERROR \[PE 0\]: gshmem_putmem: target PE 0: \[0x[0-9a-f]+, \+8 bytes\) runs 4 bytes past the end of its allocation \[0x[0-9a-f]+, \+64 bytes\)"
  "device-amo-freed|1|gshmem ERROR \[PE 0\]: gshmem_atomic_add: target PE 0: \[0x[0-9a-f]+, \+8 bytes\) lies in symmetric heap memory that no live allocation covers"
  "device-signal-past-end|1|gshmem ERROR \[PE 0\]: gshmem_putmem_signal: target PE 0: \[0x[0-9a-f]+, \+40 bytes\) runs 8 bytes past the end of its allocation \[0x[0-9a-f]+, \+64 bytes\)"
  "device-wait-freed|1|gshmem ERROR \[PE 0\]: gshmem_wait_until: target PE 0: \[0x[0-9a-f]+, \+4 bytes\) lies in symmetric heap memory that no live allocation covers"
  "device-coll-freed|1|gshmem ERROR \[PE 0\]: gshmem_fcollectmem: dest \[0x[0-9a-f]+, \+16 bytes\) lies in symmetric heap memory that no live allocation covers \(freed, never allocated, or padding; the allocation below it is \[0x[0-9a-f]+, \+[0-9]+ bytes\)\)"
  "device-reduce-past-end|1|gshmem ERROR \[PE 0\]: gshmem_int_sum_reduce: dest \[0x[0-9a-f]+, \+20 bytes\) runs 4 bytes past the end of its allocation \[0x[0-9a-f]+, \+64 bytes\)"
  "device-good|0|DEVICE CALLS PASSED"
  "host-freed|0|gshmem ERROR \[PE 0/1 [^]]*\]: gshmem_putmem: target PE 0: \[0x[0-9a-f]+, \+8 bytes\) lies in symmetric heap memory that is not allocated"
  "host-past-end|0|gshmem ERROR \[PE 0/1 [^]]*\]: gshmem_putmem: target PE 0: \[0x[0-9a-f]+, \+8 bytes\) runs 4 bytes past the end of its allocation \[0x[0-9a-f]+, \+64 bytes\)"
  "host-pe|0|gshmem ERROR \[PE 0/1 [^]]*\]: gshmem_long_atomic_fetch_add: PE 99 is out of range"
  "host-sigop|0|gshmem ERROR \[PE 0/1 [^]]*\]: gshmemx_signal_op: invalid sig_op 5 for PE 0"
  "host-cmp|0|gshmem ERROR \[PE 0/1 [^]]*\]: gshmem_int_wait_until_some: invalid comparison 9"
  "host-sym|0|gshmem ERROR \[PE 0/1 [^]]*\]: gshmem_putmem_signal: \[0x[0-9a-f]+, \+8 bytes\) is not inside the symmetric heap"
  "host-timeout|1|gshmem ERROR \[PE 0\]: gshmem_wait_until_all: still waiting after 1 s \(GSHMEM_WAIT_TIMEOUT\) for ivars\[260\] of 300 at 0x[0-9a-f]+, which holds 0, to become EQ 12345"
)

for c in "${cases[@]}"; do
  mode=${c%%|*}
  rest=${c#*|}
  want_fail=${rest%%|*}
  pattern=${rest#*|}
  out="$tmp/$mode.out"
  GSHMEM_WAIT_TIMEOUT=1 GSHMEM_DEBUG_CHECKS=1 timeout -s KILL 60 "$gshmrun" -n 1 -- "$prog" "$mode" >"$out" 2>&1
  rc=$?
  echo "---- $mode (exit status $rc)"; cat "$out"
  if grep -q '^SKIP:' "$out"; then
    echo "SKIP: p2p_debug_checks needs a GPU"
    exit 77
  fi
  if [ "$want_fail" -eq 1 ]; then
    [ "$rc" -ne 0 ] || bad "$mode: the bad device call did not fail the job"
    [[ $mode != host-* ]] || grep -q 'HOST CALL RETURNED' "$out" || bad "$mode: the host call did not return"
  else
    [ "$rc" -eq 0 ] || bad "$mode: the job failed (exit $rc) although the bad host call must only be logged"
    [ "$mode" = device-good ] || grep -q 'HOST CALL RETURNED' "$out" || bad "$mode: the host call did not return"
  fi
  # Good calls report nothing at all: a false positive fails the case even if the job went on.
  if [ "$mode" = device-good ] && grep -q 'gshmem ERROR' "$out"; then bad "$mode: an error was reported for good calls"; fi
  grep -Eq "$pattern" "$out" || bad "$mode: no line matching: $pattern"
done

[ "$fail" -eq 0 ] && echo "p2p_debug_checks: OK"
exit "$fail"

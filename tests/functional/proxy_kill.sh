#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for proxy_kill (proxy_kill.cu says what the program does): runs
# `gshmrun -n 2 --sim-nodes 2 proxy_kill CASE` for CASE barrier and get, PE 1 SIGKILLing itself
# while PE 0 waits for it through the proxy, and asserts that PE 0
#   - ended its kernel within 5 s of the kill, on its own (gshmrun's SIGTERM is ignored),
#   - said which call stopped and that PE 1 failed: barrier, the device report
#     "gshmem ERROR [PE 0]: gshmem_barrier_all: PE 1 failed ... stopped waiting for PE 1
#     (missing)"; get, its proxy thread's "a device get to PE 1 ..." naming PE 1,
#   - logged "PE 1 failed (...)" and was ended by the library (no "STILL RUNNING"),
# and that gshmrun exits non-zero. Exits 77 (skipped) without a GPU.
# usage: proxy_kill.sh GSHMRUN PROG
set -u
gshmrun=$1 prog=$2
limit_ms=5000
status=0
for case in barrier get; do
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/proxy_kill.XXXXXX") || exit 1
  start_ns=$(date +%s%N)
  GSHMRUN_KILL_GRACE=10 timeout -s KILL 90 "$gshmrun" -n 2 --sim-nodes 2 -- "$prog" "$case" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  end_ns=$(date +%s%N)
  echo "==== case $case"
  echo "---- gshmrun stdout"; cat "$tmp/out"
  echo "---- gshmrun stderr"; cat "$tmp/err"
  echo "---- gshmrun exit status $rc after $(( (end_ns - start_ns) / 1000000 )) ms"
  if [ "$rc" -eq 77 ] || grep -q '^SKIP:' "$tmp/out"; then
    echo "SKIP: proxy_kill needs a GPU"
    rm -rf "$tmp"
    exit 77
  fi
  fail=0
  bad() { echo "FAIL ($case): $*"; fail=1; }
  [ "$rc" -ne 0 ] || bad "gshmrun exited 0 although PE 1 was killed"
  kill_ns=$(sed -n 's/^proxy_kill: PE 1 raising SIGKILL at \([0-9]*\) ns$/\1/p' "$tmp/out" | head -n1)
  ended=$(sed -n "s/^proxy_kill: PE 0: $case ended at \([0-9]*\) ns.*/\1/p" "$tmp/out" | head -n1)
  grep -q "^proxy_kill: PE 0 entering $case\$" "$tmp/out" || bad "PE 0 did not report entering $case"
  if [ -z "$kill_ns" ]; then
    bad "PE 1 never reached its kill"
  elif [ -z "$ended" ]; then
    bad "PE 0's kernel never ended"
  else
    ms=$(((ended - kill_ns) / 1000000))
    echo "PE 0: $case ended ${ms} ms after PE 1 was killed"
    [ "$ms" -le "$limit_ms" ] || bad "PE 0's kernel ended ${ms} ms after the kill (> ${limit_ms} ms)"
  fi
  if [ "$case" = barrier ]; then
    grep -Eq 'gshmem ERROR \[PE 0\]: gshmem_barrier_all: PE 1 failed \(died, stopped or unreachable.*stopped waiting for PE 1 \(missing\)' \
      "$tmp/out" || bad "no device report naming gshmem_barrier_all and PE 1"
  else
    grep -Eq 'gshmem ERROR \[PE 0/2 [^]]*\]: PE 0: a device get to PE 1 (failed: PE 1 failed|stopped waiting: PE 1 failed)' \
      "$tmp/err" || bad "the proxy thread did not report the get to PE 1 and PE 1's failure"
  fi
  grep -Eq 'gshmem ERROR \[PE 0/2 [^]]*\]: PE 1 failed \(' "$tmp/err" || bad "PE 0's log does not say PE 1 failed"
  ! grep -q 'STILL RUNNING' "$tmp/out" || bad "PE 0 was not ended by the library"
  [ "$fail" -eq 0 ] && echo "proxy_kill-sim2 $case: OK"
  [ "$fail" -eq 0 ] || status=1
  rm -rf "$tmp"
done
exit "$status"

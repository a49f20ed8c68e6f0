#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for kill_in_barrier: runs `gshmrun -n N prog`, where PE 1 SIGKILLs itself
# while the other PEs wait for it in a device barrier, and asserts that
#   - gshmrun exits non-zero,
#   - within 10 s of the kill (PE 1 prints the kill time just before raising it),
#   - its stderr names PE 1 and signal 9,
#   - the other PEs were inside the barrier and none got through it (a barrier ended by the
#     library's report that PE 1 failed is right: it never completed).
# Exits 77 (skipped) when the program reports that the GPUs are missing.
# usage: kill_in_barrier.sh GSHMRUN PROG NPES
set -u
gshmrun=$1 prog=$2 n=$3
limit_s=10
. "$(dirname "$0")/fault_lib.sh"
fault_init kill_in_barrier

start_ns=$(fault_now_ns)
# Outer bound so a broken gshmrun cannot hang the test.
timeout -s KILL 90 "$gshmrun" -n "$n" -- "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
end_ns=$(fault_now_ns)
fault_dump "$tmp/out" "$tmp/err" "$rc" "$start_ns" "$end_ns"

if fault_skipped "$rc" "$tmp/out"; then
  echo "SKIP: kill_in_barrier needs $n GPUs"
  exit 77
fi

[ "$rc" -ne 0 ] || bad "gshmrun exited 0 although PE 1 was killed"
kill_ns=$(fault_event "$tmp/out" '^kill_in_barrier: PE 1 pid [0-9]* raising SIGKILL')
if [ -z "$kill_ns" ]; then
  bad "PE 1 never reached its kill (see the output above)"
else
  after_ms=$(fault_ms "$kill_ns" "$end_ns")
  echo "gshmrun ended ${after_ms} ms after PE 1 was killed"
  [ "$after_ms" -le $((limit_s * 1000)) ] || bad "gshmrun took ${after_ms} ms (> ${limit_s} s) to end the job after the kill"
fi
grep -Eq 'PE 1\b.*signal 9' "$tmp/err" || bad "gshmrun's stderr does not name PE 1 and signal 9"
entered=$(grep -c 'entering the device barrier' "$tmp/out")
[ "$entered" -eq $((n - 1)) ] || bad "$entered of $((n - 1)) surviving PEs reported entering the barrier"
! grep -q 'BARRIER RETURNED (done=1' "$tmp/out" || bad "a PE got through the barrier without PE 1"
# A survivor's barrier may also end by the library's report of PE 1's failure (the abort word,
# docs/reliability.md): then the device names PE 1 and traps, and the barrier never completed.
if grep -q 'BARRIER RETURNED (done=0' "$tmp/out"; then
  grep -q 'barrier_all: PE 1 failed' "$tmp/out" "$tmp/err" || bad "a barrier ended by an error that names no failed PE 1"
fi

fault_finish "kill_in_barrier-$n"

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
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kill_in_barrier.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

start_ns=$(date +%s%N)
# Outer bound so a broken gshmrun cannot hang the test.
timeout -s KILL 90 "$gshmrun" -n "$n" -- "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
end_ns=$(date +%s%N)

echo "---- gshmrun stdout"; cat "$tmp/out"
echo "---- gshmrun stderr"; cat "$tmp/err"
echo "---- gshmrun exit status $rc after $(( (end_ns - start_ns) / 1000000 )) ms"

if [ "$rc" -eq 77 ] || grep -q '^SKIP:' "$tmp/out"; then
  echo "SKIP: kill_in_barrier needs $n GPUs"
  exit 77
fi

fail=0
bad() { echo "FAIL: $*"; fail=1; }

[ "$rc" -ne 0 ] || bad "gshmrun exited 0 although PE 1 was killed"
kill_ns=$(sed -n 's/^kill_in_barrier: PE 1 raising SIGKILL at \([0-9]*\) ns$/\1/p' "$tmp/out" | head -n1)
if [ -z "$kill_ns" ]; then
  bad "PE 1 never reached its kill (see the output above)"
else
  after_ms=$(( (end_ns - kill_ns) / 1000000 ))
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

[ "$fail" -eq 0 ] && echo "kill_in_barrier-$n: OK"
exit "$fail"

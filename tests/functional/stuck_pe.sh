#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for stuck_pe (stuck_pe.cu says what the program does): runs
# `gshmrun -n N stuck_pe CASE` with GSHMEM_HEARTBEAT_TIMEOUT=2 and otherwise the default
# environment (GSHMEM_WAIT_TIMEOUT unset: 600 s), PE 1 stopping itself with SIGSTOP, and
# asserts for every other PE that
#   - its wait ended within the bound + 4 s of the stop (and not before the bound - 1 s),
#   - its device report names the call and PE 1 ("gshmem ERROR [PE x]: CALL: PE 1 failed ...";
#     barrier and fcollect also "stopped waiting for PE 1 (missing); arrived: A; missing: 1",
#     A every other PE as ranges, e.g. "0,2-4": the sets the library reads from its flags),
#   - its log names PE 1 as stopped ("PE 1 failed (bootstrap: PE 1 sent nothing ...") - from its
#     own heartbeat bound or the notice a neighbour flooded,
#   - it ended through the library (no "STILL RUNNING"), and gshmrun exits non-zero.
# At the end the stopped PE gets SIGCONT and SIGKILL, whatever gshmrun did to it.
# Exits 77 (skipped) when the program reports that the GPUs are missing.
# usage: stuck_pe.sh GSHMRUN PROG NPES [CASE...]   (no CASE: barrier wait fcollect host_wait,
# one job each; the test fails if any case does)
set -u
gshmrun=$1 prog=$2 n=$3
shift 3
if [ $# -ne 1 ]; then
  [ $# -gt 0 ] || set -- barrier wait fcollect host_wait
  status=0
  for c in "$@"; do
    bash "$0" "$gshmrun" "$prog" "$n" "$c"
    rc=$?
    [ "$rc" -eq 77 ] && exit 77
    [ "$rc" -eq 0 ] || status=1
  done
  exit "$status"
fi
case=$1
victim=1 bound=2
limit_ms=$(((bound + 4) * 1000))
. "$(dirname "$0")/fault_lib.sh"
fault_init stuck_pe
fault_cleanup_hook() {
  pid=$(sed -n 's/^stuck_pe: PE [0-9]* pid \([0-9]*\) stopping at .*/\1/p' "$tmp/out" 2>/dev/null | head -n1)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -CONT "$pid" 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
  fi
}

case $case in
  barrier) call='gshmem_barrier_all' missing=1 ;;
  wait) call='gshmem_(int_)?wait_until' missing=0 ;;
  fcollect) call='gshmem_int_fcollect' missing=1 ;;
  host_wait) call='gshmem_(int_)?wait_until' missing=0 ;;
  *) echo "unknown case $case"; exit 2 ;;
esac

start_ns=$(fault_now_ns)
# Outer bound so a broken library or gshmrun cannot hang the test.
env -u GSHMEM_WAIT_TIMEOUT GSHMEM_HEARTBEAT_TIMEOUT=$bound STUCK_PE_VICTIM=$victim \
  timeout -s KILL 90 "$gshmrun" -n "$n" -- "$prog" "$case" >"$tmp/out" 2>"$tmp/err"
rc=$?
end_ns=$(fault_now_ns)
fault_dump "$tmp/out" "$tmp/err" "$rc" "$start_ns" "$end_ns"

if fault_skipped "$rc" "$tmp/out"; then
  echo "SKIP: stuck_pe needs $n GPUs"
  exit 77
fi

# The PEs but the victim as the device report writes the set of those that arrived.
arrived=$(fault_ranges "$n" "$victim")

[ "$rc" -ne 0 ] || bad "gshmrun exited 0 although PE $victim was stopped"
stop_ns=$(fault_event "$tmp/out" "^stuck_pe: PE $victim pid [0-9]* stopping")
[ -n "$stop_ns" ] || bad "PE $victim never reached its stop"
for ((pe = 0; pe < n; ++pe)); do
  [ "$pe" -eq "$victim" ] && continue
  grep -q "^stuck_pe: PE $pe entering $case\$" "$tmp/out" || bad "PE $pe did not report entering $case"
  ended=$(fault_event "$tmp/out" "^stuck_pe: PE $pe: $case ended")
  if [ -z "$ended" ]; then
    bad "PE $pe: its wait never ended"
  elif [ -n "$stop_ns" ]; then
    ms=$(fault_ms "$stop_ns" "$ended")
    echo "PE $pe: $case ended ${ms} ms after PE $victim stopped"
    [ "$ms" -le "$limit_ms" ] || bad "PE $pe: $case ended ${ms} ms after the stop (> ${limit_ms} ms)"
    [ "$ms" -ge $(((bound - 1) * 1000)) ] || bad "PE $pe: $case ended ${ms} ms after the stop, before the bound"
  fi
  grep -Eq "gshmem ERROR \[PE $pe\]: $call: PE $victim failed \(died, stopped or unreachable" "$tmp/out" ||
    bad "PE $pe: no device report naming $call and PE $victim"
  if [ "$missing" -eq 1 ]; then
    grep -Eq "gshmem ERROR \[PE $pe\]: $call: PE $victim failed .*stopped waiting for PE $victim \(missing\)" \
      "$tmp/out" || bad "PE $pe: the device report does not name PE $victim as missing"
    grep -Fq "stopped waiting for PE $victim (missing); arrived: $arrived; missing: $victim. Trapping." "$tmp/out" ||
      bad "PE $pe: the device report does not give the sets 'arrived: $arrived; missing: $victim'"
  fi
  grep -Eq "gshmem ERROR \[PE $pe/$n [^]]*\]: PE $victim failed \(bootstrap: PE $victim sent nothing to PE [0-9]+ for [0-9]+ s \(GSHMEM_HEARTBEAT_TIMEOUT=$bound\)" \
    "$tmp/err" || bad "PE $pe: its log does not name PE $victim as stopped"
done
! grep -q 'STILL RUNNING' "$tmp/out" || bad "a PE was not ended by the library after its wait ended"

fault_finish "stuck_pe-$n $case"

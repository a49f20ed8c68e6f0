# SPDX-License-Identifier: BSD-3-Clause
# Pieces the fault drivers share (kill_in_barrier.sh, stuck_pe.sh, kill_matrix.sh); sourced, not
# run. The programs print their events with the time (fault.h, "... at <ns> ns"), so the drivers
# measure from the event, not from the launch.
#
#   fault_init NAME          a temporary directory in $tmp, removed at exit (after fault_cleanup_hook,
#                            if the driver defines it); fail=0
#   bad MESSAGE...           prints "FAIL: MESSAGE" and marks the run failed
#   fault_now_ns             the time in ns (CLOCK_REALTIME, as the programs print it)
#   fault_dump OUT ERR RC START_NS END_NS
#                            the job's output and exit status, for the log
#   fault_skipped RC OUT     true when the job said it lacks GPUs (exit 77 / "SKIP:")
#   fault_event FILE REGEX   the ns of the first line "…REGEX… at <ns> ns" (empty if none)
#   fault_ms FROM_NS TO_NS   milliseconds between two times
#   fault_ranges N SKIP      PEs 0..N-1 but SKIP as the device reports write sets: runs of
#                            consecutive PEs as "a-c", a run of two as "a,b"
#   fault_finish NAME        prints "NAME: OK" when nothing failed; exits with the status

fault_init() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
  fail=0
  trap 'fault_exit_' EXIT
}
fault_exit_() {
  if declare -F fault_cleanup_hook >/dev/null; then fault_cleanup_hook; fi
  rm -rf "$tmp"
}

bad() {
  echo "FAIL: $*"
  fail=1
}

fault_now_ns() { date +%s%N; }

fault_dump() {
  echo "---- stdout"
  cat "$1"
  echo "---- stderr"
  cat "$2"
  echo "---- exit status $3 after $((($5 - $4) / 1000000)) ms"
}

fault_skipped() { [ "$1" -eq 77 ] || grep -q '^SKIP:' "$2"; }

fault_event() { sed -n "/$2/s/.* at \([0-9]*\) ns.*/\1/p" "$1" | head -n1; }

fault_ms() { echo $((($2 - $1) / 1000000)); }

fault_ranges() {
  awk -v n="$1" -v v="$2" 'BEGIN {
    out = ""; first = -1; last = -2
    for (pe = 0; pe <= n; ++pe) {
      if (pe < n && pe == v) continue
      if (pe < n && pe == last + 1) { last = pe; continue }
      if (first >= 0) out = out (out == "" ? "" : ",") first (last > first ? (last == first + 1 ? "," : "-") last : "")
      first = last = (pe < n ? pe : -1)
    }
    print out
  }'
}

fault_finish() {
  [ "$fail" -eq 0 ] && echo "$1: OK"
  exit "$fail"
}

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for kill_matrix (kill_matrix.cu says what the program does): SIGKILLs PE 1 while the
# others sit in one of 5 call sites, under several launchers, and asserts
#   without a supervisor (uniqueid: the unique-id bootstrap, the id passed in a file; torchrun:
#   torchrun's environment, each PE started by this script): every survivor ends on its own -
#   the library reports PE 1's failure and ends it - non-zero, within 5 s of the kill; its log
#   names PE 1 ("PE 1 failed"); a device barrier's report also gives the sets ("arrived: 0;
#   missing: 1" at 2 PEs); no survivor prints STILL RUNNING;
#   under a supervisor (gshmrun; mpirun where installed): the job ends non-zero within 5 s of the
#   kill (the supervisor ends the survivors itself, so their own reports are counted, not required);
# and, after the jobs, that the next GPU job passes: `gshmrun -n N kill_matrix none` (every site
# to completion, with checks) exits 0.
# Default (ctest kill_matrix-2, < 60 s): each site once, the launchers taken in turn. The full
# matrix: GSHMEM_KILL_MATRIX_TRIALS=20 (every site x every launcher x 20 trials, the victim's
# delay varied per trial; the next-test check after each site and launcher). Narrow it with
# GSHMEM_KILL_MATRIX_SITES / GSHMEM_KILL_MATRIX_LAUNCHERS (space-separated lists).
# GSHMEM_KILL_MATRIX_PARALLEL=K runs up to K trials of a site and launcher at once (default 1):
# the 400 jobs of the full matrix take about 35 min one at a time. Each job keeps its own
# rendezvous port and files; the next-test check still runs alone, after the group's jobs.
# GT_SHARE_GPUS=1 lets the PEs share fewer GPUs (time-sliced, never under MPS: the survivors
# trap on purpose, and a trap in one MPS client can take the server down).
# Exits 77 (skipped) when the program reports that the GPUs are missing.
# usage: kill_matrix.sh GSHMRUN PROG NPES
set -u
gshmrun=$1 prog=$2 n=$3
victim=1 limit_ms=5000
. "$(dirname "$0")/fault_lib.sh"
fault_init kill_matrix
# Every PE's pid goes to its job's pids file (jobs may run in background subshells).
fault_cleanup_hook() {
  local p
  for p in $(cat "$tmp"/job*/pids 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
}

sites=${GSHMEM_KILL_MATRIX_SITES:-barrier wait stream_coll host_amo heap_grow}
launchers=${GSHMEM_KILL_MATRIX_LAUNCHERS:-uniqueid torchrun gshmrun mpirun}
trials=${GSHMEM_KILL_MATRIX_TRIALS:-0}  # 0: the short run
parallel=${GSHMEM_KILL_MATRIX_PARALLEL:-1}
port_base=$((20000 + RANDOM % 20000))   # job j rendezvous on port_base + j
# mpirun: Open MPI's (its -x and --oversubscribe); another one, or none, is skipped.
if ! command -v mpirun >/dev/null 2>&1 || ! mpirun --version 2>&1 | grep -q 'Open MPI'; then
  case " $launchers " in *" mpirun "*) echo "kill_matrix: no Open MPI mpirun: that launcher is skipped" ;; esac
  launchers=$(echo " $launchers " | sed 's/ mpirun / /; s/^ *//; s/ *$//')
fi
mpi_root=()
[ "$(id -u)" -ne 0 ] || mpi_root=(--allow-run-as-root)
read -r -a site_list <<<"$sites"
read -r -a launcher_list <<<"$launchers"
# Only the launcher's own variables reach a PE (ctest or the user's shell may set others).
clean_env=(env -u GSHMEM_RANK -u GSHMEM_SIZE -u GSHMEM_LOCAL_RANK -u GSHMEM_LOCAL_SIZE -u GSHMEM_UNIQUEID
  -u RANK -u WORLD_SIZE -u LOCAL_RANK -u LOCAL_WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT
  GSHMEM_SYMMETRIC_SIZE=64M GSHMEM_SYMMETRIC_SIZE_MAX=256M)

njobs=0 skipped=0
declare -A worst=() ends=()  # per "launcher site": the slowest end after the kill; every end

# One job without a supervisor: every PE started here, its exit status and end time recorded.
run_direct() {  # LAUNCHER SITE DELAY_MS DIR
  local how=$1 site=$2 delay=$3 d=$4 r port secret
  port=$((port_base + ${d##*job}))
  secret=$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')
  for ((r = 0; r < n; ++r)); do
    local -a penv=(KILL_MATRIX_VICTIM=$victim KILL_MATRIX_DELAY_MS=$delay)
    if [ "$how" = uniqueid ]; then
      penv+=(KILL_MATRIX_INIT=uniqueid KILL_MATRIX_RANK=$r KILL_MATRIX_SIZE=$n KILL_MATRIX_ID_FILE=$d/id)
    else
      penv+=(RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r LOCAL_WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 MASTER_PORT=$port
        TORCHELASTIC_RUN_ID=kill-matrix-$$-${d##*job} GSHMEM_BOOTSTRAP_SECRET=$secret)
    fi
    (
      "${clean_env[@]}" "${penv[@]}" timeout -s KILL 60 "$prog" "$site" >"$d/out.$r" 2>"$d/err.$r"
      echo "$? $(fault_now_ns)" >"$d/end.$r"
    ) &
    echo "$!" >>"$d/pids"
  done
  wait
}

# One job under a supervisor: its exit status and end time.
run_supervised() {  # LAUNCHER SITE DELAY_MS DIR
  local how=$1 site=$2 delay=$3 d=$4 rc
  if [ "$how" = gshmrun ]; then
    "${clean_env[@]}" KILL_MATRIX_VICTIM=$victim KILL_MATRIX_DELAY_MS=$delay \
      timeout -s KILL 90 "$gshmrun" -n "$n" -- "$prog" "$site" >"$d/out" 2>"$d/err"
  else
    "${clean_env[@]}" KILL_MATRIX_VICTIM=$victim KILL_MATRIX_DELAY_MS=$delay \
      timeout -s KILL 90 mpirun "${mpi_root[@]}" --oversubscribe -np "$n" -x KILL_MATRIX_VICTIM -x KILL_MATRIX_DELAY_MS \
      -x GSHMEM_SYMMETRIC_SIZE -x GSHMEM_SYMMETRIC_SIZE_MAX ${GT_SHARE_GPUS:+-x GT_SHARE_GPUS} "$prog" "$site" >"$d/out" 2>"$d/err"
  fi
  rc=$?
  echo "$rc $(fault_now_ns)" >"$d/end"
}

# The device report of a barrier names the call, PE 1 and the sets.
device_report_ok() {  # SITE FILE...
  local site=$1
  shift
  case $site in
    barrier) grep -Fq "gshmem_barrier_all: PE $victim failed" "$@" &&
      grep -Fq "stopped waiting for PE $victim (missing); arrived: $(fault_ranges "$n" "$victim"); missing: $victim." "$@" ;;
    *) return 0 ;;
  esac
}

# Starts job number njobs+1 (in the background when PARALLEL > 1); job_check judges it after.
job_start() {  # LAUNCHER SITE TRIAL
  local how=$1 site=$2 trial=$3 d delay
  njobs=$((njobs + 1))
  d=$tmp/job$njobs
  mkdir -p "$d"
  delay=$((300 + (trial * 137) % 700))
  echo "$how $site trial $trial (delay ${delay} ms)" >"$d/label"
  if [ "$parallel" -le 1 ]; then
    job_run "$how" "$site" "$delay" "$d"
  else
    job_run "$how" "$site" "$delay" "$d" &
  fi
}

job_run() {  # LAUNCHER SITE DELAY_MS DIR
  case $1 in
    uniqueid | torchrun) run_direct "$@" ;;
    *) run_supervised "$@" ;;
  esac
}

job_check() {  # JOB_NUMBER
  local d=$tmp/job$1 how site kill_ns ms rc end r named=0 label
  label=$(cat "$d/label")
  read -r how site _ <<<"$label"
  if grep -qs '^SKIP:' "$d"/out*; then
    skipped=$((skipped + 1))
    return
  fi
  local before=$fail
  kill_ns=$(cat "$d"/out* 2>/dev/null | fault_event /dev/stdin "^kill_matrix: PE $victim pid [0-9]* raising SIGKILL")
  if [ -z "$kill_ns" ]; then
    bad "$label: PE $victim never reached its kill"
  elif [ "$how" = uniqueid ] || [ "$how" = torchrun ]; then
    for ((r = 0; r < n; ++r)); do
      [ "$r" -eq "$victim" ] && continue
      read -r rc end <"$d/end.$r"
      ms=$(fault_ms "$kill_ns" "$end")
      [ "${worst[$how $site]:-0}" -ge "$ms" ] || worst[$how $site]=$ms
      ends[$how $site]+="$ms "
      grep -q "^kill_matrix: PE $r entering $site\$" "$d/out.$r" || bad "$label: PE $r did not enter $site"
      [ "$rc" -ne 0 ] || bad "$label: PE $r exited 0"
      [ "$rc" -ne 5 ] || bad "$label: PE $r was not ended by the library (STILL RUNNING)"
      [ "$rc" -lt 124 ] || bad "$label: PE $r ran into the test's outer bound (exit $rc)"
      [ "$ms" -le "$limit_ms" ] || bad "$label: PE $r ended ${ms} ms after the kill (> ${limit_ms} ms)"
      grep -q "PE $victim failed" "$d/err.$r" "$d/out.$r" || bad "$label: PE $r never named PE $victim as failed"
      device_report_ok "$site" "$d/out.$r" "$d/err.$r" || bad "$label: PE $r: no device report with the sets"
    done
  else
    read -r rc end <"$d/end"
    ms=$(fault_ms "$kill_ns" "$end")
    [ "${worst[$how $site]:-0}" -ge "$ms" ] || worst[$how $site]=$ms
    ends[$how $site]+="$ms "
    [ "$rc" -ne 0 ] || bad "$label: the job exited 0"
    [ "$ms" -le "$limit_ms" ] || bad "$label: the job ended ${ms} ms after the kill (> ${limit_ms} ms)"
    named=$(grep -c "PE $victim failed" "$d/out" "$d/err" | awk -F: '{s += $NF} END {print s + 0}')
    echo "kill_matrix: $label: $named lines of the survivors name PE $victim (the supervisor may end them first)"
  fi
  if [ "$fail" -ne "$before" ]; then
    echo "---- $label: output"
    for f in "$d"/out* "$d"/err*; do echo "-- $f"; cat "$f"; done
  fi
  rm -rf "$d"
}

next_test() {  # LABEL
  local rc
  "${clean_env[@]}" timeout -s KILL 120 "$gshmrun" -n "$n" -- "$prog" none >"$tmp/next.out" 2>"$tmp/next.err"
  rc=$?
  if fault_skipped "$rc" "$tmp/next.out"; then
    skipped=$((skipped + 1))
    return
  fi
  if [ "$rc" -ne 0 ] || [ "$(grep -c 'checks passed (kill_matrix none)' "$tmp/next.out")" -ne "$n" ]; then
    bad "the next GPU job after $1 failed (exit $rc)"
    cat "$tmp/next.out" "$tmp/next.err"
  fi
}

start_ns=$(fault_now_ns)
if [ "$trials" -eq 0 ]; then
  i=0
  for site in "${site_list[@]}"; do
    parallel=1 job_start "${launcher_list[$((i % ${#launcher_list[@]}))]}" "$site" 0
    job_check "$njobs"
    i=$((i + 1))
  done
  next_test "the short matrix"
else
  for site in "${site_list[@]}"; do
    for how in "${launcher_list[@]}"; do
      first=$((njobs + 1))
      for ((t = 0; t < trials; ++t)); do
        job_start "$how" "$site" "$t"
        while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
      done
      wait
      for ((j = first; j <= njobs; ++j)); do job_check "$j"; done
      next_test "$how $site"
      echo "kill_matrix: $how $site: $trials trials and the next test done at $(fault_ms "$start_ns" "$(fault_now_ns)") ms"
    done
  done
fi
end_ns=$(fault_now_ns)

if [ "$skipped" -gt 0 ] && [ "$fail" -eq 0 ]; then
  echo "SKIP: kill_matrix needs $n GPUs"
  exit 77
fi
echo "kill_matrix: $njobs jobs in $(fault_ms "$start_ns" "$end_ns") ms; the slowest end after the kill per launcher and site:"
for k in "${!worst[@]}"; do
  # shellcheck disable=SC2086
  med=$(printf '%s\n' ${ends[$k]} | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  echo "  $k: ${worst[$k]} ms (median $med ms, $(wc -w <<<"${ends[$k]}") ends)"
done | sort
fault_finish "kill_matrix-$n"

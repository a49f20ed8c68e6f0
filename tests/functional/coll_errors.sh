#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Driver for test_coll_errors: runs every bad-argument case of the team and collective
# API in its own `gshmrun -n N prog <case>` (with the case's environment) and checks
#   - the exit status: device cases must fail (the kernel traps); host cases and "ok"
#     must succeed (every PE gets an error code back, nobody hangs, dest is untouched);
#   - the output (stdout + stderr) holds the expected message naming the call, the PE,
#     the cause and the remedy;
#   - "ok" (valid calls at the edges of the checks) prints no gshmem ERROR at all.
# Exits 77 (skipped) when the program reports that the GPUs are missing.
# usage: coll_errors.sh GSHMRUN PROG NPES
set -u
gshmrun=$1 prog=$2 n=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/coll_errors.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail=0
bad() { echo "FAIL: $*"; fail=1; }

P='gshmem ERROR \[PE [0-9]+[]/]'  # device "[PE 0]", host log "[PE 0/2 host:pid]"
W='gshmem WARN \[PE [0-9]+/'
H='0x[0-9a-f]+'
D="GSHMEM_DEBUG_CHECKS=1"
T="GSHMEM_WAIT_TIMEOUT=2"                 # late_*: PE n-1 never calls; the others name it
L="gshmem ERROR \[PE [0-9]+\]:"
# The report gives the sets where the collective's flags tell (impl/stuck.cuh): then every PE but
# n-1 arrived (as the device writes PE sets: fault_lib.sh) and PE n-1 is missing.
. "$(dirname "$0")/fault_lib.sh"
A=$(fault_ranges "$n" $((n - 1)))
S="still waiting for PE $((n - 1)) after 2 s \(GSHMEM_WAIT_TIMEOUT\)(; arrived: $A; missing: $((n - 1)))?; that PE is stuck, dead, or did not enter the same collective"
# case | environment ("-": none) | expected exit ("fail" or "ok") | extended regex the output must match
cases=(
  "dev_bad_root|-|fail|$P.*gshmemx_int_broadcast_block: root 99 is not a PE of the team \(team size $n\).*PE_root is a team PE number from 0 to gshmem_team_n_pes\(team\)-1"
  "dev_invalid_team|-|fail|$P.*gshmem_int_alltoall: team 7777 is not a valid team of this PE.*gshmem_team_my_pe\(team\) >= 0"
  "dev_overlap|-|fail|$P.*gshmem_fcollectmem: source \[$H, \+64 bytes\) and dest \[$H, \+$((64 * n)) bytes\) overlap.*separate source and dest"
  "dev_stride|-|fail|$P.*gshmemx_alltoallsmem_warp: dest \(dst\) stride 0 is invalid.*must be >= 1"
  "dev_not_symmetric|-|fail|$P.*gshmemx_broadcastmem_block: dest \[$H, \+64 bytes\) is not inside the symmetric heap.*gshmem_malloc"
  "dev_team_sync_invalid|-|fail|$P.*gshmemx_team_sync_block: team -1 is not a valid team of this PE"
  "host_bad_root|-|ok|$P.*gshmem_int_broadcast: PE_root $n is not a PE of team \(size $n\).*from 0 to gshmem_team_n_pes\(team\)-1"
  "host_invalid_team|-|ok|$P.*gshmem_long_fcollect: team -1 is not a valid team of this PE.*gshmem_team_my_pe\(team\) >= 0"
  "host_overlap|-|ok|$P.*gshmemx_alltoallmem_on_stream: source \[$H, \+$((16 * n)) bytes\) and dest \[$H, \+$((16 * n)) bytes\) overlap.*use separate buffers"
  "host_not_symmetric|-|ok|$P.*gshmem_collectmem: dest must be a symmetric buffer of at least 16 bytes.*gshmem_malloc"
  "host_stride|-|ok|$P.*gshmem_int_alltoalls: source \(sst\) stride -1 is invalid.*must be >= 1"
  "host_nelems_agree|$D|ok|$P.*gshmem_int_fcollect: nelems differs between members of team 0: this PE \(team PE 0\) passed 10, team PE 1 \(world PE 1\) passed 11"
  "host_root_agree|$D|ok|$P.*gshmem_broadcastmem: PE_root differs between members of team 0"
  "host_op_agree|$D|ok|$P.*gshmem_fcollectmem: team PE 1 \(world PE 1\) called alltoall while this PE \(team PE 0\) called fcollect"
  "host_rejected_agree|$D|ok|$P.*gshmem_fcollectmem: team PE 1 \(world PE 1\) rejected its arguments"
  "host_sync_invalid|-|ok|$P.*gshmem_barrier: team 4242 is not a valid team of this PE"
  "split_bad|-|ok|$P.*gshmem_team_split_strided: start 0, stride 0, size 2 do not describe PEs of parent team 0 \($n PEs\)"
  "exhaust|GSHMEM_MAX_TEAMS=5|ok|$P.*gshmem_team_split_strided: no team slot is free on every PE of parent team 0.*GSHMEM_MAX_TEAMS=5.*gshmem_team_destroy"
  "destroy_predefined|-|ok|$W.*gshmem_team_destroy: team 0 is a predefined team"
  "late_reduce_thread|$T|fail|$L gshmem_float_sum_reduce: $S"
  "late_reduce_warp|$T|fail|$L gshmemx_float_sum_reduce_warp: $S"
  "late_reducescatter_block|$T|fail|$L gshmemx_double_max_reducescatter_block: $S"
  "late_alltoall_warp|$T|fail|$L gshmemx_alltoallmem_warp: $S"
  "late_fcollect_block|$T|fail|$L gshmemx_fcollectmem_block: $S"
  "late_broadcast_thread|$T|fail|$L gshmem_broadcastmem: $S"
  "ok|$D|ok|case ok: done"
)

for entry in "${cases[@]}"; do
  IFS='|' read -r name env want regex <<<"$entry"
  envs=()
  [ "$env" != "-" ] && envs=("$env")
  timeout -s KILL 120 env ${envs[@]+"${envs[@]}"} "$gshmrun" -n "$n" --timeout 60 -- "$prog" "$name" >"$tmp/out" 2>&1
  rc=$?
  if [ "$rc" -eq 77 ] || grep -q '^SKIP:' "$tmp/out"; then
    cat "$tmp/out"
    echo "SKIP: coll_errors needs $n GPUs"
    exit 77
  fi
  echo "---- case $name ($env): gshmrun exit status $rc"
  grep -E 'gshmem (ERROR|WARN)|case |FAIL' "$tmp/out" | head -n 8
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

[ "$fail" -eq 0 ] && echo "coll_errors-$n: OK"
exit "$fail"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI across nodes without GSHMEM_BOOTSTRAP_ADDR (docs/launch.md): mpirun -n 2 with each
# rank told it is alone on its node (OMPI_COMM_WORLD_LOCAL_SIZE=1, as under mpirun -H a,b).
#   1. a program that called MPI_Init: gshmem_init rendezvouses through MPI_COMM_WORLD (both
#      ranks log it and reach the bootstrap's end; on a GPU machine init succeeds, pe == rank);
#   2. one that did not: gshmem_init fails at once, saying to pass
#      mpirun -x GSHMEM_BOOTSTRAP_ADDR=<host of rank 0>, and never tries 127.0.0.1.
#   mpi_world.sh MPIEXEC PROBE
set -uo pipefail
mpiexec=$1 probe=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "mpi_world.sh: FAILED: $*" >&2; exit 1; }
as_two_nodes() {
  timeout 60 "$mpiexec" --oversubscribe -n 2 -x GSHMEM_DEBUG=INFO -x GSHMEM_BOOTSTRAP_TIMEOUT=20 \
    sh -c 'OMPI_COMM_WORLD_LOCAL_SIZE=1 OMPI_COMM_WORLD_LOCAL_RANK=0 exec "$0" "$@"' "$probe" "$@" 2>&1
}

out=$(as_two_nodes)
rc=$?
echo "$out"
[[ $rc -ne 124 ]] || fail "mpirun hung (60 s)"
[[ $(grep -c "the rendezvous goes through MPI_COMM_WORLD" <<<"$out") -eq 2 ]] || fail "not both ranks used MPI_COMM_WORLD"
[[ $(grep -c "bootstrap: MPI communicator, rank [01] of 2" <<<"$out") -eq 2 ]] || fail "the id did not reach both ranks"
grep -q "mpirun -x GSHMEM_BOOTSTRAP_ADDR" <<<"$out" && fail "asked for an address although MPI was there"
grep -qE "bootstrap: .*(timed out|cannot connect|refused)" <<<"$out" && fail "the rendezvous itself failed"
for r in 0 1; do
  line=$(grep "mpi_world_probe: rank $r: rc=" <<<"$out") || fail "rank $r did not report"
  code=${line##*rc=}
  # 1 (invalid value) or 5 (bootstrap) would be the rendezvous failing; without a GPU the
  # failure comes later, at the GPU (and is not this test's business).
  [[ $code != 1 && $code != 5 ]] || fail "rank $r: gshmem init failed with $code in the rendezvous"
  if [[ $code == 0 ]]; then
    grep -q "mpi_world_probe: rank $r: pe=$r npes=2" <<<"$out" || fail "rank $r: pe/npes disagree with MPI"
  fi
done

out=$(as_two_nodes --no-mpi-init)
echo "$out"
[[ $(grep -c "mpirun -x GSHMEM_BOOTSTRAP_ADDR=<host of rank 0>" <<<"$out") -ge 2 ]] || fail "no clear error without MPI"
[[ $(grep -c "rc=1$" <<<"$out") -eq 2 ]] || fail "without MPI init did not fail with GSHMEM_ERROR_INVALID_VALUE"
echo "mpi_world.sh: passed"

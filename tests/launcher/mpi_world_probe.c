// SPDX-License-Identifier: BSD-3-Clause
// mpi_world_probe: an MPI program that calls plain gshmem initialisation (no unique id, no
// communicator) after MPI_Init, run by tests/launcher/mpi_world.sh under mpirun with the
// environment of a job across nodes and no GSHMEM_BOOTSTRAP_ADDR: the rendezvous must go
// through MPI_COMM_WORLD. `--no-mpi-init` skips MPI_Init (then it must fail with the message
// that says what to pass). Prints "mpi_world_probe: rank R: rc=X" and, when init succeeded
// (a GPU machine), "pe=P npes=N" after a barrier; exits 0 unless that disagrees with MPI.
#include <gshmem/gshmem.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  const int use_mpi = !(argc > 1 && strcmp(argv[1], "--no-mpi-init") == 0);
  int rank = -1, size = 0;
  if (use_mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  const int rc = gshmemx_init_attr(GSHMEMX_INIT_DEFAULT, NULL);
  printf("mpi_world_probe: rank %d: rc=%d\n", rank, rc);
  int bad = 0;
  if (rc == 0) {
    const int pe = gshmem_my_pe(), npes = gshmem_n_pes();
    gshmem_barrier_all();
    printf("mpi_world_probe: rank %d: pe=%d npes=%d\n", rank, pe, npes);
    bad = use_mpi && (pe != rank || npes != size);
    gshmem_finalize();
  }
  fflush(stdout);
  if (use_mpi) MPI_Finalize();
  return bad;
}

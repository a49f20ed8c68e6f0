// SPDX-License-Identifier: BSD-3-Clause
// Rank/size discovery from the environment that launchers set.
//
// Checked in this order (first complete set wins):
//   gshmrun:  GSHMEM_RANK, GSHMEM_SIZE, GSHMEM_LOCAL_RANK, GSHMEM_LOCAL_SIZE, GSHMEM_UNIQUEID
//   torchrun: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//             (rendezvous on MASTER_ADDR : GSHMEM_BOOTSTRAP_PORT or MASTER_PORT+1, since
//             torch's own store already listens on MASTER_PORT)
//   Open MPI: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
//   Slurm:    SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NTASKS_PER_NODE?
// For Open MPI and Slurm the rendezvous address is MASTER_ADDR (or
// GSHMEM_BOOTSTRAP_ADDR) when set, else 127.0.0.1 if the job is on one node
// (local size == size); the port is GSHMEM_BOOTSTRAP_PORT or derived from the job
// id (OMPI_MCA_ess_base_jobid / SLURM_JOB_ID.SLURM_STEP_ID), and the job secret is
// derived from the same job id (so processes of another job are rejected).
// With none of these set, a single-PE job (rank 0 of 1) is assumed.
#pragma once

#include <string>

#include "bootstrap.h"

namespace gshmem::bootstrap {

struct EnvInfo {
  std::string launcher;   // "gshmrun", "torchrun", "openmpi", "slurm", "singleton"
  int rank = 0;
  int size = 1;
  int local_rank = 0;     // -1 if the launcher does not say
  int local_size = 1;     // -1 if the launcher does not say
  gshmemx_uniqueid_t id;  // rendezvous to join (meaningless for singleton)
};

// Read the launcher variables from `getenv_fn` (defaults to ::getenv; tests pass
// a fake). Errors (e.g. RANK set but WORLD_SIZE missing, rank >= size, a
// malformed GSHMEM_UNIQUEID) name the variable and what to do.
Status detect_from_env(EnvInfo* out, const char* (*getenv_fn)(const char*) = nullptr);

}  // namespace gshmem::bootstrap

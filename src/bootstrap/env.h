// SPDX-License-Identifier: BSD-3-Clause
// Rank/size discovery from the environment that launchers set.
//
// Checked in this order (first complete set wins):
//   gshmrun:  GSHMEM_RANK, GSHMEM_SIZE, GSHMEM_LOCAL_RANK, GSHMEM_LOCAL_SIZE, GSHMEM_UNIQUEID
//   torchrun: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//             (rendezvous on MASTER_ADDR : GSHMEM_BOOTSTRAP_PORT or MASTER_PORT+1, since
//             torch's own store already listens on MASTER_PORT)
//   Open MPI: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
//   Slurm:    SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_JOB_ID, SLURM_STEP_ID
// For Open MPI and Slurm the rendezvous address is GSHMEM_BOOTSTRAP_ADDR (or
// MASTER_ADDR) when set, else 127.0.0.1 if the job is on one node
// (local size == size), else for Slurm the first host of the step's nodelist
// (SLURM_STEP_NODELIST, else SLURM_NODELIST, else SLURM_JOB_NODELIST; Slurm's
// hostlist syntax, bootstrap/hostlist.h), where task 0 runs under every
// distribution but arbitrary: with --distribution=arbitrary or SLURM_HOSTFILE,
// and on task 0 when SLURMD_NODENAME is not that host, it is an error saying to
// set GSHMEM_BOOTSTRAP_ADDR. Open MPI does not tell a process where rank 0
// runs: a multi-node Open MPI job without an address is an error that says to
// pass `mpirun -x GSHMEM_BOOTSTRAP_ADDR=<host of rank 0>` (docs/launch.md) --
// which gshmem_init defers (defer_missing_address) to send the id through
// MPI_COMM_WORLD instead when the program has initialised MPI.
// The port is GSHMEM_BOOTSTRAP_PORT or derived from the job
// id (OMPI_MCA_ess_base_jobid / SLURM_JOB_ID.SLURM_STEP_ID), and the job secret is
// derived from the same job id (so processes of another job are rejected).
// torchrun across nodes (--nnodes N): MASTER_ADDR is the address the agent of
// node (group rank) 0 publishes, the host of global rank 0, the same string on
// every node; LOCAL_WORLD_SIZE is this node's count.
// With none of these set, a single-PE job (rank 0 of 1) is assumed -- unless
// variables of a launcher gshmem does not read (PMI_RANK/PMI_SIZE of MPICH or
// Intel MPI hydra, MV2_COMM_WORLD_* of MVAPICH2, PMIX_RANK, MPI_LOCALNRANKS)
// say the process is one of several: that is an error naming them and the
// supported ways to launch.
//
// Details:
//   - A variable set to the empty string counts as unset.
//   - A launcher's set is "complete" with its rank and size variables plus
//     GSHMEM_UNIQUEID (gshmrun), MASTER_ADDR and MASTER_PORT (torchrun),
//     SLURM_JOB_ID and SLURM_STEP_ID (Slurm; SLURM_NPROCS / SLURM_JOBID /
//     SLURM_STEPID are accepted as older spellings). Local rank/size are
//     optional (-1 when absent). A partly set launcher is skipped with a WARN
//     if a later one is complete, else it is an error naming the missing ones.
//   - Slurm variables without SLURM_STEP_ID (a batch script, not an srun task)
//     are ignored. Slurm's local size comes from the step's variables (all
//     tasks when SLURM_STEP_NUM_NODES is 1, else a uniform
//     SLURM_STEP_TASKS_PER_NODE); only without them from the allocation's
//     (SLURM_NTASKS_PER_NODE, SLURM_NNODES / SLURM_JOB_NUM_NODES == 1, a uniform
//     SLURM_TASKS_PER_NODE), which every step inherits. A value that does not
//     fit the step leaves it unknown (-1, logged at INFO); it is never an error.
//   - Derived ports lie in 16384..32767, below Linux's default ephemeral port
//     range (32768..60999). Open MPI's job id is
//     OMPI_MCA_ess_base_jobid, else OMPI_MCA_orte_hnp_uri, else PMIX_NAMESPACE
//     (without any of them GSHMEM_BOOTSTRAP_PORT must be set).
//   - Derived ids are computed by every rank from shared values, so a process
//     of another job holds another secret and is rejected, but the secret is
//     predictable: this prevents accidents, it is NOT a security boundary.
//   GSHMEM_BOOTSTRAP_SECRET (any launcher; any string, the same on every PE):
//     the job secret is mixed with it (SHA-256), so that only processes given it
//     join -- the way to protect a torchrun/srun/mpirun job from other local
//     users (docs/reliability.md). Without it, rank 0 logs once at INFO that a
//     derived secret protects against accidents only. gshmrun's and a unique
//     id's secrets are random already.
//   - Errors: GSHMEM_ERROR_INVALID_VALUE for malformed/inconsistent variables,
//     GSHMEM_ERROR_BOOTSTRAP when the rendezvous host cannot be resolved.
#pragma once

#include <string>

#include "bootstrap.h"

namespace gshmem::bootstrap {

struct EnvInfo {
  std::string launcher;  // "gshmrun", "torchrun", "openmpi", "slurm", "singleton"
  int rank = 0;
  int size = 1;
  int local_rank = 0;     // -1 if the launcher does not say
  int local_size = 1;     // -1 if the launcher does not say
  gshmemx_uniqueid_t id;  // rendezvous to join (singleton: only a random job key)
  // A job across nodes whose launcher says nothing of where rank 0 runs (Open MPI; Slurm
  // without a nodelist) and no GSHMEM_BOOTSTRAP_ADDR: detect_from_env fails with
  // GSHMEM_ERROR_INVALID_VALUE, rank/size filled, address_missing set and the message (what to
  // set) in address_error -- logged unless the caller deferred it (it may still rendezvous
  // another way: gshmem_init through MPI_COMM_WORLD when the program initialised MPI).
  bool address_missing = false;
  std::string address_error;
};

// Read the launcher variables from `getenv_fn` (defaults to ::getenv; tests pass
// a fake). Errors (e.g. RANK set but WORLD_SIZE missing, rank >= size, a
// malformed GSHMEM_UNIQUEID) name the variable and what to do. With
// `defer_missing_address`, a missing rendezvous address (see EnvInfo) is not logged.
Status detect_from_env(EnvInfo* out, const char* (*getenv_fn)(const char*) = nullptr,
                       bool defer_missing_address = false);

}  // namespace gshmem::bootstrap

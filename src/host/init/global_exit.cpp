// SPDX-License-Identifier: BSD-3-Clause
// gshmem_global_exit: one PE ends the whole job (OpenSHMEM shmem_global_exit, NVSHMEM
// nvshmem_global_exit).
//
// How the others learn it: this process ends without the bootstrap's finalize goodbye, so its
// connections close; the failure monitor of the bootstrap (started at init) sees that, rank 0
// relays it to every rank, and each PE ends through the library's one fatal path
// (init.cpp on_peer_failure, exit code 1, naming this PE). That path works while the other PEs
// are blocked anywhere, including inside a kernel that spins on a flag, because the monitor is
// its own thread. Launchers stop the rest of the job too (gshmrun names the PE that ended;
// mpirun aborts a job whose process exits without MPI_Finalize).
// Limits: the others end with exit code 1, not `status`; with GSHMEM_PEER_FAILURE_ABORT=0 they
// only log the failure (and calls that need this PE fail).
#include <cstdio>
#include <cstdlib>

#include "host/core/runtime.h"

using namespace gshmem;

extern "C" GSHMEM_API void gshmem_global_exit(int status) {
  const Runtime& r = rt();
  if (r.initialized)
    GSHMEM_LOG_WARN("gshmem_global_exit(%d) called on PE %d of %d: ending every PE of the job", status, r.my_pe,
                    r.n_pes);
  else
    GSHMEM_LOG_WARN("gshmem_global_exit(%d) called while gshmem is not initialised: ending this process", status);
  fflush(nullptr);
  _Exit(status);
}

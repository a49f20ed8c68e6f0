// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr): the PEs are the ranks of the caller's
// MPI communicator (*attr->mpi_comm). libgshmem does not link MPI; it calls the MPI library
// the program already loaded (found with dlsym), so that MPI programs need no gshmem build
// with MPI and non-MPI programs no MPI at all.
#pragma once

#include "gshmem/types.h"
#include "host/core/status.h"

namespace gshmem::mpi {

// Collective over the communicator: its rank 0 makes a bootstrap unique id and broadcasts it
// (MPI_Bcast); every rank gets, in *out, the attributes of GSHMEMX_INIT_WITH_UNIQUEID (rank and
// size in the communicator, the id). Supports Open MPI's ABI (handles are pointers to ompi_*
// objects) and refuses others with a message naming the loaded MPI and the unique-id
// alternative. Errors: GSHMEM_ERROR_INVALID_VALUE (no/NULL/MPI_COMM_NULL communicator, other
// flags combined), GSHMEM_ERROR_UNSUPPORTED (no MPI loaded, not Open MPI, MPI not initialised),
// GSHMEM_ERROR_BOOTSTRAP (an MPI call failed, or rank 0 could not make the id).
Status uniqueid_attr_from_comm(unsigned flags, const gshmemx_init_attr_t* attr, gshmemx_init_attr_t* out);

// Whether the program loaded Open MPI and has initialised (and not finalised) it: then
// MPI_COMM_WORLD can carry the bootstrap id. Quiet: false is not an error.
bool world_ready();
// uniqueid_attr_from_comm over MPI_COMM_WORLD (call only when world_ready()).
Status uniqueid_attr_from_world(gshmemx_init_attr_t* out);

}  // namespace gshmem::mpi

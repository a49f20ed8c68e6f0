/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gshmem public types shared by the host C API, the device API and the tools.
 * Plain C, usable from any C or C++ translation unit.
 */
#ifndef GSHMEM_TYPES_H
#define GSHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#define GSHMEM_MAJOR_VERSION 0
#define GSHMEM_MINOR_VERSION 1
#define GSHMEM_VENDOR_STRING "gshmem"
/* OpenSHMEM specification version this library follows. */
#define GSHMEM_SPEC_MAJOR_VERSION 1
#define GSHMEM_SPEC_MINOR_VERSION 5

/* Status codes returned by the host API. 0 is success; every other value has
 * a name and a message (gshmemx_status_string). */
typedef enum gshmemx_status {
  GSHMEM_SUCCESS = 0,
  GSHMEM_ERROR_INVALID_VALUE = 1,   /* an argument is out of range or NULL   */
  GSHMEM_ERROR_NOT_INITIALIZED = 2, /* call needs gshmem_init first          */
  GSHMEM_ERROR_OUT_OF_MEMORY = 3,   /* symmetric heap or host memory exhausted */
  GSHMEM_ERROR_CUDA = 4,            /* a CUDA call failed (logged with its name) */
  GSHMEM_ERROR_BOOTSTRAP = 5,       /* rendezvous / out-of-band exchange failed */
  GSHMEM_ERROR_PEER_FAILURE = 6,    /* another PE died or disconnected       */
  GSHMEM_ERROR_TIMEOUT = 7,         /* a bounded wait expired                */
  GSHMEM_ERROR_UNSUPPORTED = 8,     /* platform lacks a needed feature       */
  GSHMEM_ERROR_SYSTEM = 9,          /* an OS call failed (logged with errno) */
  GSHMEM_ERROR_MISMATCH = 10,       /* collective arguments differ between PEs */
  GSHMEM_ERROR_LAUNCH = 11,         /* a collective launch cannot be co-resident */
  GSHMEM_ERROR_AUTH = 12,           /* a bootstrap peer presented a wrong job secret */
  GSHMEM_ERROR_INTERNAL = 13
} gshmemx_status_t;

/* Comparison operators for wait_until / test. */
#define GSHMEM_CMP_EQ 0
#define GSHMEM_CMP_NE 1
#define GSHMEM_CMP_GT 2
#define GSHMEM_CMP_GE 3
#define GSHMEM_CMP_LT 4
#define GSHMEM_CMP_LE 5

/* Signal update operations (put_signal, signal_op). */
#define GSHMEM_SIGNAL_SET 0
#define GSHMEM_SIGNAL_ADD 1

/* Teams. A team handle is a small integer naming a team on this PE; the
 * predefined teams exist from gshmem_init to gshmem_finalize. */
typedef int gshmem_team_t;
#define GSHMEM_TEAM_INVALID (-1)
#define GSHMEM_TEAM_WORLD 0
#define GSHMEM_TEAM_SHARED 1 /* PEs whose heaps this PE can load/store directly */
#define GSHMEMX_TEAM_NODE 2  /* PEs on this node */

typedef struct gshmem_team_config {
  int num_contexts;
} gshmem_team_config_t;
#define GSHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Hints of gshmem_malloc_with_hints (bits; 0: no hint). */
#define GSHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define GSHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Thread levels (gshmem_init_thread). */
#define GSHMEM_THREAD_SINGLE 0
#define GSHMEM_THREAD_FUNNELED 1
#define GSHMEM_THREAD_SERIALIZED 2
#define GSHMEM_THREAD_MULTIPLE 3

/* Opaque bootstrap rendezvous id: made by one process with
 * gshmemx_get_uniqueid() and handed to every PE by the user (MPI_Bcast, a
 * file, torch.distributed ...). Contains the address of the rendezvous point
 * and a random job secret; treat it as a credential. */
#define GSHMEMX_UNIQUEID_BYTES 128
typedef struct gshmemx_uniqueid {
  char internal[GSHMEMX_UNIQUEID_BYTES];
} gshmemx_uniqueid_t;
#define GSHMEMX_UNIQUEID_INITIALIZER {{0}}

/* Flags for gshmemx_init_attr. */
#define GSHMEMX_INIT_DEFAULT 0u        /* rank/size from the environment */
#define GSHMEMX_INIT_WITH_UNIQUEID 1u  /* attr->uniqueid, attr->rank, attr->nranks */
/* attr->mpi_comm points to the caller's MPI_Comm (an Open MPI communicator; MPI must be
 * initialised): its ranks become the PEs, in comm rank order. gshmem does not link MPI: it
 * uses the MPI library the program has loaded. Collective over the communicator. */
#define GSHMEMX_INIT_WITH_MPI_COMM 2u

typedef struct gshmemx_init_attr {
  int version; /* GSHMEMX_INIT_ATTR_VERSION; set by the initialiser */
  int rank;
  int nranks;
  gshmemx_uniqueid_t uniqueid;
  void* mpi_comm; /* MPI_Comm* for GSHMEMX_INIT_WITH_MPI_COMM, else unused */
  char reserved[64];
} gshmemx_init_attr_t;
#define GSHMEMX_INIT_ATTR_VERSION 1
#define GSHMEMX_INIT_ATTR_INITIALIZER {GSHMEMX_INIT_ATTR_VERSION, -1, -1, GSHMEMX_UNIQUEID_INITIALIZER, NULL, {0}}

#endif /* GSHMEM_TYPES_H */

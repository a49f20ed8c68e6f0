// SPDX-License-Identifier: BSD-3-Clause
// Data-movement collectives on teams: broadcast, fcollect, collect, alltoall,
// alltoalls. Declarations and contracts; bodies in impl/coll_*.cuh. C names
// (gshmem_int_broadcast, gshmemx_fcollectmem_block, ...): c_api.cuh. The host
// forms (gshmem_int_broadcast from host code) and gshmemx_..._on_stream run the
// same algorithm in the library's own kernels, spread over many CTAs.
//
// Calling. Every member of `team` calls the same collective with the same
// arguments (collect: nelems may differ), one thread / warp / block per PE,
// in the same order as its other collectives on that team. Host, stream and
// device forms of one collective may be mixed across PEs.
//
// Buffers. `dest` is symmetric; `source` may be symmetric or any memory this
// GPU can read. Before any member calls, dest must be ready on every member
// (as in OpenSHMEM): no earlier operation there still reads or writes it, that
// member's previous collective included, for the data is pushed into peers'
// dest as soon as each member arrives. A member may still be receiving into its
// dest (or copying its own part from its source) after a faster one has
// returned, and in the broadcast relay (3 or more PEs, 256 KiB or more) members
// forward into each other's dest after the root has returned. So a collective
// here whose dest overlaps the dest or source of the previous collective on the
// team needs a team_sync before it (reductions write only their own member's
// dest). Source and dest must not overlap, except source == dest in broadcast.
//
// Completion. On return dest holds the result on the calling PE and source
// may be reused. Other members may still be receiving theirs: to read a
// peer's dest, synchronise the team first (team_sync / barrier).
//
// Results (team PE numbers i, j in [0, N); nelems counted in elements of T):
//   broadcast   dest[k] on every member (the root included) = source[k] of
//               team PE root, k < nelems; source is read only on the root.
//   fcollect    dest[i*nelems + k] = source[k] of PE i.
//   collect     PE i's nelems_i elements at dest[off_i + k], off_i = sum of
//               nelems_j over j < i (nelems may differ between PEs).
//   alltoall    dest[i*nelems + k] on PE j = source[j*nelems + k] of PE i.
//   alltoalls   dest[(i*nelems + k) * dst] on PE j = source[(j*nelems + k) * sst]
//               of PE i (strides in elements, >= 1).
// The *mem forms count bytes.
//
// Return 0; -1 at once, without communicating, when `team` is not a valid team
// of this PE. Debug builds (GSHMEM_DEBUG_CHECKS) check the team, the root, the
// strides, symmetric dest and overlap, report (call, PE, cause, remedy) and
// trap; the host forms check what is cheap always and, with
// GSHMEM_DEBUG_CHECKS=1 at run time, compare nelems / root / strides between
// the members so that every member fails the same call together.
//
// Ordering. A collective orders only its own data: puts issued before it are
// not completed by it (use barrier / quiet).
#pragma once

#include <cstddef>

#include "gshmem/types.h"
#include "scope.cuh"

namespace gshmem {

template <class Scope = thread_scope, class T>
__device__ int broadcast(gshmem_team_t team, T* dest, const T* source, size_t nelems, int root);
template <class Scope = thread_scope>
__device__ int broadcastmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes, int root);

template <class Scope = thread_scope, class T>
__device__ int fcollect(gshmem_team_t team, T* dest, const T* source, size_t nelems);
template <class Scope = thread_scope>
__device__ int fcollectmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes);

template <class Scope = thread_scope, class T>
__device__ int collect(gshmem_team_t team, T* dest, const T* source, size_t nelems);
template <class Scope = thread_scope>
__device__ int collectmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes);

template <class Scope = thread_scope, class T>
__device__ int alltoall(gshmem_team_t team, T* dest, const T* source, size_t nelems);
template <class Scope = thread_scope>
__device__ int alltoallmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes);

template <class Scope = thread_scope, class T>
__device__ int alltoalls(gshmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
template <class Scope = thread_scope>
__device__ int alltoallsmem(gshmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                            size_t nbytes);

}  // namespace gshmem

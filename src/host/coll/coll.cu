// SPDX-License-Identifier: BSD-3-Clause
// Host and on-stream data-movement collectives: checks, then one of the
// library's multi-CTA kernels (grid.cuh) on the caller's stream (on-stream) or
// on the library's stream followed by a wait (host form). The kernels run the
// same lanes as the device API (device/impl/coll_*.cuh), so any mix of host,
// stream and device calls across the members of a team interoperates.
#include <gshmem/gshmem.h>

#include "check.h"
#include "grid.cuh"
#include "gshmem/detail/host_entry_coll.h"
#include "gshmem/device/impl/coll_alltoall.cuh"
#include "gshmem/device/impl/coll_bcast.cuh"
#include "gshmem/device/impl/coll_collect.cuh"
#include "host/init/runtime.h"
#include "host/team/team.h"
#include "host/util/config.h"
#include "launch.h"

namespace gshmem::coll {
namespace {

using detail::run_grid;

// Kernel parameters: everything a collective needs, by value.
struct Args {
  gshmem_team_t team;
  void* dest;
  const void* source;
  uint64_t nelems;
  int elem_bytes;
  ptrdiff_t dst, sst;
  int root;
};

// Names in device-side messages (wait timeouts) must live in device memory.
__global__ void __launch_bounds__(kThreads) k_broadcast(Args a) {
  const gshmemi_team t = detail::team_entry(a.team);
  detail::bcast_op op("gshmem broadcast (host/stream)", a.dest, a.source, a.nelems * a.elem_bytes, a.root, t);
  run_grid(t, op, false);
}
__global__ void __launch_bounds__(kThreads) k_fcollect(Args a) {
  const gshmemi_team t = detail::team_entry(a.team);
  detail::fcollect_op op("gshmem fcollect (host/stream)", a.dest, a.source, a.nelems * a.elem_bytes, t);
  run_grid(t, op, false);
}
__global__ void __launch_bounds__(kThreads) k_collect(Args a) {
  const gshmemi_team t = detail::team_entry(a.team);
  detail::collect_op op("gshmem collect (host/stream)", a.dest, a.source, a.nelems * a.elem_bytes);
  run_grid(t, op, true);
}
__global__ void __launch_bounds__(kThreads) k_alltoall(Args a) {
  const gshmemi_team t = detail::team_entry(a.team);
  detail::alltoall_op op("gshmem alltoall (host/stream)", a.dest, a.source, a.nelems * a.elem_bytes, t);
  run_grid(t, op, false);
}
__global__ void __launch_bounds__(kThreads) k_alltoalls(Args a) {
  const gshmemi_team t = detail::team_entry(a.team);
  detail::alltoalls_op op("gshmem alltoalls (host/stream)", a.dest, a.source, a.dst, a.sst, a.nelems, a.elem_bytes,
                          t.size);
  run_grid(t, op, false);
}

// The kernel of `op` and its lane count (the CTA count follows from it; collect
// decides its lanes on the device, so the host guesses from its own part).
const void* kernel_for(const Request& q, int team_size, int* lanes) {
  const uint64_t nbytes = static_cast<uint64_t>(q.nelems) * q.elem_bytes;
  const uint64_t all = nbytes * static_cast<uint64_t>(team_size);
  switch (q.op) {
    case GSHMEMI_COLL_BROADCAST:
      *lanes = detail::plan_broadcast(nbytes, team_size).lanes;
      return reinterpret_cast<const void*>(k_broadcast);
    case GSHMEMI_COLL_FCOLLECT: *lanes = detail::coll_lanes(all); return reinterpret_cast<const void*>(k_fcollect);
    case GSHMEMI_COLL_COLLECT: *lanes = detail::coll_lanes(all); return reinterpret_cast<const void*>(k_collect);
    case GSHMEMI_COLL_ALLTOALL: *lanes = detail::coll_lanes(all); return reinterpret_cast<const void*>(k_alltoall);
    default: *lanes = detail::coll_lanes(all); return reinterpret_cast<const void*>(k_alltoalls);
  }
}

Status run(const char* call, gshmem_team_t team, const Request& q, int mode, cudaStream_t user_stream) {
  const gshmemi_team* t = team::require(call, team);
  if (!t) return GSHMEM_ERROR_INVALID_VALUE;
  const bool blocking = mode == GSHMEMI_COLL_BLOCKING;
  cudaStream_t stream = blocking ? internal_stream() : user_stream;
  Status st = check_arguments(call, *t, q);
  if (config::get().debug_checks) st = check_agreement(call, team, *t, q, st, stream);
  if (st != GSHMEM_SUCCESS) return st;

  int lanes = 1, ctas = 1;
  const void* kernel = kernel_for(q, t->size, &lanes);
  GSHMEM_TRY(grid_for(call, kernel, lanes, kThreads, 0, &ctas));
  Args a{team, q.dest, q.source, q.nelems, static_cast<int>(q.elem_bytes), q.dst, q.sst, q.root};
  void* args[] = {&a};
  GSHMEM_TRY(launch(call, kernel, ctas, kThreads, args, 0, stream));
  if (blocking) GSHMEM_CUDA_TRY(call, cudaStreamSynchronize(stream));
  return GSHMEM_SUCCESS;
}

}  // namespace
}  // namespace gshmem::coll

extern "C" {

GSHMEM_API int gshmemi_host_coll(const char* call, int op, gshmem_team_t team, void* dest, const void* source,
                                 size_t nelems, size_t elem_bytes, ptrdiff_t dst, ptrdiff_t sst, int root, int mode,
                                 cudaStream_t stream) {
  if (gshmem::require_init(call) != GSHMEM_SUCCESS) return GSHMEM_ERROR_NOT_INITIALIZED;
  const gshmem::coll::Request q{op, dest, source, nelems, elem_bytes, dst, sst, root};
  return gshmem::coll::run(call, team, q, mode, stream);
}

}  // extern "C"

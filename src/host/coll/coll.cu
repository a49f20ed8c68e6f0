// SPDX-License-Identifier: BSD-3-Clause
// Host and on-stream data-movement collectives: checks, then one of the
// library's multi-CTA kernels (grid.cuh) on the caller's stream (on-stream) or
// on the library's stream followed by a wait for its done word (host form,
// host/launch/done_word.h). The kernels run the same lanes as the device API
// (device/impl/coll_*.cuh), so any mix of host, stream and device calls across
// the members of a team interoperates.
#include <gshmem/gshmem.h>

#include <algorithm>

#include "check.h"
#include "grid.cuh"
#include "gshmem/detail/host_entry_coll.h"
#include "gshmem/device/impl/coll_alltoall.cuh"
#include "gshmem/device/impl/coll_bcast.cuh"
#include "gshmem/device/impl/coll_collect.cuh"
#include "host/core/runtime.h"
#include "host/launch/done_word.h"
#include "host/launch/preload.h"
#include "host/launch/stream_order.cuh"
#include "host/team/team.h"
#include "host/core/config.h"
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
  int parts;      // pieces per lane (grid.cuh)
  DoneWord done;  // host forms: stored by the last CTA (host/launch/done_word.h)
};

// A team with members on other nodes: its collectives by one CTA through the device API's
// spanning path (device/impl/coll_span.cuh), the same flags as a device call of the others.
// Only CTA 0 works (run() launches one); every CTA ends with grid_done.
__device__ __forceinline__ bool spanning(const gshmemi_team& t) { return (t.flags & GSHMEMI_TEAM_SPANS_NODES) != 0; }

// Names in device-side messages (wait timeouts) must live in device memory. A
// single-CTA grid may start early (launch.h), so each kernel first waits for the work
// ahead of it on the stream. The host forms' kernels end with their done word.
__global__ void __launch_bounds__(kThreads) k_broadcast(Args a) {
  wait_for_stream_predecessors();
  const gshmemi_team t = detail::team_entry(a.team);
  const char* call = "gshmem broadcast (host/stream)";
  const uint64_t nbytes = a.nelems * a.elem_bytes;
  if (spanning(t)) {
    if (blockIdx.x == 0)
      detail::span_broadcast<block_scope>(call, a.team, static_cast<char*>(a.dest), static_cast<const char*>(a.source),
                                          nbytes, a.root);
    grid_done(a.done);
    return;
  }
  const detail::bcast_plan p = detail::plan_broadcast(nbytes, t.size);
  if (p.relay) {
    detail::bcast_relay_op op(call, a.dest, a.source, nbytes, a.root, p);
    run_grid(t, op, 1);
  } else {
    detail::bcast_op op(call, a.dest, a.source, nbytes, a.root, t, p);
    run_grid(t, op, a.parts);
  }
  grid_done(a.done);
}
__global__ void __launch_bounds__(kThreads) k_fcollect(Args a) {
  wait_for_stream_predecessors();
  const gshmemi_team t = detail::team_entry(a.team);
  if (spanning(t)) {
    if (blockIdx.x == 0)
      detail::span_fcollect<block_scope>("gshmem fcollect (host/stream)", a.team, static_cast<char*>(a.dest),
                                         static_cast<const char*>(a.source), a.nelems * a.elem_bytes);
    grid_done(a.done);
    return;
  }
  detail::fcollect_op op("gshmem fcollect (host/stream)", a.dest, a.source, a.nelems * a.elem_bytes, t);
  run_grid(t, op, a.parts);
  grid_done(a.done);
}
__global__ void __launch_bounds__(kThreads) k_collect(Args a) {
  wait_for_stream_predecessors();
  const gshmemi_team t = detail::team_entry(a.team);
  if (spanning(t)) {
    if (blockIdx.x == 0)
      detail::span_collect<block_scope>("gshmem collect (host/stream)", a.team, static_cast<char*>(a.dest),
                                        static_cast<const char*>(a.source), a.nelems * a.elem_bytes);
    grid_done(a.done);
    return;
  }
  detail::collect_op op("gshmem collect (host/stream)", a.dest, a.source, a.nelems * a.elem_bytes);
  run_grid(t, op, a.parts);
  grid_done(a.done);
}
__global__ void __launch_bounds__(kThreads) k_alltoall(Args a) {
  wait_for_stream_predecessors();
  const gshmemi_team t = detail::team_entry(a.team);
  if (spanning(t)) {
    if (blockIdx.x == 0)
      detail::span_alltoall<block_scope>("gshmem alltoall (host/stream)", a.team, static_cast<char*>(a.dest),
                                         static_cast<const char*>(a.source), a.nelems * a.elem_bytes);
    grid_done(a.done);
    return;
  }
  detail::alltoall_op op("gshmem alltoall (host/stream)", a.dest, a.source, a.nelems * a.elem_bytes, t);
  run_grid(t, op, a.parts);
  grid_done(a.done);
}
__global__ void __launch_bounds__(kThreads) k_alltoalls(Args a) {
  wait_for_stream_predecessors();
  const gshmemi_team t = detail::team_entry(a.team);
  if (spanning(t)) {
    if (blockIdx.x == 0)
      detail::span_alltoalls<block_scope>("gshmem alltoalls (host/stream)", a.team, static_cast<char*>(a.dest),
                                          static_cast<const char*>(a.source), a.dst, a.sst, a.nelems, a.elem_bytes);
    grid_done(a.done);
    return;
  }
  detail::alltoalls_op op("gshmem alltoalls (host/stream)", a.dest, a.source, a.dst, a.sst, a.nelems, a.elem_bytes,
                          t.size);
  run_grid(t, op, a.parts);
  grid_done(a.done);
}

// A split collective's pieces (grid.cuh): one CTA per kCtaBytes this PE pushes,
// at least one per lane, at most kMaxCtas in all (about half the SMs of an H100 or
// H200; the bandwidth of the largest messages needs 32-64). One CTA per lane is too
// few even for a few hundred KiB: more CTAs keep more bytes in flight. But up to
// kOneCtaBytes a lane one CTA moves alone: a second one's count-in (grid.cuh) costs more
// than the half it takes over (2 x H200, 2 PEs, in a CUDA graph: broadcast of 32 KiB 6.76 ->
// 5.74 us, fcollect 7.02 -> 5.48; NCCL 6.4-6.6; 64 KiB and up faster with 4 CTAs and more).
// GSHMEM_COLL_CTAS lowers the limit.
constexpr uint64_t kCtaBytes = 16u << 10, kOneCtaBytes = 32u << 10;
constexpr int kMaxCtas = 64;

int parts_for(uint64_t pushed, int lanes) {
  if (pushed / static_cast<uint64_t>(lanes) <= kOneCtaBytes) return 1;
  const uint64_t want = (pushed / static_cast<uint64_t>(lanes) + kCtaBytes - 1) / kCtaBytes;
  const int most = kMaxCtas / lanes;
  return want <= 1 || most <= 1 ? 1 : (want < static_cast<uint64_t>(most) ? static_cast<int>(want) : most);
}

// Threads per CTA. Launching a 1024-thread CTA costs more than the work of a small call
// (fewer threads launch faster, down to about 256, and move tens of KiB no slower). So a
// CTA that moves at most kSmallCtaBytes launches kSmallThreads; kThreads (1024) stays
// for the pieces of large messages, where bytes in flight make the NVLink bandwidth.
constexpr int kSmallThreads = 256;
constexpr uint64_t kSmallCtaBytes = 32u << 10;

// The kernel of a collective and its shape: lanes (as every member plans them;
// collect decides its lanes on the device, so the host guesses from its own
// part), pieces per lane, the CTAs wanted and their threads.
struct Shape {
  const void* kernel;
  int parts = 1, ctas = 1;
  int threads = kSmallThreads;
};

Shape shape_for(const Request& q, const gshmemi_team& t) {
  const uint64_t nbytes = static_cast<uint64_t>(q.nelems) * q.elem_bytes;
  const uint64_t all = nbytes * static_cast<uint64_t>(t.size);
  Shape sh;
  int lanes = detail::coll_lanes(all);
  uint64_t pushed = all;  // roughly what this PE's CTAs move (sets their threads)
  switch (q.op) {
    case GSHMEMI_COLL_BROADCAST: {
      sh.kernel = reinterpret_cast<const void*>(k_broadcast);
      const detail::bcast_plan p = detail::plan_broadcast(nbytes, t.size);
      lanes = p.lanes;
      pushed = nbytes;
      if (p.relay) break;
      if (t.my_pe != q.root) return sh;  // pushes nothing: one small CTA waits for every lane
      pushed = nbytes * static_cast<uint64_t>(t.size > 1 ? t.size - 1 : 1);
      sh.parts = parts_for(pushed, lanes);
      break;
    }
    case GSHMEMI_COLL_FCOLLECT:
      sh.kernel = reinterpret_cast<const void*>(k_fcollect);
      break;
    case GSHMEMI_COLL_COLLECT:
      sh.kernel = reinterpret_cast<const void*>(k_collect);
      break;
    case GSHMEMI_COLL_ALLTOALL:
      sh.kernel = reinterpret_cast<const void*>(k_alltoall);
      break;
    default:
      sh.kernel = reinterpret_cast<const void*>(k_alltoalls);
      break;
  }
  if (q.op != GSHMEMI_COLL_BROADCAST) sh.parts = parts_for(all, lanes);
  // Fewer CTAs than pieces is fine: a CTA takes pieces b, b + G, ... (grid.cuh).
  const int most = static_cast<int>(std::clamp<long long>(config::get().coll_ctas, 1, kMaxCtas));
  sh.ctas = std::min(lanes * sh.parts, most);
  sh.threads = pushed / static_cast<uint64_t>(sh.ctas) <= kSmallCtaBytes ? kSmallThreads : kThreads;
  return sh;
}

Status run(const char* call, gshmem_team_t team, const Request& q, int mode, cudaStream_t user_stream) {
  const gshmemi_team* t = team::require(call, team);
  if (!t) return GSHMEM_ERROR_INVALID_VALUE;
  const bool blocking = mode == GSHMEMI_COLL_BLOCKING;
  cudaStream_t stream = blocking ? internal_stream() : user_stream;
  Status st = check_arguments(call, *t, q);
  if (config::get().debug_checks) st = check_agreement(call, team, *t, q, st, stream);
  if (st != GSHMEM_SUCCESS) return st;

  Shape sh = shape_for(q, *t);
  if (t->flags & GSHMEMI_TEAM_SPANS_NODES) {  // one CTA: the spanning path (device/impl/coll_span.cuh)
    sh.parts = sh.ctas = 1;
    sh.threads = kSmallThreads;
  }
  int ctas = 1;
  GSHMEM_TRY(grid_for(call, sh.kernel, sh.ctas, sh.threads, 0, &ctas));
  const DoneWord done = blocking ? next_done_word() : DoneWord{};
  Args a{team, q.dest, q.source, q.nelems, static_cast<int>(q.elem_bytes), q.dst, q.sst, q.root, sh.parts, done};
  void* args[] = {&a};
  GSHMEM_TRY(launch(call, sh.kernel, ctas, sh.threads, args, 0, stream));
  if (blocking) GSHMEM_CUDA_TRY(call, await_done(stream, done));
  return GSHMEM_SUCCESS;
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] {
  return preload::load({preload::K(k_broadcast), preload::K(k_fcollect), preload::K(k_collect), preload::K(k_alltoall),
                        preload::K(k_alltoalls)});
});

}  // namespace
}  // namespace gshmem::coll

extern "C" {

GSHMEM_API int gshmemi_host_coll(const char* call, int op, gshmem_team_t team, void* dest, const void* source,
                                 size_t nelems, size_t elem_bytes, ptrdiff_t dst, ptrdiff_t sst, int root, int mode,
                                 cudaStream_t stream) {
  if (const int st = gshmem::require_init(call)) return st;  // not initialised, or aborted
  const gshmem::coll::Request q{op, dest, source, nelems, elem_bytes, dst, sst, root};
  return gshmem::coll::run(call, team, q, mode, stream);
}

}  // extern "C"

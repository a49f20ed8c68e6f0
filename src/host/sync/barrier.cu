// SPDX-License-Identifier: BSD-3-Clause
// Host and stream-ordered barriers and syncs, of all PEs and of teams: one small
// kernel running the same device barrier (and signal slots) that kernels use,
// so host, stream and device barriers interleave correctly on every PE.
#include <gshmem/gshmem.h>

#include "gshmem/detail/host_entry_coll.h"
#include "host/core/runtime.h"
#include "host/launch/done_word.h"
#include "host/launch/early_launch.h"
#include "host/launch/preload.h"
#include "host/launch/stream_order.cuh"
#include "host/proxy/host_ops.h"
#include "host/proxy/stream_ops.h"
#include "host/team/team.h"

namespace gshmem {
namespace {

// One warp: each lane signals and waits for a share of the peers.
constexpr int kBarrierThreads = 32;

// Each kernel may start early (host/launch/early_launch.h): it waits for the work ahead of
// it on the stream first. The host forms' kernels end with their done word
// (host/launch/done_word.h), stored once the whole block is through the barrier.
__global__ void barrier_all_kernel(DoneWord done) {
  wait_for_stream_predecessors();
  gshmem::barrier_all<gshmem::block_scope>();
  grid_done(done);
}
__global__ void sync_all_kernel(DoneWord done) {
  wait_for_stream_predecessors();
  gshmem::sync_all<gshmem::block_scope>();
  grid_done(done);
}
__global__ void team_barrier_kernel(gshmem_team_t team, DoneWord done) {
  wait_for_stream_predecessors();
  gshmem::barrier<gshmem::block_scope>(team);
  grid_done(done);
}
__global__ void team_sync_kernel(gshmem_team_t team, DoneWord done) {
  wait_for_stream_predecessors();
  gshmem::team_sync<gshmem::block_scope>(team);
  grid_done(done);
}

// Launches one warp of `kernel`.
template <class... Args>
cudaError_t launch_one(void (*kernel)(Args...), cudaStream_t stream, bool captured, Args... args) {
  void* argv[] = {&args...};
  return launch_plain(reinterpret_cast<const void*>(kernel), dim3(1), dim3(kBarrierThreads), argv, 0, stream, captured);
}

// Host-initiated operations still in flight on the internal stream complete
// before a barrier on `stream`: the stream waits for them on the GPU, so the
// host never blocks here. Only when some may be in flight
// (Runtime::stream_maybe_busy): the query alone costs host time, a good part of
// a barrier on a stream. A stream being captured into a graph cannot
// wait on work outside the graph: quiet host operations before the capture
// begins.
Status order_after_host_ops(const char* call, cudaStream_t stream, bool captured) {
  Runtime& r = rt();
  if (stream == r.stream || captured || !r.stream_maybe_busy.load(std::memory_order_relaxed)) return GSHMEM_SUCCESS;
  const cudaError_t idle = cudaStreamQuery(r.stream);
  if (idle == cudaSuccess) {
    r.stream_maybe_busy.store(false, std::memory_order_relaxed);
    return GSHMEM_SUCCESS;
  }
  if (idle != cudaErrorNotReady) {
    GSHMEM_LOG_ERROR("%s: querying the internal stream failed: %s (%s)", call, cudaGetErrorString(idle),
                     cudaGetErrorName(idle));
    return GSHMEM_ERROR_CUDA;
  }
  GSHMEM_CUDA_TRY(call, cudaEventRecord(r.stream_done, r.stream));
  GSHMEM_CUDA_TRY(call, cudaStreamWaitEvent(stream, r.stream_done, 0));
  return GSHMEM_SUCCESS;
}

// team == GSHMEM_TEAM_INVALID: the all-PE forms (barrier_all / sync_all).
Status launch(const char* call, gshmem_team_t team, bool with_quiet, cudaStream_t stream, bool wait) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  GSHMEM_CUDA_TRY(call, cudaStreamIsCapturing(stream, &capture));
  const bool captured = capture != cudaStreamCaptureStatusNone;
  if (with_quiet) {
    GSHMEM_TRY(order_after_host_ops(call, stream, captured));
    // Host calls to PEs on other nodes go through the proxy's host queue, which no stream orders:
    // a barrier's quiet waits for them here, before its kernel can signal anyone.
    hproxy::quiet();
  }
  const DoneWord done = wait ? next_done_word() : DoneWord{nullptr, 0};
  cudaError_t e;
  if (team == GSHMEM_TEAM_INVALID)
    e = launch_one(with_quiet ? barrier_all_kernel : sync_all_kernel, stream, captured, done);
  else
    e = launch_one(with_quiet ? team_barrier_kernel : team_sync_kernel, stream, captured, team, done);
  if (e == cudaSuccess && wait) e = await_done(stream, done);
  if (e != cudaSuccess) {
    GSHMEM_LOG_ERROR("%s: barrier kernel failed: %s", call, cudaGetErrorString(e));
    return GSHMEM_ERROR_CUDA;
  }
  return GSHMEM_SUCCESS;
}

void launch_all(const char* call, bool with_quiet, cudaStream_t stream, bool wait) {
  if (require_init(call) == GSHMEM_SUCCESS) launch(call, GSHMEM_TEAM_INVALID, with_quiet, stream, wait);
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] {
  return preload::load({preload::K(barrier_all_kernel), preload::K(sync_all_kernel), preload::K(team_barrier_kernel),
                        preload::K(team_sync_kernel)});
});

}  // namespace
}  // namespace gshmem

extern "C" {

GSHMEM_API void gshmemi_host_barrier_all(void) {
  gshmem::launch_all("gshmem_barrier_all", true, gshmem::rt().stream, true);
}
GSHMEM_API void gshmemi_host_sync_all(void) { gshmem::launch_all("gshmem_sync_all", false, gshmem::rt().stream, true); }

GSHMEM_API void gshmemx_barrier_all_on_stream(cudaStream_t stream) {
  gshmem::launch_all("gshmemx_barrier_all_on_stream", true, stream, false);
}
GSHMEM_API void gshmemx_sync_all_on_stream(cudaStream_t stream) {
  gshmem::launch_all("gshmemx_sync_all_on_stream", false, stream, false);
}
GSHMEM_API void gshmemx_quiet_on_stream(cudaStream_t stream) {
  // Stream order already completes earlier kernels' and copies' memory operations on this node
  // before later work on `stream` starts. Operations on other nodes' PEs: the host queue's are
  // waited for here, and a kernel on the stream waits for those kernels posted into the ring.
  if (gshmem::require_init("gshmemx_quiet_on_stream") != GSHMEM_SUCCESS) return;
  gshmem::hproxy::quiet();
  gshmem::hproxy::quiet_on_stream("gshmemx_quiet_on_stream", stream);
}

// Team forms: an invalid team (or one this PE is not in) is reported and
// returns an error at once, without synchronising (nothing can hang on it).
GSHMEM_API int gshmemi_host_team_sync(const char* call, gshmem_team_t team, int with_quiet, int mode,
                                      cudaStream_t stream) {
  if (const int st = gshmem::require_init(call)) return st;  // not initialised, or aborted
  if (!gshmem::team::require(call, team)) return GSHMEM_ERROR_INVALID_VALUE;
  const bool blocking = mode == GSHMEMI_COLL_BLOCKING;
  return gshmem::launch(call, team, with_quiet != 0, blocking ? gshmem::rt().stream : stream, blocking);
}

}  // extern "C"

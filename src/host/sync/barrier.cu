// SPDX-License-Identifier: BSD-3-Clause
// Host and stream-ordered barriers: one small kernel running the same device
// barrier (and epoch sequence) that kernels use, so host, stream and device
// barriers interleave correctly on every PE.
#include <gshmem/gshmem.h>

#include "host/init/runtime.h"

namespace gshmem {
namespace {

// One warp: each lane signals and waits for a share of the peers.
constexpr int kBarrierThreads = 32;

__global__ void barrier_all_kernel() { gshmem::barrier_all<gshmem::block_scope>(); }
__global__ void sync_all_kernel() { gshmem::sync_all<gshmem::block_scope>(); }

bool launch(const char* call, bool with_quiet, cudaStream_t stream, bool wait) {
  if (require_init(call) != GSHMEM_SUCCESS) return false;
  if (with_quiet) {
    // Host-initiated operations complete first (they are on the internal stream).
    cudaError_t e = cudaStreamSynchronize(rt().stream);
    if (e != cudaSuccess) GSHMEM_LOG_ERROR("%s: %s", call, cudaGetErrorString(e));
  }
  if (with_quiet)
    barrier_all_kernel<<<1, kBarrierThreads, 0, stream>>>();
  else
    sync_all_kernel<<<1, kBarrierThreads, 0, stream>>>();
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && wait) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    GSHMEM_LOG_ERROR("%s: barrier kernel failed: %s", call, cudaGetErrorString(e));
    return false;
  }
  return true;
}

}  // namespace
}  // namespace gshmem

extern "C" {

GSHMEM_API void gshmemi_host_barrier_all(void) { gshmem::launch("gshmem_barrier_all", true, gshmem::rt().stream, true); }
GSHMEM_API void gshmemi_host_sync_all(void) { gshmem::launch("gshmem_sync_all", false, gshmem::rt().stream, true); }

GSHMEM_API void gshmemx_barrier_all_on_stream(cudaStream_t stream) {
  gshmem::launch("gshmemx_barrier_all_on_stream", true, stream, false);
}
GSHMEM_API void gshmemx_sync_all_on_stream(cudaStream_t stream) {
  gshmem::launch("gshmemx_sync_all_on_stream", false, stream, false);
}
GSHMEM_API void gshmemx_quiet_on_stream(cudaStream_t stream) {
  // Stream order already completes earlier kernels' and copies' memory
  // operations before later work on `stream` starts: nothing to enqueue.
  (void)stream;
  gshmem::require_init("gshmemx_quiet_on_stream");
}

}  // extern "C"

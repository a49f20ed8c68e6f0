// SPDX-License-Identifier: BSD-3-Clause
// Host-initiated RMA: copies by this GPU's copy engines between local memory
// and a peer's heap as mapped here. Blocking forms wait for the copy; _nbi
// forms complete at gshmem_quiet; _on_stream forms are ordered on the user's
// stream. All host-initiated copies go through one internal stream, so host
// puts to one PE are delivered in order (gshmem_fence is free).
#include <cuda_runtime.h>

#include "host/init/runtime.h"

namespace gshmem {
namespace {

// Address of symmetric `sym` on `pe` in this process, or nullptr (logged).
char* remote(const char* call, const void* sym, size_t bytes, int pe) {
  if (require_init(call) != GSHMEM_SUCCESS || check_pe(call, pe) != GSHMEM_SUCCESS ||
      check_symmetric(call, sym, bytes) != GSHMEM_SUCCESS)
    return nullptr;
  const Runtime& r = rt();
  char* peer = r.heap->peer_base(pe);
  if (!peer) {
    GSHMEM_LOG_ERROR("%s: PE %d is not reachable from this PE (it is on another node; the network "
                     "transport is not available in this build)", call, pe);
    return nullptr;
  }
  return peer + (static_cast<const char*>(sym) - r.heap->base());
}

void copy(const char* call, void* dst, const void* src, size_t bytes, cudaStream_t stream, bool wait) {
  cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
  if (e == cudaSuccess && wait) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess)
    GSHMEM_LOG_ERROR("%s: copy of %zu bytes %p -> %p failed: %s", call, bytes, src, dst, cudaGetErrorString(e));
}

}  // namespace
}  // namespace gshmem

using namespace gshmem;

extern "C" {

GSHMEM_API void gshmemi_host_putmem(void* dest, const void* source, size_t nbytes, int pe, int nbi) {
  const char* call = nbi ? "gshmem_putmem_nbi" : "gshmem_putmem";
  if (nbytes == 0) return;
  if (char* d = remote(call, dest, nbytes, pe)) copy(call, d, source, nbytes, rt().stream, !nbi);
}

GSHMEM_API void gshmemi_host_getmem(void* dest, const void* source, size_t nbytes, int pe, int nbi) {
  const char* call = nbi ? "gshmem_getmem_nbi" : "gshmem_getmem";
  if (nbytes == 0) return;
  if (char* s = remote(call, source, nbytes, pe)) copy(call, dest, s, nbytes, rt().stream, !nbi);
}

GSHMEM_API void gshmemi_host_putmem_on_stream(void* dest, const void* source, size_t nbytes, int pe,
                                              cudaStream_t stream) {
  const char* call = "gshmemx_putmem_on_stream";
  if (nbytes == 0) return;
  if (char* d = remote(call, dest, nbytes, pe)) copy(call, d, source, nbytes, stream, false);
}

GSHMEM_API void gshmemi_host_getmem_on_stream(void* dest, const void* source, size_t nbytes, int pe,
                                              cudaStream_t stream) {
  const char* call = "gshmemx_getmem_on_stream";
  if (nbytes == 0) return;
  if (char* s = remote(call, source, nbytes, pe)) copy(call, dest, s, nbytes, stream, false);
}

GSHMEM_API void gshmemi_host_quiet(void) {
  if (require_init("gshmem_quiet") != GSHMEM_SUCCESS) return;
  cudaError_t e = cudaStreamSynchronize(rt().stream);
  if (e != cudaSuccess) GSHMEM_LOG_ERROR("gshmem_quiet: %s", cudaGetErrorString(e));
}

GSHMEM_API void gshmemi_host_fence(void) {
  // Host operations are issued in order on one stream: already ordered per PE.
  require_init("gshmem_fence");
}

}  // extern "C"

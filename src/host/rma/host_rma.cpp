// SPDX-License-Identifier: BSD-3-Clause
// Host-initiated RMA: copies by this GPU's copy engines (or a small kernel)
// between local memory and a peer's heap as mapped here. Blocking forms wait
// for the copy; _nbi forms complete at gshmem_quiet; _on_stream forms are
// ordered on the user's stream. All host-initiated blocking and _nbi copies go
// through one internal stream, so host puts to one PE are delivered in order
// (gshmem_fence is free).
//
// PEs on other nodes (heaps not mapped here) are reached through the proxy's host queue
// (host/proxy/host_ops.h); gshmem_quiet also waits for those operations.
//
// Arguments are always checked (rma_args.cpp): a bad call logs one line naming
// the call, the target PE, the cause and the remedy, and does nothing.
#include <cuda_runtime.h>

#include <cstring>

#include "gshmem/detail/host_entry.h"
#include "host/core/runtime.h"
#include "host/proxy/host_ops.h"
#include "host/proxy/stream_ops.h"
#include "host/rma/rma_args.h"
#include "host/rma/rma_transfer.h"

using namespace gshmem;

namespace {

// An on-stream form to a PE on another node (host/proxy/stream_ops.h): contiguous transfers
// only; a strided one is refused with a line saying so.
void on_stream_via_proxy(const rma::Request& req, const rma::Transfer& t, cudaStream_t stream, bool wait) {
  const size_t bytes = req.nelems * req.elem;
  if (req.nelems > 1 && (t.dst_pitch != req.elem || t.src_pitch != req.elem)) {
    hproxy::unsupported_on_stream(req.call, req.pe);
    return;
  }
  const bool ok = req.put ? hproxy::put_on_stream(req.call, req.pe, t.remote_offset, req.source, bytes, nullptr, stream)
                          : hproxy::get_on_stream(req.call, req.pe, t.remote_offset, req.dest, bytes, stream);
  if (!ok || !wait) return;
  const cudaError_t e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess)
    GSHMEM_LOG_ERROR("%s: PE %d (on another node): waiting for the stream failed: %s", req.call, req.pe,
                     cudaGetErrorString(e));
}

}  // namespace

extern "C" {

GSHMEM_API void gshmemi_host_rma(const char* call, int op, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t nelems, size_t elem_bytes, int pe, int mode, cudaStream_t stream) {
  if (nelems == 0) return;  // nothing to move (empty transfers are not checked)
  const rma::Request req{call, op == GSHMEMI_RMA_PUT, dest, source, dst, sst, nelems, elem_bytes, pe};
  rma::Transfer t{};
  if (!rma::resolve(req, &t)) return;
  const int how = mode & ~GSHMEMI_RMA_VALUE;
  const bool on_user_stream = how == GSHMEMI_RMA_STREAM || how == GSHMEMI_RMA_STREAM_WAIT;
  const bool wait = how == GSHMEMI_RMA_BLOCKING || how == GSHMEMI_RMA_STREAM_WAIT;
  if (t.proxy) {  // another node: the proxy's host queue, or its ring in stream order
    if (on_user_stream) {
      on_stream_via_proxy(req, t, stream, wait);
    } else if (req.put) {
      hproxy::put(call, pe, t.remote_offset, t.dst_pitch, source, t.src_pitch, nelems, elem_bytes, wait);
    } else {
      hproxy::get(call, pe, t.remote_offset, t.src_pitch, dest, t.dst_pitch, nelems, elem_bytes, wait);
    }
    return;
  }
  const cudaStream_t s = on_user_stream ? stream : internal_stream();
  // A value in host memory (p, g): through the library's pinned memory, which a copy reaches
  // without waiting for other streams' kernels as one from or to pageable memory does.
  const size_t bytes = nelems * elem_bytes;
  if ((mode & GSHMEMI_RMA_VALUE) && wait && nelems == 1 && bytes <= 16) {
    char* staged = static_cast<char*>(rt().call_memory.pinned(call, bytes));
    if (!staged) return;
    if (req.put) {
      memcpy(staged, source, bytes);
      t.src = staged;
    } else {
      t.dst = staged;
    }
    t.local = staged;
    if (rma::transfer(call, t, s, true) && !req.put) memcpy(dest, staged, bytes);
    return;
  }
  rma::transfer(call, t, s, wait);
}

GSHMEM_API void gshmemi_host_p_on_stream(const char* call, void* dest, const void* value, size_t bytes, int pe,
                                         cudaStream_t stream) {
  const rma::Request req{call, true, dest, value, 1, 1, 1, bytes, pe};
  rma::Transfer t{};
  if (!rma::resolve(req, &t)) return;
  if (t.proxy) {
    hproxy::value_on_stream(call, pe, t.remote_offset, value, static_cast<unsigned>(bytes), stream);
    return;
  }
  rma::store_on_stream(call, t.dst, value, bytes, stream);
}

// The byte-count entries of the first C-name table (kept for callers of the
// library ABI); the C names call gshmemi_host_rma with their own name.
GSHMEM_API void gshmemi_host_putmem(void* dest, const void* source, size_t nbytes, int pe, int nbi) {
  gshmemi_host_rma(nbi ? "gshmem_putmem_nbi" : "gshmem_putmem", GSHMEMI_RMA_PUT, dest, source, 1, 1, nbytes, 1, pe,
                   nbi ? GSHMEMI_RMA_NBI : GSHMEMI_RMA_BLOCKING, nullptr);
}

GSHMEM_API void gshmemi_host_getmem(void* dest, const void* source, size_t nbytes, int pe, int nbi) {
  gshmemi_host_rma(nbi ? "gshmem_getmem_nbi" : "gshmem_getmem", GSHMEMI_RMA_GET, dest, source, 1, 1, nbytes, 1, pe,
                   nbi ? GSHMEMI_RMA_NBI : GSHMEMI_RMA_BLOCKING, nullptr);
}

GSHMEM_API void gshmemi_host_putmem_on_stream(void* dest, const void* source, size_t nbytes, int pe,
                                              cudaStream_t stream) {
  gshmemi_host_rma("gshmemx_putmem_on_stream", GSHMEMI_RMA_PUT, dest, source, 1, 1, nbytes, 1, pe, GSHMEMI_RMA_STREAM,
                   stream);
}

GSHMEM_API void gshmemi_host_getmem_on_stream(void* dest, const void* source, size_t nbytes, int pe,
                                              cudaStream_t stream) {
  gshmemi_host_rma("gshmemx_getmem_on_stream", GSHMEMI_RMA_GET, dest, source, 1, 1, nbytes, 1, pe, GSHMEMI_RMA_STREAM,
                   stream);
}

GSHMEM_API void gshmemi_host_quiet(void) {
  if (require_init("gshmem_quiet") != GSHMEM_SUCCESS) return;
  hproxy::quiet();  // host operations on other nodes' PEs: applied there, gets' data here
  cudaError_t e = cudaStreamSynchronize(rt().stream);
  if (e == cudaSuccess)
    rt().stream_maybe_busy.store(false, std::memory_order_relaxed);
  else
    GSHMEM_LOG_ERROR("gshmem_quiet: %s", cudaGetErrorString(e));
}

GSHMEM_API void gshmemi_host_fence(void) {
  // Host operations are issued in order on one stream: already ordered per PE.
  require_init("gshmem_fence");
}

}  // extern "C"

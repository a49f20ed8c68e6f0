// SPDX-License-Identifier: BSD-3-Clause
#include "host/amo/amo_host.h"

#include "gshmem/types.h"
#include "host/core/runtime.h"
#include "host/mem/heap.h"
#include "host/core/config.h"
#include "host/core/log.h"

namespace gshmem::amo {

bool check_init(const char* call) { return require_init(call) == GSHMEM_SUCCESS; }

bool check_cmp(const char* call, int cmp) {
  if (cmp >= GSHMEM_CMP_EQ && cmp <= GSHMEM_CMP_LE) return true;
  GSHMEM_LOG_ERROR("%s: invalid comparison %d; use GSHMEM_CMP_EQ, _NE, _GT, _GE, _LT or _LE", call, cmp);
  return false;
}

bool check_sig_op(const char* call, int sig_op, int pe) {
  if (sig_op == GSHMEM_SIGNAL_SET || sig_op == GSHMEM_SIGNAL_ADD) return true;
  GSHMEM_LOG_ERROR("%s: invalid sig_op %d for PE %d; use GSHMEM_SIGNAL_SET or GSHMEM_SIGNAL_ADD", call, sig_op, pe);
  return false;
}

void* remote_address(const char* call, const void* sym, size_t bytes, int pe) {
  if (check_pe(call, pe) != GSHMEM_SUCCESS) return nullptr;
  if (check_symmetric(call, sym, bytes) != GSHMEM_SUCCESS) return nullptr;
  const Runtime& r = rt();
  char* peer = r.heap->peer_base(pe);
  if (!peer) {
    GSHMEM_LOG_ERROR(
        "%s: PE %d is not reachable from this PE by loads/stores (its heap is not mapped here and "
        "no proxy runs)",
        call, pe);
    return nullptr;
  }
  return peer + (static_cast<const char*>(sym) - r.heap->base());
}

bool proxy_offset(const char* call, const void* sym, size_t bytes, int pe, uint64_t* offset) {
  if (check_pe(call, pe) != GSHMEM_SUCCESS) return false;
  if (check_symmetric(call, sym, bytes) != GSHMEM_SUCCESS) return false;
  *offset = static_cast<uint64_t>(static_cast<const char*>(sym) - rt().heap->base());
  return true;
}

bool check_local(const char* call, const void* sym, size_t bytes) {
  if (!config::get().debug_checks || bytes == 0) return true;
  return check_symmetric(call, sym, bytes) == GSHMEM_SUCCESS;
}

bool cuda_ok(const char* call, const char* what, cudaError_t e) {
  if (e == cudaSuccess) return true;
  GSHMEM_LOG_ERROR("%s: %s failed: %s (%s)", call, what, cudaGetErrorString(e), cudaGetErrorName(e));
  return false;
}

StreamScratch::StreamScratch(const char* call, Kind kind, size_t bytes, cudaStream_t stream)
    : bytes_(bytes), stream_(stream) {
  if (bytes == 0) return;
  cudaError_t why = cudaSuccess;
  if (kind == Kind::device) {
    why = cudaMallocAsync(&ptr_, bytes, stream);
    if (why == cudaSuccess) {
      async_ = true;
      return;
    }
    cudaGetLastError();
  }
  ptr_ = rt().stream_call_memory.acquire(call, kind, bytes, stream, why);
}

StreamScratch::~StreamScratch() {
  if (!ptr_) return;
  if (async_)
    cudaFreeAsync(ptr_, stream_);
  else
    rt().stream_call_memory.done(ptr_, stream_);
}

bool finish(const char* call, cudaStream_t stream, bool wait) {
  if (!cuda_ok(call, "kernel launch", cudaGetLastError())) return false;
  if (wait && !cuda_ok(call, "cudaStreamSynchronize", cudaStreamSynchronize(stream))) return false;
  return true;
}

bool finish(const char* call, cudaStream_t stream, DoneWord done) {
  return cuda_ok(call, "kernel launch", cudaGetLastError()) &&
         cuda_ok(call, "cudaStreamSynchronize", await_done(stream, done));
}

}  // namespace gshmem::amo

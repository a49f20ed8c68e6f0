// SPDX-License-Identifier: BSD-3-Clause
#include "host/proxy/channel.h"

#include <cuda_runtime.h>

#include <cstring>

#include "gshmem/detail/proxy_abi.h"
#include "host/core/log.h"

namespace gshmem::hproxy {
namespace {

// One 64-byte line per control word: the proxy stores `released`, `completed` and `fault` while
// devices poll them, and device producers hammer `issued` with atomics; sharing a line would
// make every store invalidate the others' pollers (false sharing across PCIe / NVLink-C2C).
constexpr size_t kLine = 64;
constexpr size_t kLineWords = kLine / sizeof(uint64_t);

bool ok(const char* call, const char* what, cudaError_t e) {
  if (e == cudaSuccess) return true;
  GSHMEM_LOG_ERROR("%s: proxy channel: %s failed: %s (%s)", call, what, cudaGetErrorString(e), cudaGetErrorName(e));
  return false;
}

}  // namespace

Status Channel::create(const char* call, uint64_t entries, std::unique_ptr<Channel>* out) {
  if (entries < 2 || (entries & (entries - 1)) != 0) {
    GSHMEM_LOG_ERROR("%s: GSHMEM_PROXY_RING_ENTRIES=%llu is not a power of two; use e.g. 4096", call,
                     (unsigned long long)entries);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  std::unique_ptr<Channel> c(new Channel());
  while ((uint64_t{1} << c->log2_) < entries) ++c->log2_;
  const size_t ring_bytes = entries * GSHMEMI_PROXY_ENTRY_BYTES;
  // Portable: the proxy thread and every host thread may touch it whatever their current
  // device. Mapped: the GPU stores entries straight into it. cudaHostAlloc returns page-aligned
  // memory, so every entry is one 64-byte line.
  void* p = nullptr;
  if (!ok(call, "cudaHostAlloc of the ring",
          cudaHostAlloc(&p, ring_bytes, cudaHostAllocPortable | cudaHostAllocMapped)))
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  c->ring_h_ = static_cast<uint64_t*>(p);
  std::memset(p, 0, ring_bytes);  // zeroed: lap 0 writes parity 1, so the ring reads as empty
  p = nullptr;
  if (!ok(call, "cudaHostAlloc of the control words",
          cudaHostAlloc(&p, 3 * kLine, cudaHostAllocPortable | cudaHostAllocMapped)))
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  c->ctrl_h_ = static_cast<uint64_t*>(p);
  std::memset(p, 0, 3 * kLine);
  c->released_h_ = c->ctrl_h_;
  c->completed_h_ = c->ctrl_h_ + kLineWords;
  c->fault_h_ = c->ctrl_h_ + 2 * kLineWords;
  void* d = nullptr;
  if (!ok(call, "cudaHostGetDevicePointer of the ring", cudaHostGetDevicePointer(&d, c->ring_h_, 0)))
    return GSHMEM_ERROR_CUDA;
  c->ring_d_ = static_cast<uint64_t*>(d);
  if (!ok(call, "cudaHostGetDevicePointer of the control words", cudaHostGetDevicePointer(&d, c->ctrl_h_, 0)))
    return GSHMEM_ERROR_CUDA;
  c->ctrl_d_ = static_cast<uint64_t*>(d);
  if (!ok(call, "cudaMalloc of the device counters", cudaMalloc(&d, 3 * kLine))) return GSHMEM_ERROR_OUT_OF_MEMORY;
  c->counters_d_ = static_cast<uint64_t*>(d);
  if (!ok(call, "cudaMemset of the device counters", cudaMemset(d, 0, 3 * kLine))) return GSHMEM_ERROR_CUDA;
  if (!ok(call, "cudaDeviceSynchronize", cudaDeviceSynchronize())) return GSHMEM_ERROR_CUDA;
  *out = std::move(c);
  return GSHMEM_SUCCESS;
}

Channel::~Channel() {
  if (counters_d_) cudaFree(counters_d_);
  if (ctrl_h_) cudaFreeHost(ctrl_h_);
  if (ring_h_) cudaFreeHost(ring_h_);
}

proxy::RingRegion Channel::region() const {
  proxy::RingRegion r;
  r.words = ring_h_;
  r.log2_entries = log2_;
  r.released = released_h_;
  r.completed = completed_h_;
  r.fault = fault_h_;
  return r;
}

gshmemi_proxy_channel Channel::device() const {
  gshmemi_proxy_channel c{};
  c.ring = ring_d_;
  c.issued = counters_d_;
  c.released_cache = counters_d_ + kLineWords;
  c.completed_cache = counters_d_ + 2 * kLineWords;
  c.released = ctrl_d_;
  c.completed = ctrl_d_ + kLineWords;
  c.fault = ctrl_d_ + 2 * kLineWords;
  c.log2_entries = log2_;
  return c;
}

}  // namespace gshmem::hproxy

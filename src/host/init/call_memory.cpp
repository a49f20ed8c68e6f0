// SPDX-License-Identifier: BSD-3-Clause
#include "host/init/call_memory.h"

#include <cuda_runtime.h>

#include "host/util/log.h"

namespace gshmem {
namespace {

// Requests round up to a power of two of at least 256 bytes, so a few sizes settle the buffer.
size_t capacity_for(size_t bytes) {
  size_t c = 256;
  while (c < bytes) c <<= 1;
  return c;
}

bool grown(const char* call, const char* what, cudaError_t e, size_t bytes) {
  if (e == cudaSuccess) return true;
  cudaGetLastError();
  GSHMEM_LOG_ERROR("%s: could not allocate %zu bytes of %s for the call: %s (%s)", call, bytes, what,
                   cudaGetErrorString(e), cudaGetErrorName(e));
  return false;
}

}  // namespace

void* CallMemory::pinned(const char* call, size_t bytes) {
  if (bytes <= pinned_bytes_) return pinned_;
  const size_t c = capacity_for(bytes);
  void* p = nullptr;
  if (!grown(call, "pinned host memory", cudaHostAlloc(&p, c, cudaHostAllocMapped | cudaHostAllocPortable), c))
    return nullptr;
  if (pinned_) cudaFreeHost(pinned_);
  pinned_ = p;
  pinned_bytes_ = c;
  return pinned_;
}

void* CallMemory::device(const char* call, size_t bytes) {
  if (bytes <= device_bytes_) return device_;
  const size_t c = capacity_for(bytes);
  void* p = nullptr;
  if (!grown(call, "device memory", cudaMalloc(&p, c), c)) return nullptr;
  if (device_) cudaFree(device_);
  device_ = p;
  device_bytes_ = c;
  return device_;
}

void CallMemory::release() {
  if (pinned_) cudaFreeHost(pinned_);
  if (device_) cudaFree(device_);
  pinned_ = device_ = nullptr;
  pinned_bytes_ = device_bytes_ = 0;
}

}  // namespace gshmem

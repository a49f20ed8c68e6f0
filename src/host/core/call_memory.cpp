// SPDX-License-Identifier: BSD-3-Clause
#include "host/core/call_memory.h"

#include <cuda_runtime.h>

#include "host/core/log.h"

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

unsigned long long* CallMemory::done_word() {
  if (done_word_ || done_word_failed_) return done_word_;
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, 64, cudaHostAllocMapped | cudaHostAllocPortable);
  if (e != cudaSuccess) {
    cudaGetLastError();
    done_word_failed_ = true;
    GSHMEM_LOG_WARN(
        "gshmem: could not allocate 64 bytes of pinned host memory for the completion word of blocking "
        "host calls: %s (%s); they synchronise their stream instead (~2 us more a call)",
        cudaGetErrorString(e), cudaGetErrorName(e));
    return nullptr;
  }
  done_word_ = static_cast<unsigned long long*>(p);
  *done_word_ = 0;
  return done_word_;
}

void CallMemory::release() {
  if (done_word_) cudaFreeHost(done_word_);
  done_word_ = nullptr;
  done_word_failed_ = false;
  if (pinned_) cudaFreeHost(pinned_);
  if (device_) cudaFree(device_);
  pinned_ = device_ = nullptr;
  pinned_bytes_ = device_bytes_ = 0;
}

void* StreamCallMemory::acquire(const char* call, Kind kind, size_t bytes, cudaStream_t stream, cudaError_t why) {
  for (Block& b : blocks_) {
    if (b.in_use || b.kept || b.kind != kind || b.bytes < bytes) continue;
    const cudaError_t q = cudaEventQuery(b.free_after);
    if (q == cudaSuccess) {
      b.in_use = true;
      return b.ptr;
    }
    // "Not ready" is an answer, not the application's error: not left behind as the last error.
    if (q == cudaErrorNotReady && cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
  }
  Block b;
  b.bytes = capacity_for(bytes);
  b.kind = kind;
  b.in_use = true;
  const bool pinned = kind == Kind::pinned;
  cudaError_t e = pinned ? cudaHostAlloc(&b.ptr, b.bytes, cudaHostAllocDefault) : cudaMalloc(&b.ptr, b.bytes);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&b.free_after, cudaEventDisableTiming);
  if (e == cudaSuccess) {
    blocks_.push_back(b);
    return b.ptr;
  }
  cudaGetLastError();
  if (b.ptr && pinned)
    cudaFreeHost(b.ptr);
  else if (b.ptr)
    cudaFree(b.ptr);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaStreamIsCapturing(stream, &capture);
  GSHMEM_LOG_ERROR(
      "%s: could not allocate %zu bytes of %s for the call%s%s%s: %s (%s)%s", call, b.bytes,
      pinned ? "pinned host memory" : "device memory",
      why == cudaSuccess ? "" : " (stream-ordered allocation failed: ", why == cudaSuccess ? "" : cudaGetErrorName(why),
      why == cudaSuccess ? "" : ")", cudaGetErrorString(e), cudaGetErrorName(e),
      capture == cudaStreamCaptureStatusNone
          ? ""
          : "; the stream is being captured: make the call once before capturing (its memory is "
            "then reused) or capture with cudaStreamCaptureModeRelaxed");
  return nullptr;
}

void StreamCallMemory::done(void* block, cudaStream_t stream) {
  for (Block& b : blocks_) {
    if (b.ptr != block) continue;
    b.in_use = false;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone ||
        cudaEventRecord(b.free_after, stream) != cudaSuccess) {
      cudaGetLastError();
      b.kept = true;  // a graph's, or its last use is unknown: not handed out again
    }
    return;
  }
}

void StreamCallMemory::release() {
  for (Block& b : blocks_) {
    if (b.kind == Kind::pinned)
      cudaFreeHost(b.ptr);
    else
      cudaFree(b.ptr);
    cudaEventDestroy(b.free_after);
  }
  blocks_.clear();
}

bool in_host_memory(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return true;  // unknown to CUDA: pageable
  }
  return a.type == cudaMemoryTypeUnregistered || a.type == cudaMemoryTypeHost;
}

}  // namespace gshmem

// SPDX-License-Identifier: BSD-3-Clause
// Memory of the blocking host calls whose work runs on the internal stream: host AMOs, signal
// fetches and waits, point-to-point waits, p and g. Each such call returns only after the
// stream has done its work, and host calls are serialised (GSHMEM_THREAD_SERIALIZED at most),
// so one buffer of each kind serves them all: grown to the largest request, freed at finalize.
//
// Why not the caller's variable, or memory allocated on the stream for the call: a copy into or
// out of pageable host memory waits for the kernels of every stream, so a host AMO made while
// the application's kernels ran took as long as they did (tests/functional/test_host_busy.cu),
// and cudaMallocAsync + cudaFreeAsync cost host time on every call.
//   pinned(call, bytes)  mapped pinned host memory. Kernels store results into it, copies land
//                        in it; the host reads it after synchronising the stream. Under UVA the
//                        address is valid in kernels as well.
//   device(call, bytes)  device memory, for inputs a kernel reads many times (a wait's arrays,
//                        filled by a copy from pinned()).
// Both return nullptr after logging "<call>: ..." when the memory cannot be had. A request may
// move the buffer: take its address again for every call.
#pragma once

#include <cstddef>

namespace gshmem {

class CallMemory {
 public:
  CallMemory() = default;
  CallMemory(const CallMemory&) = delete;
  CallMemory& operator=(const CallMemory&) = delete;
  ~CallMemory() { release(); }

  void* pinned(const char* call, size_t bytes);
  void* device(const char* call, size_t bytes);
  void release();

 private:
  void* pinned_ = nullptr;
  size_t pinned_bytes_ = 0;
  void* device_ = nullptr;
  size_t device_bytes_ = 0;
};

}  // namespace gshmem

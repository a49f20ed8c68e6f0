// SPDX-License-Identifier: BSD-3-Clause
// Shared pieces of the host forms of atomics, signals and point-to-point
// waits (host_amo.cu, host_signal.cu, host_wait.cu): argument checks with
// messages that name the call, the PE and the cause, and stream-ordered
// scratch memory.
//
// Why kernels: a host AMO, wait or signal fetch runs the *device*
// implementation in a one-thread kernel on the library's internal stream
// (rt().stream) and waits for it. One implementation serves device, host and
// stream callers, so the three cannot disagree on atomicity or ordering, and
// host forms are ordered with the host RMA calls already queued there. (The
// one exception: waits and tests over sets of variables are scanned by a warp,
// with the device API's comparison, loads and acquire; wait_warp.cuh.)
// (Polling a flag from the host with stream memory operations would need a
// separate acquire for the data and cannot return the satisfying value.)
// Cost: a pending host wait occupies rt().stream, so host calls that other
// threads make meanwhile queue behind it (docs/memory-model.md).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "host/core/call_memory.h"
#include "host/launch/done_word.h"

namespace gshmem::amo {

// Each check logs "<call>: <cause>; <remedy>" (with this PE) and returns false.
bool check_init(const char* call);
bool check_cmp(const char* call, int cmp);
bool check_sig_op(const char* call, int sig_op, int pe);
// Address of symmetric [sym, sym+bytes) on `pe` in this process, or nullptr
// (logged: PE out of range, not symmetric, or not reachable by loads/stores).
void* remote_address(const char* call, const void* sym, size_t bytes, int pe);
// For a PE reached through the proxy (hproxy::is_proxy_peer): checks as remote_address does and
// gives the heap offset of `sym` instead of an address; false (logged) on a bad argument.
bool proxy_offset(const char* call, const void* sym, size_t bytes, int pe, uint64_t* offset);
// Local symmetric variables of waits/fetches: checked when GSHMEM_DEBUG_CHECKS=1
// (the device forms check them only in GSHMEM_DEBUG_CHECKS builds).
bool check_local(const char* call, const void* sym, size_t bytes);

// Logs "<call>: <what> failed: <error>" when e != cudaSuccess; returns e == cudaSuccess.
bool cuda_ok(const char* call, const char* what, cudaError_t e);

// Memory ordered on `stream`: taken at construction, given back (stream-ordered)
// at destruction; neither waits for the stream. Device memory: cudaMallocAsync,
// else a block of the runtime's StreamCallMemory (call_memory.h), free again
// once the stream has passed the destruction point. Pinned host memory: such a
// block always.
class StreamScratch {
 public:
  using Kind = StreamCallMemory::Kind;
  StreamScratch(const char* call, Kind kind, size_t bytes, cudaStream_t stream);
  ~StreamScratch();
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  bool ok() const { return bytes_ == 0 || ptr_ != nullptr; }
  template <class T>
  T* at(size_t byte_offset) const {
    return ptr_ ? reinterpret_cast<T*>(static_cast<char*>(ptr_) + byte_offset) : nullptr;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  bool async_ = false;
  cudaStream_t stream_ = nullptr;
};

// Launch check + (if `wait`) stream synchronisation, logged under `call`.
bool finish(const char* call, cudaStream_t stream, bool wait);
// Launch check + the wait for a kernel that stores `done` last (host/launch/done_word.h).
bool finish(const char* call, cudaStream_t stream, DoneWord done);

}  // namespace gshmem::amo

// SPDX-License-Identifier: BSD-3-Clause
// Memory of the blocking host calls whose work runs on the internal stream: host AMOs, signal
// fetches and waits, point-to-point waits, p and g. Each such call returns only after its work
// on the stream is done, and host calls are serialised (GSHMEM_THREAD_SERIALIZED at most), so
// one buffer of each kind serves them all: grown to the largest request, freed at finalize.
//
// Why not the caller's variable: a kernel cannot store into pageable host memory, so each call
// would need a bounce buffer and a copy of its own. Why not memory allocated on the stream for
// the call: cudaMallocAsync + cudaFreeAsync cost host time on every call.
//   pinned(call, bytes)  mapped pinned host memory. Kernels store results into it, copies land
//                        in it; the host reads it once the call's work is done (the stream
//                        synchronised, or the kernel's done word seen). Under UVA the address
//                        is valid in kernels as well.
//   device(call, bytes)  device memory, for inputs a kernel reads many times (a wait's arrays,
//                        filled by a copy from pinned()).
//   done_word()          the mapped pinned word a call's kernel stores its number into as its
//                        last store (host/launch/done_word.h); allocated once, never moved;
//                        nullptr, after a warning, where it cannot be had (calls then synchronise).
// A call may return once its kernel has stored the done word, before the kernel has retired:
// the kernel touches none of this memory after that store, so the next call may reuse or move it.
// Both return nullptr after logging "<call>: ..." when the memory cannot be had. A request may
// move the buffer: take its address again for every call.
//
// StreamCallMemory: memory of the on-stream calls that must live until their stream has used
// it - pinned host memory that a wait's large status and comparison arrays are copied into when
// the call is made, and device memory for them where stream-ordered allocation fails (a GPU or
// driver without memory pools, or a current pool the application capped). Blocks stay
// allocated until finalize and serve another call once the stream work of their last one is
// done (an event recorded after it). The plain alternative, cudaMalloc and at the end of the
// call a stream synchronisation and cudaFree, blocks the host until the call's stream work has
// run: an on-stream wait for a value this host stores next never returned. (cudaFree also
// waits for the whole device.)
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace gshmem {

class CallMemory {
 public:
  CallMemory() = default;
  CallMemory(const CallMemory&) = delete;
  CallMemory& operator=(const CallMemory&) = delete;
  ~CallMemory() { release(); }

  void* pinned(const char* call, size_t bytes);
  void* device(const char* call, size_t bytes);
  unsigned long long* done_word();
  void release();

 private:
  unsigned long long* done_word_ = nullptr;
  bool done_word_failed_ = false;
  void* pinned_ = nullptr;
  size_t pinned_bytes_ = 0;
  void* device_ = nullptr;
  size_t device_bytes_ = 0;
};

class StreamCallMemory {
 public:
  enum class Kind { device, pinned };
  StreamCallMemory() = default;
  StreamCallMemory(const StreamCallMemory&) = delete;
  StreamCallMemory& operator=(const StreamCallMemory&) = delete;
  ~StreamCallMemory() { release(); }

  // A block of at least `bytes` that no stream work uses any more, or nullptr after logging
  // "<call>: ...", naming `why` (the stream-ordered allocation's error) unless cudaSuccess.
  void* acquire(const char* call, Kind kind, size_t bytes, cudaStream_t stream, cudaError_t why = cudaSuccess);
  // The block's last use is the work enqueued on `stream` so far. On a stream being captured
  // the use is a graph's, replayed at any time: the block is kept for it until finalize.
  void done(void* block, cudaStream_t stream);
  void release();  // at finalize, with the device idle

 private:
  struct Block {
    void* ptr = nullptr;
    size_t bytes = 0;
    Kind kind = Kind::device;
    cudaEvent_t free_after = nullptr;  // recorded after the last use; never recorded: free
    bool in_use = false;
    bool kept = false;  // a captured graph's
  };
  std::vector<Block> blocks_;
};

// Whether p is memory the CPU reads directly: pageable, or pinned / registered
// with CUDA (not device or managed memory).
bool in_host_memory(const void* p);

}  // namespace gshmem

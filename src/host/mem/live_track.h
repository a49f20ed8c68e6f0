// SPDX-License-Identifier: BSD-3-Clause
// The symmetric heap's live ranges (live_set.h), kept where the checks need them:
//   - the device's table (gshmem/detail/live_table.h), which the device debug checks of a
//     GSHMEM_DEBUG_CHECKS build search: two tables in device memory and a word holding the
//     address of the current one (the device state points at the word). A change is written into
//     the other table, then the word is switched, on the library's internal stream: a kernel that
//     runs meanwhile reads a whole table, old or new. The word never moves, so the device state
//     is published once; a table that outgrows its room is replaced by larger ones, the old ones
//     freed only at finalize (a kernel may still read them).
//   - compute-sanitizer's regions (sanitizer_nvtx.h), with GSHMEM_NVTX_HEAP=1.
// Fed by the allocator's listener (blocks), registered buffers (register.cpp) and the heap's
// extent. Every change comes from a collective allocation call under the allocation mutex; the
// OpenSHMEM rules for those calls (every PE calls them, no access to a block being freed is in
// flight) are what keeps a kernel from racing a change to the range it uses.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "host/core/status.h"
#include "live_set.h"
#include "sanitizer_nvtx.h"

namespace gshmem::mem {

class LiveTracker {
 public:
  LiveTracker() = default;
  // No CUDA call here: at process exit the CUDA runtime may be gone; finalize calls stop().
  ~LiveTracker() = default;
  LiveTracker(const LiveTracker&) = delete;
  LiveTracker& operator=(const LiveTracker&) = delete;

  // Makes the device table (with the ranges recorded so far) and, with `nvtx`, the NVTX pools of
  // the windows `bases` ([pe], nullptr: not mapped) of `extent` bytes; windows of cuMemMap'd
  // memory (`vmm`) get none (SanitizerHeap::decline_vmm says why). Copies go on `stream`.
  // A device table that cannot be made is logged (the device checks then stop at the heap's
  // bounds); the job goes on.
  void start(const std::vector<char*>& bases, uint64_t extent, cudaStream_t stream, bool nvtx, bool vmm);
  // A range became live / the range at `offset` was freed or unregistered.
  void added(uint64_t offset, uint64_t bytes);
  void removed(uint64_t offset);
  // The heap's mapped extent is now `bytes` (growth, a registered buffer at the top).
  void extent(uint64_t bytes);
  // The device word for gshmemi_device_state::live_table; nullptr before start() or without a table.
  const gshmemi_live_table* const* device_word() const { return word_; }
  // Frees the device tables, unregisters the pools, forgets every range (finalize).
  void stop();
  const LiveSet& ranges() const { return set_; }
  bool nvtx_active() const { return nvtx_.active(); }

 private:
  void upload();
  bool make_room(size_t ranges);
  LiveSet set_;
  SanitizerHeap nvtx_;
  cudaStream_t stream_ = nullptr;
  const gshmemi_live_table** word_ = nullptr;  // device memory
  gshmemi_live_table* tables_[2] = {nullptr, nullptr};
  int current_ = 0;             // which of tables_ the word points at
  size_t capacity_ = 0;         // ranges each table holds
  std::vector<void*> retired_;  // tables replaced by larger ones, freed by stop()
  std::vector<uint64_t> image_;
};

}  // namespace gshmem::mem

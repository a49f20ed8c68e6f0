// SPDX-License-Identifier: BSD-3-Clause
#include "live_track.h"

#include "host/core/log.h"

namespace gshmem::mem {

void LiveTracker::start(const std::vector<char*>& bases, uint64_t extent, cudaStream_t stream, bool nvtx, bool vmm) {
  stream_ = stream;
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&word_), sizeof(*word_));
  if (e != cudaSuccess) {
    cudaGetLastError();
    word_ = nullptr;
    GSHMEM_LOG_WARN(
        "gshmem_init: no device memory for the table of live allocations (%s); device debug checks "
        "(GSHMEM_DEBUG_CHECKS builds) stop at the heap's bounds",
        cudaGetErrorString(e));
  } else {
    upload();
  }
  if (nvtx && vmm)
    SanitizerHeap::decline_vmm();
  else if (nvtx)
    nvtx_.attach(bases, extent, set_.ranges());
}

bool LiveTracker::make_room(size_t ranges) {
  if (ranges <= capacity_ && tables_[0] != nullptr) return true;
  size_t room = capacity_ ? capacity_ : 64;
  while (room < ranges) room *= 2;
  const size_t bytes = sizeof(gshmemi_live_table) + room * sizeof(gshmemi_live_range);
  gshmemi_live_table* fresh[2] = {nullptr, nullptr};
  for (auto& t : fresh) {
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&t), bytes);
    if (e == cudaSuccess) continue;
    cudaGetLastError();
    for (auto& u : fresh)
      if (u) cudaFree(u);
    GSHMEM_LOG_WARN(
        "symmetric heap: no device memory for a table of %zu live allocations (%s); device debug checks "
        "(GSHMEM_DEBUG_CHECKS builds) stop at the heap's bounds from now on",
        ranges, cudaGetErrorString(e));
    return false;
  }
  // A kernel that loaded the word before the switch below may still read the old tables.
  for (auto& t : tables_)
    if (t) retired_.push_back(t);
  tables_[0] = fresh[0];
  tables_[1] = fresh[1];
  capacity_ = room;
  return true;
}

void LiveTracker::upload() {
  if (word_ == nullptr) return;
  const gshmemi_live_table* next = nullptr;
  cudaError_t e = cudaSuccess;
  if (make_room(set_.size())) {
    const int other = 1 - current_;
    set_.image(&image_);
    e = cudaMemcpyAsync(tables_[other], image_.data(), image_.size() * sizeof(uint64_t), cudaMemcpyHostToDevice,
                        stream_);
    if (e == cudaSuccess) {
      next = tables_[other];
      current_ = other;
    }
  }
  // Without a whole new table the word becomes NULL (the device checks then skip the table): an
  // old one would call the new block unallocated.
  const cudaError_t w = cudaMemcpyAsync(word_, &next, sizeof(next), cudaMemcpyHostToDevice, stream_);
  if (e == cudaSuccess) e = w;
  const cudaError_t sync = cudaStreamSynchronize(stream_);
  if (e == cudaSuccess) e = sync;
  if (e != cudaSuccess) {
    cudaGetLastError();
    GSHMEM_LOG_WARN("symmetric heap: could not update the device's table of live allocations (%s)",
                    cudaGetErrorString(e));
  }
}

void LiveTracker::added(uint64_t offset, uint64_t bytes) {
  if (!set_.insert(offset, bytes)) {
    GSHMEM_LOG_ERROR("symmetric heap: internal error: [+%llu, +%llu bytes) overlaps a live range; not tracked",
                     static_cast<unsigned long long>(offset), static_cast<unsigned long long>(bytes));
    return;
  }
  upload();
  nvtx_.add(gshmemi_live_range{offset, bytes});
}

void LiveTracker::removed(uint64_t offset) {
  if (!set_.erase(offset)) {
    GSHMEM_LOG_ERROR("symmetric heap: internal error: no live range starts at +%llu",
                     static_cast<unsigned long long>(offset));
    return;
  }
  upload();
  nvtx_.remove(offset);
}

void LiveTracker::extent(uint64_t bytes) { nvtx_.resize(bytes, set_.ranges()); }

void LiveTracker::stop() {
  nvtx_.detach();
  if (word_) cudaFree(word_);
  for (auto& t : tables_)
    if (t) cudaFree(t);
  for (void* t : retired_) cudaFree(t);
  word_ = nullptr;
  tables_[0] = tables_[1] = nullptr;
  current_ = 0;
  capacity_ = 0;
  retired_.clear();
  set_.clear();
  stream_ = nullptr;
}

}  // namespace gshmem::mem

// SPDX-License-Identifier: BSD-3-Clause
// Symmetric-heap allocator: manages offsets in [0, capacity). Pure host code,
// no CUDA. Its decisions depend only on the sequence of calls, so every PE
// that makes the same collective calls gets the same offsets.
//
// Policy: best fit over a free list ordered by offset (ties: lowest offset),
// blocks aligned to max(requested alignment, kMinAlign); freed blocks coalesce
// with free neighbours immediately; alignment padding in front of a block stays
// in the free list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>

namespace gshmem::mem {

class Allocator {
 public:
  static constexpr uint64_t kMinAlign = 256;  // keeps every block 16-byte vector friendly
  // growth_needed() result when no growth can help (bad alignment, size overflow).
  static constexpr uint64_t kNoGrowth = UINT64_MAX;

  explicit Allocator(uint64_t capacity = 0);

  // Told of every block that becomes live (live true: its offset and the bytes its caller asked
  // for) or is freed (live false, bytes 0): the library keeps the device's table of live
  // allocations and compute-sanitizer's regions by it (live_track.h). Called after the change.
  using Listener = std::function<void(bool live, uint64_t offset, uint64_t bytes)>;
  void set_listener(Listener l) { listener_ = std::move(l); }

  // Returns true and the block's offset, or false (nothing changed) if no free
  // range fits. size 0 allocates a minimal block (unique offset). align must be
  // a power of two (0 means kMinAlign).
  bool allocate(uint64_t size, uint64_t align, uint64_t* offset);
  // Free a block returned by allocate. Returns false (nothing changed) if
  // `offset` is not the start of a live block.
  bool free(uint64_t offset);
  // Size the caller asked for and the bytes reserved for a live block; false if not live.
  bool block_size(uint64_t offset, uint64_t* requested, uint64_t* reserved) const;
  // The live block containing `offset` (any byte inside it); false if none.
  bool find_block(uint64_t offset, uint64_t* start, uint64_t* reserved) const;
  // Where [offset, offset + bytes) lies, for the debug checks (GSHMEM_DEBUG_CHECKS): inside the
  // bytes a live block's caller asked for (kLive), starting in a live block but running past
  // them (kPastEnd: *start and *requested say which block), or starting in the free list (kFree:
  // freed, or never allocated). A range in none of them (withheld: a registered buffer, or a hole
  // it left) is kLive: it is checked elsewhere. bytes 0 is kLive anywhere.
  enum class Span { kLive, kPastEnd, kFree };
  Span classify(uint64_t offset, uint64_t bytes, uint64_t* start, uint64_t* requested) const;
  // Extend capacity (the heap grew); the new range joins the free list.
  // A new_capacity not above capacity() changes nothing (heap chunks are never unmapped).
  void grow(uint64_t new_capacity);
  // Withheld ranges: [0, capacity) is the free list, the live blocks, and ranges that are
  // neither, which this allocator never hands out: registered user buffers and the holes they
  // leave (gshmemx_buffer_register_symmetric; the heap tracks them, heap_vmm.cpp). Extend
  // capacity with the new range withheld (a new_capacity not above capacity() changes nothing).
  void grow_withheld(uint64_t new_capacity);
  // Lower capacity to new_capacity: the range cut off must be withheld (no free or live byte
  // at or above new_capacity). Returns false, changing nothing, otherwise.
  bool shrink_withheld(uint64_t new_capacity);

  uint64_t capacity() const { return capacity_; }
  uint64_t free_bytes() const;
  uint64_t largest_free() const;
  size_t live_blocks() const { return used_.size(); }
  // Smallest capacity growth that would let allocate(size, align) succeed,
  // taking the free range at the end of the heap into account: 0 if it already
  // fits, kNoGrowth if no growth can make it fit.
  uint64_t growth_needed(uint64_t size, uint64_t align) const;

 private:
  struct Used {
    uint64_t reserved;
    uint64_t requested;
  };
  uint64_t capacity_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> length
  std::map<uint64_t, Used> used_;      // offset -> block
  Listener listener_;
  void insert_free(uint64_t offset, uint64_t length);  // with coalescing
  // Bytes to reserve and effective alignment for a request; false if invalid or overflowing.
  static bool normalize(uint64_t size, uint64_t align, uint64_t* reserved, uint64_t* alignment);
  // Whether an aligned block of `reserved` bytes fits in the free range
  // [start, start + length); if so, *at is where it goes.
  static bool fits(uint64_t start, uint64_t length, uint64_t reserved, uint64_t align, uint64_t* at);
};

}  // namespace gshmem::mem

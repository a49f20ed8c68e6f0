// SPDX-License-Identifier: BSD-3-Clause
// The live ranges of the symmetric heap that device code may touch (gshmem/detail/live_table.h):
// allocations (the bytes their callers asked for), the library's internal allocations and
// registered buffers, sorted by offset. Pure bookkeeping, no CUDA: live_track.h copies it to the
// device and tells compute-sanitizer (sanitizer_nvtx.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gshmem/detail/live_table.h"

namespace gshmem::mem {

class LiveSet {
 public:
  // Adds [offset, offset + bytes). false (nothing changed) when bytes is 0, the range wraps, or
  // it overlaps a live range: the allocator never hands out overlapping blocks, so that is a bug.
  bool insert(uint64_t offset, uint64_t bytes);
  // Removes the range starting at `offset` (its length in *bytes); false if none starts there.
  bool erase(uint64_t offset, uint64_t* bytes = nullptr);
  void clear() { ranges_.clear(); }
  const std::vector<gshmemi_live_range>& ranges() const { return ranges_; }
  size_t size() const { return ranges_.size(); }
  // The device table's image: the header (count) and the ranges, as 64-bit words.
  void image(std::vector<uint64_t>* words) const;

 private:
  std::vector<gshmemi_live_range> ranges_;  // sorted by offset, disjoint
};

}  // namespace gshmem::mem

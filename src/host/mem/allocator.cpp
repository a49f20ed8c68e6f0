// SPDX-License-Identifier: BSD-3-Clause
#include "allocator.h"

#include <iterator>

namespace gshmem::mem {
namespace {

constexpr uint64_t kMax = UINT64_MAX;

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Round `v` up to a multiple of the power of two `a`; false if that overflows.
bool align_up(uint64_t v, uint64_t a, uint64_t* out) {
  if (v > kMax - (a - 1)) return false;
  *out = (v + (a - 1)) & ~(a - 1);
  return true;
}

}  // namespace

Allocator::Allocator(uint64_t capacity) : capacity_(capacity) {
  if (capacity > 0) free_.emplace(0, capacity);
}

bool Allocator::normalize(uint64_t size, uint64_t align, uint64_t* reserved, uint64_t* alignment) {
  if (align == 0) align = kMinAlign;
  if (!is_pow2(align)) return false;
  *alignment = align < kMinAlign ? kMinAlign : align;
  // Blocks are whole multiples of kMinAlign so the free list stays kMinAlign-granular.
  return align_up(size == 0 ? 1 : size, kMinAlign, reserved);
}

bool Allocator::fits(uint64_t start, uint64_t length, uint64_t reserved, uint64_t align, uint64_t* at) {
  uint64_t a;
  if (!align_up(start, align, &a)) return false;
  uint64_t pad = a - start;
  if (pad > length || length - pad < reserved) return false;
  *at = a;
  return true;
}

bool Allocator::allocate(uint64_t size, uint64_t align, uint64_t* offset) {
  uint64_t reserved, alignment;
  if (!offset || !normalize(size, align, &reserved, &alignment)) return false;
  // Best fit: the shortest free range that can hold the aligned block; ties go
  // to the lowest offset (the first one met, since the map is ordered).
  auto best = free_.end();
  uint64_t best_at = 0;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t at;
    if (!fits(it->first, it->second, reserved, alignment, &at)) continue;
    if (best == free_.end() || it->second < best->second) {
      best = it;
      best_at = at;
    }
  }
  if (best == free_.end()) return false;

  const uint64_t start = best->first, end = best->first + best->second;
  free_.erase(best);
  // Padding in front and the remainder behind stay free. Their neighbours are
  // live blocks (the free list is always fully coalesced), so no merging is needed.
  if (best_at > start) free_.emplace(start, best_at - start);
  if (best_at + reserved < end) free_.emplace(best_at + reserved, end - (best_at + reserved));
  used_.emplace(best_at, Used{reserved, size});
  *offset = best_at;
  // A block of 0 bytes (unique offset, nothing to touch) is not live for the device checks.
  if (listener_ && size != 0) listener_(true, best_at, size);
  return true;
}

bool Allocator::free(uint64_t offset) {
  auto it = used_.find(offset);
  if (it == used_.end()) return false;
  const uint64_t reserved = it->second.reserved, requested = it->second.requested;
  used_.erase(it);
  insert_free(offset, reserved);
  if (listener_ && requested != 0) listener_(false, offset, 0);
  return true;
}

void Allocator::insert_free(uint64_t offset, uint64_t length) {
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + length == next->first) {  // merge with the range behind
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {  // merge with the range in front
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += length;
      return;
    }
  }
  free_.emplace_hint(next, offset, length);
}

bool Allocator::block_size(uint64_t offset, uint64_t* requested, uint64_t* reserved) const {
  auto it = used_.find(offset);
  if (it == used_.end()) return false;
  if (requested) *requested = it->second.requested;
  if (reserved) *reserved = it->second.reserved;
  return true;
}

bool Allocator::find_block(uint64_t offset, uint64_t* start, uint64_t* reserved) const {
  auto it = used_.upper_bound(offset);  // first block starting after `offset`
  if (it == used_.begin()) return false;
  --it;
  if (offset - it->first >= it->second.reserved) return false;
  if (start) *start = it->first;
  if (reserved) *reserved = it->second.reserved;
  return true;
}

Allocator::Span Allocator::classify(uint64_t offset, uint64_t bytes, uint64_t* start, uint64_t* requested) const {
  if (bytes == 0) return Span::kLive;
  auto it = used_.upper_bound(offset);  // first block starting after `offset`
  if (it != used_.begin()) {
    --it;
    if (offset - it->first < it->second.reserved) {
      if (start) *start = it->first;
      if (requested) *requested = it->second.requested;
      const uint64_t in = offset - it->first;  // < reserved
      return in < it->second.requested && bytes <= it->second.requested - in ? Span::kLive : Span::kPastEnd;
    }
  }
  auto f = free_.upper_bound(offset);
  if (f != free_.begin()) {
    --f;
    if (offset - f->first < f->second) return Span::kFree;
  }
  return Span::kLive;
}

void Allocator::grow(uint64_t new_capacity) {
  if (new_capacity <= capacity_) return;  // the heap never shrinks
  insert_free(capacity_, new_capacity - capacity_);
  capacity_ = new_capacity;
}

void Allocator::grow_withheld(uint64_t new_capacity) {
  if (new_capacity > capacity_) capacity_ = new_capacity;
}

bool Allocator::shrink_withheld(uint64_t new_capacity) {
  if (new_capacity > capacity_) return false;
  // The last free range and the last live block end below the cut, or nothing changes.
  if (!free_.empty()) {
    auto last = std::prev(free_.end());
    if (last->first + last->second > new_capacity) return false;
  }
  if (!used_.empty()) {
    auto last = std::prev(used_.end());
    if (last->first + last->second.reserved > new_capacity) return false;
  }
  capacity_ = new_capacity;
  return true;
}

uint64_t Allocator::free_bytes() const {
  uint64_t total = 0;
  for (const auto& [offset, length] : free_) total += length;
  return total;
}

uint64_t Allocator::largest_free() const {
  uint64_t largest = 0;
  for (const auto& [offset, length] : free_)
    if (length > largest) largest = length;
  return largest;
}

uint64_t Allocator::growth_needed(uint64_t size, uint64_t align) const {
  uint64_t reserved, alignment, at;
  if (!normalize(size, align, &reserved, &alignment)) return kNoGrowth;
  for (const auto& [start, length] : free_)
    if (fits(start, length, reserved, alignment, &at)) return 0;
  // New space is appended at the end; a block placed there starts at the first
  // aligned offset of the free range touching the end (or of the end itself).
  uint64_t start = capacity_;
  if (!free_.empty()) {
    auto last = std::prev(free_.end());
    if (last->first + last->second == capacity_) start = last->first;
  }
  if (!align_up(start, alignment, &at) || at > kMax - reserved) return kNoGrowth;
  return at + reserved - capacity_;
}

}  // namespace gshmem::mem

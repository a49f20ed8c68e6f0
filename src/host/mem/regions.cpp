// SPDX-License-Identifier: BSD-3-Clause
#include "regions.h"

#include <iterator>

namespace gshmem::mem {
namespace {

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// `v` rounded up to a multiple of the power of two `a`; false if that overflows.
bool align_up(uint64_t v, uint64_t a, uint64_t* out) {
  if (v > UINT64_MAX - (a - 1)) return false;
  *out = (v + (a - 1)) & ~(a - 1);
  return true;
}

}  // namespace

bool RegionMap::place(uint64_t bytes, uint64_t align, uint64_t top, uint64_t limit, Placement* p) const {
  if (bytes == 0 || !is_pow2(align) || !p) return false;
  bool found = false;
  uint64_t best_len = 0;
  for (const auto& [off, e] : entries_) {
    uint64_t at;
    if (e.live || !align_up(off, align, &at) || at - off > e.bytes || e.bytes - (at - off) < bytes) continue;
    if (!found || e.bytes < best_len) {  // strict: ties keep the lowest offset (met first)
      found = true;
      best_len = e.bytes;
      *p = Placement{at, top, off};
    }
  }
  if (found) return true;
  uint64_t at;
  if (!align_up(top, align, &at) || at > limit || limit - at < bytes) return false;
  *p = Placement{at, at + bytes, kAtTop};
  return true;
}

void RegionMap::commit(const Placement& p, uint64_t bytes, uint64_t top) {
  if (p.hole == kAtTop) {
    if (p.offset > top) entries_[top] = Entry{p.offset - top, false};  // the alignment gap
    entries_[p.offset] = Entry{bytes, true};
    return;
  }
  auto it = entries_.find(p.hole);
  if (it == entries_.end() || it->second.live) return;  // not a placement of this map
  const uint64_t start = it->first, end = it->first + it->second.bytes;
  entries_.erase(it);
  if (p.offset > start) entries_[start] = Entry{p.offset - start, false};
  entries_[p.offset] = Entry{bytes, true};
  if (p.offset + bytes < end) entries_[p.offset + bytes] = Entry{end - (p.offset + bytes), false};
}

uint64_t RegionMap::release(uint64_t offset, uint64_t top) {
  auto it = entries_.find(offset);
  if (it == entries_.end() || !it->second.live) return top;
  it->second.live = false;
  auto next = std::next(it);
  if (next != entries_.end() && !next->second.live && it->first + it->second.bytes == next->first) {
    it->second.bytes += next->second.bytes;
    entries_.erase(next);
  }
  if (it != entries_.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.live && prev->first + prev->second.bytes == it->first) {
      prev->second.bytes += it->second.bytes;
      entries_.erase(it);
      it = prev;
    }
  }
  if (it->first + it->second.bytes != top) return top;
  // A hole at the top: nothing above it is mapped, so the extent ends where it starts. The entry
  // before it is a live region or lies below a heap chunk (holes next to it were merged above).
  const uint64_t new_top = it->first;
  entries_.erase(it);
  return new_top;
}

bool RegionMap::live(uint64_t offset, uint64_t* bytes) const {
  auto it = entries_.find(offset);
  if (it == entries_.end() || !it->second.live) return false;
  if (bytes) *bytes = it->second.bytes;
  return true;
}

size_t RegionMap::live_count() const {
  size_t n = 0;
  for (const auto& [off, e] : entries_) n += e.live ? 1 : 0;
  return n;
}

size_t RegionMap::hole_count() const { return entries_.size() - live_count(); }

}  // namespace gshmem::mem

// SPDX-License-Identifier: BSD-3-Clause
#include "live_set.h"

#include <algorithm>

namespace gshmem::mem {
namespace {

bool starts_before(const gshmemi_live_range& r, uint64_t offset) { return r.offset < offset; }

}  // namespace

bool LiveSet::insert(uint64_t offset, uint64_t bytes) {
  if (bytes == 0 || offset + bytes < offset) return false;
  auto next = std::lower_bound(ranges_.begin(), ranges_.end(), offset, starts_before);
  if (next != ranges_.end() && next->offset < offset + bytes) return false;  // overlaps the next one
  if (next != ranges_.begin()) {
    const gshmemi_live_range& prev = *std::prev(next);
    if (prev.offset + prev.bytes > offset) return false;  // the previous one runs into it
  }
  ranges_.insert(next, gshmemi_live_range{offset, bytes});
  return true;
}

bool LiveSet::erase(uint64_t offset, uint64_t* bytes) {
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), offset, starts_before);
  if (it == ranges_.end() || it->offset != offset) return false;
  if (bytes) *bytes = it->bytes;
  ranges_.erase(it);
  return true;
}

void LiveSet::image(std::vector<uint64_t>* words) const {
  static_assert(sizeof(gshmemi_live_table) == 2 * sizeof(uint64_t), "table header: 2 words");
  static_assert(sizeof(gshmemi_live_range) == 2 * sizeof(uint64_t), "a range: 2 words");
  words->assign(2 + 2 * ranges_.size(), 0);
  (*words)[0] = ranges_.size();
  for (size_t i = 0; i < ranges_.size(); ++i) {
    (*words)[2 + 2 * i] = ranges_[i].offset;
    (*words)[3 + 2 * i] = ranges_[i].bytes;
  }
}

}  // namespace gshmem::mem

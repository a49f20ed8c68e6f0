// SPDX-License-Identifier: BSD-3-Clause
#include "completion.h"

#include <algorithm>

namespace gshmem::proxy {

void CompletionTracker::add(uint64_t id, int target, uint64_t seq) {
  next_ = id + 1;
  if (!ranges_.empty()) {
    Range& b = ranges_.back();
    if (b.target == target && b.first_id + b.count == id && (target < 0 || b.first_seq + b.count == seq)) {
      ++b.count;
      return;
    }
  }
  ranges_.push_back({id, 1, target, seq});
}

void CompletionTracker::add_finished(uint64_t id) { add(id, -1, 0); }

uint64_t CompletionTracker::advance(const AckedFn& acked, const FailedFn& failed) {
  while (!ranges_.empty()) {
    Range& r = ranges_.front();
    uint64_t done = r.count;
    if (r.target >= 0 && !failed(r.target)) {
      const uint64_t a = acked(r.target);
      done = a <= r.first_seq ? 0 : std::min(r.count, a - r.first_seq);
    }
    // A get or fetch is complete only when its reply landed here, even if acknowledged.
    auto w = awaiting_.lower_bound(r.first_id);
    if (w != awaiting_.end() && *w < r.first_id + done) done = *w - r.first_id;
    completed_ = r.first_id + done;
    if (done < r.count) return completed_;
    ranges_.pop_front();
  }
  completed_ = next_;
  return completed_;
}

void CompletionTracker::for_each_unacked(int target, uint64_t acked, const std::function<void(uint64_t id)>& fn) const {
  for (const Range& r : ranges_) {
    if (r.target != target) continue;
    for (uint64_t i = 0; i < r.count; ++i)
      if (r.first_seq + i >= acked && r.first_id + i >= completed_) fn(r.first_id + i);
  }
}

}  // namespace gshmem::proxy

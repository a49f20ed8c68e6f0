// SPDX-License-Identifier: BSD-3-Clause
// Completion of a stream of operations named by consecutive ids (ring tickets, or host-queue
// positions): each id maps to (target, sequence), kept as coalesced ranges since a burst to one
// target takes consecutive tickets and consecutive sequence numbers. An id is complete once its
// target acknowledged the sequence number as applied and, for a get or a fetch, once the data or
// value is in place here. completed() is the lowest incomplete id: what a quiet waits for.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <set>

namespace gshmem::proxy {

class CompletionTracker {
 public:
  // Acknowledged-through counts per target (every seq below is applied), and whether it failed.
  using AckedFn = std::function<uint64_t(int target)>;
  using FailedFn = std::function<bool(int target)>;

  // The next id, sent to `target` as `seq`. Ids are added in order, without gaps.
  void add(uint64_t id, int target, uint64_t seq);
  // The next id, finished without a target (an invalid entry, a target already failed).
  void add_finished(uint64_t id);
  // `id` also waits for a reply (get data, fetched value) / the reply is in place.
  void await_reply(uint64_t id) { awaiting_.insert(id); }
  void reply_done(uint64_t id) { awaiting_.erase(id); }

  // Recomputes completed() from the targets' acknowledgements; returns it.
  uint64_t advance(const AckedFn& acked, const FailedFn& failed);
  uint64_t completed() const { return completed_; }
  uint64_t added() const { return next_; }
  // Calls fn(id) for each incomplete id sent to `target` whose seq is not below `acked`.
  void for_each_unacked(int target, uint64_t acked, const std::function<void(uint64_t id)>& fn) const;

 private:
  struct Range {
    uint64_t first_id;
    uint64_t count;
    int target;  // -1: finished on arrival
    uint64_t first_seq;
  };
  std::deque<Range> ranges_;
  std::set<uint64_t> awaiting_;
  uint64_t next_ = 0;
  uint64_t completed_ = 0;
};

}  // namespace gshmem::proxy

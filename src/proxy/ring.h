// SPDX-License-Identifier: BSD-3-Clause
// The engine's view of one ring (docs/internode.md section 3): entries taken in ticket order
// once whole, replies written into their slots, `released` advanced in ticket order and past a
// reply-bearing slot only once its waiter cleared word 0, so that a new lap never overwrites an
// entry, or a reply, that is still being read.
#pragma once

#include <cstdint>
#include <deque>

namespace gshmem::proxy {

// Where the ring and its control words live: pinned mapped memory in the library, plain memory
// in the tests. Every word is read and written as one atomic 8-byte access.
struct RingRegion {
  uint64_t* words = nullptr;  // 8 << log2_entries words, 64-byte aligned; nullptr: no ring
  unsigned log2_entries = 0;
  uint64_t* released = nullptr;   // the engine stores: producers may write tickets < released + N
  uint64_t* completed = nullptr;  // the engine stores: the lowest ticket not complete
  uint64_t* fault = nullptr;      // the engine stores: 1 + the first failed PE (0: none)
};

class Ring {
 public:
  explicit Ring(const RingRegion& r);

  bool present() const { return r_.words != nullptr; }
  uint64_t entries() const { return uint64_t{1} << r_.log2_entries; }
  uint64_t head() const { return head_; }  // next ticket to take
  uint64_t released() const { return released_; }

  // Copies the entry of ticket head() into `out` when it is whole (all eight parity bits match
  // the lap, and word 0 is not a cleared one); then head() advances. False: not yet written.
  bool take(uint64_t out[8], bool* wants_reply);

  // Reply words for an entry taken earlier (a value in words 6-7, or a tag alone in word 7).
  void reply_value(uint64_t ticket, uint64_t value, bool error);
  void reply_tag(uint64_t ticket, bool error);

  // Moves `released` past every taken entry whose slot may be rewritten, and publishes it.
  void advance_released();

 private:
  uint64_t* slot(uint64_t ticket) const;
  uint64_t parity(uint64_t ticket) const;

  RingRegion r_;
  uint64_t head_ = 0;
  uint64_t released_ = 0;
  struct Slot {
    bool wants_reply;
    bool replied;
  };
  std::deque<Slot> slots_;  // tickets released_ .. head_ - 1
};

}  // namespace gshmem::proxy

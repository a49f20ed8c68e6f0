// SPDX-License-Identifier: BSD-3-Clause
#include "ring.h"

#include "gshmem/detail/proxy_abi.h"

namespace gshmem::proxy {

namespace {

// Acquire: for a by-reference entry the writer's fence ordered its payload before the words,
// so reading a word with acquire makes the payload visible here.
uint64_t load(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
void store(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

}  // namespace

Ring::Ring(const RingRegion& r) : r_(r) {}

uint64_t* Ring::slot(uint64_t ticket) const {
  return r_.words + (ticket & (entries() - 1)) * GSHMEMI_PROXY_ENTRY_WORDS;
}

uint64_t Ring::parity(uint64_t ticket) const { return gshmemi_proxy_parity(ticket, r_.log2_entries); }

bool Ring::take(uint64_t out[8], bool* wants_reply) {
  if (!present() || head_ - released_ >= entries()) return false;
  const uint64_t* s = slot(head_);
  const uint64_t p = parity(head_);
  for (unsigned i = 0; i < GSHMEMI_PROXY_ENTRY_WORDS; ++i) {
    out[i] = load(s + i);
    // A word of the previous lap: the writer has not stored it yet. Read the whole entry again
    // next time rather than keep the words already seen: each is valid alone, but re-reading
    // costs one line and keeps this simple.
    if ((out[i] & GSHMEMI_PROXY_PARITY_BIT) != p) return false;
  }
  // A cleared word 0 (0) has the parity of odd laps: on such a lap it would pass the test above
  // before the producer stored the real word 0. Op 0 is never written, so this tells them apart.
  if (gshmemi_proxy_w0_op(out[0]) == GSHMEMI_PROXY_OP_NONE) return false;
  *wants_reply = gshmemi_proxy_wants_reply(out[0]);
  slots_.push_back({*wants_reply, false});
  ++head_;
  return true;
}

void Ring::reply_value(uint64_t ticket, uint64_t value, bool error) {
  uint64_t* s = slot(ticket);
  const uint64_t p = parity(ticket);
  store(s + 6, gshmemi_proxy_reply_word(p, ticket, gshmemi_proxy_lo(value), error));
  store(s + 7, gshmemi_proxy_reply_word(p, ticket, gshmemi_proxy_hi(value), error));
  slots_[ticket - released_].replied = true;
}

void Ring::reply_tag(uint64_t ticket, bool error) {
  store(slot(ticket) + 7, gshmemi_proxy_reply_word(parity(ticket), ticket, 0, error));
  slots_[ticket - released_].replied = true;
}

void Ring::advance_released() {
  const uint64_t before = released_;
  while (!slots_.empty()) {
    const Slot& s = slots_.front();
    // A reply-bearing slot stays ours until the waiter read its reply and stored 0 into word 0.
    if (s.wants_reply && !(s.replied && load(slot(released_)) == 0)) break;
    slots_.pop_front();
    ++released_;
  }
  if (released_ != before && r_.released) store(r_.released, released_);
}

}  // namespace gshmem::proxy

// SPDX-License-Identifier: BSD-3-Clause
// A Stager on host memory, for the tests: applies into a byte array standing for this PE's
// heap, with the same order the CUDA apply keeps (a put's data, then its signal with release;
// operations in submission order). It can hold operations back (lag, stall) so that completion
// comes later than submission, and it reports every change of heap memory to an observer, so a
// test can check, at the moment a signal changes, that the data before it is in place.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <vector>

#include "interfaces.h"

namespace gshmem::proxy {

class MemcpyStager final : public Stager {
 public:
  struct Change {
    enum Kind { kData, kSignal, kAmo, kLocalWrite } kind;
    int src;       // the issuing PE (kLocalWrite: -1)
    uint64_t seq;  // its sequence number
    uint64_t offset, size;
  };

  // lag: each poll completes a random number (0..4) of the queued ops, from a seeded RNG.
  MemcpyStager(uint8_t* heap, uint64_t heap_size, uint64_t seed = 1, bool lag = false);

  void submit(const ApplyOp& op) override;
  void poll(std::vector<Done>& done) override;
  // The bulk path's source copies: with `lag`, each copies_done() call performs 0..2 of the
  // queued copies (seeded), so that copies finish late and the engine must wait for them.
  bool start_copy(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) override;
  uint64_t copies_done() override;

  void set_stalled(bool stalled) { stalled_ = stalled; }  // nothing completes while stalled
  void set_observer(std::function<void(const Change&)> fn) { observer_ = std::move(fn); }
  size_t queued() const { return queue_.size(); }
  uint64_t applied() const { return applied_; }

 private:
  Done apply(const ApplyOp& op);
  bool in_heap(uint64_t offset, uint64_t size, unsigned align, std::string* why) const;
  void note(Change::Kind kind, const ApplyOp& op, uint64_t offset, uint64_t size);

  uint8_t* heap_;
  uint64_t heap_size_;
  bool lag_;
  bool stalled_ = false;
  std::mt19937_64 rng_;
  std::deque<ApplyOp> queue_;
  struct Copy {
    const uint8_t* from;
    uint8_t* to;
    uint64_t size;
  };
  std::deque<Copy> copies_;
  uint64_t copies_done_ = 0;
  std::function<void(const Change&)> observer_;
  uint64_t applied_ = 0;
};

}  // namespace gshmem::proxy

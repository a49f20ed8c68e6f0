// SPDX-License-Identifier: BSD-3-Clause
// A Stager on host memory, for the tests: applies into a byte array standing for this PE's
// heap, with the same order the CUDA apply keeps (a put's data, then its signal with release;
// operations in submission order). It can hold operations back (lag, stall) so that completion
// comes later than submission, and it reports every change of heap memory to an observer, so a
// test can check, at the moment a signal changes, that the data before it is in place.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <thread>
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
  ~MemcpyStager() override;
  MemcpyStager(const MemcpyStager&) = delete;
  MemcpyStager& operator=(const MemcpyStager&) = delete;

  void submit(const ApplyOp& op) override;
  void poll(std::vector<Done>& done) override;
  // The bulk path's source copies: with `lag`, each copies_done() call performs 0..2 of the
  // queued copies (seeded), so that copies finish late and the engine must wait for them.
  bool start_copy(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) override;
  uint64_t copies_done() override;

  // Source copies on a thread of their own, in start order, as a GPU's copy engine does them
  // beside the proxy thread (the bandwidth report: a copy in the engine's thread would take the
  // CPU time the network needs, which the device path does not). Call before the first copy;
  // not with `lag`.
  void set_async_copies();
  // The bandwidth report only: the bulk path's copies are not made (a source copy completes at
  // once and leaves the slot as it is; a staged put's apply writes nothing but its signal), so
  // that the figure is the engine's and the network's alone, without the two host copies a
  // GPU's copy engines make. The heap is then wrong: no test that checks data may use it.
  void set_elide_bulk_copies() { elide_ = true; }

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
  bool elide_ = false;
  std::mt19937_64 rng_;
  std::deque<ApplyOp> queue_;
  struct Copy {
    const uint8_t* from;
    uint8_t* to;
    uint64_t size;
  };
  std::deque<Copy> copies_;
  uint64_t copies_done_ = 0;
  // set_async_copies: copies_ is shared with the thread under mu_; it counts in async_done_.
  std::thread copier_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<uint64_t> async_done_{0};
  std::function<void(const Change&)> observer_;
  uint64_t applied_ = 0;
};

}  // namespace gshmem::proxy

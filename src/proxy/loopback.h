// SPDX-License-Identifier: BSD-3-Clause
// A Transport joining engines of one process, for the tests: each message is delivered after a
// random delay (from a seeded RNG, in Clock time) and, with `reorder`, the messages due at a
// destination are delivered in a shuffled order, the worst UCX's unordered active messages may
// do. fail(pe) stands for a killed process: what is in flight to or from it is lost and every
// other endpoint hears on_peer_failed at its next progress().
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "interfaces.h"

namespace gshmem::proxy {

struct LoopbackOptions {
  uint64_t seed = 1;
  uint64_t max_delay_ns = 0;  // each message waits a uniform 0..max_delay_ns
  bool reorder = false;       // false: each pair stays FIFO despite the delays
};

class LoopbackFabric {
 public:
  LoopbackFabric(int n_pes, Clock& clock, LoopbackOptions opt = {});
  ~LoopbackFabric();

  Transport& endpoint(int pe);
  // The bulk path: PE `pe`'s staging window, which the others' bulk_put writes into. A put is
  // performed after a random delay (as a message is delivered), at the source's progress, and
  // its completion reported there after the bytes are in place.
  void set_window(int pe, uint8_t* base, uint64_t size);
  uint64_t bulk_puts() const;  // puts performed so far
  void fail(int pe, const std::string& why);
  size_t in_flight() const;

 private:
  class Endpoint;
  struct Msg {
    int src;
    uint64_t due;
    std::vector<uint8_t> bytes;
  };
  struct Put {
    int dst;
    uint64_t due, local_off, remote_off, size, token;
  };
  bool send(int src, int dst, std::vector<uint8_t> bytes, uint64_t token);
  bool bulk_put(int src, int dst, uint64_t local_off, uint64_t remote_off, uint64_t size, uint64_t token);
  void progress(int pe, TransportCallbacks* cb);

  Clock& clock_;
  LoopbackOptions opt_;
  mutable std::mutex mu_;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::vector<std::deque<Msg>> inbox_;                         // per destination
  std::vector<std::deque<uint64_t>> completions_;              // per source: send tokens
  std::vector<std::deque<std::pair<int, std::string>>> news_;  // per survivor: failed peers
  std::vector<std::vector<uint64_t>> last_due_;                // [src][dst], for FIFO pairs
  std::vector<uint8_t> dead_;
  std::vector<std::pair<uint8_t*, uint64_t>> windows_;  // per PE
  std::vector<std::deque<Put>> puts_;                   // per source
  uint64_t bulk_puts_ = 0;
};

}  // namespace gshmem::proxy

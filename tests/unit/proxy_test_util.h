// SPDX-License-Identifier: BSD-3-Clause
// Harness of the proxy engine tests: rings in plain memory, CPU producers that write entries
// the way a device thread does (claim a ticket, wait for room, store the eight words in a random
// order with pauses, poll the reply words and clear word 0), and a cluster of engines in one
// process joined by the loopback transport, each applying into its own heap (memcpy stager).
// Engines are progressed by the test's main thread, round-robin, so that the RNG-driven delays,
// reordering and lag are the same on every run; only the producer threads' timing varies.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gshmem/detail/proxy_abi.h"
#include "proxy/engine.h"
#include "proxy/loopback.h"
#include "proxy/memcpy_stager.h"

namespace proxy_test {

using namespace gshmem::proxy;

struct alignas(64) Line {
  uint64_t w[8];
};

inline uint64_t load(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

// A ring and its control words, zeroed: every slot reads as empty for lap 0.
struct TestRing {
  explicit TestRing(unsigned log2) : log2_entries(log2), lines(size_t{1} << log2), ctl(4) {
    std::memset(lines.data(), 0, lines.size() * sizeof(Line));
    std::memset(ctl.data(), 0, ctl.size() * sizeof(Line));
  }
  uint64_t entries() const { return uint64_t{1} << log2_entries; }
  uint64_t* slot(uint64_t ticket) { return lines[ticket & (entries() - 1)].w; }
  RingRegion region() { return {lines[0].w, log2_entries, &ctl[0].w[0], &ctl[1].w[0], &ctl[2].w[0]}; }
  uint64_t released() { return load(&ctl[0].w[0]); }
  uint64_t completed() { return load(&ctl[1].w[0]); }
  uint64_t fault() { return load(&ctl[2].w[0]); }

  unsigned log2_entries;
  std::vector<Line> lines;
  std::vector<Line> ctl;  // released, completed, fault: a line each
  std::atomic<uint64_t> issued{0};
};

// A device writer's protocol, on a CPU thread.
class Producer {
 public:
  Producer(TestRing& r, uint64_t seed) : r_(r), rng_(seed) {}

  // A random pause: mostly none, sometimes a yield or a short spin, so that words of an entry
  // land far apart in time and the engine sees half-written entries.
  void pause() {
    const uint64_t x = rng_() % 16;
    if (x == 0) std::this_thread::yield();
    if (x == 1)
      for (volatile int i = 0; i < 200; ++i) {
      }
  }

  // Claims a ticket, waits until its slot is released, writes the words in a random order.
  uint64_t post(const ProxyOp& op) {
    const uint64_t t = r_.issued.fetch_add(1, std::memory_order_relaxed);
    write(t, op);
    return t;
  }
  void write(uint64_t t, const ProxyOp& op) {
    while (t >= r_.released() + r_.entries()) std::this_thread::yield();  // "ring full": wait
    uint64_t w[8];
    encode_entry(op, gshmemi_proxy_parity(t, r_.log2_entries), w);
    int order[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    std::shuffle(order, order + 8, rng_);
    // Release: a by-reference payload written before is visible to the engine's acquire.
    for (int i : order) {
      pause();
      __atomic_store_n(r_.slot(t) + i, w[i], __ATOMIC_RELEASE);
    }
  }

  // Polls the reply words of ticket t (a value in 6-7, or the tag alone in 7), then checks the
  // slot is still held (released has not passed t: the reply cannot have been overwritten) and
  // clears word 0. Returns the value; *error gets the reply's error bit.
  uint64_t wait_reply(uint64_t t, bool value, bool* error, bool* slot_was_held) {
    uint64_t* s = r_.slot(t);
    uint64_t w6 = 0, w7 = 0;
    for (;;) {
      w7 = load(s + 7);
      if (gshmemi_proxy_reply_is_for(w7, t)) {
        if (!value) break;
        w6 = load(s + 6);
        if (gshmemi_proxy_reply_is_for(w6, t)) break;
      }
      std::this_thread::yield();
    }
    for (int i = 0; i < 4; ++i) pause();  // a slow reader: the engine must keep the slot meanwhile
    *slot_was_held = r_.released() <= t;
    *error = (w7 & GSHMEMI_PROXY_REPLY_ERROR) != 0;
    const uint64_t v = gshmemi_proxy_join(w6, w7);
    __atomic_store_n(s, 0, __ATOMIC_RELEASE);
    return v;
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  TestRing& r_;
  std::mt19937_64 rng_;
};

// n engines in one process, each with a ring, a heap, a stager and a host queue.
struct Cluster {
  struct Node {
    std::unique_ptr<TestRing> ring;
    std::vector<uint64_t> heap;  // 8-byte aligned: AMOs and signals
    std::unique_ptr<MemcpyStager> stager;
    std::unique_ptr<HostQueue> host;
    std::unique_ptr<Engine> engine;
    std::vector<uint8_t> window;   // the bulk path's staging window (bulk.window set)
    std::unique_ptr<Trace> trace;  // `trace_records` > 0: the engine's proxy trace
    uint8_t* bytes() { return reinterpret_cast<uint8_t*>(heap.data()); }
  };

  // bulk.window non-null (any value): every engine gets a window of its own, poisoned, on the
  // loopback fabric; nullptr: active messages only. trace_records > 0: every engine records a
  // proxy trace of that many records (proxy/trace.h).
  Cluster(int n, unsigned log2_ring, uint64_t heap_bytes, LoopbackOptions net, bool lag,
          uint64_t max_outstanding = 1024, BulkConfig bulk = {}, size_t trace_records = 0, uint64_t ack_delay_ns = 0)
      : fabric(n, clock, net) {
    for (int pe = 0; pe < n; ++pe) {
      Node nd;
      nd.ring = std::make_unique<TestRing>(log2_ring);
      nd.heap.assign(heap_bytes / 8, 0);
      nd.stager = std::make_unique<MemcpyStager>(nd.bytes(), heap_bytes, net.seed * 131 + pe, lag);
      nd.host = std::make_unique<HostQueue>();
      EngineConfig cfg;
      cfg.my_pe = pe;
      cfg.n_pes = n;
      cfg.ring = nd.ring->region();
      cfg.host_queue = nd.host.get();
      cfg.batch = 16;
      cfg.max_outstanding = max_outstanding;
      cfg.ack_delay_ns = ack_delay_ns;
      if (bulk.window) {
        nd.window.assign(bulk.window_bytes(n), 0xa5);
        fabric.set_window(pe, nd.window.data(), nd.window.size());
        cfg.bulk = bulk;
        cfg.bulk.window = nd.window.data();
      }
      if (trace_records) {
        nd.trace = std::make_unique<Trace>(trace_records);
        cfg.trace = nd.trace.get();
      }
      nd.engine = std::make_unique<Engine>(cfg, fabric.endpoint(pe), *nd.stager, clock);
      nodes.push_back(std::move(nd));
    }
  }

  // One round: every live engine makes a pass, then time moves on 1 us.
  void pump() {
    for (size_t pe = 0; pe < nodes.size(); ++pe)
      if (!dead.count(static_cast<int>(pe))) nodes[pe].engine->progress();
    clock.advance(1000);
  }
  template <typename Pred>
  bool pump_until(Pred done, int max_rounds = 2000000) {
    for (int i = 0; i < max_rounds; ++i) {
      if (done()) return true;
      pump();
    }
    return done();
  }
  void kill(int pe, const std::string& why) {
    dead.insert(pe);
    fabric.fail(pe, why);
  }

  ManualClock clock;
  LoopbackFabric fabric;
  std::vector<Node> nodes;
  std::set<int> dead;
};

// A non-trivial byte pattern of (a, b, i): every byte depends on all three.
inline uint8_t pattern(uint64_t a, uint64_t b, uint64_t i) {
  uint64_t x = (a + 1) * 0x9e3779b97f4a7c15ull ^ (b + 7) * 0xc2b2ae3d27d4eb4full ^ (i + 3) * 0x165667b19e3779f9ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  return static_cast<uint8_t>(x >> 56);
}

inline ProxyOp inline_put(int target, uint64_t offset, const uint8_t* data, unsigned n) {
  ProxyOp o;
  o.op = GSHMEMI_PROXY_OP_PUT;
  o.target = target;
  o.offset = offset;
  o.size = n;
  std::memcpy(o.inline_data, data, n);
  return o;
}

inline ProxyOp ref_put(int target, uint64_t offset, const uint8_t* data, uint64_t n, bool nbi = true) {
  ProxyOp o;
  o.op = GSHMEMI_PROXY_OP_PUT;
  o.flags = GSHMEMI_PROXY_F_BY_REF | (nbi ? GSHMEMI_PROXY_F_NBI : 0);
  o.target = target;
  o.offset = offset;
  o.size = n;
  o.ref_addr = reinterpret_cast<uintptr_t>(data);
  return o;
}

inline ProxyOp amo(int target, unsigned op, uint64_t offset, uint64_t operand, bool fetch, unsigned log2w = 3) {
  ProxyOp o;
  o.op = static_cast<uint8_t>(op);
  o.flags = static_cast<uint16_t>((log2w << GSHMEMI_PROXY_F_WIDTH_SHIFT) | (fetch ? GSHMEMI_PROXY_F_FETCH : 0));
  o.target = target;
  o.offset = offset;
  o.operand = operand;
  return o;
}

inline ProxyOp signal_op(int target, uint64_t sig_offset, uint64_t value, bool add) {
  ProxyOp o;
  o.op = GSHMEMI_PROXY_OP_SIGNAL;
  o.flags = add ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0;
  o.target = target;
  o.sig_offset = sig_offset;
  o.sig_value = value;
  return o;
}

}  // namespace proxy_test

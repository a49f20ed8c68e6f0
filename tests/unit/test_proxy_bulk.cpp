// SPDX-License-Identifier: BSD-3-Clause
// The engine's bulk path (docs/internode.md section 5, "Bulk data"): large by-reference puts
// cut into chunks that travel by RMA into the target's staging window, with engines joined by
// the loopback fabric (messages and RMA writes delayed and shuffled, stagers lagging) and
// windows of a few small slots, so that slots run out and chunks wait for credits. Every byte
// is checked; a signal is never applied before the data of its put (every chunk of it); a
// blocking put returns; a failed target fails its chunked puts and gives their slots back.
#include <gtest/gtest.h>

#include <atomic>

#include "proxy_test_util.h"

namespace {

using namespace proxy_test;

// Small chunks and few slots: a put of a few KiB is already several chunks and two sources
// exhaust the slots they own at a target.
BulkConfig small_bulk() {
  BulkConfig b;
  b.window = reinterpret_cast<uint8_t*>(1);  // "on": the Cluster makes the real ones
  b.chunk = 4096;
  b.slots_per_source = 2;
  b.out_slots = 3;
  b.min_size = 1024;
  return b;
}

// Sizes around the threshold and the chunk size, with odd tails.
const uint64_t kSizes[] = {1, 15, 17, 1023, 1024, 1025, 4095, 4096, 4097, 8192 + 13, 3 * 4096 + 1, 5 * 4096 - 7};
constexpr int kNSizes = sizeof(kSizes) / sizeof(kSizes[0]);

uint64_t chunks_of(uint64_t n, const BulkConfig& b) { return n < b.min_size ? 0 : (n + b.chunk - 1) / b.chunk; }

// PEs 0 and 2 each put every size (twice, blocking and not) to PE 1, each put with an ADD
// signal on the source's word: whenever the signal changes to v, the source's first v puts are
// in PE 1's heap, every byte. Then each overwrites the start of its first bulk region with an
// inline put: the later op wins. Every chunk went by RMA.
TEST(ProxyBulk, ChunkedPutsLandWholeAndBeforeTheirSignal) {
  const BulkConfig bulk = small_bulk();
  constexpr int kRounds = 2, kPuts = kRounds * kNSizes;
  constexpr uint64_t kRegion = 5 * 4096, kDataBase = 4096;
  const uint64_t heap_bytes = kDataBase + 2 * kPuts * kRegion;
  Cluster c(3, 4, heap_bytes, LoopbackOptions{91, 7000, true}, true, 1024, bulk);
  const int srcs[2] = {0, 2};
  auto region = [&](int k, int i) { return kDataBase + (static_cast<uint64_t>(k) * kPuts + i) * kRegion; };
  auto size_of = [&](int i) { return kSizes[i % kNSizes]; };
  uint8_t* heap = c.nodes[1].bytes();
  std::memset(heap, 0xee, heap_bytes);  // poison
  for (int k = 0; k < 2; ++k) std::memset(heap + 8 * k, 0, 8);
  int checked = 0, bad = 0;
  c.nodes[1].stager->set_observer([&](const MemcpyStager::Change& ch) {
    if (ch.kind != MemcpyStager::Change::kSignal) return;
    const int k = ch.src == 0 ? 0 : 1;
    const uint64_t v = *reinterpret_cast<const uint64_t*>(heap + ch.offset);
    for (uint64_t i = 0; i < v; ++i)
      for (uint64_t b = 0; b < size_of(static_cast<int>(i)); ++b)
        bad += heap[region(k, static_cast<int>(i)) + b] != pattern(k, i, b);
    ++checked;
  });
  std::vector<std::vector<uint8_t>> payload(2 * kPuts);
  std::atomic<int> reply_errors{0}, slots_lost{0};
  std::vector<std::thread> producers;
  for (int k = 0; k < 2; ++k)
    producers.emplace_back([&, k] {
      Producer p(*c.nodes[srcs[k]].ring, 300 + k);
      for (int i = 0; i < kPuts; ++i) {
        auto& d = payload[k * kPuts + i];
        d.resize(size_of(i));
        for (uint64_t b = 0; b < d.size(); ++b) d[b] = pattern(k, i, b);
        const bool blocking = i >= kNSizes;
        ProxyOp op = ref_put(1, region(k, i), d.data(), d.size(), !blocking);
        op.flags |= GSHMEMI_PROXY_F_HAS_SIGNAL | GSHMEMI_PROXY_F_SIGNAL_ADD;
        op.sig_offset = 8 * k;
        op.sig_value = 1;
        const uint64_t t = p.post(op);
        if (blocking) {
          bool error = false, held = false;
          p.wait_reply(t, false, &error, &held);
          reply_errors += error;
          slots_lost += !held;
          std::memset(d.data(), 0, d.size());  // returned: the source buffer is ours again
        }
      }
      uint8_t small[8];
      for (int b = 0; b < 8; ++b) small[b] = pattern(9, k, b);
      p.post(inline_put(1, region(k, kNSizes - 1), small, 8));
    });
  ASSERT_TRUE(c.pump_until(
      [&] { return c.nodes[0].ring->completed() == kPuts + 1 && c.nodes[2].ring->completed() == kPuts + 1; }));
  for (auto& t : producers) t.join();
  EXPECT_EQ(bad, 0) << "a signal was applied before all of its put's chunks";
  EXPECT_EQ(checked, 2 * kPuts);
  EXPECT_EQ(reply_errors.load(), 0);
  EXPECT_EQ(slots_lost.load(), 0);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(c.nodes[1].heap[k], uint64_t{kPuts});
    for (int i = 0; i < kPuts; ++i) {
      const uint64_t n = size_of(i);
      const uint8_t* at = heap + region(k, i);
      const bool over = i == kNSizes - 1;
      for (uint64_t b = 0; b < n; ++b)
        ASSERT_EQ(at[b], over && b < 8 ? pattern(9, k, b) : pattern(k, i, b))
            << "source " << srcs[k] << " put " << i << " (" << n << " B) byte " << b;
      for (uint64_t b = n; b < kRegion; ++b) ASSERT_EQ(at[b], 0xee) << "put " << i << " wrote past its end, byte " << b;
    }
  }
  uint64_t want_chunks = 0;
  for (int i = 0; i < kPuts; ++i) want_chunks += 2 * chunks_of(size_of(i), bulk);
  EXPECT_EQ(c.fabric.bulk_puts(), want_chunks) << "puts of at least min_size go by RMA, in chunks";
  for (auto& nd : c.nodes) EXPECT_TRUE(nd.engine->failures().empty()) << nd.engine->failures()[0].message;
}

// Host calls: every size to both other PEs through the host queue, messages in order but late;
// a quiet (completed) covers every byte, including an odd tail at the end of the heap.
TEST(ProxyBulk, HostPutsOfEverySizeComplete) {
  const BulkConfig bulk = small_bulk();
  constexpr uint64_t kRegion = 5 * 4096;
  Cluster c(3, 4, 3 * kNSizes * kRegion, LoopbackOptions{17, 3000, false}, true, 1024, bulk);
  std::vector<std::vector<uint8_t>> src(2 * kNSizes);
  uint64_t ids = 0;
  for (int q = 1; q <= 2; ++q)
    for (int i = 0; i < kNSizes; ++i) {
      auto& d = src[(q - 1) * kNSizes + i];
      d.resize(kSizes[i]);
      for (uint64_t b = 0; b < d.size(); ++b) d[b] = pattern(q, i, b);
      HostOp h;
      // The last one ends exactly at the end of the heap.
      const uint64_t off = i == kNSizes - 1 ? 3 * kNSizes * kRegion - d.size() : (i * 3 + q) * kRegion;
      h.op = ref_put(q, off, d.data(), d.size());
      c.nodes[0].host->push(h);
      ++ids;
    }
  ASSERT_TRUE(c.pump_until([&] { return c.nodes[0].engine->host_completed() == ids; }));
  for (int q = 1; q <= 2; ++q)
    for (int i = 0; i < kNSizes; ++i) {
      const uint64_t off = i == kNSizes - 1 ? 3 * kNSizes * kRegion - kSizes[i] : (i * 3 + q) * kRegion;
      for (uint64_t b = 0; b < kSizes[i]; ++b)
        ASSERT_EQ(c.nodes[q].bytes()[off + b], pattern(q, i, b))
            << "PE " << q << " size " << kSizes[i] << " byte " << b;
    }
  EXPECT_TRUE(c.nodes[0].engine->failures().empty());
}

// PE 1 stops applying (its chunks take no slots back) and is killed with chunked puts to it
// queued and in flight: those fail, the puts to PE 2 complete byte for byte, and later chunked
// puts to PE 2 still go (the outbound slots held by PE 1's chunks came back).
TEST(ProxyBulk, AFailedTargetFailsItsChunkedPutsAndFreesSlots) {
  const BulkConfig bulk = small_bulk();
  constexpr uint64_t kBig = 10 * 4096 + 5;
  Cluster c(3, 4, 4 * kBig, LoopbackOptions{5, 2000, true}, false, 1024, bulk);
  std::vector<uint8_t> d(kBig);
  for (uint64_t b = 0; b < kBig; ++b) d[b] = pattern(1, 2, b);
  c.nodes[1].stager->set_stalled(true);
  std::atomic<int> failed1{0}, failed2{0}, failed3{0};
  HostOp to1, to2, again;
  to1.op = ref_put(1, 0, d.data(), kBig);
  to1.failed = &failed1;
  to2.op = ref_put(2, 0, d.data(), kBig);
  to2.failed = &failed2;
  c.nodes[0].host->push(to1);
  c.nodes[0].host->push(to2);
  for (int i = 0; i < 300; ++i) c.pump();
  EXPECT_LT(c.nodes[0].engine->host_completed(), 1u) << "PE 1 applies nothing: its put cannot be complete";
  c.kill(1, "killed by the test");
  ASSERT_TRUE(c.pump_until([&] { return c.nodes[0].engine->host_completed() == 2; }));
  EXPECT_EQ(failed1.load(), 1) << "the blocking put PE 1 never acknowledged reports failure to its caller";
  EXPECT_EQ(failed2.load(), 0);
  for (uint64_t b = 0; b < kBig; ++b) ASSERT_EQ(c.nodes[2].bytes()[b], d[b]) << "byte " << b;
  again.op = ref_put(2, 2 * kBig, d.data(), kBig);
  again.failed = &failed3;
  c.nodes[0].host->push(again);
  ASSERT_TRUE(c.pump_until([&] { return c.nodes[0].engine->host_completed() == 3; }));
  EXPECT_EQ(failed3.load(), 0);
  for (uint64_t b = 0; b < kBig; ++b) ASSERT_EQ(c.nodes[2].bytes()[2 * kBig + b], d[b]) << "byte " << b;
  // The engine records each failed op.
  bool named = false;
  for (const Failure& f : c.nodes[0].engine->failures()) {
    EXPECT_EQ(f.target, 1) << f.message;
    named |= f.host && f.id == 0 && f.message.find("PE 1") != std::string::npos;
  }
  EXPECT_TRUE(named) << "the put to PE 1 is reported failed, naming PE 1";
}

}  // namespace

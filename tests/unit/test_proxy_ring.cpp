// SPDX-License-Identifier: BSD-3-Clause
// The ring side of the proxy engine (docs/internode.md sections 3-4): an entry is taken only
// once all eight words of its lap are written, whatever their order; slots are reused lap after
// lap (wrap-around); the engine stops parsing at its outstanding limit (back-pressure) and the
// producers wait for `released`; a reply stays in its slot until its waiter cleared word 0.
#include <gtest/gtest.h>

#include "proxy_test_util.h"

#include "proxy/ring.h"

namespace {

using namespace proxy_test;

// The inline put a test writes as ticket t: 1..16 bytes of pattern(seed, t, i).
ProxyOp entry_of(uint64_t seed, uint64_t t) {
  uint8_t data[16];
  const unsigned n = 1 + static_cast<unsigned>(t % 16);
  for (unsigned i = 0; i < n; ++i) data[i] = pattern(seed, t, i);
  return inline_put(static_cast<int>(t % 5), (t * 16) & 0xffffff, data, n);
}

// Word by word, in a random order, single-threaded: after each of the first seven stores the
// entry must not be taken, after the eighth it must, for every lap, including the laps whose
// parity is 0 (where a cleared word 0 carries the "right" parity).
TEST(ProxyRing, AnEntryIsTakenOnlyOnceAllEightWordsAreWritten) {
  for (unsigned log2n : {3u, 5u, 12u}) {
    TestRing r(log2n);
    Ring ring(r.region());
    std::mt19937_64 rng(log2n);
    const uint64_t total = 3 * r.entries() + 3;
    for (uint64_t t = 0; t < total; ++t) {
      const bool reply = t % 3 == 0;  // every third a fetch: its waiter clears word 0 afterwards
      ProxyOp op = reply ? amo(1, GSHMEMI_PROXY_OP_AMO_ADD, 8 * t, t, true) : entry_of(log2n, t);
      uint64_t w[8], got[8];
      encode_entry(op, gshmemi_proxy_parity(t, log2n), w);
      int order[8] = {0, 1, 2, 3, 4, 5, 6, 7};
      std::shuffle(order, order + 8, rng);
      bool wants = false;
      for (int k = 0; k < 8; ++k) {
        ASSERT_FALSE(ring.take(got, &wants)) << "ticket " << t << " taken with " << k << " of 8 words written";
        __atomic_store_n(r.slot(t) + order[k], w[order[k]], __ATOMIC_RELEASE);
      }
      ASSERT_TRUE(ring.take(got, &wants)) << "ticket " << t;
      for (int k = 0; k < 8; ++k) ASSERT_EQ(got[k], w[k]) << "ticket " << t << " word " << k;
      ASSERT_EQ(wants, reply);
      if (reply) {
        ring.reply_value(t, 0x1234567890abcdefull ^ t, false);
        ring.advance_released();
        ASSERT_EQ(r.released(), t) << "released passed a reply nobody read";
        __atomic_store_n(r.slot(t), 0, __ATOMIC_RELEASE);  // the waiter read it
      }
      ring.advance_released();
      ASSERT_EQ(r.released(), t + 1);
    }
  }
}

// A producer thread and the ring reader racing: every entry taken equals what was written,
// word for word, over many laps of rings of 8 to 4096 entries.
TEST(ProxyRing, ConcurrentProducerNeverShowsATornEntry) {
  for (unsigned log2n : {3u, 6u, 12u}) {
    TestRing r(log2n);
    Ring ring(r.region());
    const uint64_t total = std::max<uint64_t>(3000, 2 * r.entries() + 7);
    std::thread producer([&] {
      Producer p(r, 100 + log2n);
      for (uint64_t t = 0; t < total; ++t) ASSERT_EQ(p.post(entry_of(log2n, t)), t);
    });
    uint64_t misses = 0;
    for (uint64_t t = 0; t < total;) {
      uint64_t got[8], want[8];
      bool wants = false;
      if (!ring.take(got, &wants)) {
        ++misses;
        std::this_thread::yield();
        continue;
      }
      encode_entry(entry_of(log2n, t), gshmemi_proxy_parity(t, log2n), want);
      for (int k = 0; k < 8; ++k) ASSERT_EQ(got[k], want[k]) << "ticket " << t << " word " << k;
      ring.advance_released();
      ++t;
    }
    producer.join();
    EXPECT_EQ(r.released(), total);
    RecordProperty("misses_" + std::to_string(log2n), std::to_string(misses));
  }
}

// A ring of 8 and an outstanding limit of 4 against a target whose applies are stalled: the
// engine parses exactly 4, the producers block on `released`; once the target runs again every
// one of 400 puts (50 laps) lands, each byte checked at the target.
TEST(ProxyRing, BackPressureStopsParsingAndWrapAroundKeepsEveryEntry) {
  Cluster c(2, 3, 400 * 16, LoopbackOptions{5, 3000, true}, true, /*max_outstanding=*/4);
  c.nodes[1].stager->set_stalled(true);
  constexpr int kPuts = 400;
  TestRing& r = *c.nodes[0].ring;
  std::thread producer([&] {
    Producer p(r, 9);
    for (uint64_t i = 0; i < kPuts; ++i) {
      uint8_t data[16];
      for (unsigned b = 0; b < 16; ++b) data[b] = pattern(1, i, b);
      p.post(inline_put(1, i * 16, data, 16));
    }
  });
  ASSERT_TRUE(c.pump_until([&] { return c.nodes[0].engine->parsed() == 4; }));
  for (int i = 0; i < 2000; ++i) c.pump();
  EXPECT_EQ(c.nodes[0].engine->parsed(), 4u) << "parsed past the outstanding limit";
  EXPECT_EQ(r.completed(), 0u);
  EXPECT_LE(r.issued.load(), r.released() + r.entries() + 1) << "a producer wrote into an unreleased slot";
  c.nodes[1].stager->set_stalled(false);
  uint64_t max_outstanding = 0;
  ASSERT_TRUE(c.pump_until([&] {
    const Engine& e = *c.nodes[0].engine;
    max_outstanding = std::max(max_outstanding, e.parsed() - e.completed());
    return r.completed() == kPuts;
  }));
  producer.join();
  EXPECT_LE(max_outstanding, 4u);
  EXPECT_EQ(r.released(), uint64_t{kPuts});
  for (uint64_t i = 0; i < kPuts; ++i)
    for (unsigned b = 0; b < 16; ++b)
      ASSERT_EQ(c.nodes[1].bytes()[i * 16 + b], pattern(1, i, b)) << "put " << i << " byte " << b;
  EXPECT_TRUE(c.nodes[0].engine->failures().empty());
}

// Producers whose fetch-adds and gets wait on replies in a ring of 8 while others stream puts:
// no reply is overwritten before its reader cleared word 0, every fetched value is a distinct
// step of the counter, and every get brings back the target's pattern.
TEST(ProxyRing, RepliesAreNeverOverwrittenUnread) {
  constexpr uint64_t kCounter = 0, kGetBase = 64, kGetBytes = 96, kPutBase = 4096;
  Cluster c(2, 3, 16384, LoopbackOptions{21, 4000, true}, true);
  for (uint64_t i = 0; i < 1024; ++i) c.nodes[1].bytes()[kGetBase + i] = pattern(2, 0, i);
  TestRing& r = *c.nodes[0].ring;
  constexpr int kThreads = 3, kPerThread = 60;
  std::vector<std::vector<uint64_t>> fetched(kThreads);
  std::atomic<int> bad_slot{0}, bad_get{0}, errors{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th)
    threads.emplace_back([&, th] {
      Producer p(r, 1000 + th);
      std::vector<uint8_t> dst(kGetBytes);
      for (int i = 0; i < kPerThread; ++i) {
        bool err = false, held = false;
        if (th == 2) {  // a put stream that keeps the ring turning
          uint8_t data[16];
          for (unsigned b = 0; b < 16; ++b) data[b] = pattern(3, i, b);
          p.post(inline_put(1, kPutBase + 16 * i, data, 16));
          continue;
        }
        if (i % 2 == 0) {
          const uint64_t t = p.post(amo(1, GSHMEMI_PROXY_OP_AMO_ADD, kCounter, 1, true));
          fetched[th].push_back(p.wait_reply(t, true, &err, &held));
        } else {
          const uint64_t off = (7 * i + 13 * th) % (1024 - kGetBytes);
          ProxyOp g = ref_put(1, kGetBase + off, dst.data(), kGetBytes, false);
          g.op = GSHMEMI_PROXY_OP_GET;
          const uint64_t t = p.post(g);
          p.wait_reply(t, false, &err, &held);
          for (uint64_t b = 0; b < kGetBytes; ++b) bad_get += dst[b] != pattern(2, 0, off + b);
        }
        bad_slot += !held;
        errors += err;
      }
    });
  const uint64_t total = 2 * kPerThread + kPerThread;
  ASSERT_TRUE(c.pump_until([&] { return r.issued.load() == total && r.completed() == total; }));
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad_slot.load(), 0) << "released passed a reply before its waiter cleared word 0";
  EXPECT_EQ(bad_get.load(), 0);
  EXPECT_EQ(errors.load(), 0);
  std::vector<uint64_t> all;
  for (auto& f : fetched) all.insert(all.end(), f.begin(), f.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), 2u * (kPerThread / 2));
  for (uint64_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], i) << "fetch-add values must be 0..n-1, each once";
  EXPECT_EQ(c.nodes[1].heap[kCounter / 8], all.size());
  for (int i = 0; i < kPerThread; ++i)
    for (unsigned b = 0; b < 16; ++b) ASSERT_EQ(c.nodes[1].bytes()[kPutBase + 16 * i + b], pattern(3, i, b));
}

}  // namespace

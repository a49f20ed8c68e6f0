// SPDX-License-Identifier: BSD-3-Clause
// Ordering across the proxy engine (docs/internode.md sections 4 and 6) with engines joined by
// a loopback transport that delays and shuffles every message and stagers that complete late:
// each source's operations are applied at a target in sequence order with no gap; a signal is
// never applied before the data issued before it; `completed` never passes an operation whose
// data is not in the target's heap; the host queue keeps call order and its own count.
#include <gtest/gtest.h>

#include <poll.h>

#include <map>
#include <mutex>

#include "proxy_test_util.h"

namespace {

using namespace proxy_test;

// Four PEs, each with a producer writing puts (inline and by-reference, 1..512 B) to random
// targets into slots other sources never touch, overwriting its own slots many times: the
// target applies each source's ops with sequence numbers 0, 1, 2, ... in that order, and at the
// end each slot holds the source's last write to it, every byte.
TEST(ProxyOrder, EachSourceIsAppliedInSequenceOrderDespiteReordering) {
  constexpr int kPes = 4, kOps = 300, kSlots = 6;
  constexpr uint64_t kSlotBytes = 512;
  Cluster c(kPes, 4, kPes * kSlots * kSlotBytes, LoopbackOptions{33, 8000, true}, true);
  std::vector<std::vector<int64_t>> last_seq(kPes, std::vector<int64_t>(kPes, -1));  // [target][src]
  int gaps = 0;
  for (int q = 0; q < kPes; ++q)
    c.nodes[q].stager->set_observer([&, q](const MemcpyStager::Change& ch) {
      if (ch.kind != MemcpyStager::Change::kData) return;
      gaps += static_cast<int64_t>(ch.seq) != last_seq[q][ch.src] + 1;
      last_seq[q][ch.src] = static_cast<int64_t>(ch.seq);
    });
  // expect[src][target][slot]: the bytes of the source's last write (program order).
  std::vector<std::vector<std::vector<std::vector<uint8_t>>>> expect(
      kPes, std::vector<std::vector<std::vector<uint8_t>>>(kPes, std::vector<std::vector<uint8_t>>(kSlots)));
  std::vector<std::thread> producers;
  std::vector<std::vector<std::vector<uint8_t>>> sources(kPes);  // by-reference payloads stay alive
  for (int s = 0; s < kPes; ++s)
    producers.emplace_back([&, s] {
      Producer p(*c.nodes[s].ring, 500 + s);
      for (int i = 0; i < kOps; ++i) {
        const int q = static_cast<int>(p.rng()() % kPes);
        const int slot = static_cast<int>(p.rng()() % kSlots);
        const uint64_t n = (i % 3 == 0) ? 1 + p.rng()() % 16 : 17 + p.rng()() % (kSlotBytes - 16);
        std::vector<uint8_t> data(kSlotBytes);
        if (!expect[s][q][slot].empty()) data = expect[s][q][slot];
        for (uint64_t b = 0; b < n; ++b) data[b] = pattern(s, i, b);
        expect[s][q][slot] = data;
        const uint64_t off = (static_cast<uint64_t>(s) * kSlots + slot) * kSlotBytes;
        if (n <= 16) {
          p.post(inline_put(q, off, data.data(), static_cast<unsigned>(n)));
        } else {
          sources[s].push_back(data);
          p.post(ref_put(q, off, sources[s].back().data(), n));
        }
      }
    });
  // The payload vectors grow while the engine reads older ones: reserve so none moves.
  for (auto& v : sources) v.reserve(kOps);
  ASSERT_TRUE(c.pump_until([&] {
    for (auto& nd : c.nodes)
      if (nd.ring->issued.load() != kOps || nd.ring->completed() != kOps) return false;
    return true;
  }));
  for (auto& t : producers) t.join();
  EXPECT_EQ(gaps, 0) << "a source's ops were applied out of sequence order";
  for (int s = 0; s < kPes; ++s)
    for (int q = 0; q < kPes; ++q)
      for (int slot = 0; slot < kSlots; ++slot) {
        if (expect[s][q][slot].empty()) continue;
        const uint8_t* at = c.nodes[q].bytes() + (static_cast<uint64_t>(s) * kSlots + slot) * kSlotBytes;
        for (uint64_t b = 0; b < kSlotBytes; ++b)
          ASSERT_EQ(at[b], expect[s][q][slot][b])
              << "src " << s << " target " << q << " slot " << slot << " byte " << b;
      }
  for (auto& nd : c.nodes) EXPECT_TRUE(nd.engine->failures().empty());
}

// Two sources each put 256 B blocks to PE 1 followed by a signal-only ADD, and 8 B put_signals
// with SET: whenever PE 1's stager changes a signal word, every block the signal's value says is
// there is there, byte for byte.
TEST(ProxyOrder, NoSignalIsAppliedBeforeItsData) {
  constexpr int kBlocks = 120;
  constexpr uint64_t kBlock = 256, kSigBase = 0, kSetBase = 64, kInlineBase = 128, kDataBase = 4096;
  Cluster c(3, 4, kDataBase + 2 * kBlocks * kBlock, LoopbackOptions{44, 6000, true}, true);
  const int srcs[2] = {0, 2};
  uint8_t* heap = c.nodes[1].bytes();
  int checked = 0, bad = 0;
  c.nodes[1].stager->set_observer([&](const MemcpyStager::Change& ch) {
    if (ch.kind != MemcpyStager::Change::kSignal) return;
    const int k = ch.src == 0 ? 0 : 1;
    const uint64_t v = *reinterpret_cast<const uint64_t*>(heap + ch.offset);
    uint64_t blocks = v;  // ADD counter: v blocks are complete
    if (ch.offset == kSetBase + 8 * k) {
      blocks = v;  // SET i + 1 after block i and its inline 8 B
      for (uint64_t b = 0; b < 8; ++b) bad += heap[kInlineBase + 8 * k + b] != pattern(7, k, v - 1 + b);
    }
    for (uint64_t i = 0; i < blocks; ++i)
      for (uint64_t b = 0; b < kBlock; ++b) bad += heap[kDataBase + (k * kBlocks + i) * kBlock + b] != pattern(k, i, b);
    ++checked;
  });
  std::vector<std::vector<uint8_t>> payload(2 * kBlocks, std::vector<uint8_t>(kBlock));
  std::vector<std::thread> producers;
  for (int k = 0; k < 2; ++k)
    producers.emplace_back([&, k] {
      Producer p(*c.nodes[srcs[k]].ring, 70 + k);
      for (int i = 0; i < kBlocks; ++i) {
        auto& d = payload[k * kBlocks + i];
        for (uint64_t b = 0; b < kBlock; ++b) d[b] = pattern(k, i, b);
        p.post(ref_put(1, kDataBase + (k * kBlocks + i) * kBlock, d.data(), kBlock));
        p.post(signal_op(1, kSigBase + 8 * k, 1, true));
        uint8_t small[8];
        for (uint64_t b = 0; b < 8; ++b) small[b] = pattern(7, k, i + b);
        ProxyOp ps = inline_put(1, kInlineBase + 8 * k, small, 8);
        ps.flags = GSHMEMI_PROXY_F_HAS_SIGNAL;
        ps.sig_offset = kSetBase + 8 * k;
        ps.sig_value = i + 1;
        p.post(ps);
      }
    });
  ASSERT_TRUE(c.pump_until(
      [&] { return c.nodes[0].ring->completed() == 3 * kBlocks && c.nodes[2].ring->completed() == 3 * kBlocks; }));
  for (auto& t : producers) t.join();
  EXPECT_EQ(bad, 0) << "a signal was applied before its data";
  EXPECT_EQ(checked, 4 * kBlocks);
  EXPECT_EQ(c.nodes[1].heap[0], uint64_t{kBlocks});
  EXPECT_EQ(c.nodes[1].heap[1], uint64_t{kBlocks});
}

// PE 0 puts a distinct 8-byte value per ticket into PEs 1 and 2 (applies lagging, messages
// shuffled): after every round, each ticket below PE 0's published `completed` has its value in
// its target's heap.
TEST(ProxyOrder, CompletedNeverPassesAnUnappliedOperation) {
  constexpr uint64_t kOps = 1500;
  Cluster c(3, 5, kOps * 8, LoopbackOptions{55, 10000, true}, true);
  std::vector<int> target_of(kOps);
  std::thread producer([&] {
    Producer p(*c.nodes[0].ring, 5);
    for (uint64_t i = 0; i < kOps; ++i) {
      uint8_t v[8];
      for (int b = 0; b < 8; ++b) v[b] = pattern(9, i, b);
      target_of[i] = 1 + static_cast<int>(p.rng()() % 2);  // written before the entry: the parse acquires it
      ASSERT_EQ(p.post(inline_put(target_of[i], i * 8, v, 8)), i);
    }
  });
  uint64_t seen = 0;
  int bad = 0;
  while (seen < kOps) {
    c.pump();
    const uint64_t done = c.nodes[0].ring->completed();
    ASSERT_LE(done, c.nodes[0].engine->parsed());
    for (; seen < done; ++seen)
      for (int b = 0; b < 8; ++b) bad += c.nodes[target_of[seen]].bytes()[seen * 8 + b] != pattern(9, seen, b);
  }
  producer.join();
  EXPECT_EQ(bad, 0) << "completed passed an operation not yet applied";
}

// A team sync's signal (GSHMEMI_PROXY_F_UNTRACKED) is complete once sent: `completed` passes it
// while the message is still on its way (so a barrier's quiet does not wait a round trip for the
// previous barrier's signals), yet the target applies it in its place in the pair's sequence.
TEST(ProxyOrder, AnUntrackedSignalCompletesWhenSentAndKeepsItsPlace) {
  Cluster c(2, 5, 64, LoopbackOptions{7, 200000, false}, false);  // every message 0..200 us late
  Producer p(*c.nodes[0].ring, 3);
  ProxyOp sync = signal_op(1, 0, 1, true);
  sync.flags |= GSHMEMI_PROXY_F_UNTRACKED;
  ASSERT_EQ(p.post(sync), 0u);
  ASSERT_EQ(p.post(sync), 1u);
  c.pump();
  EXPECT_EQ(c.nodes[0].ring->completed(), 2u) << "an untracked signal waited for its acknowledgement";
  const uint8_t v[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
  ASSERT_EQ(p.post(inline_put(1, 8, v, 8)), 2u);
  ProxyOp user = signal_op(1, 16, 5, true);  // signal_op's own signal: tracked
  ASSERT_EQ(p.post(user), 3u);
  c.pump();
  EXPECT_EQ(c.nodes[0].ring->completed(), 2u) << "completed passed a put before its acknowledgement";
  ASSERT_TRUE(c.pump_until([&] { return c.nodes[0].ring->completed() == 4; }));
  // Complete means applied for the tracked ones; the untracked signals, earlier in the sequence,
  // were applied before them.
  EXPECT_EQ(c.nodes[1].heap[0], 2u);
  EXPECT_EQ(std::memcmp(c.nodes[1].bytes() + 8, v, 8), 0);
  EXPECT_EQ(c.nodes[1].heap[2], 5u);
}

// Host calls through the host queue, from two threads, mixed with ring traffic: the eventfd
// wakes, each thread's puts land in call order (the last one to a slot wins), fetches return
// distinct counter values, and the host count reaches every id.
TEST(ProxyOrder, HostQueueKeepsCallOrderAndItsOwnCompletionCount) {
  constexpr int kOps = 200;
  Cluster c(2, 3, 8192, LoopbackOptions{66, 5000, true}, true);
  HostQueue& hq = *c.nodes[0].host;
  std::vector<std::vector<uint64_t>> fetched(2, std::vector<uint64_t>(kOps / 4, ~uint64_t{0}));
  std::atomic<int> failed{0};
  // Before any engine pass: a push makes the eventfd readable, the engine's pop drains it.
  pollfd pfd{hq.event_fd(), POLLIN, 0};
  EXPECT_EQ(poll(&pfd, 1, 0), 0);
  uint8_t first[8] = {9, 8, 7, 6, 5, 4, 3, 2};
  HostOp h0;
  h0.op = inline_put(1, 8, first, 8);
  EXPECT_EQ(hq.push(h0), 0u);
  EXPECT_EQ(poll(&pfd, 1, 0), 1) << "the eventfd did not wake";
  c.pump();
  EXPECT_EQ(poll(&pfd, 1, 0), 0) << "the engine took the op but left the eventfd readable";
  std::vector<std::thread> callers;
  for (int th = 0; th < 2; ++th)
    callers.emplace_back([&, th] {
      for (int i = 0; i < kOps; ++i) {
        HostOp h;
        h.failed = &failed;
        if (i % 4 == 3) {
          h.op = amo(1, GSHMEMI_PROXY_OP_AMO_ADD, 0, 1, true);
          h.result = &fetched[th][i / 4];
        } else {
          uint8_t v[16];
          for (int b = 0; b < 16; ++b) v[b] = pattern(th, i, b);
          h.op = inline_put(1, 64 + 16 * (8 * th + i % 8), v, 16);  // 8 slots per thread, rewritten
        }
        hq.push(h);
      }
      hq.wait_all();
    });
  std::thread ring_producer([&] {
    Producer p(*c.nodes[0].ring, 8);
    for (int i = 0; i < kOps; ++i) {
      uint8_t v[16];
      for (int b = 0; b < 16; ++b) v[b] = pattern(5, i, b);
      p.post(inline_put(1, 4096 + 16 * i, v, 16));
    }
  });
  ASSERT_TRUE(c.pump_until(
      [&] { return hq.completed() == 2 * kOps + 1 && c.nodes[0].ring->completed() == static_cast<uint64_t>(kOps); }));
  for (auto& t : callers) t.join();
  ring_producer.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(c.nodes[0].engine->host_completed(), 2u * kOps + 1);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(c.nodes[1].bytes()[8 + b], first[b]);
  std::vector<uint64_t> all;
  for (auto& f : fetched) all.insert(all.end(), f.begin(), f.end());
  std::sort(all.begin(), all.end());
  for (uint64_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], i);
  for (int th = 0; th < 2; ++th)
    for (int slot = 0; slot < 8; ++slot) {
      int last = -1;  // the thread's last put to this slot, in call order
      for (int i = 0; i < kOps; ++i)
        if (i % 4 != 3 && i % 8 == slot) last = i;
      for (int b = 0; b < 16; ++b)  // slots 3 and 7 only ever see fetches: still zero
        ASSERT_EQ(c.nodes[1].bytes()[64 + 16 * (8 * th + slot) + b], last < 0 ? 0 : pattern(th, last, b))
            << "thread " << th << " slot " << slot;
    }
  for (int i = 0; i < kOps; ++i)
    for (int b = 0; b < 16; ++b) ASSERT_EQ(c.nodes[1].bytes()[4096 + 16 * i + b], pattern(5, i, b));
}

}  // namespace

// SPDX-License-Identifier: BSD-3-Clause
// The device's table of live allocations (gshmem/detail/live_table.h, host/mem/live_set.h): the
// set the host keeps (sorted, overlaps refused, erase), fed by the allocator's listener through
// allocations, frees, coalescing and growth; and the search the device debug checks run on its
// image, over a seeded corpus of bad and good ranges.
#include "host/mem/live_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "host/mem/allocator.h"

using gshmem::mem::Allocator;
using gshmem::mem::LiveSet;

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

// The device's view: the table image as the host copies it, searched by the shared function.
struct Table {
  std::vector<uint64_t> words;
  explicit Table(const LiveSet& s) { s.image(&words); }
  const gshmemi_live_table* get() const { return reinterpret_cast<const gshmemi_live_table*>(words.data()); }
  int classify(uint64_t off, uint64_t bytes, uint64_t* at = nullptr) const {
    uint64_t i = 0;
    const int k = gshmemi_live_classify(get(), off, bytes, &i);
    if (at) *at = i;
    return k;
  }
};

void expect_sorted_disjoint(const LiveSet& s) {
  const auto& r = s.ranges();
  for (size_t i = 1; i < r.size(); ++i) EXPECT_LE(r[i - 1].offset + r[i - 1].bytes, r[i].offset) << "at " << i;
}

TEST(LiveSet, KeepsRangesSortedAndRefusesOverlaps) {
  LiveSet s;
  EXPECT_TRUE(s.insert(4096, 100));
  EXPECT_TRUE(s.insert(0, 10));
  EXPECT_TRUE(s.insert(1024, 3072));      // ends exactly where the next starts
  EXPECT_TRUE(s.insert(10, 1));           // starts exactly where the previous ends
  EXPECT_FALSE(s.insert(4000, 200));      // runs into 4096
  EXPECT_FALSE(s.insert(4195, 1));        // inside 4096's 100 bytes
  EXPECT_FALSE(s.insert(5000, 0));        // empty
  EXPECT_FALSE(s.insert(~0ull - 4, 10));  // wraps
  ASSERT_EQ(4u, s.size());
  expect_sorted_disjoint(s);
  EXPECT_EQ(0u, s.ranges()[0].offset);
  EXPECT_EQ(4096u, s.ranges()[3].offset);
  uint64_t bytes = 0;
  EXPECT_FALSE(s.erase(1025));  // not a start
  EXPECT_TRUE(s.erase(1024, &bytes));
  EXPECT_EQ(3072u, bytes);
  EXPECT_FALSE(s.erase(1024));  // twice
  ASSERT_EQ(3u, s.size());
  std::vector<uint64_t> w;
  s.image(&w);
  ASSERT_EQ(2u + 2 * 3, w.size());
  EXPECT_EQ(3u, w[0]);
  EXPECT_EQ(0u, w[1]);
  EXPECT_EQ(4096u, w[6]);
  EXPECT_EQ(100u, w[7]);
}

TEST(LiveSet, SearchEdges) {
  LiveSet s;
  Table empty(s);
  uint64_t at = 7;
  EXPECT_EQ(GSHMEMI_LIVE_UNCOVERED, empty.classify(0, 1, &at));
  EXPECT_EQ(0u, at);  // count: none
  EXPECT_EQ(GSHMEMI_LIVE_OK, empty.classify(123, 0));
  ASSERT_TRUE(s.insert(256, 64));
  ASSERT_TRUE(s.insert(320, 16));  // adjacent: a range crossing from one into the other is bad
  ASSERT_TRUE(s.insert(1024, 8));
  Table t(s);
  EXPECT_EQ(GSHMEMI_LIVE_UNCOVERED, t.classify(255, 1, &at));
  EXPECT_EQ(3u, at);
  EXPECT_EQ(GSHMEMI_LIVE_OK, t.classify(256, 64, &at));
  EXPECT_EQ(0u, at);
  EXPECT_EQ(GSHMEMI_LIVE_OK, t.classify(319, 1));
  EXPECT_EQ(GSHMEMI_LIVE_PAST_END, t.classify(319, 2, &at));
  EXPECT_EQ(0u, at);
  EXPECT_EQ(GSHMEMI_LIVE_OK, t.classify(320, 16, &at));
  EXPECT_EQ(1u, at);
  EXPECT_EQ(GSHMEMI_LIVE_UNCOVERED, t.classify(336, 1, &at));
  EXPECT_EQ(1u, at);  // the nearest below, for the report
  EXPECT_EQ(GSHMEMI_LIVE_OK, t.classify(1031, 1));
  EXPECT_EQ(GSHMEMI_LIVE_PAST_END, t.classify(1024, ~0ull));
  EXPECT_EQ(GSHMEMI_LIVE_UNCOVERED, t.classify(~0ull, 1, &at));
  EXPECT_EQ(2u, at);
}

// The allocator's listener keeps the set equal to its live blocks through allocations (with
// alignment), frees that coalesce neighbours, growth, and reuse of freed ranges.
TEST(LiveSet, FollowsTheAllocatorThroughFreeCoalescingAndGrowth) {
  Allocator a(1 * MiB);
  LiveSet s;
  int calls = 0;
  a.set_listener([&](bool live, uint64_t off, uint64_t bytes) {
    ++calls;
    EXPECT_TRUE(live ? s.insert(off, bytes) : s.erase(off)) << (live ? "insert " : "erase ") << off;
  });
  std::mt19937_64 rng(6);
  std::map<uint64_t, uint64_t> model;  // offset -> requested bytes
  auto check = [&] {
    ASSERT_EQ(model.size(), s.size());
    size_t i = 0;
    for (const auto& [off, bytes] : model) {
      EXPECT_EQ(off, s.ranges()[i].offset);
      EXPECT_EQ(bytes, s.ranges()[i].bytes);
      ++i;
    }
  };
  for (int step = 0; step < 3000; ++step) {
    if (model.empty() || rng() % 3 != 0) {
      const uint64_t size = 1 + rng() % (16 * KiB), align = uint64_t{1} << (rng() % 13);
      uint64_t off = 0;
      if (!a.allocate(size, align, &off)) {
        a.grow(a.capacity() + 1 * MiB);  // growth: the new room joins the free list, nothing live changes
        check();
        ASSERT_TRUE(a.allocate(size, align, &off));
      }
      model[off] = size;
    } else {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % model.size()));
      ASSERT_TRUE(a.free(it->first));
      model.erase(it);
    }
    if (step % 97 == 0) check();
  }
  check();
  expect_sorted_disjoint(s);
  // Two neighbours freed (their ranges coalesce in the allocator): both leave the table, and a
  // range over the seam is uncovered.
  uint64_t p = 0, q = 0;
  Allocator b(64 * KiB);
  LiveSet t;
  b.set_listener([&](bool live, uint64_t off, uint64_t bytes) { live ? t.insert(off, bytes) : t.erase(off); });
  ASSERT_TRUE(b.allocate(512, 0, &p));
  ASSERT_TRUE(b.allocate(512, 0, &q));
  ASSERT_EQ(p + 512, q);
  EXPECT_EQ(GSHMEMI_LIVE_PAST_END, Table(t).classify(p + 500, 24));  // across the seam of two live blocks
  ASSERT_TRUE(b.free(p));
  ASSERT_TRUE(b.free(q));
  EXPECT_EQ(0u, t.size());
  EXPECT_EQ(GSHMEMI_LIVE_UNCOVERED, Table(t).classify(p + 500, 24));
  // A 0-byte request is a unique offset, not a live range (nothing may be touched there).
  uint64_t z = 0;
  const int before = calls;
  ASSERT_TRUE(a.allocate(0, 0, &z));
  EXPECT_EQ(before, calls);
}

// The device checks' corpus (issue 56, item 6): a seeded heap of live and freed blocks, >= 1,000
// bad ranges per class - inside a freed block, past the end of a live block, in its alignment
// padding, in memory never allocated - each caught by the device's search, and a matching good
// corpus (whole blocks, last bytes, random ranges inside) never. The search must also agree with
// the host's check (Allocator::classify) on random ranges. Prints the counts and the cost.
TEST(LiveSet, DeviceSearchCatchesEveryBadRangeAndNoGoodOne) {
  const uint64_t seed = 561;
  std::mt19937_64 rng(seed);
  Allocator a(256 * MiB);
  LiveSet s;
  a.set_listener([&](bool live, uint64_t off, uint64_t bytes) { live ? s.insert(off, bytes) : s.erase(off); });
  struct Block {
    uint64_t off, size;
  };
  std::vector<Block> all, live, freed;
  for (int i = 0; i < 600; ++i) {
    const uint64_t size = 1 + rng() % (64 * KiB), align = uint64_t{1} << (rng() % 14);
    uint64_t off = 0;
    ASSERT_TRUE(a.allocate(size, align, &off));
    all.push_back({off, size});
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (i % 3 == 0) {
      ASSERT_TRUE(a.free(all[i].off));
      freed.push_back(all[i]);
    } else {
      live.push_back(all[i]);
    }
  }
  uint64_t top = 0;
  for (const Block& b : all) top = std::max(top, b.off + b.size);
  top = (top + 255) / 256 * 256;
  const Table t(s);
  ASSERT_EQ(live.size(), t.get()->count);

  const int kPerClass = 1000;
  int caught[4] = {0, 0, 0, 0}, wrong_good = 0, padding_cases = 0, disagree = 0;
  for (int i = 0; i < kPerClass; ++i) {
    const Block& f = freed[rng() % freed.size()];
    const uint64_t fin = rng() % f.size;
    if (t.classify(f.off + fin, 1 + rng() % (f.size - fin + 64)) == GSHMEMI_LIVE_UNCOVERED) ++caught[0];
    const Block& l = live[rng() % live.size()];
    const uint64_t lin = rng() % l.size;
    uint64_t at = 0;
    if (t.classify(l.off + lin, l.size - lin + 1 + rng() % 4096, &at) == GSHMEMI_LIVE_PAST_END &&
        gshmemi_live_ranges(t.get())[at].offset == l.off)
      ++caught[1];
    // padding: a range starting between a live block's end and the next 256-byte boundary (the
    // allocator's granule); a block without padding: its last byte and the one after it
    const Block& p = live[rng() % live.size()];
    const uint64_t pad = (p.size + 255) / 256 * 256 - p.size;
    padding_cases += pad != 0;
    const int k =
        pad ? t.classify(p.off + p.size + rng() % pad, 1 + rng() % 64) : t.classify(p.off + p.size - 1, 2 + rng() % 64);
    if (k == (pad ? GSHMEMI_LIVE_UNCOVERED : GSHMEMI_LIVE_PAST_END)) ++caught[2];
    const uint64_t never = top + rng() % (a.capacity() - top);
    if (t.classify(never, 1 + rng() % 4096) == GSHMEMI_LIVE_UNCOVERED) ++caught[3];
    const Block& g = live[rng() % live.size()];
    uint64_t gin = rng() % g.size, gbytes = 1 + rng() % (g.size - gin);
    if (i % 10 == 0) gin = 0, gbytes = g.size;
    if (i % 10 == 1) gin = g.size - 1, gbytes = 1;
    if (t.classify(g.off + gin, gbytes) != GSHMEMI_LIVE_OK) ++wrong_good;
    // Agreement with the host's check on a random range anywhere in the used part.
    const uint64_t r_off = rng() % top, r_bytes = 1 + rng() % (8 * KiB);
    uint64_t start = 0, requested = 0;
    const Allocator::Span host = a.classify(r_off, r_bytes, &start, &requested);
    const int dev = t.classify(r_off, r_bytes);
    const bool same = host == Allocator::Span::kLive   ? dev == GSHMEMI_LIVE_OK
                      : host == Allocator::Span::kFree ? dev == GSHMEMI_LIVE_UNCOVERED
                                                       : dev != GSHMEMI_LIVE_OK;  // kPastEnd: from padding too
    disagree += !same;
  }
  printf(
      "device search (seed %llu, %zu live, %zu freed): caught %d/%d freed, %d/%d past the end, %d/%d in padding "
      "(%d with padding), %d/%d never allocated; %d/%d good ranges refused; %d/%d disagreements with the host\n",
      static_cast<unsigned long long>(seed), live.size(), freed.size(), caught[0], kPerClass, caught[1], kPerClass,
      caught[2], kPerClass, padding_cases, caught[3], kPerClass, wrong_good, kPerClass, disagree, kPerClass);
  // What the search costs a device call in a debug build is its log2(n) + 1 loads; on the host:
  const int kTimed = 200000;
  uint64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kTimed; ++i) {
    const Block& g = live[static_cast<size_t>(i) % live.size()];
    sink += static_cast<uint64_t>(t.classify(g.off + static_cast<uint64_t>(i) % g.size, 1));
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kTimed;
  printf("device search on the host: %.1f ns a call over %zu ranges (%llu)\n", ns, live.size(),
         static_cast<unsigned long long>(sink % 2));
  for (int k = 0; k < 4; ++k) EXPECT_EQ(kPerClass, caught[k]) << "class " << k;
  EXPECT_GT(padding_cases, kPerClass / 2);
  EXPECT_EQ(0, wrong_good);
  EXPECT_EQ(0, disagree);
}

}  // namespace

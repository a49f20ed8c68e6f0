// SPDX-License-Identifier: BSD-3-Clause
// Symmetric-heap allocator: alignment, best fit, coalescing, growth, determinism.
#include "host/mem/allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

using gshmem::mem::Allocator;

namespace {

constexpr uint64_t kMin = Allocator::kMinAlign;
constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t alloc_or_die(Allocator& a, uint64_t size, uint64_t align = 0) {
  uint64_t off = ~0ull;
  EXPECT_TRUE(a.allocate(size, align, &off)) << "size " << size << " align " << align;
  return off;
}

// Everything observable about an allocator, to check "nothing changed".
struct Snapshot {
  uint64_t capacity, free_bytes, largest_free;
  size_t live;
  bool operator==(const Snapshot& o) const {
    return capacity == o.capacity && free_bytes == o.free_bytes && largest_free == o.largest_free && live == o.live;
  }
};
Snapshot snap(const Allocator& a) { return {a.capacity(), a.free_bytes(), a.largest_free(), a.live_blocks()}; }

// Independent model: live blocks only. Free ranges are the gaps between them.
struct Shadow {
  struct Block {
    uint64_t requested, reserved, align;
  };
  std::map<uint64_t, Block> live;
  uint64_t capacity = 0;

  std::vector<std::pair<uint64_t, uint64_t>> gaps() const {  // (offset, length)
    std::vector<std::pair<uint64_t, uint64_t>> g;
    uint64_t pos = 0;
    for (const auto& [off, b] : live) {
      if (off > pos) g.emplace_back(pos, off - pos);
      pos = off + b.reserved;
    }
    if (capacity > pos) g.emplace_back(pos, capacity - pos);
    return g;
  }
  // Where best fit must place a block: smallest fitting gap, lowest offset on ties.
  bool expected_offset(uint64_t reserved, uint64_t align, uint64_t* at) const {
    bool found = false;
    uint64_t best_len = 0;
    for (const auto& [off, len] : gaps()) {
      uint64_t a = round_up(off, align);
      if (a - off > len || len - (a - off) < reserved) continue;
      if (!found || len < best_len) {
        found = true;
        best_len = len;
        *at = a;
      }
    }
    return found;
  }
};

void check_against_shadow(const Allocator& a, const Shadow& s) {
  ASSERT_EQ(a.capacity(), s.capacity);
  ASSERT_EQ(a.live_blocks(), s.live.size());
  uint64_t reserved_total = 0, prev_end = 0;
  for (const auto& [off, b] : s.live) {
    ASSERT_EQ(off % b.align, 0u) << "block " << off << " misaligned for " << b.align;
    ASSERT_EQ(off % kMin, 0u);
    ASSERT_GE(off, prev_end) << "blocks overlap at " << off;
    ASSERT_LE(off + b.reserved, s.capacity) << "block " << off << " outside capacity";
    ASSERT_GE(b.reserved, std::max<uint64_t>(b.requested, 1));
    uint64_t req = 0, res = 0;
    ASSERT_TRUE(a.block_size(off, &req, &res));
    ASSERT_EQ(req, b.requested);
    ASSERT_EQ(res, b.reserved);
    prev_end = off + b.reserved;
    reserved_total += b.reserved;
  }
  ASSERT_EQ(a.free_bytes() + reserved_total, s.capacity);
  uint64_t largest = 0;
  for (const auto& [off, len] : s.gaps()) largest = std::max(largest, len);
  ASSERT_EQ(a.largest_free(), largest);
}

// growth_needed(size, align) == g must mean: growing by g makes allocate
// succeed, growing by g - 1 does not.
void check_growth_exact(const Allocator& a, uint64_t size, uint64_t align) {
  uint64_t g = a.growth_needed(size, align), off;
  ASSERT_NE(g, Allocator::kNoGrowth);
  Allocator enough = a;
  enough.grow(a.capacity() + g);
  EXPECT_TRUE(enough.allocate(size, align, &off)) << "growth " << g << " too small";
  if (g > 0) {
    Allocator short_by_one = a;
    short_by_one.grow(a.capacity() + g - 1);
    EXPECT_FALSE(short_by_one.allocate(size, align, &off)) << "growth " << g << " not minimal";
  }
}

}  // namespace

TEST(Allocator, EveryAlignmentIsHonoured) {
  for (uint64_t align :
       {0ull, 1ull, 2ull, 8ull, 16ull, 128ull, 256ull, 512ull, 4096ull, 65536ull, 1ull << 20, 1ull << 21, 1ull << 30}) {
    Allocator a(8ull << 30);
    alloc_or_die(a, 1);  // so the free space no longer starts at 0
    for (uint64_t size : {0ull, 1ull, 255ull, 256ull, 257ull, 10000ull}) {
      uint64_t off = alloc_or_die(a, size, align);
      EXPECT_EQ(off % std::max(align, kMin), 0u) << "align " << align << " size " << size;
    }
  }
}

TEST(Allocator, NonPowerOfTwoAlignmentIsRejected) {
  Allocator a(1 * MiB);
  Snapshot before = snap(a);
  uint64_t off = 7;
  for (uint64_t align : {3ull, 384ull, 1000ull, (1ull << 63) + 1, ~0ull}) {
    EXPECT_FALSE(a.allocate(64, align, &off)) << align;
    EXPECT_EQ(a.growth_needed(64, align), Allocator::kNoGrowth) << align;
  }
  EXPECT_EQ(off, 7u);
  EXPECT_TRUE(snap(a) == before);
}

TEST(Allocator, PaddingBeforeAlignedBlockStaysFree) {
  Allocator a(1 * MiB);
  EXPECT_EQ(alloc_or_die(a, 100), 0u);
  EXPECT_EQ(alloc_or_die(a, 100, 64 * KiB), 64 * KiB);
  EXPECT_EQ(a.free_bytes(), 1 * MiB - 2 * kMin);
  // The padding [256, 64K) is the smallest range that fits, so best fit uses it.
  EXPECT_EQ(alloc_or_die(a, 64 * KiB - kMin), kMin);
  EXPECT_EQ(a.free_bytes(), 1 * MiB - 64 * KiB - kMin);
}

TEST(Allocator, BestFitPrefersSmallestRangeThenLowestOffset) {
  Allocator a(64 * KiB);
  uint64_t b[8];
  for (auto& x : b) x = alloc_or_die(a, 1 * KiB);  // [0, 8K)
  a.free(b[1]);                                    // hole of 1K at 1K
  a.free(b[3]);
  a.free(b[4]);                                  // hole of 2K at 3K
  a.free(b[6]);                                  // hole of 1K at 6K
  EXPECT_EQ(alloc_or_die(a, 2 * KiB), 3 * KiB);  // only the 2K hole fits exactly
  EXPECT_EQ(alloc_or_die(a, 512), 1 * KiB);      // two 1K holes tie: lowest offset
  EXPECT_EQ(alloc_or_die(a, 1 * KiB), 6 * KiB);  // smaller than the tail
  EXPECT_EQ(alloc_or_die(a, 512), 1 * KiB + 512);
}

TEST(Allocator, ReuseAfterFree) {
  Allocator a(1 * MiB);
  uint64_t x = alloc_or_die(a, 1000), y = alloc_or_die(a, 5000), z = alloc_or_die(a, 1000);
  ASSERT_TRUE(a.free(y));
  EXPECT_EQ(alloc_or_die(a, 5000), y);
  ASSERT_TRUE(a.free(x));
  ASSERT_TRUE(a.free(z));
  EXPECT_EQ(alloc_or_die(a, 1000), x);
}

TEST(Allocator, FreeingThreeAdjacentBlocksInAnyOrderCoalesces) {
  const uint64_t sz = 4 * KiB;
  std::vector<int> order = {0, 1, 2};
  do {
    Allocator a(5 * sz);
    uint64_t guard0 = alloc_or_die(a, sz);
    uint64_t blk[3] = {alloc_or_die(a, sz), alloc_or_die(a, sz), alloc_or_die(a, sz)};
    uint64_t guard1 = alloc_or_die(a, sz);
    ASSERT_EQ(a.free_bytes(), 0u);
    for (int i : order) ASSERT_TRUE(a.free(blk[i]));
    EXPECT_EQ(a.free_bytes(), 3 * sz);
    EXPECT_EQ(a.largest_free(), 3 * sz) << "order " << order[0] << order[1] << order[2];
    EXPECT_EQ(alloc_or_die(a, 3 * sz), blk[0]);  // one range again
    EXPECT_TRUE(a.free(guard0));
    EXPECT_TRUE(a.free(guard1));
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(Allocator, ExhaustionFailsAndChangesNothing) {
  Allocator a(64 * KiB);
  std::vector<uint64_t> blocks;
  uint64_t off;
  while (a.allocate(3000, 0, &off)) blocks.push_back(off);
  EXPECT_EQ(blocks.size(), 64 * KiB / round_up(3000, kMin));
  const Snapshot before = snap(a);
  off = 12345;
  for (uint64_t size : {3000ull, 1ull << 20, ~0ull, ~0ull - 100, (1ull << 63) + 1}) {
    EXPECT_FALSE(a.allocate(size, 0, &off)) << size;
    EXPECT_FALSE(a.allocate(size, 1ull << 63, &off)) << size;
  }
  EXPECT_EQ(off, 12345u);
  EXPECT_TRUE(snap(a) == before);
}

TEST(Allocator, HugeRequestsNeverWrap) {
  const uint64_t cap = ~0ull - 4096;  // nearly the whole 64-bit range, not a multiple of 256
  Allocator a(cap);
  uint64_t off = 99;
  for (uint64_t size : std::initializer_list<uint64_t>{~0ull, ~0ull - 100, cap, cap - 200}) {  // rounded up, none fits
    EXPECT_FALSE(a.allocate(size, 0, &off)) << size;
    EXPECT_FALSE(a.allocate(size, 1ull << 63, &off)) << size;
  }
  EXPECT_EQ(off, 99u);
  EXPECT_EQ(a.growth_needed(~0ull, 0), Allocator::kNoGrowth);
  EXPECT_EQ(a.growth_needed(~0ull - 100, 0), Allocator::kNoGrowth);
  EXPECT_EQ(alloc_or_die(a, cap - 255), 0u);  // the largest block that fits
  EXPECT_EQ(a.free_bytes(), 255u);

  Allocator b(1 * MiB);
  alloc_or_die(b, 1);  // free tail starts at 256
  EXPECT_FALSE(b.allocate(1, 1ull << 63, &off));
  EXPECT_EQ(b.growth_needed(1, 1ull << 63), (1ull << 63) + kMin - 1 * MiB);
  EXPECT_EQ(b.growth_needed(~0ull - 1000, 1ull << 63), Allocator::kNoGrowth);
  // Still representable: the block would end at 2^64 - 512.
  EXPECT_EQ(b.growth_needed(~0ull - 1000, 0), ~0ull - 511 - 1 * MiB);
  check_growth_exact(b, ~0ull - 1000, 0);
}

TEST(Allocator, GrowAppendsAndMergesWithTailRange) {
  Allocator a(0);
  uint64_t off;
  EXPECT_FALSE(a.allocate(0, 0, &off));
  EXPECT_EQ(a.growth_needed(1000, 0), 1024u);
  a.grow(1024);
  EXPECT_EQ(alloc_or_die(a, 1000), 0u);
  EXPECT_EQ(a.growth_needed(0, 0), kMin);

  Allocator b(4 * KiB);
  alloc_or_die(b, 1 * KiB);  // tail [1K, 4K) free
  b.grow(8 * KiB);
  EXPECT_EQ(b.capacity(), 8 * KiB);
  EXPECT_EQ(b.largest_free(), 7 * KiB);  // merged into one range
  EXPECT_EQ(alloc_or_die(b, 7 * KiB), 1 * KiB);

  const Snapshot before = snap(b);
  b.grow(4 * KiB);  // never shrinks
  b.grow(8 * KiB);
  EXPECT_TRUE(snap(b) == before);
}

TEST(Allocator, GrowthNeededIsExact) {
  Allocator a(4 * KiB);
  alloc_or_die(a, 1 * KiB);  // tail [1K, 4K) free
  EXPECT_EQ(a.growth_needed(3 * KiB, 0), 0u);
  EXPECT_EQ(a.growth_needed(4 * KiB, 0), 1 * KiB);        // uses the free tail
  EXPECT_EQ(a.growth_needed(4 * KiB, 4 * KiB), 4 * KiB);  // tail starts misaligned
  check_growth_exact(a, 4 * KiB, 0);
  check_growth_exact(a, 4 * KiB, 4 * KiB);

  Allocator full(2 * KiB);
  alloc_or_die(full, 2 * KiB);  // no free tail: growth starts at capacity
  EXPECT_EQ(full.growth_needed(100, 0), kMin);
  EXPECT_EQ(full.growth_needed(100, 4 * KiB), 2 * KiB + kMin);

  Allocator odd(1000);  // capacity not a multiple of kMinAlign
  EXPECT_EQ(odd.growth_needed(1024, 0), 24u);
  check_growth_exact(odd, 1024, 0);

  // Free space in the middle does not count as "at the end".
  Allocator mid(8 * KiB);
  uint64_t x = alloc_or_die(mid, 4 * KiB);
  alloc_or_die(mid, 4 * KiB);
  mid.free(x);
  EXPECT_EQ(mid.growth_needed(5 * KiB, 0), 5 * KiB);

  for (uint64_t size : {0ull, 1ull, 300ull, 3000ull, 70000ull})
    for (uint64_t align : {0ull, 256ull, 1024ull, 8192ull, 1ull << 20}) {
      check_growth_exact(a, size, align);
      check_growth_exact(full, size, align);
      check_growth_exact(odd, size, align);
      check_growth_exact(mid, size, align);
    }
}

TEST(Allocator, DoubleFreeAndBadOffsetsAreRejected) {
  Allocator a(1 * MiB);
  uint64_t x = alloc_or_die(a, 4 * KiB), y = alloc_or_die(a, 4 * KiB);
  const Snapshot before = snap(a);
  EXPECT_FALSE(a.free(x + 1));        // interior
  EXPECT_FALSE(a.free(x + kMin));     // interior, aligned
  EXPECT_FALSE(a.free(y + 4 * KiB));  // free space
  EXPECT_FALSE(a.free(2 * MiB));      // beyond capacity
  EXPECT_FALSE(a.free(~0ull));
  EXPECT_TRUE(snap(a) == before);
  EXPECT_TRUE(a.free(x));
  const Snapshot after = snap(a);
  EXPECT_FALSE(a.free(x));  // double free
  EXPECT_TRUE(snap(a) == after);
  uint64_t r;
  EXPECT_FALSE(a.block_size(x, &r, &r));
}

TEST(Allocator, FindBlockForInteriorOffsets) {
  Allocator a(1 * MiB);
  uint64_t x = alloc_or_die(a, 1000), y = alloc_or_die(a, 5000, 4096);
  uint64_t start = 0, reserved = 0;
  for (uint64_t o : {x, x + 1, x + 999, x + 1023}) {
    ASSERT_TRUE(a.find_block(o, &start, &reserved)) << o;
    EXPECT_EQ(start, x);
    EXPECT_EQ(reserved, 1024u);
  }
  EXPECT_FALSE(a.find_block(x + 1024, &start, &reserved));  // padding before y
  EXPECT_FALSE(a.find_block(y - 1, &start, &reserved));
  ASSERT_TRUE(a.find_block(y + 4999, &start, &reserved));
  EXPECT_EQ(start, y);
  EXPECT_EQ(reserved, round_up(5000, kMin));
  EXPECT_FALSE(a.find_block(y + reserved, &start, &reserved));
  EXPECT_FALSE(a.find_block(~0ull, &start, &reserved));
  a.free(x);
  EXPECT_FALSE(a.find_block(x + 1, &start, &reserved));
}

TEST(Allocator, SizeZeroGetsAMinimalUniqueBlock) {
  Allocator a(1 * MiB);
  uint64_t x = alloc_or_die(a, 0), y = alloc_or_die(a, 0);
  EXPECT_NE(x, y);
  uint64_t req = 1, res = 0;
  ASSERT_TRUE(a.block_size(x, &req, &res));
  EXPECT_EQ(req, 0u);
  EXPECT_EQ(res, kMin);
  EXPECT_EQ(a.free_bytes(), 1 * MiB - 2 * kMin);
  ASSERT_TRUE(a.block_size(alloc_or_die(a, 1000), &req, &res));
  EXPECT_EQ(req, 1000u);
  EXPECT_EQ(res, 1024u);
}

// Random alloc/free/grow, each result checked against the shadow model.
TEST(Allocator, RandomisedAgainstShadowModel) {
  std::mt19937_64 rng(20240611);
  const uint64_t aligns[] = {0, 1, 64, 256, 512, 4096, 65536, 1 << 20};
  Allocator a(16 * MiB);
  Shadow s;
  s.capacity = a.capacity();
  int allocs_ok = 0, allocs_failed = 0;
  for (int op = 0; op < 6000; ++op) {
    uint64_t r = rng() % 100;
    if (r < 55 || s.live.empty()) {
      uint64_t size = rng() % 4 == 0 ? rng() % (512 * KiB) : rng() % 5000;
      uint64_t align = aligns[rng() % 8];
      uint64_t eff = std::max(align, kMin), expect_at = 0, off = 0;
      bool expect = s.expected_offset(round_up(std::max<uint64_t>(size, 1), kMin), eff, &expect_at);
      ASSERT_EQ(a.allocate(size, align, &off), expect) << "op " << op;
      if (expect) {
        ASSERT_EQ(off, expect_at) << "op " << op << ": not best fit";
        s.live[off] = {size, round_up(std::max<uint64_t>(size, 1), kMin), eff};
        ++allocs_ok;
      } else {
        ++allocs_failed;
        check_growth_exact(a, size, align);
      }
    } else if (r < 97) {
      auto it = s.live.begin();
      std::advance(it, rng() % s.live.size());
      ASSERT_TRUE(a.free(it->first));
      s.live.erase(it);
    } else if (r < 99) {
      uint64_t bogus = rng() % (s.capacity + 1);
      bool is_live = s.live.count(bogus) != 0;
      ASSERT_EQ(a.free(bogus), is_live) << bogus;
      s.live.erase(bogus);
    } else if (s.capacity < 64 * MiB) {
      s.capacity += rng() % (1 * MiB);
      a.grow(s.capacity);
    }
    check_against_shadow(a, s);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(allocs_ok, 1000);
  EXPECT_GT(allocs_failed, 10);  // the sequence does exercise exhaustion
  for (const auto& [off, b] : s.live) ASSERT_TRUE(a.free(off));
  EXPECT_EQ(a.free_bytes(), a.capacity());
  EXPECT_EQ(a.largest_free(), a.capacity());
}

TEST(Allocator, SameCallSequenceGivesSameOffsets) {
  Allocator a(8 * MiB), b(8 * MiB);
  std::mt19937_64 rng(7);
  std::vector<uint64_t> live;
  for (int op = 0; op < 3000; ++op) {
    if (rng() % 3 != 0 || live.empty()) {
      uint64_t size = rng() % 100000, align = 1ull << (rng() % 16);
      uint64_t oa = 1, ob = 2;
      bool ra = a.allocate(size, align, &oa), rb = b.allocate(size, align, &ob);
      ASSERT_EQ(ra, rb);
      if (ra) {
        ASSERT_EQ(oa, ob) << "op " << op;
        live.push_back(oa);
      }
    } else {
      size_t i = rng() % live.size();
      ASSERT_TRUE(a.free(live[i]));
      ASSERT_TRUE(b.free(live[i]));
      live.erase(live.begin() + i);
    }
    if (op % 500 == 499) {
      a.grow(a.capacity() + 1 * MiB);
      b.grow(b.capacity() + 1 * MiB);
    }
  }
  EXPECT_EQ(a.free_bytes(), b.free_bytes());
  EXPECT_EQ(a.largest_free(), b.largest_free());
}

// The debug checks' corpus (issue 56, item 6; host/mem/query.cpp check_live): a seeded heap of
// live and freed blocks, then >= 1,000 bad ranges per class - inside a freed block, past the end
// of a live block (into its padding or the next block), in memory never allocated - each must be
// classified as bad, and a matching good corpus (ranges inside the bytes of live blocks, edges
// included) never. Prints the counts.
TEST(Allocator, ClassifyCatchesEveryBadRangeAndNoGoodOne) {
  const uint64_t seed = 56;
  std::mt19937_64 rng(seed);
  Allocator a(256 * MiB);
  struct Block {
    uint64_t off, size;
  };
  std::vector<Block> live, freed;
  for (int i = 0; i < 400; ++i) {
    const uint64_t size = 1 + rng() % (64 * KiB), align = uint64_t{1} << (rng() % 14);
    uint64_t off = 0;
    ASSERT_TRUE(a.allocate(size, align, &off));
    live.push_back({off, size});
  }
  // Free about half of them, last (nothing reuses them): their ranges are free now.
  for (size_t i = 0; i < live.size(); i += 2) {
    ASSERT_TRUE(a.free(live[i].off));
    freed.push_back(live[i]);
    live.erase(live.begin() + i);
  }
  uint64_t top = 0;
  for (const Block& b : live) top = std::max(top, round_up(b.off + b.size, kMin));
  for (const Block& b : freed) top = std::max(top, round_up(b.off + b.size, kMin));
  ASSERT_LT(top, a.capacity());

  const int kPerClass = 1000;
  int caught[3] = {0, 0, 0}, wrong_good = 0;
  uint64_t start = 0, requested = 0;
  for (int i = 0; i < kPerClass; ++i) {
    // freed: any range starting inside a freed block
    const Block& f = freed[rng() % freed.size()];
    const uint64_t fin = rng() % f.size;
    if (a.classify(f.off + fin, 1 + rng() % (f.size - fin + 64), &start, &requested) == Allocator::Span::kFree)
      ++caught[0];
    // past the end: starts inside a live block's bytes, ends 1..4096 bytes past them
    const Block& l = live[rng() % live.size()];
    const uint64_t lin = rng() % l.size;
    const uint64_t over = l.size - lin + 1 + rng() % 4096;
    if (a.classify(l.off + lin, over, &start, &requested) == Allocator::Span::kPastEnd && start == l.off &&
        requested == l.size)
      ++caught[1];
    // never allocated: above every block
    const uint64_t off = top + rng() % (a.capacity() - top);
    if (a.classify(off, 1 + rng() % 4096, &start, &requested) == Allocator::Span::kFree) ++caught[2];
    // good: inside a live block's bytes (sometimes exactly the whole block, or its last byte)
    const Block& g = live[rng() % live.size()];
    uint64_t gin = rng() % g.size, gbytes = 1 + rng() % (g.size - gin);
    if (i % 10 == 0) gin = 0, gbytes = g.size;
    if (i % 10 == 1) gin = g.size - 1, gbytes = 1;
    if (a.classify(g.off + gin, gbytes, &start, &requested) != Allocator::Span::kLive) ++wrong_good;
  }
  printf(
      "classify (seed %llu): caught %d/%d freed, %d/%d past the end, %d/%d never allocated; %d/%d good "
      "ranges refused\n",
      static_cast<unsigned long long>(seed), caught[0], kPerClass, caught[1], kPerClass, caught[2], kPerClass,
      wrong_good, kPerClass);
  // What the check costs a host call in a debug run: one classify (the lock around it aside).
  const int kTimed = 200000;
  uint64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kTimed; ++i) {
    const Block& g = live[static_cast<size_t>(i) % live.size()];
    sink += static_cast<uint64_t>(a.classify(g.off + static_cast<uint64_t>(i) % g.size, 1, &start, &requested));
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kTimed;
  printf("classify: %.0f ns a call over %zu live and %zu freed blocks (%llu)\n", ns, live.size(), freed.size(),
         static_cast<unsigned long long>(sink % 2));
  EXPECT_EQ(kPerClass, caught[0]);
  EXPECT_EQ(kPerClass, caught[1]);
  EXPECT_EQ(kPerClass, caught[2]);
  EXPECT_EQ(0, wrong_good);
  // A zero-byte range is fine anywhere; a withheld range (registered buffer) is not the
  // allocator's to judge.
  EXPECT_EQ(Allocator::Span::kLive, a.classify(freed[0].off, 0, &start, &requested));
  Allocator w(1 * MiB);
  w.grow_withheld(2 * MiB);
  EXPECT_EQ(Allocator::Span::kLive, w.classify(1 * MiB + 100, 64, &start, &requested));
  EXPECT_EQ(Allocator::Span::kFree, w.classify(100, 64, &start, &requested));
}

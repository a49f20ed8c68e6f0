// SPDX-License-Identifier: BSD-3-Clause
// mem::RegionMap: where registered buffers sit in a heap slot (src/host/mem/regions.h). Every PE
// must place the same buffers at the same offsets, so the answers are checked exactly, and a
// seeded random sequence checks the invariants after every call against a byte model.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "host/mem/regions.h"

using gshmem::mem::RegionMap;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

// Places and commits; returns the offset and updates `top`.
uint64_t add(RegionMap& m, uint64_t bytes, uint64_t align, uint64_t* top, uint64_t limit = 1024 * kMiB) {
  RegionMap::Placement p;
  EXPECT_TRUE(m.place(bytes, align, *top, limit, &p));
  m.commit(p, bytes, *top);
  *top = p.new_top;
  return p.offset;
}

TEST(RegionMap, AtTheTopAlignedThenReusesTheBestHole) {
  RegionMap m;
  uint64_t top = 3 * kMiB;  // heap chunks below
  const uint64_t a = add(m, 4 * kMiB, 2 * kMiB, &top);
  EXPECT_EQ(a, 4 * kMiB);  // first 2 MiB-aligned offset at or above the top
  EXPECT_EQ(top, 8 * kMiB);
  EXPECT_EQ(m.hole_count(), 1u);  // the alignment gap [3, 4) MiB stays a hole
  const uint64_t b = add(m, 2 * kMiB, 2 * kMiB, &top);
  const uint64_t c = add(m, 6 * kMiB, 2 * kMiB, &top);
  EXPECT_EQ(b, 8 * kMiB);
  EXPECT_EQ(c, 10 * kMiB);
  EXPECT_EQ(top, 16 * kMiB);

  // Releasing a region below the top leaves a hole; the top stays.
  EXPECT_EQ(m.release(a, top), top);
  EXPECT_FALSE(m.live(a, nullptr));
  // A smaller buffer takes that hole (best fit), not the top.
  const uint64_t d = add(m, 2 * kMiB, 2 * kMiB, &top);
  EXPECT_EQ(d, 4 * kMiB);
  EXPECT_EQ(top, 16 * kMiB);
  uint64_t bytes = 0;
  ASSERT_TRUE(m.live(d, &bytes));
  EXPECT_EQ(bytes, 2 * kMiB);
}

TEST(RegionMap, ReleasingTheTopGivesItBackAndMergesHoles) {
  RegionMap m;
  uint64_t top = 2 * kMiB;
  const uint64_t a = add(m, 2 * kMiB, 2 * kMiB, &top);
  const uint64_t b = add(m, 2 * kMiB, 2 * kMiB, &top);
  EXPECT_EQ(top, 6 * kMiB);
  EXPECT_EQ(m.release(a, top), top);  // a hole below b
  top = m.release(b, top);            // b's range and a's hole merge and reach the top
  EXPECT_EQ(top, 2 * kMiB);
  EXPECT_EQ(m.live_count(), 0u);
  EXPECT_EQ(m.hole_count(), 0u);
}

TEST(RegionMap, RefusesWhatDoesNotFitAndBadArguments) {
  RegionMap m;
  RegionMap::Placement p;
  EXPECT_FALSE(m.place(8 * kMiB, 2 * kMiB, 4 * kMiB, 10 * kMiB, &p));  // past the limit
  EXPECT_FALSE(m.place(2 * kMiB, 3 * kMiB, 0, 10 * kMiB, &p));         // alignment not a power of two
  EXPECT_FALSE(m.place(0, 2 * kMiB, 0, 10 * kMiB, &p));                // nothing to place
  EXPECT_EQ(m.release(4 * kMiB, 8 * kMiB), 8 * kMiB);                  // not a live region: no change
}

// Seeded random register/unregister/growth: live regions never overlap each other or the heap's
// chunks, no hole ends at the top, and two maps fed the same calls give the same answers.
TEST(RegionMap, RandomSequencesKeepTheInvariants) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    RegionMap m, twin;
    const uint64_t limit = 512 * kMiB;
    uint64_t top = 2 * kMiB;
    std::vector<char> chunk(limit / kMiB, 0);  // 1 MiB units mapped by heap growth
    chunk[0] = chunk[1] = 1;
    std::vector<uint64_t> live;
    for (int step = 0; step < 400; ++step) {
      const int what = static_cast<int>(rng() % 3);
      if (what == 0 && !live.empty()) {  // unregister one
        const size_t k = rng() % live.size();
        const uint64_t new_top = m.release(live[k], top);
        EXPECT_EQ(twin.release(live[k], top), new_top);
        ASSERT_LE(new_top, top);
        for (uint64_t u = new_top / kMiB; u < top / kMiB; ++u) ASSERT_FALSE(chunk[u]) << "gave back a chunk";
        top = new_top;
        live.erase(live.begin() + static_cast<long>(k));
      } else if (what == 1 && top + 4 * kMiB <= limit) {  // heap growth maps chunks at the top
        for (uint64_t u = top / kMiB; u < top / kMiB + 4; ++u) chunk[u] = 1;
        top += 4 * kMiB;
      } else {  // register one
        const uint64_t bytes = (1 + rng() % 8) * kMiB, align = (rng() % 2) ? kMiB : 2 * kMiB;
        RegionMap::Placement p, q;
        const bool ok = m.place(bytes, align, top, limit, &p);
        ASSERT_EQ(twin.place(bytes, align, top, limit, &q), ok);
        if (!ok) continue;
        ASSERT_EQ(p.offset, q.offset);
        ASSERT_EQ(p.offset % align, 0u);
        ASSERT_LE(p.offset + bytes, p.new_top);
        for (uint64_t u = p.offset / kMiB; u < (p.offset + bytes) / kMiB; ++u)
          ASSERT_FALSE(chunk[u]) << "seed " << seed << ": a region over a heap chunk";
        for (uint64_t o : live) {
          uint64_t n = 0;
          ASSERT_TRUE(m.live(o, &n));
          ASSERT_TRUE(p.offset + bytes <= o || o + n <= p.offset) << "seed " << seed << ": overlapping regions";
        }
        m.commit(p, bytes, top);
        twin.commit(q, bytes, top);
        top = p.new_top;
        live.push_back(p.offset);
      }
      ASSERT_EQ(m.live_count(), live.size());
    }
  }
}

}  // namespace

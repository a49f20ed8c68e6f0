// SPDX-License-Identifier: BSD-3-Clause
// The layout of a team's collective scratch, as host and device compute it
// (include/gshmem/device/impl/ll_layout.cuh and reduce_layout.cuh): the LL area and the
// reductions' region lie 256-byte aligned, one after the other and inside the scratch, for
// every team size, and the push buffers take all but the little the rest needs; a scratch
// too small for one of them leaves it empty (its path is not taken) rather than
// overflowing.
#include <gtest/gtest.h>

#include "plain_cxx.h"  // before the __host__ __device__ headers

#include <cstdint>
#include <vector>

#include "gshmem/device/impl/reduce_layout.cuh"

namespace {

using gshmem::detail::kLLDefaultBytes;
using gshmem::detail::kLLMaxWords;
using gshmem::detail::kLLMinWords;
using gshmem::detail::kReduceHostCheckWords;
using gshmem::detail::kReducePushSlots;
using gshmem::detail::kReduceSpanPiece;
using gshmem::detail::ll_area;
using gshmem::detail::ll_area_of;
using gshmem::detail::reduce_plan;
using gshmem::detail::reduce_plan_of;
using gshmem::detail::reduce_region;
using gshmem::detail::reduce_region_of;
using gshmem::detail::reduce_slot_span;
using gshmem::detail::reduce_span;
using gshmem::detail::reduce_span_rounds;
using gshmem::detail::reduce_span_slot_bytes;
using gshmem::detail::reduce_span_slot_offset;
using gshmem::detail::team_layout_fill;

// A device-like address (only the arithmetic is exercised; nothing is dereferenced).
char* const kBase = reinterpret_cast<char*>(uintptr_t{1} << 36);

const char* end_of_ll(const ll_area& a) {
  return reinterpret_cast<const char*>(a.words + 2ull * static_cast<uint64_t>(a.n) * static_cast<uint64_t>(a.w));
}

TEST(ScratchLayout, AreasAreAlignedDisjointAndInside) {
  for (uint64_t bytes : {uint64_t{1} << 12, uint64_t{1} << 16, uint64_t{1} << 20, (uint64_t{1} << 20) + 768})
    for (int n : {1, 2, 3, 4, 7, 64, 1000, 4096}) {
      SCOPED_TRACE(testing::Message() << "scratch " << bytes << " bytes, " << n << " members");
      const char* end = kBase + bytes;
      const ll_area ll = ll_area_of(kBase, bytes, n);
      const reduce_region r = reduce_region_of(kBase, bytes, n);
      if (ll.count != nullptr) {
        EXPECT_EQ(reinterpret_cast<const char*>(ll.count), kBase) << "the area opens the scratch";
        EXPECT_EQ(reinterpret_cast<uintptr_t>(ll.count) % 256, 0u);
        // The words start a line, so a lone thread's 16-byte pairs and 128-byte lines are aligned.
        EXPECT_EQ(reinterpret_cast<const char*>(ll.words), reinterpret_cast<const char*>(ll.count) + 128);
        for (int j : {0, n - 1})
          EXPECT_EQ(reinterpret_cast<uintptr_t>(ll.buf(1, j)) % (ll.w >= 16 ? 128 : 16), 0u) << "sender " << j;
        EXPECT_LE(end_of_ll(ll), end);
        EXPECT_EQ(ll.buf(1, n - 1) + ll.w, ll.words + 2ull * n * ll.w);  // the last sender's words
        EXPECT_GE(ll.w, kLLMinWords);
        EXPECT_LE(ll.w, kLLMaxWords);
        EXPECT_EQ(ll.w & (ll.w - 1), 0) << "a power of two";
        EXPECT_EQ(ll.max_bytes(), 4ull * ll.w);
        // More than the fewest words only while the area takes at most an eighth of the scratch;
        // at the fewest, at most half of it.
        const uint64_t area = static_cast<uint64_t>(end_of_ll(ll) - reinterpret_cast<const char*>(ll.count));
        if (ll.w > kLLMinWords) EXPECT_LE(8 * area, bytes);
        EXPECT_LE(2 * area, bytes);
      }
      if (r.nslots == 0) continue;
      ASSERT_NE(ll.count, nullptr) << "a reduction region without the LL area it follows";
      EXPECT_EQ(r.ll.count, ll.count);
      const char* flags = reinterpret_cast<const char*>(r.flags);
      const char* check = reinterpret_cast<const char*>(r.check);
      EXPECT_GE(flags, end_of_ll(ll));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(flags) % 256, 0u);
      EXPECT_GE(check, flags + 8ull * r.nslots * n);
      EXPECT_EQ(r.host_check, r.check + 4ull * n);
      EXPECT_GE(r.push, reinterpret_cast<const char*>(r.host_check + static_cast<uint64_t>(n) * kReduceHostCheckWords));
      EXPECT_EQ(r.push_bytes % 16, 0u);
      EXPECT_LE(r.push + 2ull * n * r.push_bytes, end);
      EXPECT_EQ(r.uniform_slots(), r.nslots < kReducePushSlots ? r.nslots : kReducePushSlots);
    }
}

// What the device calls use: the layout sized once into the team entry (team_layout_fill,
// run when the library creates a team) gives the same areas as sizing it on the spot.
TEST(ScratchLayout, TeamEntryLayoutMatchesTheSizing) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1} << 10, uint64_t{1} << 12, uint64_t{1} << 16, uint64_t{1} << 20,
                         (uint64_t{1} << 20) + 768, uint64_t{1} << 33})
    for (int n : {1, 2, 3, 4, 7, 64, 1000, 1023, 1024, 4096}) {
      SCOPED_TRACE(testing::Message() << "scratch " << bytes << " bytes, " << n << " members");
      gshmemi_team t{};
      t.size = n;
      t.scratch = kBase;
      t.scratch_bytes = bytes;
      team_layout_fill(&t);
      const ll_area a = ll_area_of(kBase, bytes, n), at = ll_area_of(t);
      EXPECT_EQ(at.count, a.count);
      EXPECT_EQ(at.words, a.words);
      EXPECT_EQ(at.w, a.w);
      EXPECT_EQ(at.max_bytes(), a.max_bytes());
      const reduce_region r = reduce_region_of(kBase, bytes, n), rt = reduce_region_of(t);
      EXPECT_EQ(rt.nslots, r.nslots);
      EXPECT_EQ(rt.flags, r.flags);
      EXPECT_EQ(rt.check, r.check);
      EXPECT_EQ(rt.host_check, r.host_check);
      EXPECT_EQ(rt.push, r.push);
      EXPECT_EQ(rt.push_bytes, r.push_bytes);
      EXPECT_EQ(rt.ll.count, r.ll.count);
      // The slot plan a call makes from either is the same.
      for (uint64_t nreduce : {1u, 4u, 5u, 4096u, 1000000u}) {
        const reduce_plan p = reduce_plan_of(nreduce, 4, false, r), pt = reduce_plan_of(nreduce, 4, false, rt);
        EXPECT_EQ(pt.push, p.push);
        EXPECT_EQ(pt.slots, p.slots);
        EXPECT_EQ(pt.ll, p.ll);
      }
    }
}

// A call of one slot spans the whole array, as the general formula gives.
TEST(ScratchLayout, SlotSpansCoverTheArray) {
  for (uint64_t n : {1u, 3u, 4u, 17u, 1000u, 123457u})
    for (uint32_t vec : {1u, 2u, 4u, 16u})
      for (int slots : {1, 2, 3, 8, 128}) {
        uint64_t at = 0;
        for (int s = 0; s < slots; ++s) {
          const reduce_span sp = reduce_slot_span(n, vec, slots, s);
          EXPECT_EQ(sp.lo, at) << n << " elements, vec " << vec << ", slot " << s << " of " << slots;
          EXPECT_GE(sp.hi, sp.lo);
          if (s < slots - 1) EXPECT_EQ(sp.hi % vec, 0u);
          at = sp.hi;
        }
        EXPECT_EQ(at, n) << n << " elements, vec " << vec << ", " << slots << " slots";
      }
}

TEST(ScratchLayout, TooSmallLeavesAreasEmpty) {
  // 1 KiB: half of it cannot hold 4096 members' LL words.
  EXPECT_EQ(ll_area_of(kBase, 1024, 4096).count, nullptr);
  EXPECT_EQ(reduce_region_of(kBase, 1024, 4096).nslots, 0);
  EXPECT_EQ(ll_area_of(kBase, 0, 4).count, nullptr);
  EXPECT_EQ(ll_area_of(kBase, 1 << 20, 0).count, nullptr);
}

TEST(ScratchLayout, LLMessagesShrinkWithTheTeamNotBelow16Bytes) {
  // The default scratch (1 MiB) and LL size (256 bytes): 256-byte messages up to 127
  // members (an eighth of the scratch, 128 KiB), then halving with the team: 128 bytes up
  // to 255 members, 64 up to 511, 32 up to 1023; 1024, 2048 and 4096 members keep 16 bytes.
  const uint64_t mib = uint64_t{1} << 20;
  ASSERT_EQ(kLLDefaultBytes, 256u);
  for (int n : {2, 3, 4, 8, 64, 127}) EXPECT_EQ(ll_area_of(kBase, mib, n).max_bytes(), 256u) << n << " members";
  for (int n : {128, 255}) EXPECT_EQ(ll_area_of(kBase, mib, n).max_bytes(), 128u) << n << " members";
  for (int n : {256, 511}) EXPECT_EQ(ll_area_of(kBase, mib, n).max_bytes(), 64u) << n << " members";
  EXPECT_EQ(ll_area_of(kBase, mib, 4, 64).max_bytes(), 64u);
  EXPECT_EQ(ll_area_of(kBase, mib, 511, 64).max_bytes(), 64u);
  for (int n : {512, 1000, 1023}) EXPECT_EQ(ll_area_of(kBase, mib, n).max_bytes(), 32u) << n << " members";
  EXPECT_EQ(ll_area_of(kBase, mib, 1024).max_bytes(), 16u);
  EXPECT_EQ(ll_area_of(kBase, mib, 8190).max_bytes(), 16u);
  EXPECT_EQ(ll_area_of(kBase, mib, 8191).count, nullptr) << "more than half of the scratch";
  // A smaller scratch halves first: 64 KiB (an eighth: 8 KiB).
  EXPECT_EQ(ll_area_of(kBase, uint64_t{1} << 16, 63).max_bytes(), 32u);
  EXPECT_EQ(ll_area_of(kBase, uint64_t{1} << 16, 64).max_bytes(), 16u);
  EXPECT_EQ(ll_area_of(kBase, mib, 2048).max_bytes(), 16u);
  EXPECT_EQ(ll_area_of(kBase, mib, 4096).max_bytes(), 16u);
  // The reductions' region past the area, as with 16-byte messages for every team.
  for (int n : {2, 4, 64, 1000, 2048}) EXPECT_GT(reduce_region_of(kBase, mib, n).nslots, 0) << n << " members";
}

// GSHMEM_LL_MAX_BYTES: rounded down to a power of two in [16, 4096], then bounded by the
// scratch as above; the area grows with it and the push buffers give up the room.
TEST(ScratchLayout, LLMaxBytesBoundsTheMessages) {
  const uint64_t mib = uint64_t{1} << 20;
  const struct {
    uint64_t cap, want;
  } cases[] = {{0, 16}, {16, 16}, {31, 16}, {32, 32}, {100, 64}, {256, 256}, {1000, 512}, {4096, 4096}, {mib, 4096}};
  for (const auto& c : cases) EXPECT_EQ(ll_area_of(kBase, mib, 4, c.cap).max_bytes(), c.want) << "cap " << c.cap;
  // 64 members: 4 KiB messages take 2 x 64 x 1024 words (1 MiB); at most an eighth of the
  // scratch leaves 64 words (2 x 64 x 128 words is 8 bytes over).
  EXPECT_EQ(ll_area_of(kBase, mib, 64, 4096).max_bytes(), 256u);
  const reduce_region small = reduce_region_of(kBase, mib, 4, 16), big = reduce_region_of(kBase, mib, 4, 4096);
  ASSERT_GT(small.nslots, 0);
  ASSERT_GT(big.nslots, 0);
  EXPECT_GT(reinterpret_cast<char*>(big.flags), reinterpret_cast<char*>(small.flags));
  EXPECT_LT(big.push_bytes, small.push_bytes);
  EXPECT_LE(big.push + 2ull * 4 * big.push_bytes, kBase + mib);
  // A team entry sized with a cap gives the same area as the sizing.
  gshmemi_team t{};
  t.size = 4;
  t.scratch = kBase;
  t.scratch_bytes = mib;
  team_layout_fill(&t, 1024);
  EXPECT_EQ(ll_area_of(t).max_bytes(), 1024u);
  EXPECT_EQ(reduce_region_of(t).push, reduce_region_of(kBase, mib, 4, 1024).push);
}

// The push path (one signalled round through the buffers) takes arrays of up to a push
// buffer, about scratch / (2 N) bytes a member: the buffers [parity][sender] fill the
// scratch but for the LL area, the flags and the debug records. It cuts them into one slot
// per 8 KiB, at most as many as share one epoch (the uniform slots).
TEST(ScratchLayout, PushBuffersFillTheScratch) {
  const uint64_t mib = uint64_t{1} << 20;
  for (int n : {2, 3, 4, 8}) {
    SCOPED_TRACE(testing::Message() << n << " members");
    const reduce_region r = reduce_region_of(kBase, mib, n);
    ASSERT_GT(r.nslots, 0);
    EXPECT_GE(2ull * n * r.push_bytes, mib - mib / 32);
    // Floats: the largest array by the push path is within 1/32 of scratch / (2 N); twice
    // as much goes by the pull path.
    const uint64_t most = r.push_bytes / 4;
    EXPECT_GE(most, mib / (2ull * n) / 4 - mib / 32 / (2ull * n) / 4);
    for (bool scatter : {false, true}) {  // reducescatter: the same bound on each member's chunk
      const reduce_plan p = reduce_plan_of(most, 4, scatter, r);
      EXPECT_TRUE(p.push);
      EXPECT_FALSE(p.ll);
      const uint64_t per8k = (most * 4 + 8191) / 8192;
      EXPECT_EQ(p.slots, per8k < kReducePushSlots ? static_cast<int>(per8k) : kReducePushSlots);
      EXPECT_FALSE(reduce_plan_of(most + 1, 4, scatter, r).push);
    }
  }
  // 2 members, floats: 128 KiB by the push path in 16 slots; 256 KiB (just over a buffer) by the pull path.
  const reduce_region r2 = reduce_region_of(kBase, mib, 2);
  EXPECT_TRUE(reduce_plan_of(32768, 4, false, r2).push);
  EXPECT_EQ(reduce_plan_of(32768, 4, false, r2).slots, 16);
  EXPECT_EQ(reduce_plan_of(4096, 4, false, r2).slots, 2);
  EXPECT_FALSE(reduce_plan_of(65536, 4, false, r2).push);
}

// A push-path call never uses more slots than share one epoch, whatever the team size
// (large teams have fewer flag rows than kReducePushSlots).
TEST(ScratchLayout, PushSlotsAreUniformSlots) {
  for (uint64_t bytes : {uint64_t{1} << 16, uint64_t{1} << 20, uint64_t{1} << 24})
    for (int n : {2, 3, 64, 1000, 4096}) {
      const reduce_region r = reduce_region_of(kBase, bytes, n);
      if (r.nslots == 0) continue;
      for (uint64_t nreduce : {5u, 3000u, 100000u, 1000000u}) {
        const reduce_plan p = reduce_plan_of(nreduce, 4, false, r);
        if (p.push && !p.ll) EXPECT_LE(p.slots, r.uniform_slots()) << bytes << " bytes, " << n << " members";
        EXPECT_GE(p.slots, 1);
        EXPECT_LE(p.slots, r.nslots);
      }
    }
}

TEST(ScratchLayout, ReductionPlanTakesLLForArraysOfOneLLMessage) {
  for (uint64_t cap : {uint64_t{16}, kLLDefaultBytes, uint64_t{4096}}) {
    const reduce_region r = reduce_region_of(kBase, uint64_t{1} << 20, 4, cap);
    ASSERT_GT(r.nslots, 0);
    ASSERT_EQ(r.ll.max_bytes(), cap);
    for (uint32_t esize : {1u, 2u, 4u, 8u, 16u})
      for (uint64_t n : {1u, 2u, 3u, 4u, 5u, 31u, 32u, 33u, 63u, 64u, 65u, 100u, 512u, 1024u, 1025u}) {
        const reduce_plan p = reduce_plan_of(n, esize, false, r);
        const bool want = (esize == 4 || esize == 8) && n * esize <= cap;
        EXPECT_EQ(p.ll, want) << n << " elements of " << esize << " bytes, LL messages of " << cap;
        if (p.ll) EXPECT_TRUE(p.push && p.slots == 1);
      }
  }
}

// The spanning path's receive slots (reduce_span.cuh): at every receiver, one slot per round
// parity and other member, disjoint, 16-byte aligned, inside the push area; whole 1 MiB proxy
// pieces from 1 MiB on, else all the room there is; no room, no slot.
TEST(ScratchLayout, SpanSlotsAreDisjointAndInsideThePushArea) {
  const uint64_t mib = uint64_t{1} << 20;
  for (uint64_t bytes : {uint64_t{1} << 12, uint64_t{1} << 16, mib, mib + 768, 4 * mib, 16 * mib, 64 * mib})
    for (int n : {1, 2, 3, 4, 7, 64, 1000}) {
      SCOPED_TRACE(testing::Message() << "scratch " << bytes << " bytes, " << n << " members");
      const reduce_region r = reduce_region_of(kBase, bytes, n);
      const uint64_t slot = reduce_span_slot_bytes(r);
      if (r.nslots == 0 || n < 2) {
        EXPECT_EQ(slot, 0u);
        continue;
      }
      const uint64_t area = 2ull * n * r.push_bytes, cut = area / (2ull * (n - 1)) / 16 * 16;
      EXPECT_EQ(slot % 16, 0u);
      if (cut >= kReduceSpanPiece) {
        EXPECT_EQ(slot % kReduceSpanPiece, 0u);
        EXPECT_GT(slot + kReduceSpanPiece, cut) << "the most whole pieces";
      } else {
        EXPECT_EQ(slot, cut);
      }
      EXPECT_LE(2ull * (n - 1) * slot, area);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(r.push) % 16, 0u);
      if (slot == 0) continue;
      for (int me : {0, 1, n / 2, n - 1}) {
        std::vector<bool> used(2ull * (n - 1), false);
        for (uint64_t parity : {0u, 1u})
          for (int j = 0; j < n; ++j) {
            if (j == me) continue;
            const uint64_t off = reduce_span_slot_offset(slot, n, parity, j, me);
            ASSERT_EQ(off % slot, 0u);
            const uint64_t k = off / slot;
            ASSERT_LT(k, used.size()) << "sender " << j << " at " << me;
            EXPECT_FALSE(used[k]) << "sender " << j << " parity " << parity << " at " << me << ": slot taken";
            used[k] = true;
          }
      }
    }
  // The world team (4 x GSHMEM_TEAM_SCRATCH_SIZE, 4 MiB by default) of 2 PEs: 1 MiB a round, one
  // bulk piece; of 4 PEs, all the room (2 x 3 slots of about 680 KiB).
  EXPECT_EQ(reduce_span_slot_bytes(reduce_region_of(kBase, 4 * mib, 2)), mib);
  const uint64_t s4 = reduce_span_slot_bytes(reduce_region_of(kBase, 4 * mib, 4));
  EXPECT_LT(s4, mib);
  EXPECT_GT(s4, 4 * mib / 6 - mib / 32);
  // A split team's 1 MiB of 2 PEs: just under 512 KiB.
  EXPECT_GT(reduce_span_slot_bytes(reduce_region_of(kBase, mib, 2)), mib / 2 - mib / 32);
}

// A call's rounds: the elements of a slot each; the same cut for a reduce and a reducescatter
// (each member's chunk) and for every member.
TEST(ScratchLayout, SpanRoundsCutTheArrayIntoSlots) {
  const uint64_t mib = uint64_t{1} << 20;
  EXPECT_EQ(reduce_span_rounds(0, 4, mib), 0u);
  EXPECT_EQ(reduce_span_rounds(1, 8, mib), 1u);
  EXPECT_EQ(reduce_span_rounds(mib / 4, 4, mib), 1u);
  EXPECT_EQ(reduce_span_rounds(mib / 4 + 1, 4, mib), 2u);
  EXPECT_EQ(reduce_span_rounds((uint64_t{16} << 20) + 5, 4, mib), 65u);  // 64 MiB + 20 bytes of floats
  EXPECT_EQ(reduce_span_rounds(3, 16, 32), 2u);
  EXPECT_EQ(reduce_span_rounds(5, 16, 8), 0u) << "no room for one element";
}

}  // namespace

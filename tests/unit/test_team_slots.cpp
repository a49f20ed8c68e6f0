// SPDX-License-Identifier: BSD-3-Clause
// The team slot region's layout (src/host/team/slot_plan.h): O(n_pes) control in all, the old
// equal slots up to kSmallTeam PEs, and best-fit choice of a slot for a new team.
#include "host/team/node_run.h"
#include "host/team/slot_plan.h"

#include <gtest/gtest.h>

namespace {

using namespace gshmem::team;

constexpr uint64_t kScratch = 1 << 20;
constexpr uint64_t kPerMember = GSHMEMI_TEAM_CTRL_WORDS * 8;  // 568 bytes

uint64_t control_bytes(const SlotPlan& p) {
  uint64_t c = 0;
  for (uint64_t x : p.ctrl) c += x;
  return c;
}

std::vector<uint64_t> all_free() { return std::vector<uint64_t>(GSHMEMI_TEAM_CHECK_WORDS, ~0ull); }

TEST(TeamSlots, SmallJobsKeepEqualSlotsSizedForEveryPe) {
  for (int n : {1, 2, 8, 255, 256}) {
    const SlotPlan p = plan_slots(n, n, 64, kScratch);
    ASSERT_EQ(p.capacity.size(), 64u);
    for (int c : p.capacity) EXPECT_EQ(c, n) << "n " << n;
    // The three predefined teams' scratch is kPredefinedScratchFactor times a split team's.
    EXPECT_EQ(p.region_bytes(), 64 * slot_ctrl_bytes(n) + (61 + 3 * kPredefinedScratchFactor) * kScratch) << "n " << n;
  }
}

TEST(TeamSlots, OffsetsAreContiguousAndAligned) {
  const SlotPlan p = plan_slots(4096, 6, 64, 1000);
  ASSERT_EQ(p.offset.size(), p.capacity.size() + 1);
  for (size_t k = 0; k < p.capacity.size(); ++k) {
    EXPECT_EQ(p.offset[k] % 256, 0u);
    EXPECT_EQ(p.offset[k + 1] - p.offset[k], p.ctrl[k] + (k < 3 ? kPredefinedScratchFactor : 1) * 1024) << "slot " << k;
    EXPECT_GE(p.ctrl[k], kPerMember * p.capacity[k]);
  }
}

// The control words grow as a small multiple of n_pes: WORLD, two node slots, and the split
// classes (about 2 n_pes) plus 61 slots of kSmallTeam; the old layout was 64 n_pes.
// The proxy sync words (slot_plan.h, proxy_sync_index): every slot's first words of sync flags
// and nothing else of the region map to a word, slot by slot; no two flags share one.
TEST(TeamSlots, ProxySyncIndexCoversEachSlotsFirstSyncFlags) {
  for (int n : {2, 5, 100, 4096}) {
    const SlotPlan p = plan_slots(n, n < 4 ? n : 4, 64, 1000);
    std::vector<int> seen(p.capacity.size() * GSHMEMI_TEAM_PROXY_SYNC_WORDS, 0);
    for (size_t k = 0; k < p.capacity.size(); ++k) {
      const uint64_t words = std::min<uint64_t>(GSHMEMI_TEAM_PROXY_SYNC_WORDS, p.capacity[k]);
      for (uint64_t j = 0; j < words; ++j) {
        const int64_t i = proxy_sync_index(p.offset, p.capacity, p.offset[k] + 8 * j);
        ASSERT_EQ(i, static_cast<int64_t>(k * GSHMEMI_TEAM_PROXY_SYNC_WORDS + j)) << "n " << n << " slot " << k;
        ++seen[i];
        EXPECT_EQ(proxy_sync_index(p.offset, p.capacity, p.offset[k] + 8 * j + 4), -1) << "unaligned";
      }
      // Past the words: the rest of the sync flags, the collective flags, the scratch.
      EXPECT_EQ(proxy_sync_index(p.offset, p.capacity, p.offset[k] + 8 * words), -1) << "n " << n << " slot " << k;
      EXPECT_EQ(proxy_sync_index(p.offset, p.capacity, p.offset[k] + p.ctrl[k]), -1) << "n " << n << " slot " << k;
      EXPECT_EQ(proxy_sync_index(p.offset, p.capacity, p.offset[k + 1] - 8), -1) << "n " << n << " slot " << k;
    }
    for (int c : seen) EXPECT_LE(c, 1);
    EXPECT_EQ(proxy_sync_index(p.offset, p.capacity, p.region_bytes()), -1);
    EXPECT_EQ(proxy_sync_index(p.offset, p.capacity, ~0ull - 7), -1);
  }
  EXPECT_EQ(proxy_sync_index({}, {}, 0), -1);
}

TEST(TeamSlots, ControlIsLinearInThePes) {
  for (int n : {512, 1024, 4096, 27648, 100000}) {
    const SlotPlan p = plan_slots(n, 6, 64, kScratch);
    EXPECT_EQ(p.capacity[0], n);
    EXPECT_EQ(p.capacity[1], kSmallTeam);
    EXPECT_EQ(p.capacity[3], n) << "one split slot holds a team of every PE";
    const uint64_t bound = kPerMember * (3ull * n + 64ull * kSmallTeam) + 64 * 256;
    EXPECT_LE(control_bytes(p), bound) << "n " << n;
  }
  // 27,648 PEs: 91,776 members' control words (52 MB) on every PE where equal slots took
  // 64 x 27,648 (1 GB).
  const uint64_t big = control_bytes(plan_slots(27648, 6, 64, kScratch));
  EXPECT_GE(big, 91776ull * kPerMember);
  EXPECT_LT(big, 91776ull * kPerMember + 64 * 256);
}

TEST(TeamSlots, NodeSlotsHoldTheLargestNode) {
  const SlotPlan p = plan_slots(4096, 4096, 64, kScratch);  // one node (the harness on one machine)
  EXPECT_EQ(p.capacity[1], 4096);
  EXPECT_EQ(p.capacity[2], 4096);
}

TEST(TeamSlots, ChooseTakesTheSmallestSlotThatFits) {
  const SlotPlan p = plan_slots(4096, 8, 64, kScratch);
  int slot = -1, size = 8;
  ASSERT_TRUE(choose_slots(p, all_free(), &size, 1, &slot));
  EXPECT_EQ(p.capacity[slot], kSmallTeam);
  size = 4096;
  ASSERT_TRUE(choose_slots(p, all_free(), &size, 1, &slot));
  EXPECT_EQ(slot, 3);
  size = 1500;  // more than a quarter: only the full slot holds it
  ASSERT_TRUE(choose_slots(p, all_free(), &size, 1, &slot));
  EXPECT_EQ(slot, 3);
  size = 1000;
  ASSERT_TRUE(choose_slots(p, all_free(), &size, 1, &slot));
  EXPECT_EQ(p.capacity[slot], 1024);
  EXPECT_EQ(slot, 4) << "lowest index among equals";
}

TEST(TeamSlots, ChooseTwoDistinctSlotsLargerFirst) {
  const SlotPlan p = plan_slots(4096, 8, 64, kScratch);
  const int sizes[2] = {64, 4096};  // split_2d's x (row) and y (column) teams
  int slots[2] = {-1, -1};
  ASSERT_TRUE(choose_slots(p, all_free(), sizes, 2, slots));
  EXPECT_EQ(slots[1], 3);
  EXPECT_NE(slots[0], slots[1]);
  EXPECT_EQ(p.capacity[slots[0]], kSmallTeam);
}

TEST(TeamSlots, ChooseFailsWhenNoFreeSlotHoldsTheTeam) {
  const SlotPlan p = plan_slots(4096, 8, 64, kScratch);
  std::vector<uint64_t> bits = all_free();
  bits[0] &= ~(1ull << 3);  // the one full-size split slot is taken
  int slot = -1, size = 2000;
  EXPECT_FALSE(choose_slots(p, bits, &size, 1, &slot));
  size = 1024;
  EXPECT_TRUE(choose_slots(p, bits, &size, 1, &slot));
  const int predefined_only = 4096;
  std::vector<uint64_t> none(GSHMEMI_TEAM_CHECK_WORDS, 0);
  none[0] = 0x7;  // only WORLD, SHARED, NODE "free": never chosen
  EXPECT_FALSE(choose_slots(p, none, &predefined_only, 1, &slot));
}

}  // namespace

// gshmemi_team::node_run: equal runs of consecutive members per node, else 1 (flat).
TEST(TeamSlots, NodeRunGroupsEqualRunsOfConsecutiveMembers) {
  using gshmem::team::node_run_of;
  const std::vector<int> one;                         // one node
  const std::vector<int> two_by_two = {0, 0, 2, 2};   // gshmrun -n 4 --sim-nodes 2
  const std::vector<int> uneven = {0, 0, 0, 3};       // nodes of 3 and 1 PEs
  const std::vector<int> interleaved = {0, 1, 0, 1};  // PEs of a node not consecutive
  const std::vector<int> each = {0, 1, 2, 3};         // GSHMEM_DISABLE_P2P: a node a PE
  EXPECT_EQ(4, node_run_of(one, 0, 1, 4));
  EXPECT_EQ(2, node_run_of(two_by_two, 0, 1, 4));  // world: 2 nodes of 2
  EXPECT_EQ(1, node_run_of(two_by_two, 1, 1, 3));  // tail 1..3: runs of 1 and 2
  EXPECT_EQ(1, node_run_of(two_by_two, 0, 2, 2));  // evens: one PE a node
  EXPECT_EQ(2, node_run_of(two_by_two, 2, 1, 2));  // one node's PEs: the whole team
  EXPECT_EQ(1, node_run_of(uneven, 0, 1, 4));
  EXPECT_EQ(1, node_run_of(interleaved, 0, 1, 4));  // node 0 would be two runs
  EXPECT_EQ(2, node_run_of(interleaved, 0, 2, 2));  // PEs 0, 2: one node
  EXPECT_EQ(1, node_run_of(each, 0, 1, 4));
  EXPECT_EQ(1, node_run_of(two_by_two, 0, 1, 0));
}

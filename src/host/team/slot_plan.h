// SPDX-License-Identifier: BSD-3-Clause
// The team slot region's layout: how many PEs each slot's control words are sized for, and
// where each slot starts. Pure and host-only (no CUDA), so that unit tests and the host-only
// start-up harness (tools/bootstrap-harness) compute what gshmem_init reserves.
//
// Why slots of different sizes: a slot's control words cost GSHMEMI_TEAM_CTRL_WORDS * 8 = 568
// bytes per member it can hold. Sizing all GSHMEM_MAX_TEAMS (64) slots for n_pes cost
// 64 * 568 * n_pes bytes on every PE: 36 KB per PE of the job, 1 GB at 27,648 PEs. Instead
//   slot 0 (TEAM_WORLD)            holds n_pes,
//   slots 1, 2 (SHARED, NODE)      hold the largest node's PEs (every PE knows it: init's host ids),
//   split slots, in classes c = 0, 1, 2, ...: class c has 2^c slots holding n_pes / 4^c,
//   and no slot holds fewer than min(n_pes, kSmallTeam) PEs,
// so the split slots together hold about 2 * n_pes + 61 * kSmallTeam members and the region's
// control is O(n_pes) with a small constant (docs/design.md, "bytes per PE"). Up to kSmallTeam
// PEs every slot holds every team, as before. A split takes the free slot (on every member) with
// the smallest capacity that holds the team, lowest index first: big slots stay for big teams.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gshmem/detail/host_entry_coll.h"

namespace gshmem::team {

// Every slot holds at least this many PEs (or n_pes, if fewer): teams up to this size never
// compete for the large slots.
constexpr int kSmallTeam = 256;
// Predefined teams occupy the first slots (WORLD = 0, SHARED = 1, NODE = 2).
constexpr int kPredefinedSlots = 3;

struct SlotPlan {
  std::vector<int> capacity;     // [slot]: largest team the slot holds
  std::vector<uint64_t> offset;  // [slot + 1]: byte offset of each slot in the region; back() = region size
  std::vector<uint64_t> ctrl;    // [slot]: bytes of control words (the rest of the slot is scratch)
  uint64_t region_bytes() const { return offset.empty() ? 0 : offset.back(); }
};

// The proxy sync words (gshmemi_proxy_channel.sync_words; host memory, not part of the region):
// GSHMEMI_TEAM_PROXY_SYNC_WORDS per slot, slot after slot. The index of the word that counts the
// proxied sync signals to the flag at byte `off` of the region: that flag's slot k and index j in
// the slot's sync flags give k * GSHMEMI_TEAM_PROXY_SYNC_WORDS + j; -1 when `off` is not one of
// the first GSHMEMI_TEAM_PROXY_SYNC_WORDS sync flags of a slot. `offset`: SlotPlan::offset.
inline int64_t proxy_sync_index(const std::vector<uint64_t>& offset, const std::vector<int>& capacity, uint64_t off) {
  if (offset.size() < 2 || off % sizeof(uint64_t) != 0 || off >= offset.back()) return -1;
  const size_t k = static_cast<size_t>(std::upper_bound(offset.begin(), offset.end(), off) - offset.begin()) - 1;
  const uint64_t j = (off - offset[k]) / sizeof(uint64_t);
  if (k >= capacity.size() || j >= GSHMEMI_TEAM_PROXY_SYNC_WORDS || j >= static_cast<uint64_t>(capacity[k])) return -1;
  return static_cast<int64_t>(k * GSHMEMI_TEAM_PROXY_SYNC_WORDS + j);
}

inline uint64_t slot_align(uint64_t x) { return (x + 255) / 256 * 256; }

inline uint64_t slot_ctrl_bytes(int members) {
  return slot_align(static_cast<uint64_t>(GSHMEMI_TEAM_CTRL_WORDS) * sizeof(uint64_t) * static_cast<uint64_t>(members));
}

// The predefined teams (WORLD, SHARED, NODE) reserve this many times a split team's scratch:
// they carry most of a job's reductions and live as long as it, and a larger scratch moves the
// reductions' switch from the one-round push path to the pull path up (reduce_layout.cuh;
// push up to about scratch / (2 x team size) bytes). Measured on 2 x H200, in a CUDA graph,
// 4 MiB against 1 MiB: allreduce float 256 KiB 9.97 -> 6.67 us (NCCL 8.3), 512 KiB
// 10.47 -> 7.95; reducescatter 512 KiB 9.64 -> 6.63, 1 MiB 10.26 -> 7.96; no size slower.
constexpr uint64_t kPredefinedScratchFactor = 4;

// `slots` >= kPredefinedSlots + 1; max_node_size <= n_pes. scratch_bytes: a split team's; the
// predefined teams' is kPredefinedScratchFactor times it.
inline SlotPlan plan_slots(int n_pes, int max_node_size, int slots, uint64_t scratch_bytes) {
  SlotPlan p;
  const int floor = n_pes < kSmallTeam ? n_pes : kSmallTeam;
  auto at_least_floor = [floor](long long c) { return static_cast<int>(c < floor ? floor : c); };
  p.capacity.push_back(n_pes);
  p.capacity.push_back(at_least_floor(max_node_size));
  p.capacity.push_back(at_least_floor(max_node_size));
  long long cls_size = n_pes, cls_slots = 1, left_in_cls = 1;
  for (int s = kPredefinedSlots; s < slots; ++s) {
    p.capacity.push_back(at_least_floor(cls_size));
    if (--left_in_cls == 0) {
      cls_slots *= 2;
      left_in_cls = cls_slots;
      cls_size = (cls_size + 3) / 4;
    }
  }
  const uint64_t scratch = slot_align(scratch_bytes);
  p.offset.push_back(0);
  for (size_t k = 0; k < p.capacity.size(); ++k) {
    p.ctrl.push_back(slot_ctrl_bytes(p.capacity[k]));
    const uint64_t mine = k < kPredefinedSlots ? kPredefinedScratchFactor * scratch : scratch;
    p.offset.push_back(p.offset.back() + p.ctrl.back() + mine);
  }
  return p;
}

// Picks a slot for each of `count` teams of sizes[i] members among the slots marked in `free_bits`
// (bit k of word k / 64), distinct slots, each the free one of least capacity that holds its
// team, lowest index first; larger teams choose first. The same inputs give the same answer on
// every member. False when some team finds no slot.
inline bool choose_slots(const SlotPlan& p, const std::vector<uint64_t>& free_bits, const int* sizes, int count,
                         int* out) {
  std::vector<uint64_t> bits(free_bits);
  std::vector<int> order;
  for (int i = 0; i < count; ++i) order.push_back(i);
  for (int i = 1; i < count; ++i)  // by size, largest first (count is 1 or 2)
    for (int j = i; j > 0 && sizes[order[j]] > sizes[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  for (int i : order) {
    int best = -1;
    for (int k = kPredefinedSlots; k < static_cast<int>(p.capacity.size()); ++k) {
      if (static_cast<size_t>(k / 64) >= bits.size() || !(bits[k / 64] >> (k % 64) & 1)) continue;
      if (p.capacity[k] < sizes[i]) continue;
      if (best < 0 || p.capacity[k] < p.capacity[best]) best = k;
    }
    if (best < 0) return false;
    bits[best / 64] &= ~(1ull << (best % 64));
    out[i] = best;
  }
  return true;
}

}  // namespace gshmem::team

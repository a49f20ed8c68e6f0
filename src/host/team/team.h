// SPDX-License-Identifier: BSD-3-Clause
// Teams, host side. A team lives in a slot (its handle): the same slot index on
// every member, agreed when the team is made. Every slot owns a fixed part of
// one symmetric region reserved at init (so making a team allocates nothing
// and involves only the parent team's members):
//
//   slot k = team_region + offset[k]     (slot_plan.h: the layout, and why slots differ)
//     control: sync_flags[M] coll_flags[M] lanes[GSHMEMI_COLL_MAX_LANES][M]
//              counts[M] check[M][GSHMEMI_TEAM_CHECK_WORDS]   (M = team size <= the slot's
//              capacity: GSHMEMI_TEAM_CTRL_WORDS * 8 * capacity bytes, 256-aligned)
//     scratch: GSHMEM_TEAM_SCRATCH_SIZE bytes (256-aligned; x4 for the predefined teams)
//
// Lifecycle: init.cpp calls setup() (WORLD = slot 0, SHARED = 1, NODE = 2);
// split.cu installs / uninstalls the others; teardown() at finalize.
// docs/teams.md has the algorithms and costs.
#pragma once

#include <cstdint>
#include <vector>

#include "gshmem/types.h"
#include "host/core/runtime.h"
#include "slot_plan.h"

namespace gshmem::team {

// Predefined teams occupy the first slots.
constexpr int kPredefined = kPredefinedSlots;  // (slot_plan.h sizes them)
// Most slots GSHMEM_MAX_TEAMS may ask for: a slot bitmap fits the check words
// that split exchanges (GSHMEMI_TEAM_CHECK_WORDS x 64 bits).
constexpr int kMaxSlots = 64 * 4;
static_assert(kMaxSlots - 1 <= GSHMEMI_TEAM_SLOT_MASK, "a slot fits the team flags' slot bits");

// The slot layout of this run (slot_plan.h), from r.n_pes, r.max_node_size and the configuration.
SlotPlan plan(const Runtime& r);
// Slots per PE this run uses (GSHMEM_MAX_TEAMS, clamped to [kPredefined + 1, kMaxSlots]).
int max_teams_config();

// At init, after the heap exists: `region` (region_bytes(), zeroed, symmetric)
// becomes the slots; WORLD, SHARED and NODE are installed. `proxy`: the job has a proxy
// (hproxy::needed): the teams get proxy sync words (gshmemi_proxy_channel.sync_words).
Status setup(Runtime& r, char* region, bool proxy);
// At finalize / failed init: frees what setup() made (not the heap region).
void teardown(Runtime& r);

// The team if `team` is a valid team of this PE, else nullptr.
const gshmemi_team* lookup(gshmem_team_t team);
// Same, logging "<call>: team <team> is not a valid team of this PE ..." when not.
const gshmemi_team* require(const char* call, gshmem_team_t team);

// Installs a team in `slot` on this PE (member `my_index` of start/stride/size
// world PEs): zeroes the slot's control words, scratch and epoch counters on
// `stream`, updates the host mirror and the device table. Not collective; the
// caller synchronises the members before the team is used.
Status install(const char* call, int slot, int start, int stride, int size, int my_index,
               const gshmem_team_config_t& config, cudaStream_t stream);
// Marks `slot` free on this PE (host mirror and device table).
Status uninstall(const char* call, int slot);

// Collective over `team` (every member calls): each member contributes
// GSHMEMI_TEAM_CHECK_WORDS words; *all receives every member's, in team PE
// order. Runs on `stream` (through the team's check words) and waits for it.
// Uses the team's data-movement sequence like any collective of the team.
Status allgather_words(const char* call, gshmem_team_t team, const uint64_t* mine, cudaStream_t stream,
                       std::vector<uint64_t>* all);

// The proxy sync word (host memory) that counts the proxied sync signals to the team sync flag
// at `heap_offset` (from the heap's base), or nullptr when none does (no proxy, or not such a
// flag). For the proxy thread: reads only what setup() fixed.
uint64_t* proxy_sync_word(uint64_t heap_offset);

// Bitmap of the slots free on this PE (bit k of word k/64), GSHMEMI_TEAM_CHECK_WORDS words.
std::vector<uint64_t> free_slots();

}  // namespace gshmem::team

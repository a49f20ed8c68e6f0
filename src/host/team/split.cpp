// SPDX-License-Identifier: BSD-3-Clause
// gshmem_team_split_strided, gshmem_team_split_2d, gshmem_team_destroy.
//
// A split is collective over the parent team only:
//   1. every parent member checks the arguments (the same on all of them, so all
//      fail alike without communicating);
//   2. the members all-gather their free-slot bitmaps through the parent's check
//      words (team::allgather_words) and AND them: the lowest slot(s) free on
//      every member become the new team(s) - deterministic, so every member of a
//      new team gets the same handle, and disjoint teams may share a slot;
//   3. each member of a new team installs it in that slot (zeroed control words
//      and scratch), then the parent syncs, so nobody signals into a slot that a
//      member has not cleared yet.
// No slot free on every member: all members fail with the same message.
// Destroy is collective over the team: a sync, so no member still writes into
// the slot when it is reused.
#include <cuda_runtime.h>

#include <algorithm>

#include "gshmem/detail/host_entry_coll.h"
#include "team.h"

namespace gshmem::team {
namespace {

gshmem_team_config_t effective_config(const gshmem_team_config_t* config, long mask) {
  gshmem_team_config_t c{};
  if (config && (mask & GSHMEM_TEAM_NUM_CONTEXTS)) c.num_contexts = config->num_contexts;
  return c;
}

// Slots for `count` new teams of sizes[i] PEs, free on every member of `parent` (collective over
// the parent): each the free slot of least capacity that holds it (slot_plan.h).
Status agree_on_slots(const char* call, gshmem_team_t parent, int count, const int* sizes, int* slots) {
  std::vector<uint64_t> all;
  const std::vector<uint64_t> mine = free_slots();
  GSHMEM_TRY(allgather_words(call, parent, mine.data(), internal_stream(), &all));
  std::vector<uint64_t> common(mine);
  for (size_t i = 0; i < all.size(); ++i) common[i % common.size()] &= all[i];
  const Runtime& r = rt();
  SlotPlan p;
  p.capacity = r.team_slot_capacity;
  if (choose_slots(p, common, sizes, count, slots)) return GSHMEM_SUCCESS;
  int used = 0, big = 0;
  const int need = *std::max_element(sizes, sizes + count);
  for (size_t k = 0; k < r.teams.size(); ++k) {
    used += r.teams[k].size > 0;
    big += k >= static_cast<size_t>(kPredefined) && r.team_slot_capacity[k] >= need;
  }
  GSHMEM_LOG_ERROR(
      "%s: no team slot is free on every PE of parent team %d (%d of GSHMEM_MAX_TEAMS=%zu slots are "
      "in use on this PE; a new team needs a slot free on all parent PEs, and of the slots only %d "
      "hold a team of %d PEs). Destroy teams that are no longer needed (gshmem_team_destroy) or "
      "raise GSHMEM_MAX_TEAMS. No team was created.",
      call, parent, used, r.teams.size(), big, need);
  return GSHMEM_ERROR_OUT_OF_MEMORY;
}

// The parent team of a split, if it is a valid team of this PE. An invalid parent returns
// at once, logged at INFO only: PEs outside a team pass GSHMEM_TEAM_INVALID on purpose
// (docs/teams.md).
Status parent_team(const char* call, gshmem_team_t parent, gshmemi_team* out) {
  const gshmemi_team* p = lookup(parent);
  if (!p) {
    GSHMEM_LOG_INFO("%s: parent team %d is not a valid team of this PE; no team created", call, parent);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  *out = *p;
  return GSHMEM_SUCCESS;
}

// Installs the part of a split that concerns this PE, then syncs the parent.
struct NewTeam {
  int slot;
  int start, stride, size;  // in parent team PEs
  int my_index;             // -1: this PE is not a member
  gshmem_team_config_t config;
};

Status finish_split(const char* call, const gshmemi_team& parent, gshmem_team_t parent_handle, const NewTeam* teams,
                    int count) {
  Status st = GSHMEM_SUCCESS;
  for (int i = 0; i < count && st == GSHMEM_SUCCESS; ++i) {
    const NewTeam& n = teams[i];
    if (n.my_index < 0) continue;
    // In world PEs. A team of one keeps stride 1, whatever it was split with: chained
    // splits multiply strides, which would otherwise overflow (to 0 or negative).
    // With two members or more, (size-1) * stride spans less than the parent, so the
    // product stays below the number of PEs.
    const int stride = n.size == 1 ? 1 : n.stride * parent.stride;
    st = install(call, n.slot, parent.start + n.start * parent.stride, stride, n.size, n.my_index, n.config,
                 internal_stream());
  }
  // Every member's slot is cleared before any member may use the new team.
  const int sync = gshmemi_host_team_sync(call, parent_handle, 0, GSHMEMI_COLL_BLOCKING, nullptr);
  if (st != GSHMEM_SUCCESS) return st;
  return sync;
}

Status split_strided(const char* call, gshmem_team_t parent, int start, int stride, int size,
                     const gshmem_team_config_t* config, long mask, gshmem_team_t* new_team) {
  if (!new_team) {
    GSHMEM_LOG_ERROR("%s: new_team is NULL; pass the address of a gshmem_team_t (every parent PE must)", call);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  *new_team = GSHMEM_TEAM_INVALID;
  GSHMEM_TRY(require_init(call));
  gshmemi_team par;
  GSHMEM_TRY(parent_team(call, parent, &par));
  if (size == 1 && stride == 0) stride = 1;  // a single PE: the stride does not matter
  const long long last = static_cast<long long>(start) + static_cast<long long>(size - 1) * stride;
  if (start < 0 || size < 1 || stride < 1 || start >= par.size || last >= par.size) {
    GSHMEM_LOG_ERROR(
        "%s: start %d, stride %d, size %d do not describe PEs of parent team %d (%d PEs): need "
        "size >= 1, stride >= 1 and 0 <= start <= start + (size-1)*stride < %d. No team created "
        "(on every parent PE).",
        call, start, stride, size, parent, par.size, par.size);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  NewTeam n{0, start, stride, size, -1, effective_config(config, mask)};
  GSHMEM_TRY(agree_on_slots(call, parent, 1, &size, &n.slot));
  const int d = par.my_pe - start;
  if (d >= 0 && d % stride == 0 && d / stride < size) n.my_index = d / stride;
  GSHMEM_TRY(finish_split(call, par, parent, &n, 1));
  if (n.my_index >= 0) *new_team = n.slot;
  return GSHMEM_SUCCESS;
}

Status split_2d(const char* call, gshmem_team_t parent, int xrange, const gshmem_team_config_t* xconfig, long xmask,
                gshmem_team_t* xteam, const gshmem_team_config_t* yconfig, long ymask, gshmem_team_t* yteam) {
  if (!xteam || !yteam) {
    GSHMEM_LOG_ERROR("%s: xaxis_team or yaxis_team is NULL; pass the addresses of two gshmem_team_t", call);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  *xteam = *yteam = GSHMEM_TEAM_INVALID;
  GSHMEM_TRY(require_init(call));
  gshmemi_team par;
  GSHMEM_TRY(parent_team(call, parent, &par));
  if (xrange < 1) {
    GSHMEM_LOG_ERROR(
        "%s: xrange %d is not positive; it is the number of PEs in each x-axis (row) team. No team "
        "created (on every parent PE).",
        call, xrange);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (xrange > par.size) xrange = par.size;  // one row holding the whole parent
  // The largest row and column: every member passes the same sizes, whatever its own row.
  const int sizes[2] = {xrange, (par.size + xrange - 1) / xrange};
  int slots[2];
  GSHMEM_TRY(agree_on_slots(call, parent, 2, sizes, slots));
  const int me = par.my_pe, row = me / xrange, col = me % xrange;
  NewTeam n[2] = {
      // x axis: my row, consecutive parent PEs (the last row may be short)
      {slots[0], row * xrange, 1, std::min(xrange, par.size - row * xrange), col, effective_config(xconfig, xmask)},
      // y axis: my column, every xrange-th parent PE
      {slots[1], col, xrange, (par.size - col + xrange - 1) / xrange, row, effective_config(yconfig, ymask)},
  };
  GSHMEM_TRY(finish_split(call, par, parent, n, 2));
  *xteam = n[0].slot;
  *yteam = n[1].slot;
  return GSHMEM_SUCCESS;
}

void destroy(const char* call, gshmem_team_t team) {
  if (require_init(call) != GSHMEM_SUCCESS || team == GSHMEM_TEAM_INVALID) return;
  if (team >= 0 && team < kPredefined) {
    GSHMEM_LOG_WARN(
        "%s: team %d is a predefined team (WORLD, SHARED or NODE), which exists until "
        "gshmem_finalize; ignoring the call",
        call, team);
    return;
  }
  if (!lookup(team)) {
    GSHMEM_LOG_INFO("%s: team %d is not a valid team of this PE; nothing to destroy", call, team);
    return;
  }
  // Kernels of this PE that may still use the team finish first (as in gshmem_free);
  // the sync then waits until no member uses it.
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    GSHMEM_LOG_ERROR("%s: GPU error before destroying team %d: %s", call, team, cudaGetErrorString(e));
  gshmemi_host_team_sync(call, team, 0, GSHMEMI_COLL_BLOCKING, nullptr);
  uninstall(call, team);
}

}  // namespace
}  // namespace gshmem::team

using namespace gshmem;

extern "C" {

GSHMEM_API int gshmemi_host_team_split_strided(gshmem_team_t parent, int start, int stride, int size,
                                               const gshmem_team_config_t* config, long config_mask,
                                               gshmem_team_t* new_team) {
  return team::split_strided("gshmem_team_split_strided", parent, start, stride, size, config, config_mask, new_team);
}

GSHMEM_API int gshmemi_host_team_split_2d(gshmem_team_t parent, int xrange, const gshmem_team_config_t* xaxis_config,
                                          long xaxis_mask, gshmem_team_t* xaxis_team,
                                          const gshmem_team_config_t* yaxis_config, long yaxis_mask,
                                          gshmem_team_t* yaxis_team) {
  return team::split_2d("gshmem_team_split_2d", parent, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config,
                        yaxis_mask, yaxis_team);
}

GSHMEM_API void gshmemi_host_team_destroy(gshmem_team_t team) { team::destroy("gshmem_team_destroy", team); }

}  // extern "C"

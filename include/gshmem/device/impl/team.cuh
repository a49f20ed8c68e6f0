// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/team.cuh, and the team internals every team operation uses:
// lookup, PE translation, and where a team's control words live.
//
// Control words of a team of M PEs (all symmetric among the members, set up by
// src/host/team/; sizes in host_entry_coll.h, costs in docs/teams.md):
//   sync_flags[M]                      team_sync / barrier (impl/sync.cuh)
//   coll_flags[M]                      free for other collectives (reductions)
//   lanes[GSHMEMI_COLL_MAX_LANES][M]   data-movement flags: lanes[s][w] on PE p is
//                                      written only by team PE w (lane s), and only
//                                      with growing values, so a waiter that sees
//                                      a value >= its target has everything w
//                                      released before it (impl/coll_common.cuh)
//   counts[M]                          per-PE byte counts (collect)
//   check[M][GSHMEMI_TEAM_CHECK_WORDS] argument records (host debug checks)
// The slots lanes[s][my_pe] of the own PE are never written by another PE; two
// of them hold local counters: lanes[0][me] the team's data-movement sequence
// number, lanes[1][me] the CTA arrival count of a multi-CTA collective.
#pragma once

#include <cstdint>
#include <cstdio>

#include "../scope.cuh"
#include "../team.cuh"
#include "gshmem/detail/host_entry_coll.h"
#include "memops.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

// Whether a team table entry is a team this PE belongs to (a free slot has size
// 0; a member's my_pe is its team PE number, a non-member's -1).
__device__ __forceinline__ bool is_team_of_this_pe(const gshmemi_team& t) { return t.size > 0 && t.my_pe >= 0; }

// `team` if it is a valid team this PE belongs to, else nullptr.
__device__ __forceinline__ const gshmemi_team* team_lookup(gshmem_team_t team) {
  const gshmemi_device_state& s = state();
  if (team < 0 || team >= s.max_teams || s.teams == nullptr) return nullptr;
  const gshmemi_team* t = s.teams + team;
  return is_team_of_this_pe(*t) ? t : nullptr;
}

// The entry of `team` by value, or false if it is not a valid team of this PE.
// By value because the team operations fence: after a fence L1 is cold, so a
// field read through memory would be an L2 round trip on the critical path,
// where a copy taken first stays in registers. The world team's entry comes from
// the __constant__ state (state().world), whose cache no fence empties, so a
// world-team barrier or collective loads nothing from global memory to start.
__device__ __forceinline__ bool team_entry(gshmem_team_t team, gshmemi_team* out) {
  const gshmemi_device_state& s = state();
  if (team == GSHMEM_TEAM_WORLD)
    *out = s.world;
  else if (team > 0 && team < s.max_teams && s.teams != nullptr)
    *out = s.teams[team];
  else
    return false;
  return is_team_of_this_pe(*out);
}
// The same for a team the caller has already checked (host-launched kernels).
__device__ __forceinline__ gshmemi_team team_entry(gshmem_team_t team) {
  gshmemi_team t;
  team_entry(team, &t);
  return t;
}

// World PE of team PE i.
__device__ __forceinline__ int team_world_pe(const gshmemi_team& t, int i) { return t.start + i * t.stride; }

// Team PE number of world PE `pe`, or -1 if it is not a member.
__device__ __forceinline__ int team_index_of(const gshmemi_team& t, int pe) {
  const int d = pe - t.start;
  if (d < 0 || d % t.stride != 0) return -1;
  const int i = d / t.stride;
  return i < t.size ? i : -1;
}

__device__ __forceinline__ uint64_t* team_lanes(const gshmemi_team& t) { return t.coll_flags + t.size; }
// lanes[s][w]: written by team PE w for lane s.
__device__ __forceinline__ uint64_t* lane_flag(const gshmemi_team& t, int s, int w) {
  return team_lanes(t) + static_cast<size_t>(s) * t.size + w;
}
__device__ __forceinline__ uint64_t* team_counts(const gshmemi_team& t) {
  return team_lanes(t) + static_cast<size_t>(GSHMEMI_COLL_MAX_LANES) * t.size;
}
// check[M][GSHMEMI_TEAM_CHECK_WORDS] (host debug checks, team-slot agreement).
__device__ __forceinline__ uint64_t* team_check(const gshmemi_team& t) { return team_counts(t) + t.size; }
__device__ __forceinline__ uint64_t* move_counter(const gshmemi_team& t) { return lane_flag(t, 0, t.my_pe); }
__device__ __forceinline__ uint64_t* arrival_counter(const gshmemi_team& t) { return lane_flag(t, 1, t.my_pe); }

// Debug builds: one line naming the call, the PE, the cause and the remedy.
static __device__ __noinline__ void report_bad_team(const char* call, gshmem_team_t team) {
  const gshmemi_device_state& s = state();
  report_printf(
      "gshmem ERROR [PE %lld]: %s: team %lld is not a valid team of this PE (GSHMEM_TEAM_INVALID, destroyed, "
      "or a team this PE is not a member of) (block %lld thread %lld); call team operations only with teams "
      "for which gshmem_team_my_pe(team) >= 0\n",
      s.version ? s.my_pe : -1, call, team, static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
}

// Rank 0 of the scope reports, every thread traps (out of line and not returning, as every
// report: impl/report.cuh).
template <class Scope>
[[noreturn]] static __device__ __noinline__ void fail_team(const char* call, gshmem_team_t team) {
  const bool reporter = Scope::rank() == 0;
  if (reporter) report_bad_team(call, team);
  trap_after_report(reporter);
}

// The entry of the team of a team operation by the threads of Scope (team_entry),
// or false (debug builds: the scope's rank 0 reports it and traps).
template <class Scope>
__device__ __forceinline__ bool team_for_call(const char* call, gshmem_team_t team, gshmemi_team* out) {
  const bool valid = team_entry(team, out);
#if defined(GSHMEM_DEBUG_CHECKS)
  if (!valid) fail_team<Scope>(call, team);
#else
  (void)call;
#endif
  return valid;
}

// A collective of a team with members on other nodes in a build without the proxy
// (GSHMEMI_PROXY_PATH=0): rank 0 of the scope says so, every thread traps.
template <class Scope>
[[noreturn]] static __device__ __noinline__ void fail_spans_nodes(const char* call, int size) {
  const bool reporter = Scope::rank() == 0;
  if (reporter)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: the team (%lld PEs) has members on other nodes, which this code reaches only "
        "through the proxy, and it was compiled without the proxy path (GSHMEMI_PROXY_PATH=0) (block %lld thread "
        "%lld). Build without GSHMEMI_PROXY_PATH=0, or use a team of one node (GSHMEM_TEAM_SHARED, "
        "GSHMEMX_TEAM_NODE)\n",
        state().my_pe, call, size, static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  trap_after_report(reporter);
}

// Whether the team's collectives take the spanning path: one test of the entry's flags. With
// GSHMEMI_PROXY_PATH=0 (no proxy compiled in) such a team cannot be served: the call traps, and
// the callers compile their spanning calls out (`if constexpr (kProxyPath)`).
template <class Scope>
__device__ __forceinline__ bool spans_nodes(const char* call, const gshmemi_team& t) {
  if (__builtin_expect((t.flags & GSHMEMI_TEAM_SPANS_NODES) != 0, 0)) {
    if constexpr (!kProxyPath) fail_spans_nodes<Scope>(call, t.size);
    return true;
  }
  return false;
}

}  // namespace detail

__device__ inline int team_my_pe(gshmem_team_t team) {
  const gshmemi_team* t = detail::team_lookup(team);
  return t ? t->my_pe : -1;
}

__device__ inline int team_n_pes(gshmem_team_t team) {
  const gshmemi_team* t = detail::team_lookup(team);
  return t ? t->size : -1;
}

__device__ inline int team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team) {
  const gshmemi_team* s = detail::team_lookup(src_team);
  const gshmemi_team* d = detail::team_lookup(dest_team);
  if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
  return detail::team_index_of(*d, detail::team_world_pe(*s, src_pe));
}

__device__ inline void* team_ptr(gshmem_team_t team, const void* dest, int pe) {
  const gshmemi_team* t = detail::team_lookup(team);
  const gshmemi_device_state& s = detail::state();
  const char* a = static_cast<const char*>(dest);
  if (!t || pe < 0 || pe >= t->size || a < s.heap_base || a >= s.heap_base + s.heap_size) return nullptr;
  return detail::peer_address(const_cast<void*>(dest), detail::team_world_pe(*t, pe));
}

}  // namespace gshmem

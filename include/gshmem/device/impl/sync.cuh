// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/sync.cuh.
#pragma once

#include "../sync.cuh"
#include "memops.cuh"
#include "state.cuh"
#include "team.cuh"
#include "gshmem/types.h"

namespace gshmem {

__device__ inline int my_pe() { return detail::state().my_pe; }
__device__ inline int n_pes() { return detail::state().n_pes; }

__device__ inline void fence() { detail::fence_acq_rel_sys(); }

template <class Scope>
__device__ inline void quiet() {
  // The scope barrier orders every thread's operations before one fence.sc.sys
  // by the group's first thread (cumulative, as in the barriers); the second
  // barrier holds the group until it completed. One system fence per group
  // instead of one per thread.
  Scope::sync();
  if (Scope::rank() == 0) detail::fence_sc_sys();
  Scope::sync();
}

namespace detail {

static __device__ __noinline__ void report_wait_timeout(const char* what, int waiting_for, uint64_t seconds) {
  printf("gshmem ERROR [PE %d]: %s: still waiting for PE %d after %llu s (GSHMEM_WAIT_TIMEOUT); "
         "that PE is stuck, dead, or did not enter the same collective. Trapping.\n",
         state().my_pe, what, waiting_for, static_cast<unsigned long long>(seconds));
  __trap();
}

// Spin until *flag >= target (acquire). Bounded when GSHMEM_WAIT_TIMEOUT is set.
__device__ __forceinline__ void wait_epoch(const uint64_t* flag, uint64_t target, const char* what, int peer) {
  if (ld_acquire_sys(flag) >= target) return;
  wait_deadline d;
  while (ld_acquire_sys(flag) < target)
    if (d.expired()) report_wait_timeout(what, peer, d.timeout_ns / 1000000000ull);
}

// Teams up to this size synchronise all-to-all (one round trip, the scope's
// threads share the members); larger ones by dissemination (ceil(log2 M) rounds).
// GSHMEMI_ALLTOALL_SYNC_MAX lets a test force dissemination on small teams (all
// code syncing one team must then agree on it: the library's host forms do not).
#if defined(GSHMEMI_ALLTOALL_SYNC_MAX)
constexpr int kAllToAllSyncMax = GSHMEMI_ALLTOALL_SYNC_MAX;
#else
constexpr int kAllToAllSyncMax = 32;
#endif

// Epoch signalling over a team. Every member counts its syncs of the team in
// t.sync_epoch (host, stream and device syncs share the counter) and signals the
// new epoch into peers' sync_flags with a release pattern; waits acquire. Epochs
// only grow and every slot has one writer, so a fast PE already in the next
// sync can never be mistaken for the current one.
//   all-to-all:    member i writes slot i of every other member, then waits
//                  until every slot of its own array reached the epoch;
//   dissemination: in round r member i writes slot r of member i + 2^r and waits
//                  for slot r of its own array (written by member i - 2^r); the
//                  release/acquire chain carries every member's earlier writes
//                  to every other member (happens-before is transitive).
// The release: after Scope::sync() each signalling thread runs one fence
// (fence.sc.sys with `quiet`, which barriers need, else fence.acq_rel.sys) and
// then relaxed stores. The fence comes after the scope barrier, so it is
// cumulative over every thread of the scope (as in put_signal), and a thread
// signalling several peers pays for it once: a fence costs 0.64 us on H200,
// more than the flag's flight (docs/memory-model.md).
template <class Scope>
__device__ __forceinline__ void team_sync_epoch(const gshmemi_team& t, const char* what, bool quiet = false) {
  // The first peer's flag address is computed before the fence, which would
  // otherwise wait for these loads (and they for it).
  const int first = Scope::rank();
  uint64_t* first_to = first < t.size && first != t.my_pe && t.size <= kAllToAllSyncMax
                           ? peer_address(t.sync_flags + t.my_pe, team_world_pe(t, first))
                           : nullptr;
  const uint64_t epoch = ld_volatile(t.sync_epoch) + 1;
  Scope::sync();  // every thread read the epoch; their earlier operations precede the fences
  if (t.size <= kAllToAllSyncMax) {
    bool fenced = false;
    for (int i = first; i < t.size; i += Scope::size()) {
      if (i == t.my_pe) continue;
      if (!fenced) {
        if (quiet) fence_sc_sys();
        else fence_acq_rel_sys();
        fenced = true;
      }
      st_relaxed_sys(i == first ? first_to : peer_address(t.sync_flags + t.my_pe, team_world_pe(t, i)), epoch);
    }
    if (Scope::rank() == 0) st_volatile(t.sync_epoch, epoch);
    for (int i = Scope::rank(); i < t.size; i += Scope::size()) {
      if (i == t.my_pe) continue;
      wait_epoch(t.sync_flags + i, epoch, what, team_world_pe(t, i));
    }
  } else if (Scope::rank() == 0) {
    if (quiet) fence_sc_sys();
    st_volatile(t.sync_epoch, epoch);
    for (int r = 0, d = 1; d < t.size; ++r, d <<= 1) {
      const int to = (t.my_pe + d) % t.size, from = (t.my_pe + t.size - d) % t.size;
      st_release_sys(peer_address(t.sync_flags + r, team_world_pe(t, to)), epoch);
      wait_epoch(t.sync_flags + r, epoch, what, team_world_pe(t, from));
    }
  }
  Scope::sync();
}

__device__ __forceinline__ const gshmemi_team& world_team() { return state().teams[GSHMEM_TEAM_WORLD]; }

}  // namespace detail

template <class Scope>
__device__ inline void sync_all() {
  detail::team_sync_epoch<Scope>(detail::world_team(), "gshmem_sync_all");
}

template <class Scope>
__device__ inline void barrier_all() {
  // quiet + sync: the signalling threads' fence.sc.sys after the scope barrier
  // completes and publishes the whole scope's earlier operations.
  detail::team_sync_epoch<Scope>(detail::world_team(), "gshmem_barrier_all", true);
}

namespace detail {
// `call` names the C function in messages.
template <class Scope>
__device__ inline int team_sync(const char* call, gshmem_team_t team) {
  const gshmemi_team* t = team_for_call<Scope>(call, team);
  if (t == nullptr) return -1;
  team_sync_epoch<Scope>(*t, call);
  return 0;
}

template <class Scope>
__device__ inline int barrier(const char* call, gshmem_team_t team) {
  const gshmemi_team* t = team_for_call<Scope>(call, team);
  if (t == nullptr) return -1;
  team_sync_epoch<Scope>(*t, call, true);  // quiet + sync, as in barrier_all
  return 0;
}
}  // namespace detail

template <class Scope>
__device__ inline int team_sync(gshmem_team_t team) {
  return detail::team_sync<Scope>("gshmem::team_sync", team);
}

template <class Scope>
__device__ inline int barrier(gshmem_team_t team) {
  return detail::barrier<Scope>("gshmem::barrier", team);
}

}  // namespace gshmem

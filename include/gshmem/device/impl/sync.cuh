// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/sync.cuh.
#pragma once

#include "../sync.cuh"
#include "memops.cuh"
#include "state.cuh"
#include "gshmem/types.h"

namespace gshmem {

__device__ inline int my_pe() { return detail::state().my_pe; }
__device__ inline int n_pes() { return detail::state().n_pes; }

__device__ inline void fence() { detail::fence_acq_rel_sys(); }

template <class Scope>
__device__ inline void quiet() {
  // Each thread completes its own operations; the scope barrier then makes the
  // whole group's operations complete before any thread proceeds.
  detail::fence_sc_sys();
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
  const uint64_t timeout = state().wait_timeout_ns;
  const uint64_t start = timeout ? global_timer_ns() : 0;
  uint32_t spins = 0;
  while (ld_acquire_sys(flag) < target) {
    if (timeout && (++spins & 1023u) == 0 && global_timer_ns() - start > timeout)
      report_wait_timeout(what, peer, timeout / 1000000000ull);
  }
}

// World PE of team PE i.
__device__ __forceinline__ int team_world_pe(const gshmemi_team& t, int i) { return t.start + i * t.stride; }

// All-to-all epoch signalling over a team: every member stores its new epoch
// into its slot of every other member's sync_flags, then waits until every
// member's slot in its own sync_flags reached that epoch. One round trip; the
// threads of the scope each take a share of the members. Epochs only grow, so
// a fast PE entering the next sync can never be mistaken for the current one.
// Host, stream and device syncs of a team share the one epoch counter.
template <class Scope>
__device__ __forceinline__ void team_sync_epoch(const gshmemi_team& t, const char* what) {
  Scope::sync();
  const uint64_t epoch = ld_volatile(t.sync_epoch) + 1;
  Scope::sync();
  if (Scope::rank() == 0) st_volatile(t.sync_epoch, epoch);
  for (int i = Scope::rank(); i < t.size; i += Scope::size()) {
    if (i == t.my_pe) continue;
    st_release_sys(peer_address(t.sync_flags + t.my_pe, team_world_pe(t, i)), epoch);
  }
  for (int i = Scope::rank(); i < t.size; i += Scope::size()) {
    if (i == t.my_pe) continue;
    wait_epoch(t.sync_flags + i, epoch, what, team_world_pe(t, i));
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
  // quiet: each thread's own stores complete; the release stores inside the
  // epoch exchange then carry the whole scope's writes (cumulativity through
  // the scope barrier).
  detail::fence_sc_sys();
  detail::team_sync_epoch<Scope>(detail::world_team(), "gshmem_barrier_all");
}

}  // namespace gshmem

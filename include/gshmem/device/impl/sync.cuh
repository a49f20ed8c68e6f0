// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/sync.cuh.
#pragma once

#include "../sync.cuh"
#include "memops.cuh"
#include "proxy.cuh"
#include "state.cuh"
#include "stuck.cuh"
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
  // instead of one per thread. Operations through the proxy complete when its
  // `completed` word passes them: with a proxy the same thread waits for that
  // after the fence (impl/proxy.cuh). Two whole copies, so that a job without a
  // proxy runs the code it ran before the proxy existed.
  if (detail::kProxyPath && __builtin_expect(detail::proxy::present(), 0)) {
    Scope::sync();
    if (Scope::rank() == 0) {
      detail::fence_sc_sys();
      detail::proxy::quiet();
    }
    Scope::sync();
    return;
  }
  Scope::sync();
  if (Scope::rank() == 0) detail::fence_sc_sys();
  Scope::sync();
}

namespace detail {

[[noreturn]] static __device__ __noinline__ void report_wait_timeout(const char* what, int waiting_for,
                                                                     uint64_t seconds) {
  if (abort_word() != 0) report_aborted(what, waiting_for);
  report_printf(
      "gshmem ERROR [PE %lld]: %s: still waiting for PE %lld after %llu s (GSHMEM_WAIT_TIMEOUT); "
      "that PE is stuck, dead, or did not enter the same collective. Trapping.\n",
      state().my_pe, what, waiting_for, static_cast<unsigned long long>(seconds));
  __trap();
}

// Spins until ready() (which polls with acquire loads) holds; bounded when
// GSHMEM_WAIT_TIMEOUT is set, naming `peer` (a world PE) if it expires or a peer failed; the
// thread exits after gshmemx_abort (report_aborted).
template <class Ready>
__device__ __forceinline__ void wait_for(Ready ready, const char* what, int peer) {
  if (ready()) return;
  wait_deadline d;
  while (!ready())
    if (d.expired()) report_wait_timeout(what, peer, d.timeout_ns / 1000000000ull);
}

// Waits until the counted signal slot `flag` of the team whose slots start at `slots` is non-zero
// (acquire), then takes one signal back (sync_members). `peer`: the world PE that signals the
// slot; `scope`: the threads that share the slots (Scope::size()). Its report (impl/stuck.cuh) also
// names the members that arrived and those missing; it finds the team by the low half of the
// address of its slots, a team field (the world's in the constant bank): the slot's own address
// took a barrier's kernel two registers more (tests/registers).
__device__ __forceinline__ void take_signal(uint64_t* flag, const uint64_t* slots, const char* what, int peer,
                                            unsigned scope) {
  if (ld_acquire_sys_global(flag) == 0) {
    wait_deadline d;
    while (ld_acquire_sys_global(flag) == 0)
      if (d.expired()) report_sync_stuck(what, peer, static_cast<uint32_t>(reinterpret_cast<uintptr_t>(slots)), scope);
  }
  red_add_relaxed_sys(flag, ~uint64_t{0});  // -1
}

// take_signal for a member reached through the proxy (sync_members_mixed): its signals are
// counted in `posted`, one of the team's proxy sync words (impl/state.cuh, proxy_sync_words), in host
// memory, by this PE's proxy thread, which stores each count once every operation that member sent
// before it was applied here; `taken`, the member's slot, which nobody else writes, counts the ones
// taken. Waits until posted passes taken (acquire), then takes one. (The proxy's apply of an ADD
// to the slot was a kernel launch, on the critical path of every sync across nodes.)
__device__ __forceinline__ void take_proxied_signal(const uint64_t* posted, uint64_t* taken, const uint64_t* slots,
                                                    const char* what, int peer, unsigned scope) {
  const uint64_t want = ld_volatile(taken) + 1;
  if (ld_acquire_sys_global(posted) < want) {
    wait_deadline d;
    while (ld_acquire_sys_global(posted) < want)
      if (d.expired()) report_sync_stuck(what, peer, static_cast<uint32_t>(reinterpret_cast<uintptr_t>(slots)), scope);
  }
  st_volatile(taken, want);
}

// Spin until *flag >= target (acquire). `every`: every other member of the team signals a lane
// of this row in this call (an exchange): then the report (impl/stuck.cuh) also names the members
// that arrived and those missing; else (one sender, or some) only the PE waited for. `flag` and
// `target` are live in the loop anyway.
__device__ __forceinline__ void wait_epoch(const uint64_t* flag, uint64_t target, const char* what, int peer,
                                           bool every = false) {
  if (ld_acquire_sys_global(flag) >= target) return;
  wait_deadline d;
  while (ld_acquire_sys_global(flag) < target)
    if (d.expired()) report_stuck(what, every ? flag : nullptr, target, peer);
}

// kAllToAllSyncMax (impl/stuck.cuh): the largest team that syncs all-to-all.

// Counted signals over a team. Slot j of a member's sync_flags holds how many
// syncs team PE j has announced there that this member has not yet waited for:
// the signaller adds 1 after a release fence, the waiter waits until the slot is
// non-zero (acquire) and takes that one signal back by adding -1. A peer already
// in the next sync leaves its next signal counted in the slot, so the slots need
// no epoch: nothing is loaded before the signal, and after the wait there is
// only the decrement, which nobody waits for. (Carrying an epoch kept in memory
// slowed the barrier: perftest/probe/ordering_probe.cu, variants 6-11.)
//   all-to-all:    member i adds to slot i of every other member, then waits for
//                  every slot of its own array but its own;
//   dissemination: in round r member i adds to slot r of member i + 2^r and waits
//                  for slot r of its own array (signalled by member i - 2^r). One
//                  sender's signals to one slot arrive in call order, and the
//                  release/acquire chain carries every member's earlier writes to
//                  every other member (happens-before is transitive).
// A waiter's acquire that reads a count left by several additions still
// synchronises with the first of them: the PTX model's observation order runs
// through the atomic read-modify-writes in between. Once every member finished
// the same number of syncs every slot is 0 again, as team creation left it.
// The release: after Scope::sync() each signalling thread runs one fence
// (fence.sc.sys with `quiet`, which barriers need, else fence.acq_rel.sys) and
// then relaxed additions. The fence comes after the scope barrier, so it is
// cumulative over every thread of the scope (as in put_signal), and a thread
// signalling several peers pays for it once: a fence costs about one NVLink
// flight (docs/memory-model.md).
// `t` is the caller's copy of the team entry (team_entry), so its fields stay in
// registers across the fence.
// The all-to-all sync's signals to members reached through the proxy, after the load/store
// ones and the same fence, in a loop of their own so that the sync's loop keeps its registers.
// Thread r of the scope signals members r, r + size, ... as in the loop it follows.
template <class Scope>
__device__ __forceinline__ void proxy_sync_signals(uint64_t* flags, int start, int stride, int size, int me) {
  for (int i = Scope::rank(); i < size; i += Scope::size()) {
    const int pe = start + i * stride;
    if (i != me && peer_address(flags + me, pe) == nullptr) proxy::sync_signal(flags + me, pe);
  }
}

static_assert(kAllToAllSyncMax <= GSHMEMI_TEAM_PROXY_SYNC_WORDS, "a team's proxy sync words cover its sync slots");

// The wait of sync_members_mixed for the member (or dissemination round) whose signals arrive in
// slots[index] of the team's sync flags, reached through the proxy: take_proxied_signal on word
// `index` of the team's proxy sync words (the team's slot from `team_flags`), or take_signal where
// the proxy adds the signals to the flag on the GPU (GSHMEM_PROXY_HOST_SYNC=0). Out of line, with
// few arguments: a barrier's kernel sits at its register bound (tests/registers; inline, the
// barrier's kernel took 42-46 registers instead of 38).
static __device__ __noinline__ void take_proxied_member(uint64_t* slots, int index, uint32_t team_flags,
                                                        const char* what, int peer, unsigned scope) {
  // The null test on the state's word, then the helper (which tests again, from the constant
  // bank): testing the helper's answer instead took the sync's kernel 2 registers more.
  if (state().proxy.sync_words == nullptr) {
    take_signal(slots + index, slots, what, peer, scope);
    return;
  }
  take_proxied_signal(proxy_sync_words(team_flags) + index, slots + index, slots, what, peer, scope);
}

// sync_members (below) when this PE has a proxy: members reached through it (peer_address NULL)
// get their signal as a proxied ADD, after the same fence, and this PE waits for theirs in the
// team's proxy sync words (take_proxied_signal); a barrier first waits for its proxied
// operations to complete (the quiet), so that they are applied at their targets before any
// member leaves. A call of its own, so that a job without a proxy keeps the code it had.
template <class Scope>
static __device__ __noinline__ void sync_members_mixed(const gshmemi_team t, const char* what, bool quiet) {
  // The first peer's slot address is computed before the fence, which would
  // otherwise wait for the loads this needs (and they for it).
  const int first = Scope::rank();
  uint64_t* first_to = first < t.size && first != t.my_pe && t.size <= kAllToAllSyncMax
                           ? peer_address(t.sync_flags + t.my_pe, team_world_pe(t, first))
                           : nullptr;
  Scope::sync();  // every thread's earlier operations precede the fences
  if (quiet) {
    if (Scope::rank() == 0) proxy::quiet();
    Scope::sync();
  }
  if (t.size <= kAllToAllSyncMax) {
    // A member alone in its team signals nobody, but a barrier still quiets.
    if (quiet && t.size == 1 && first == 0) fence_sc_sys();
    bool fenced = false, proxied = false;
    for (int i = first; i < t.size; i += Scope::size()) {
      if (i == t.my_pe) continue;
      if (!fenced) {
        if (quiet)
          fence_sc_sys();
        else
          fence_acq_rel_sys();
        fenced = true;
      }
      uint64_t* to = i == first ? first_to : peer_address(t.sync_flags + t.my_pe, team_world_pe(t, i));
      if (to != nullptr)
        red_add_relaxed_sys(to, uint64_t{1});
      else
        proxied = true;
    }
    if (proxied) proxy_sync_signals<Scope>(t.sync_flags, t.start, t.stride, t.size, t.my_pe);
    for (int i = Scope::rank(); i < t.size; i += Scope::size()) {
      if (i == t.my_pe) continue;
      const int pe = team_world_pe(t, i);
      if (state().peer_base[pe] == nullptr)  // the seam's test: reached through the proxy, both ways
        take_proxied_member(t.sync_flags, i, t.flags, what, pe, Scope::size());
      else
        take_signal(t.sync_flags + i, t.sync_flags, what, pe, Scope::size());
    }
  } else if (Scope::rank() == 0) {
    if (quiet) fence_sc_sys();
    for (int r = 0, d = 1; d < t.size; ++r, d <<= 1) {
      const int to = team_world_pe(t, (t.my_pe + d) % t.size);
      const int from = team_world_pe(t, (t.my_pe + t.size - d) % t.size);
      uint64_t* flag = peer_address(t.sync_flags + r, to);
      if (flag != nullptr)
        red_add_release_sys(flag, uint64_t{1});
      else
        proxy::sync_signal(t.sync_flags + r, to);
      if (state().peer_base[from] == nullptr)
        take_proxied_member(t.sync_flags, r, t.flags, what, from, 0);
      else
        take_signal(t.sync_flags + r, t.sync_flags, what, from, 0);
    }
  }
  Scope::sync();
}

template <class Scope>
__device__ __forceinline__ void sync_members(const gshmemi_team& t, const char* what, bool quiet = false) {
  // With a proxy (members or operations on other nodes) the variant above; without, the code
  // as it was before the proxy existed (the barrier kept its latency: perftest barrier).
  if (kProxyPath && __builtin_expect(proxy::present(), 0)) {
    sync_members_mixed<Scope>(t, what, quiet);
    return;
  }
  // The first peer's slot address is computed before the fence, which would
  // otherwise wait for the loads this needs (and they for it).
  const int first = Scope::rank();
  uint64_t* first_to = first < t.size && first != t.my_pe && t.size <= kAllToAllSyncMax
                           ? peer_address(t.sync_flags + t.my_pe, team_world_pe(t, first))
                           : nullptr;
  Scope::sync();  // every thread's earlier operations precede the fences
  if (t.size <= kAllToAllSyncMax) {
    // A member alone in its team signals nobody, but a barrier still quiets.
    if (quiet && t.size == 1 && first == 0) fence_sc_sys();
    bool fenced = false;
    for (int i = first; i < t.size; i += Scope::size()) {
      if (i == t.my_pe) continue;
      if (!fenced) {
        if (quiet)
          fence_sc_sys();
        else
          fence_acq_rel_sys();
        fenced = true;
      }
      red_add_relaxed_sys(i == first ? first_to : peer_address(t.sync_flags + t.my_pe, team_world_pe(t, i)),
                          uint64_t{1});
    }
    for (int i = Scope::rank(); i < t.size; i += Scope::size())
      if (i != t.my_pe) take_signal(t.sync_flags + i, t.sync_flags, what, team_world_pe(t, i), Scope::size());
  } else if (Scope::rank() == 0) {
    if (quiet) fence_sc_sys();
    for (int r = 0, d = 1; d < t.size; ++r, d <<= 1) {
      const int to = (t.my_pe + d) % t.size, from = (t.my_pe + t.size - d) % t.size;
      red_add_release_sys(peer_address(t.sync_flags + r, team_world_pe(t, to)), uint64_t{1});
      take_signal(t.sync_flags + r, t.sync_flags, what, team_world_pe(t, from), 0);
    }
  }
  Scope::sync();
}

__device__ __forceinline__ gshmemi_team world_team() { return state().world; }

}  // namespace detail

template <class Scope>
__device__ inline void sync_all() {
  detail::sync_members<Scope>(detail::world_team(), "gshmem_sync_all");
}

template <class Scope>
__device__ inline void barrier_all() {
  // quiet + sync: the signalling threads' fence.sc.sys after the scope barrier
  // completes and publishes the whole scope's earlier operations.
  detail::sync_members<Scope>(detail::world_team(), "gshmem_barrier_all", true);
}

namespace detail {
// `call` names the C function in messages.
template <class Scope>
__device__ inline int team_sync(const char* call, gshmem_team_t team) {
  gshmemi_team t;
  if (!team_for_call<Scope>(call, team, &t)) return -1;
  sync_members<Scope>(t, call);
  return 0;
}

template <class Scope>
__device__ inline int barrier(const char* call, gshmem_team_t team) {
  gshmemi_team t;
  if (!team_for_call<Scope>(call, team, &t)) return -1;
  sync_members<Scope>(t, call, true);  // quiet + sync, as in barrier_all
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

// SPDX-License-Identifier: BSD-3-Clause
// Signalling of the team reductions: the per-slot epochs and flags (layout in
// reduce_layout.cuh) and what one call carries from stage to stage (reduce_ctx).
//
// Epochs. Slot s of this PE has been advanced k-1 times when a call starts; the call
// uses epoch k on it. Signals for it carry 2k-1 ("entered": my source may be read) or 2k
// ("done": my part is written / my push data is in your buffer). Values only grow and
// every member makes the same slot choices, so `flag >= value` is never satisfied by
// an older call, and a newer one implies the older (a member signals call k+1 of a slot
// only after it finished call k of it).
//
// Uniform slots. Every push or pull call advances each of the first U slots
// (reduce_region::uniform_slots, 16), those it does not use included (the participant
// that takes slot 0 advances these), so they always share one epoch: the call's number
// among the team's push and pull calls. Advancing a slot without signalling on it is safe: its flags then
// hold only older calls' values, below what the next call that uses it waits for. So a
// participant loads one epoch per call (its first slot's, kept in a register), and all
// of a call's push data - which uses these slots only - goes to one buffer per sender,
// of parity k & 1: a sender writes that buffer again in call k+2 at the earliest, which
// it reaches only after this member has signalled in call k+1, once done with call k.
//
// Ordering. The group's data stores, then Scope::sync() (bar.sync / bar.warp.sync
// order them before the signalling threads' fences: the release is cumulative), then
// each signalling thread one fence.acq_rel.sys and relaxed system-scope stores of the
// flags (a thread signalling several members or slots pays for the fence once; a
// release store per flag would cost a fence each). Waiting is an
// acquire load loop (wait_epoch) per peer, then Scope::sync() hands the acquired view
// to the whole group.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../scope.cuh"
#include "gshmem/detail/device_state.h"
#include "memops.cuh"
#include "reduce_layout.cuh"
#include "reduce_ops.cuh"
#include "state.cuh"
#include "sync.cuh"

namespace gshmem {
namespace detail {

template <class T>
struct reduce_ctx {
  gshmemi_team t;  // copy of the team entry
  reduce_region r;
  reduce_plan plan;
  T* dest;
  const T* source;
  uint64_t n;                // nreduce
  bool scatter;              // reducescatter
  bool staging;              // in-place reducescatter on team PE > 0 (pull path): stage in own chunk
  const char* call;          // C name (or template name) for messages
  uint64_t record;           // (n, op, type) of this call, for the debug comparison
  int lo = 0, hi = 0;        // this participant's slots [lo, hi) (reduce_begin_slots)
  int first = -1;            // its first slot, -1: none
  uint64_t first_epoch = 0;  // its epoch
  int uniform = 0;           // slots below this one share first_epoch (0: this participant has none)

  // The participant that takes slot 0: it also advances the uniform slots the call did
  // not use and keeps the debug record.
  __device__ bool takes_slot0() const { return lo == 0 && hi > 0; }
};

// The epoch this call uses on slot s: this PE's count + 1; the count is advanced only by
// reduce_finish, after every thread of the group is done reading it. The participant's
// first slot and the uniform slots have it in a register (reduce_begin_slots), for each
// load of it is an L2 round trip: five of them on a 2-PE push-path reduce, and a
// device-scope call's group took them slot after slot.
template <class T>
__device__ __forceinline__ uint64_t reduce_epoch(const reduce_ctx<T>& c, int s) {
  return s < c.uniform || s == c.first ? c.first_epoch : ld_volatile(c.r.flag_row(s) + c.t.my_pe) + 1;
}

// Takes the slots `mine` (reduce_part_slots) and loads the epoch of the first (c.plan
// set); before any other use of reduce_epoch in the call.
template <class T>
__device__ __forceinline__ void reduce_begin_slots(reduce_ctx<T>& c, reduce_slot_range mine) {
  c.lo = mine.lo;
  c.hi = mine.hi;
  if (mine.lo >= mine.hi) return;
  c.first_epoch = ld_volatile(c.r.flag_row(mine.lo) + c.t.my_pe) + 1;
  c.first = mine.lo;
  const int u = c.r.uniform_slots();
  c.uniform = mine.lo < u ? u : 0;
}

// f(s, j) for every slot s in [lo, hi) and every other member j, shared by the threads of Scope.
template <class Scope, class T, class F>
__device__ __forceinline__ void reduce_for_flags(const reduce_ctx<T>& c, int lo, int hi, F&& f) {
  const int N = c.t.size, me = c.t.my_pe;
  for (int idx = Scope::rank(); idx < (hi - lo) * N; idx += Scope::size()) {
    const int j = idx % N;
    if (j != me) f(lo + idx / N, j);
  }
}

// Signals 2k - back (back = 1: entered, 0: done / data) on slots [lo, hi) to every other
// member. Caller: Scope::sync() first (after the data it signals for).
template <class Scope, class T>
__device__ __forceinline__ void reduce_signal(const reduce_ctx<T>& c, int lo, int hi, uint64_t back) {
  bool fenced = false;
  reduce_for_flags<Scope>(c, lo, hi, [&](int s, int j) {
    if (!fenced) fence_acq_rel_sys();
    fenced = true;
    st_relaxed_sys(peer_address(c.r.flag_row(s) + c.t.my_pe, team_world_pe(c.t, j)), 2 * reduce_epoch(c, s) - back);
  });
}

// Waits until every other member signalled >= 2k - back on slots [lo, hi); then Scope::sync().
template <class Scope, class T>
__device__ __forceinline__ void reduce_wait(const reduce_ctx<T>& c, int lo, int hi, uint64_t back) {
  reduce_for_flags<Scope>(c, lo, hi, [&](int s, int j) {
    wait_epoch(c.r.flag_row(s) + j, 2 * reduce_epoch(c, s) - back, c.call, team_world_pe(c.t, j));
  });
  Scope::sync();
}

// Whether every other member has signalled >= 2k - back on slots [lo, hi), without waiting;
// the same answer in every thread of the group, which then shares the acquired view (the
// block's vote is a barrier; a warp's vote is not, hence its __syncwarp).
template <class Scope, class T>
__device__ __forceinline__ bool reduce_ready(const reduce_ctx<T>& c, int lo, int hi, uint64_t back) {
  bool ok = true;
  reduce_for_flags<Scope>(c, lo, hi, [&](int s, int j) {
    ok = ok && ld_acquire_sys_global(c.r.flag_row(s) + j) >= 2 * reduce_epoch(c, s) - back;
  });
  if constexpr (std::is_same_v<Scope, block_scope>) {
    return __syncthreads_and(ok) != 0;
  } else if constexpr (std::is_same_v<Scope, warp_scope>) {
    ok = __all_sync(warp_scope::mask(), ok);
    __syncwarp(warp_scope::mask());
    return ok;
  } else {
    return ok;
  }
}

// Advances this participant's slot epochs (the one that takes slot 0: also the uniform
// slots the call did not use); ends the call. Two ways around these stores cost more and
// are not taken: the same stores as the call starts, and only slot 0's epoch, advanced
// once the kernel's other CTAs have counted themselves in after reading it (no cheaper for
// small calls, dearer for large ones at 4 PEs).
template <class Scope, class T>
__device__ __forceinline__ void reduce_finish(const reduce_ctx<T>& c) {
  Scope::sync();
  const int me = c.t.my_pe, r = Scope::rank(), step = Scope::size();
  for (int s = c.lo + r; s < c.hi; s += step) st_volatile(c.r.flag_row(s) + me, reduce_epoch(c, s));
  if (c.takes_slot0())
    for (int s = c.plan.slots + r; s < c.uniform; s += step) st_volatile(c.r.flag_row(s) + me, c.first_epoch);
  Scope::sync();
}

// The elements of slots [lo, hi) of the call: one contiguous range (a lone group's: [0, n)).
template <class T>
__device__ __forceinline__ reduce_span reduce_span_of(const reduce_ctx<T>& c, int lo, int hi) {
  return reduce_slots_span(c.n, reduce_vec<T>::n, c.plan.slots, lo, hi);
}

}  // namespace detail
}  // namespace gshmem

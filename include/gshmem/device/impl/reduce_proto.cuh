// SPDX-License-Identifier: BSD-3-Clause
// Signalling of the team reductions: the per-slot epochs and flags (layout in
// reduce_layout.cuh) and what one call carries from stage to stage (reduce_ctx).
//
// Epochs. Slot s of this PE has counted k-1 calls that used it when a call starts; the
// call is its k-th. Signals for it carry 2k-1 ("entered": my source may be read) or 2k
// ("done": my part is written / my push data is in your buffer). Values only grow and
// every member makes the same slot choices, so `flag >= value` is never satisfied by
// an older call, and a newer one implies the older (a member signals call k+1 of a slot
// only after it finished call k of it).
//
// Ordering. The group's data stores, then Scope::sync() (bar.sync / bar.warp.sync
// order them before the signalling threads' fences: the release is cumulative), then
// each signalling thread one fence.acq_rel.sys and relaxed system-scope stores of the
// flags (a thread signalling several members or slots pays for the fence once; a
// release store per flag would cost a fence each, 0.64 us on H200). Waiting is an
// acquire load loop (wait_epoch) per peer, then Scope::sync() hands the acquired view
// to the whole group.
#pragma once

#include <cstdint>

#include "gshmem/detail/device_state.h"
#include "memops.cuh"
#include "reduce_layout.cuh"
#include "state.cuh"
#include "sync.cuh"

namespace gshmem {
namespace detail {

template <class T>
struct reduce_ctx {
  gshmemi_team t;       // copy of the team entry
  reduce_region r;
  reduce_plan plan;
  T* dest;
  const T* source;
  uint64_t n;           // nreduce
  bool scatter;         // reducescatter
  bool staging;         // in-place reducescatter on team PE > 0 (pull path): stage in own chunk
  const char* call;     // C name (or template name) for messages
  uint64_t record;      // (n, op, type) of this call, for the debug comparison
  int first = -1;       // this participant's first slot (reduce_begin_slots), -1: none
  uint64_t first_epoch = 0;  // its epoch
};

// The epoch this call uses on slot s: this PE's count + 1; the count is advanced only by
// reduce_finish, after every thread of the group is done reading it. The participant's
// first slot - a small call's only one - has it in a register (reduce_begin_slots), for
// each load of it is an L2 round trip: five of them on a 2-PE push-path reduce.
template <class T>
__device__ __forceinline__ uint64_t reduce_epoch(const reduce_ctx<T>& c, int s) {
  return s == c.first ? c.first_epoch : ld_volatile(c.r.flag_row(s) + c.t.my_pe) + 1;
}

// Loads the epoch of participant `part`'s first slot (c.plan set); before any other use
// of reduce_epoch in the call.
template <class T>
__device__ __forceinline__ void reduce_begin_slots(reduce_ctx<T>& c, int part) {
  if (part >= c.plan.slots) return;
  c.first_epoch = ld_volatile(c.r.flag_row(part) + c.t.my_pe) + 1;
  c.first = part;
}

// Number of the call's slots that participant `part` of `nparts` takes (s = part + m * nparts).
__device__ __forceinline__ int reduce_my_slots(int slots, int part, int nparts) {
  return part < slots ? (slots - part + nparts - 1) / nparts : 0;
}

// Signals 2k - back (back = 1: entered, 0: done / data) on every slot of this participant
// to every other member. Caller: fence (if it wrote data) + Scope::sync() first.
template <class Scope, class T>
__device__ __forceinline__ void reduce_signal(const reduce_ctx<T>& c, int part, int nparts, uint64_t back) {
  const int N = c.t.size, me = c.t.my_pe;
  const int m = reduce_my_slots(c.plan.slots, part, nparts);
  bool fenced = false;
  for (int idx = Scope::rank(); idx < m * N; idx += Scope::size()) {
    const int j = idx % N;
    if (j == me) continue;
    const int s = part + (idx / N) * nparts;
    if (!fenced) fence_acq_rel_sys();
    fenced = true;
    st_relaxed_sys(peer_address(c.r.flag_row(s) + me, team_world_pe(c.t, j)), 2 * reduce_epoch(c, s) - back);
  }
}

// Waits until every other member signalled >= 2k - back on every slot of this participant
// (reduce_wait) or on slot s (reduce_wait_slot); then Scope::sync().
template <class Scope, class T>
__device__ __forceinline__ void reduce_wait(const reduce_ctx<T>& c, int part, int nparts, uint64_t back) {
  const int N = c.t.size, me = c.t.my_pe;
  const int m = reduce_my_slots(c.plan.slots, part, nparts);
  for (int idx = Scope::rank(); idx < m * N; idx += Scope::size()) {
    const int j = idx % N;
    if (j == me) continue;
    const int s = part + (idx / N) * nparts;
    wait_epoch(c.r.flag_row(s) + j, 2 * reduce_epoch(c, s) - back, c.call, team_world_pe(c.t, j));
  }
  Scope::sync();
}
template <class Scope, class T>
__device__ __forceinline__ void reduce_wait_slot(const reduce_ctx<T>& c, int s, uint64_t back) {
  const int N = c.t.size, me = c.t.my_pe;
  const uint64_t target = 2 * reduce_epoch(c, s) - back;
  for (int j = Scope::rank(); j < N; j += Scope::size())
    if (j != me) wait_epoch(c.r.flag_row(s) + j, target, c.call, team_world_pe(c.t, j));
  Scope::sync();
}

// Advances this participant's slot epochs; ends the call.
template <class Scope, class T>
__device__ __forceinline__ void reduce_finish(const reduce_ctx<T>& c, int part, int nparts) {
  Scope::sync();
  if (Scope::rank() == 0)
    for (int s = part; s < c.plan.slots; s += nparts) st_volatile(c.r.flag_row(s) + c.t.my_pe, reduce_epoch(c, s));
  Scope::sync();
}

}  // namespace detail
}  // namespace gshmem

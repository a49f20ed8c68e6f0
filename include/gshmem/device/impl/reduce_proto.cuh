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
// (reduce_region::uniform_slots, 16), those it does not use included (participant 0
// advances these), so they always share one epoch: the call's number among the team's
// push and pull calls. Advancing a slot without signalling on it is safe: its flags then
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
// release store per flag would cost a fence each, 0.64 us on H200). Waiting is an
// acquire load loop (wait_epoch) per peer, then Scope::sync() hands the acquired view
// to the whole group.
#pragma once

#include <cstdint>

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
  int uniform = 0;      // slots below this one share first_epoch (0: this participant has none)
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

// Loads the epoch of participant `part`'s first slot (c.plan set); before any other use
// of reduce_epoch in the call.
template <class T>
__device__ __forceinline__ void reduce_begin_slots(reduce_ctx<T>& c, int part) {
  if (part >= c.plan.slots) return;
  c.first_epoch = ld_volatile(c.r.flag_row(part) + c.t.my_pe) + 1;
  c.first = part;
  const int u = c.r.uniform_slots();
  c.uniform = part < u ? u : 0;
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

// Advances this participant's slot epochs (participant 0: also the uniform slots the call
// did not use); ends the call. These stores cost a small on-stream call about 0.07 us at 2
// PEs (in a graph, PEs sharing one H200 under MPS; bench/results/2026-11-23_h200_1gpu-mps3,
// call4). Two ways around them were measured and are not taken: the same stores as the
// call starts (0.1 us at 2 PEs, 0.3-0.5 at 4: call5), and only slot 0's epoch, advanced
// once the kernel's other CTAs have counted themselves in after reading it (as slow for
// small calls, and 0.6-1.6 us slower at 4 PEs and 256 KiB - 1 MiB: call6).
template <class Scope, class T>
__device__ __forceinline__ void reduce_finish(const reduce_ctx<T>& c, int part, int nparts) {
  Scope::sync();
  const int me = c.t.my_pe, r = Scope::rank(), step = Scope::size();
  for (int s = part + r * nparts; s < c.plan.slots; s += step * nparts)
    st_volatile(c.r.flag_row(s) + me, reduce_epoch(c, s));
  if (part == 0)
    for (int s = c.plan.slots + r; s < c.uniform; s += step) st_volatile(c.r.flag_row(s) + me, c.first_epoch);
  Scope::sync();
}

// The element ranges a participant takes at once, f(span, slot): every slot of the call
// in one [0, n) when it is the only one (its slots are then contiguous: a device-scope
// call), else its slots one by one. One call site, so that f's copy and reduce loops are
// inlined once: the library's kernel, where nparts is not known at compile time, grew by
// a third with two (and small on-stream calls got slower).
template <class T, class F>
__device__ __forceinline__ void reduce_for_runs(const reduce_ctx<T>& c, int part, int nparts, F&& f) {
  const bool lone = nparts == 1;
  for (int s = part; s < c.plan.slots; s += nparts) {
    f(lone ? reduce_span{0, c.n} : reduce_slot_span(c.n, reduce_vec<T>::n, c.plan.slots, s), s);
    if (lone) break;
  }
}

}  // namespace detail
}  // namespace gshmem

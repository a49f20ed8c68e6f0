// SPDX-License-Identifier: BSD-3-Clause
// The machinery every data-movement collective shares: lanes, sequence values,
// flags, and the debug-mode argument checks.
//
// Protocol. A collective call is cut into lanes (impl/coll_plan.cuh); lane s
// moves its share of the data with pushes (stores into peers' dest) and then
// signals with release stores into lanes[s][me] of the receivers; receivers
// wait with acquire loads on lanes[s][sender] of their own array. Flag values
// are sequence numbers: each member keeps the team's count in its self slot
// lanes[0][me]; a call reads it as `base`, uses values base+1 .. base+span and
// leaves base+span behind. Every member makes the same calls with the same
// spans, so the bases agree without communication. Each flag slot has a single
// writer and only grows, so a waiter for value v that sees v' >= v knows the
// writer released v (a later value is stored after the writer finished the
// earlier call, and its release carries everything before it). No flag is ever
// reset, so there is no entry or exit synchronisation: a member returns as soon
// as its own dest is complete and its pushes are done.
//
// Memory ordering. Data stores by the threads of a scope, then Scope::sync()
// (bar.sync / bar.warp.sync order them before the signalling thread's release
// pattern: the release is cumulative), then fence.acq_rel.sys and a relaxed
// store of the flag. The
// waiter's ld_acquire_sys, then Scope::sync(), orders every thread's later
// reads (or forwarding loads) after the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "../coll.cuh"
#include "copy.cuh"
#include "coll_ll.cuh"
#include "coll_plan.cuh"
#include "memops.cuh"
#include "state.cuh"
#include "sync.cuh"
#include "team.cuh"

namespace gshmem {
namespace detail {

// Address of symmetric `p` on team PE j (the local address for j == me).
template <class T>
__device__ __forceinline__ T* team_peer(const gshmemi_team& t, T* p, int j) {
  return j == t.my_pe ? p : peer_address(p, team_world_pe(t, j));
}

// Stores `value` into lanes[s][me] of every other member (threads share them).
// Release: one fence.acq_rel.sys per signalling thread, then relaxed stores
// (a thread signalling several members pays for the fence once).
template <class Scope>
__device__ __forceinline__ void lane_signal_all(const gshmemi_team& t, int s, uint64_t value) {
  uint64_t* mine = lane_flag(t, s, t.my_pe);
  bool fenced = false;
  for (int i = Scope::rank(); i < t.size; i += Scope::size()) {
    if (i == t.my_pe) continue;
    if (!fenced) fence_acq_rel_sys();
    fenced = true;
    st_relaxed_sys(peer_address(mine, team_world_pe(t, i)), value);
  }
}

// Waits until lanes[s][i] >= value for every other member i; then syncs the scope.
template <class Scope>
__device__ __forceinline__ void lane_wait_all(const gshmemi_team& t, int s, uint64_t value, const char* call) {
  for (int i = Scope::rank(); i < t.size; i += Scope::size())
    if (i != t.my_pe) wait_epoch(lane_flag(t, s, i), value, call, team_world_pe(t, i));
  Scope::sync();
}

// Waits until lanes[s][from] >= value (one thread), then syncs the scope.
template <class Scope>
__device__ __forceinline__ void lane_wait_one(const gshmemi_team& t, int s, int from, uint64_t value,
                                              const char* call) {
  if (Scope::rank() == 0) wait_epoch(lane_flag(t, s, from), value, call, team_world_pe(t, from));
  Scope::sync();
}

// Pushes `bytes` from local `src` to symmetric `dst` on every member (team PE
// order starting after me, so members do not all hit the same peer first; me
// last, skipped when `skip_self`), then makes the stores ready for release.
// Up to kMaxFanout members per pass over `src` (scoped_copy_fanout).
template <class Scope>
__device__ __forceinline__ void push_to_all(const gshmemi_team& t, char* dst, const char* src, size_t bytes,
                                            bool skip_self) {
  fanout d;
  for (int k = 1; k <= t.size; ++k) {
    const int j = (t.my_pe + k) % t.size;
    if (j == t.my_pe && skip_self) continue;
    d.add(team_peer(t, dst, j));
    if (d.n == kMaxFanout) {
      scoped_copy_fanout<Scope>(d, src, bytes);
      d.n = 0;
    }
  }
  if (d.n > 0) scoped_copy_fanout<Scope>(d, src, bytes);
  Scope::sync();
}

// One collective call by one thread / warp / block (the device API): every lane
// in turn. Op provides `lanes`, `span`, prepare<Scope>(t, base, true) (may set
// lanes and span) and lane<Scope>(t, base, s), and kLL: whether it has an LL form.
// An Op with one provides `ll` (non-empty: this call takes it, see ll_plan), `nbytes`
// (per message) and the route of ll_exchange (from, to).
// `t` is the caller's copy of the team entry (team_entry), not the table's: its
// fields stay in registers across the collective's fences.
template <class Scope, class Op>
__device__ __forceinline__ int run_collective(const gshmemi_team& t, Op& op) {
  Scope::sync();
  if constexpr (Op::kLL) {
    if (op.ll.count != nullptr) {
      ll_exchange<Scope>(t, op.ll, op, op.nbytes, op.call);
      return 0;
    }
  }
  const uint64_t base = ld_volatile(move_counter(t));
  op.template prepare<Scope>(t, base, true);
  for (int s = 0; s < op.lanes; ++s) op.template lane<Scope>(t, base, s);
  Scope::sync();
  if (Scope::rank() == 0) st_volatile(move_counter(t), base + op.span);
  Scope::sync();
  return 0;
}

// ---- debug-mode argument checks (GSHMEM_DEBUG_CHECKS) ----
enum class coll_bad : int { root, overlap, not_symmetric, stride };

static __device__ __noinline__ void report_bad_coll(const char* call, coll_bad why, const void* a, unsigned long long x,
                                             const void* b, unsigned long long y) {
  const gshmemi_device_state& s = state();
  const int me = s.my_pe, blk = static_cast<int>(blockIdx.x), thr = static_cast<int>(threadIdx.x);
  switch (why) {
    case coll_bad::root:
      printf("gshmem ERROR [PE %d]: %s: root %lld is not a PE of the team (team size %llu) (block %d thread %d); "
             "PE_root is a team PE number from 0 to gshmem_team_n_pes(team)-1\n",
             me, call, static_cast<long long>(x), y, blk, thr);
      break;
    case coll_bad::overlap:
      printf("gshmem ERROR [PE %d]: %s: source [%p, +%llu bytes) and dest [%p, +%llu bytes) overlap "
             "(block %d thread %d); use separate source and dest buffers\n", me, call, a, x, b, y, blk, thr);
      break;
    case coll_bad::not_symmetric:
      printf("gshmem ERROR [PE %d]: %s: dest [%p, +%llu bytes) is not inside the symmetric heap [%p, %p) "
             "(block %d thread %d); allocate dest with gshmem_malloc/calloc/align, large enough for the result\n",
             me, call, a, x, s.heap_base, s.heap_base + s.heap_size, blk, thr);
      break;
    case coll_bad::stride:
      printf("gshmem ERROR [PE %d]: %s: %s stride %lld is invalid (block %d thread %d); strides count elements "
             "and must be >= 1\n", me, call, y ? "source (sst)" : "dest (dst)", static_cast<long long>(x), blk, thr);
      break;
  }
}

// A failed check of a call by the threads of Scope: rank 0 reports and traps.
template <class Scope>
__device__ __forceinline__ void fail_coll(const char* call, coll_bad why, const void* a, unsigned long long x,
                                          const void* b, unsigned long long y) {
  const bool reporter = Scope::rank() == 0;
  if (reporter) report_bad_coll(call, why, a, x, b, y);
  trap_after_report(reporter);
}

__device__ __forceinline__ bool ranges_overlap(const void* a, unsigned long long na, const void* b,
                                               unsigned long long nb) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return na && nb && x < y + nb && y < x + na;
}

// The argument checks every collective shares (no-op unless GSHMEM_DEBUG_CHECKS):
// dest [dest, +dst_bytes) symmetric, no overlap with [source, +src_bytes)
// (src_bytes 0: source not checked; `same_ok`: source == dest allowed).
template <class Scope>
__device__ __forceinline__ void check_coll(const char* call, const void* dest, unsigned long long dst_bytes,
                                           const void* source, unsigned long long src_bytes, bool same_ok) {
#if defined(GSHMEM_DEBUG_CHECKS)
  const gshmemi_device_state& s = state();
  const char* d = static_cast<const char*>(dest);
  if (dst_bytes && (d < s.heap_base || d > s.heap_base + s.heap_size ||
                    dst_bytes > static_cast<unsigned long long>(s.heap_base + s.heap_size - d)))
    fail_coll<Scope>(call, coll_bad::not_symmetric, dest, dst_bytes, nullptr, 0);
  if (!(same_ok && source == dest) && ranges_overlap(source, src_bytes, dest, dst_bytes))
    fail_coll<Scope>(call, coll_bad::overlap, source, src_bytes, dest, dst_bytes);
#else
  (void)call, (void)dest, (void)dst_bytes, (void)source, (void)src_bytes, (void)same_ok;
#endif
}

}  // namespace detail
}  // namespace gshmem

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
// store of the flag. In a multi-CTA kernel the CTAs' stores reach the signalling
// CTA through a count: each CTA counts itself in with a GPU-scope release, and
// the last one, acquiring the count, signals; its system-scope fence releases
// what it acquired, cumulatively (grid.cuh says why that suffices). The
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

// f(s, j) for every pair of a lane s in [s0, s0 + n) and a member j: every member
// but me (only < 0) or `only`, spread over the threads of Scope.
template <class Scope, class F>
__device__ __forceinline__ void for_lane_members(const gshmemi_team& t, int s0, int n, int only, F f) {
  const int per = only >= 0 ? 1 : t.size - 1;
  for (int i = Scope::rank(); i < n * per; i += Scope::size()) {
    const int s = s0 + i / per;
    f(s, only >= 0 ? only : (t.my_pe + 1 + i % per) % t.size);
  }
}

// Stores `value` into lanes[s][me] of every other member, for the lanes s in
// [s0, s0 + n). Release: one fence.acq_rel.sys per signalling thread, then
// relaxed stores (a thread with several flags to set pays for the fence once).
template <class Scope>
__device__ __forceinline__ void lanes_signal(const gshmemi_team& t, int s0, int n, uint64_t value) {
  bool fenced = false;
  for_lane_members<Scope>(t, s0, n, -1, [&](int s, int j) {
    if (!fenced) fence_acq_rel_sys();
    fenced = true;
    st_relaxed_sys(peer_address(lane_flag(t, s, t.my_pe), team_world_pe(t, j)), value);
  });
}

// Waits until lanes[s][j] >= value for the lanes s in [s0, s0 + n) and every other
// member j (from < 0) or j = from; then syncs the scope.
template <class Scope>
__device__ __forceinline__ void lanes_wait(const gshmemi_team& t, int s0, int n, int from, uint64_t value,
                                           const char* call) {
  for_lane_members<Scope>(t, s0, n, from, [&](int s, int j) {
    wait_epoch(lane_flag(t, s, j), value, call, team_world_pe(t, j), from < 0);  // from < 0: all signal
  });
  Scope::sync();
}

// The end of a collective in which every member pushes to every other: `value`
// into every lane's flags of every other member, then the same awaited from each.
template <class Scope>
__device__ __forceinline__ void exchange_finish(const gshmemi_team& t, int lanes, uint64_t value, const char* call) {
  lanes_signal<Scope>(t, 0, lanes, value);
  lanes_wait<Scope>(t, 0, lanes, -1, value, call);
}

// Pushes `bytes` from local `src` to symmetric `dst` on every member (team PE
// order starting after me, so members do not all hit the same peer first; me
// last, skipped when `skip_self`). Up to kMaxFanout members per pass over `src`
// (scoped_copy_fanout). Does not synchronise the scope.
template <class Scope>
__device__ __forceinline__ void push_to_all(const gshmemi_team& t, char* dst, const char* src, size_t bytes,
                                            bool skip_self) {
  if (bytes == 0) return;
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
}

// One collective call by one thread / warp / block (the device API). Every Op
// provides `lanes`, `span`, prepare<Scope>(t, base, true) (may set lanes and
// span), kLL (whether it has an LL form) and kSplit, and then either
//   kSplit:  push<Scope>(t, s, part, parts), the stores of piece `part` of `parts`
//            of lane s and nothing else, and finish<Scope>(t, base), every lane's
//            signals and waits once all pushes are ordered before them; the
//            device API pushes every lane, syncs and finishes (one fence for the
//            call, not one per lane), the multi-CTA kernels (src/host/coll/grid.cuh)
//            spread the pieces over CTAs and let the last CTA finish;
//   or not:  lane<Scope>(t, base, s), lane s from start to end (its own signals
//            and waits: the broadcast relay, whose lanes forward what they await).
// An Op with an LL form provides `ll` (non-empty: this call takes it, see ll_plan),
// `nbytes` (per message) and the route of ll_exchange (from, to).
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
  if constexpr (Op::kSplit) {
    for (int s = 0; s < op.lanes; ++s) op.template push<Scope>(t, s, 0, 1);
    Scope::sync();
    op.template finish<Scope>(t, base);
  } else {
    for (int s = 0; s < op.lanes; ++s) op.template lane<Scope>(t, base, s);
  }
  Scope::sync();
  if (Scope::rank() == 0) st_volatile(move_counter(t), base + op.span);
  Scope::sync();
  return 0;
}

// ---- debug-mode argument checks (GSHMEM_DEBUG_CHECKS) ----
enum class coll_bad : int {
  root,
  overlap,
  not_symmetric,
  stride,
  not_live,  // dest [a, +x) in the heap but not inside one live allocation; y: the bad_arg (state.cuh)
};

static __device__ __noinline__ void report_bad_coll(const char* call, coll_bad why, const void* a, unsigned long long x,
                                                    const void* b, unsigned long long y) {
  const gshmemi_device_state& s = state();
  const int me = s.my_pe, blk = static_cast<int>(blockIdx.x), thr = static_cast<int>(threadIdx.x);
  switch (why) {
    case coll_bad::root:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: root %lld is not a PE of the team (team size %llu) (block %lld thread %lld); "
          "PE_root is a team PE number from 0 to gshmem_team_n_pes(team)-1\n",
          me, call, static_cast<long long>(x), y, blk, thr);
      break;
    case coll_bad::overlap:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: source [%p, +%llu bytes) and dest [%p, +%llu bytes) overlap "
          "(block %lld thread %lld); use separate source and dest buffers\n",
          me, call, a, x, b, y, blk, thr);
      break;
    case coll_bad::not_symmetric:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: dest [%p, +%llu bytes) is not inside the symmetric heap [%p, %p) "
          "(block %lld thread %lld); allocate dest with gshmem_malloc/calloc/align, large enough for the result\n",
          me, call, a, x, s.heap_base, s.heap_base + s.heap_size, blk, thr);
      break;
    case coll_bad::not_live:
#if defined(GSHMEM_DEBUG_CHECKS)
      report_not_live(call, "dest", a, x, static_cast<int>(y));
#endif
      break;
    case coll_bad::stride:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: %s stride %lld is invalid (block %lld thread %lld); strides count elements "
          "and must be >= 1\n",
          me, call, y ? "source (sst)" : "dest (dst)", static_cast<long long>(x), blk, thr);
      break;
  }
}

// A failed check of a call by the threads of Scope: rank 0 reports and traps (out of line and
// not returning, as every report: impl/report.cuh).
template <class Scope>
[[noreturn]] static __device__ __noinline__ void fail_coll(const char* call, coll_bad why, const void* a,
                                                           unsigned long long x, const void* b, unsigned long long y) {
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
  if (dst_bytes) {  // inside one live allocation too (the out-of-line check of state.cuh)
    const int why = remote_check(dest, dst_bytes, s.my_pe);
    if (why >= 0) fail_coll<Scope>(call, coll_bad::not_live, dest, dst_bytes, nullptr, static_cast<unsigned>(why));
  }
  if (!(same_ok && source == dest) && ranges_overlap(source, src_bytes, dest, dst_bytes))
    fail_coll<Scope>(call, coll_bad::overlap, source, src_bytes, dest, dst_bytes);
#else
  (void)call, (void)dest, (void)dst_bytes, (void)source, (void)src_bytes, (void)same_ok;
#endif
}

}  // namespace detail
}  // namespace gshmem

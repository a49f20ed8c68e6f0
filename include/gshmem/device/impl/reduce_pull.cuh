// SPDX-License-Identifier: BSD-3-Clause
// Pull path of the team reductions (large arrays; bandwidth-bound): reduce-scatter
// straight out of the members' sources, all-gather straight into their dests.
//
// Per slot, in call k of the slot:
//   A. signal 2k-1 ("entered: my source is ready") to every other member;
//   B. wait for 2k-1 from every other member; then
//        all-reduce:    member m reduces part m of the slot's range, reading it from every
//                       member's source (16-byte loads through NVLink), and stores the
//                       result into every member's dest (16-byte stores);
//        reducescatter: member m reduces the slot's range of chunk m from every member's
//                       source into its own dest;
//   C. fence, signal 2k ("done: I read your source and wrote your dest");
//   D. wait for 2k from every other member: my dest is complete and nobody reads my
//      source any more, so the call may return.
// Each element of every source is read by exactly one member, which then writes that
// element of every dest, so in-place all-reduce needs nothing more, and every member gets
// the same bits. Member m combines the sources in the order m, m+1, ..., m-1: at any
// moment the members read from different peers, so no member's links are the bottleneck
// (all starting at member 0 would serialise on member 0's links, then member 1's, ...). In-place
// reducescatter (dest == source) on team PE m > 0 would overwrite chunk 0 while team PE 0
// still reads it: the result is staged in m's own chunk (read by m alone) and copied to
// dest after D.
//
// A participant sends A for all its slots, then takes them in order: every one left in one
// pass when all their sources are ready (one fence for C; a lone participant - a
// device-scope call - whose peers are on time reduces the whole array at once), otherwise
// the next one alone, after sending C for those it has done.
//
// Progress. A participant holds its SM while it waits, and the members' kernels need not
// fit on their GPUs at once (a GPU busy with other work, PEs sharing one, or members
// running different forms or CTA counts: GSHMEM_REDUCE_CTAS is a local choice). Take the
// lowest slot s that some member has not finished. On each member, the participants
// holding lower slots have ended (a participant's slots are contiguous, and it ends once
// they are finished), so the one holding s is the lowest of its grid still running and
// has a place on the GPU (blocks start in index order); it sent A for s when it started,
// has done its slots below s, and sent C for them before waiting for s. So every member
// reduces s and finishes it. Had a participant taken slots s, s + G, ... (as it once did),
// or waited for all of its slots' A before sending any C, a lone participant would wait for
// a CTA of a peer that had no room, and that peer's running CTAs for the lone
// participant's C (found by a review, reproduced in test_reduce_room).
#pragma once

#include <cstdint>

#include "copy.cuh"
#include "reduce_check.cuh"
#include "reduce_loop.cuh"
#include "reduce_proto.cuh"

namespace gshmem {
namespace detail {

// Step B for slots [s0, s1) of this participant, whose sources are ready.
template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_pull_slots(const reduce_ctx<T>& c, int s0, int s1) {
  constexpr uint32_t vec = reduce_vec<T>::n;
  const int N = c.t.size, me = c.t.my_pe;
  const gshmemi_team& t = c.t;
  if (s0 == 0) GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, static_cast<int>(reduce_epoch(c, 0) & 1));
  if (c.scatter) {  // the slots' part of my chunk, in one pass
    const reduce_span sp = reduce_span_of(c, s0, s1);
    const T* chunk = c.source + static_cast<uint64_t>(me) * c.n + sp.lo;
    T* dst = c.staging ? const_cast<T*>(chunk) : c.dest + sp.lo;
    auto in = [&](int j) -> const T* { return peer_address(chunk, team_world_pe(t, (me + j) % N)); };
    auto out = [&](int) -> T* { return dst; };
    reduce_elems<Op, T, Scope>(N, in, 1, out, sp.hi - sp.lo, chunk);  // vectors follow the remote loads
    return;
  }
  // The all-reduce's parts are cut per slot whoever runs them, so that every member's
  // participants agree on who reduces which element.
  for (int s = s0; s < s1; ++s) {
    const reduce_span own = reduce_part_span(reduce_slot_span(c.n, vec, c.plan.slots, s), vec, N, me);
    const T* src = c.source + own.lo;
    T* dst = c.dest + own.lo;
    auto in = [&](int j) -> const T* { return peer_address(src, team_world_pe(t, (me + j) % N)); };
    auto out = [&](int j) -> T* { return peer_address(dst, team_world_pe(t, (me + j) % N)); };
    reduce_elems<Op, T, Scope, false>(N, in, N, out, own.hi - own.lo, src);
  }
}

template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_pull(const reduce_ctx<T>& c) {
  const int me = c.t.my_pe;

  // A. entered
  if (c.takes_slot0()) GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, static_cast<int>(reduce_epoch(c, 0) & 1));
  reduce_signal<Scope>(c, c.lo, c.hi, 1);

  // B. my slots in order: all that are left at once when every source is ready, else the
  // next one alone, once its sources are ready - after C for the slots done so far, so
  // that a participant never waits for a slot while holding back the done of an earlier one.
  int s = c.lo, signalled = c.lo;  // C was sent for slots [c.lo, signalled)
  while (s < c.hi) {
    int e = c.hi;
    if (c.hi - s == 1 || !reduce_ready<Scope>(c, s, c.hi, 1)) {
      if (signalled < s) {
        Scope::sync();
        reduce_signal<Scope>(c, signalled, s, 0);
        signalled = s;
      }
      reduce_wait<Scope>(c, s, s + 1, 1);
      e = s + 1;
    }
    reduce_pull_slots<Op, T, Scope>(c, s, e);
    s = e;
  }

  // C. done
  Scope::sync();
  reduce_signal<Scope>(c, signalled, c.hi, 0);

  // D. every member is done with my slots
  reduce_wait<Scope>(c, c.lo, c.hi, 0);
  if (c.staging && c.lo < c.hi) {
    const reduce_span sp = reduce_span_of(c, c.lo, c.hi);
    scoped_copy<Scope>(c.dest + sp.lo, c.source + static_cast<uint64_t>(me) * c.n + sp.lo, (sp.hi - sp.lo) * sizeof(T));
  }
  reduce_finish<Scope>(c);
}

}  // namespace detail
}  // namespace gshmem

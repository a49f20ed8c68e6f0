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
// dest after D. A lone participant (a device-scope call) waits in B for every slot at
// once, and reduces a reducescatter's whole chunk in one pass.
#pragma once

#include <cstdint>

#include "copy.cuh"
#include "reduce_check.cuh"
#include "reduce_loop.cuh"
#include "reduce_proto.cuh"

namespace gshmem {
namespace detail {

template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_pull(const reduce_ctx<T>& c, int part, int nparts) {
  constexpr uint32_t vec = reduce_vec<T>::n;
  const int N = c.t.size, me = c.t.my_pe;
  const gshmemi_team& t = c.t;

  // A. entered
  if (part == 0) GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, static_cast<int>(reduce_epoch(c, 0) & 1));
  reduce_signal<Scope>(c, part, nparts, 1);

  // B. wait for every source (per slot, or a lone participant for all at once), reduce my
  // part. The all-reduce's parts are cut per slot whoever runs them, so that every
  // member's participants agree on who reduces which element.
  if (nparts == 1) reduce_wait<Scope>(c, part, nparts, 1);
  for (int s = part; s < c.plan.slots; s += nparts) {
    if (nparts > 1) reduce_wait_slot<Scope>(c, s, 1);
    if (s == 0) GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, static_cast<int>(reduce_epoch(c, 0) & 1));
    if (c.scatter) {
      if (nparts == 1 && s > 0) break;  // slot 0's turn took the whole chunk
      const reduce_span sp = nparts == 1 ? reduce_span{0, c.n} : reduce_slot_span(c.n, vec, c.plan.slots, s);
      const T* chunk = c.source + static_cast<uint64_t>(me) * c.n + sp.lo;
      T* dst = c.staging ? const_cast<T*>(chunk) : c.dest + sp.lo;
      auto in = [&](int j) -> const T* { return peer_address(chunk, team_world_pe(t, (me + j) % N)); };
      auto out = [&](int) -> T* { return dst; };
      const bool aligned = ((reinterpret_cast<uintptr_t>(chunk) | reinterpret_cast<uintptr_t>(dst)) & 15) == 0;
      reduce_elems<Op, T, Scope>(N, in, 1, out, sp.hi - sp.lo, aligned);
      continue;
    }
    const reduce_span own = reduce_part_span(reduce_slot_span(c.n, vec, c.plan.slots, s), vec, N, me);
    const T* src = c.source + own.lo;
    T* dst = c.dest + own.lo;
    auto in = [&](int j) -> const T* { return peer_address(src, team_world_pe(t, (me + j) % N)); };
    auto out = [&](int j) -> T* { return peer_address(dst, team_world_pe(t, (me + j) % N)); };
    const bool aligned = ((reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst)) & 15) == 0;
    reduce_elems<Op, T, Scope>(N, in, N, out, own.hi - own.lo, aligned);
  }

  // C. done
  Scope::sync();
  reduce_signal<Scope>(c, part, nparts, 0);

  // D. every member is done with my slots
  reduce_wait<Scope>(c, part, nparts, 0);
  if (c.staging) {
    reduce_for_runs(c, part, nparts, [&](reduce_span sp, int) {
      scoped_copy<Scope>(c.dest + sp.lo, c.source + static_cast<uint64_t>(me) * c.n + sp.lo,
                         (sp.hi - sp.lo) * sizeof(T));
    });
  }
  reduce_finish<Scope>(c, part, nparts);
}

}  // namespace detail
}  // namespace gshmem

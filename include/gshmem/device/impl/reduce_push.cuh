// SPDX-License-Identifier: BSD-3-Clause
// Push path of the team reductions (arrays up to a few push buffers; latency-bound).
//
// Per slot, in call k of the slot (parity p = k & 1):
//   1. copy my contribution into every other member's push buffer [slot][p][me]
//      (all-reduce: my slot range; reducescatter: the slot range of member j's chunk),
//      fence, signal 2k;
//   2. wait for 2k from every other member, then reduce locally, in team order, my own
//      source and the N-1 buffers into my dest.
// One signalled round: no barrier before (the buffers are not the user's arrays) and
// none after, because of the parity: member j can write parity p again only in call
// k+2 of the slot, which it can reach only after receiving my signal of call k+1, which
// I send after step 2 of call k. Reading my source and writing my dest are local, so
// in-place calls are safe and no other member touches my arrays.
#pragma once

#include <cstdint>

#include "copy.cuh"
#include "reduce_check.cuh"
#include "reduce_loop.cuh"
#include "reduce_proto.cuh"

namespace gshmem {
namespace detail {

template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_push(const reduce_ctx<T>& c, int part, int nparts) {
  constexpr uint32_t vec = reduce_vec<T>::n;
  const int N = c.t.size, me = c.t.my_pe;

  // 1. push, fence, signal
  for (int s = part; s < c.plan.slots; s += nparts) {
    const int parity = static_cast<int>(reduce_epoch(c, s) & 1);
    const reduce_span sp = reduce_slot_span(c.n, vec, c.plan.slots, s);
    const uint64_t bytes = (sp.hi - sp.lo) * sizeof(T);
    for (int d = 1; d < N; ++d) {
      const int j = (me + d) % N;  // every member starts with its successor: spreads the links
      const T* src = c.source + (c.scatter ? static_cast<uint64_t>(j) * c.n : 0) + sp.lo;
      scoped_copy<Scope>(peer_address(c.r.push_buf(s, parity, me), team_world_pe(c.t, j)), src, bytes);
    }
  }
  if (part == 0) GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, static_cast<int>(reduce_epoch(c, 0) & 1));
  Scope::sync();
  reduce_signal<Scope>(c, part, nparts, 0);

  // 2. per slot: wait, reduce locally
  for (int s = part; s < c.plan.slots; s += nparts) {
    reduce_wait_slot<Scope>(c, s, 0);
    if (s == 0) GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, static_cast<int>(reduce_epoch(c, 0) & 1));
    const int parity = static_cast<int>(reduce_epoch(c, s) & 1);
    const reduce_span sp = reduce_slot_span(c.n, vec, c.plan.slots, s);
    const T* mine = c.source + (c.scatter ? static_cast<uint64_t>(me) * c.n : 0) + sp.lo;
    T* out0 = c.dest + sp.lo;
    const reduce_region& r = c.r;
    auto in = [&](int j) -> const T* {
      return j == me ? mine : reinterpret_cast<const T*>(r.push_buf(s, parity, j));
    };
    auto out = [&](int) -> T* { return out0; };
    const bool aligned = ((reinterpret_cast<uintptr_t>(mine) | reinterpret_cast<uintptr_t>(out0)) & 15) == 0;
    reduce_elems<Op, T, Scope>(N, in, 1, out, sp.hi - sp.lo, aligned);
  }
  reduce_finish<Scope>(c, part, nparts);
}

}  // namespace detail
}  // namespace gshmem

// SPDX-License-Identifier: BSD-3-Clause
// Push path of the team reductions (arrays up to a push buffer, about the scratch / 2N
// bytes a member; latency-bound).
//
// In call k (parity p = k & 1; every slot of the call has epoch k, reduce_proto.cuh):
//   1. copy my contribution (all-reduce: my source; reducescatter: member j's chunk of
//      it) into my push buffer [p][me] at every other member j, element i at byte
//      i * sizeof(T); fence, signal 2k on each of my slots;
//   2. wait for 2k from every other member, then reduce locally, in team order, my own
//      source and the N-1 buffers into my dest.
// Each participant (a CTA of the library's kernel) does this for its slots, each slot
// on its own; a lone participant (a device-scope call) copies, waits and reduces the
// whole array at once, since its slots are contiguous and share one buffer.
// One signalled round: no barrier before (the buffers are not the user's arrays) and
// none after, because of the parity: member j can write parity p again only in call
// k+2, which it can reach only after receiving my signal of call k+1, which I send
// after step 2 of call k. Reading my source and writing my dest are local, so in-place
// calls are safe and no other member touches my arrays.
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
  const int N = c.t.size, me = c.t.my_pe;
  // The call's parity: its push slots are uniform slots, which share one epoch.
  const int parity = part < c.plan.slots ? static_cast<int>(reduce_epoch(c, part) & 1) : 0;
  const reduce_region& r = c.r;

  // 1. push, fence, signal
  reduce_for_runs(c, part, nparts, [&](reduce_span sp, int) {
    for (int d = 1; d < N; ++d) {
      const int j = (me + d) % N;  // every member starts with its successor: spreads the links
      const T* src = c.source + (c.scatter ? static_cast<uint64_t>(j) * c.n : 0) + sp.lo;
      T* buf = reinterpret_cast<T*>(r.push_buf(parity, me)) + sp.lo;
      scoped_copy<Scope>(peer_address(buf, team_world_pe(c.t, j)), src, (sp.hi - sp.lo) * sizeof(T));
    }
  });
  if (part == 0) GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, parity);
  Scope::sync();
  reduce_signal<Scope>(c, part, nparts, 0);

  // 2. wait (a lone participant: for every slot at once), reduce locally
  if (nparts == 1) reduce_wait<Scope>(c, part, nparts, 0);
  reduce_for_runs(c, part, nparts, [&](reduce_span sp, int s) {
    if (nparts > 1) reduce_wait_slot<Scope>(c, s, 0);
    if (s == 0) GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, parity);
    const T* mine = c.source + (c.scatter ? static_cast<uint64_t>(me) * c.n : 0) + sp.lo;
    T* out0 = c.dest + sp.lo;
    auto in = [&](int j) -> const T* {
      return j == me ? mine : reinterpret_cast<const T*>(r.push_buf(parity, j)) + sp.lo;
    };
    auto out = [&](int) -> T* { return out0; };
    const bool aligned = ((reinterpret_cast<uintptr_t>(mine) | reinterpret_cast<uintptr_t>(out0)) & 15) == 0;
    reduce_elems<Op, T, Scope>(N, in, 1, out, sp.hi - sp.lo, aligned);
  });
  reduce_finish<Scope>(c, part, nparts);
}

}  // namespace detail
}  // namespace gshmem

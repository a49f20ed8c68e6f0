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
// Each participant (a CTA of the library's kernel; a device-scope call is a lone one) does
// this for its slots, which are contiguous and share one buffer: it copies, waits and
// reduces their elements at once. A participant never waits for anything but its peers'
// data, which they send before they wait, so any number of a PE's CTAs may wait for room
// on the GPU.
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
__device__ __forceinline__ void reduce_push(const reduce_ctx<T>& c) {
  const int N = c.t.size, me = c.t.my_pe;
  const bool any = c.lo < c.hi;
  // The call's parity: its push slots are uniform slots, which share one epoch.
  const int parity = any ? static_cast<int>(reduce_epoch(c, c.lo) & 1) : 0;
  const reduce_region& r = c.r;
  const reduce_span sp = reduce_span_of(c, c.lo, c.hi);

  // 1. push, fence, signal
  if (any) {
    for (int d = 1; d < N; ++d) {
      const int j = (me + d) % N;  // every member starts with its successor: spreads the links
      const T* src = c.source + (c.scatter ? static_cast<uint64_t>(j) * c.n : 0) + sp.lo;
      T* buf = reinterpret_cast<T*>(r.push_buf(parity, me)) + sp.lo;
      scoped_copy<Scope>(peer_address(buf, team_world_pe(c.t, j)), src, (sp.hi - sp.lo) * sizeof(T));
    }
  }
  if (c.takes_slot0()) GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, parity);
  Scope::sync();
  reduce_signal<Scope>(c, c.lo, c.hi, 0);

  // 2. wait for my slots, reduce locally
  reduce_wait<Scope>(c, c.lo, c.hi, 0);
  if (any) {
    if (c.takes_slot0()) GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, parity);
    const T* mine = c.source + (c.scatter ? static_cast<uint64_t>(me) * c.n : 0) + sp.lo;
    T* out0 = c.dest + sp.lo;
    auto in = [&](int j) -> const T* {
      return j == me ? mine : reinterpret_cast<const T*>(r.push_buf(parity, j)) + sp.lo;
    };
    auto out = [&](int) -> T* { return out0; };
    // The vectors follow the N - 1 push buffers (all at the same offset), not my own chunk.
    reduce_elems<Op, T, Scope>(N, in, 1, out, sp.hi - sp.lo, in((me + 1) % N));
  }
  reduce_finish<Scope>(c);
}

}  // namespace detail
}  // namespace gshmem

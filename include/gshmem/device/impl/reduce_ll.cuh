// SPDX-License-Identifier: BSD-3-Clause
// LL path of the team reductions: arrays of at most kLLReduceBytes of 4- or 8-byte elements (a
// scalar, a norm, a few counters). The protocol, and why no word needs a fence or an
// acquire, is in coll_ll.cuh. Call k of the team's LL calls:
//   1. send my contribution to every other member j: words into j's words[p][me]
//      (reducescatter: my chunk j);
//   2. per element, in team order, my own source and the words of every other member,
//      each polled until it carries the tag; write dest.
#pragma once

#include <cstdint>
#include <cstring>

#include "coll_ll.cuh"
#include "memops.cuh"
#include "reduce_check.cuh"
#include "reduce_ops.cuh"
#include "reduce_proto.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_ll(const reduce_ctx<T>& c, int part) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the LL path moves 4- and 8-byte elements");
  constexpr int kW = sizeof(T) / 4;      // words per element
  constexpr int kWords = 4;              // words whose loads are in flight together (8 measured slower)
  constexpr int kMembers = kWords / kW;  // members whose words those are
  using A = typename reduce_acc<T>::type;
  if (part != 0) return;  // one slot: the first participant
  const int N = c.t.size, me = c.t.my_pe;
  const ll_call k = ll_begin(c.r.ll);
  GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, 2 + k.parity);
  const uint64_t n = c.n;
  const uint64_t ofs_me = c.scatter ? static_cast<uint64_t>(me) * n : 0;

  // 1. send: element e of my contribution to member j, kW words each
  for (uint64_t e = Scope::rank(); e < n; e += Scope::size()) {
    for (int d = 1, j = me; d < N; ++d) {
      j = j + 1 < N ? j + 1 : 0;
      uint32_t half[kW];
      memcpy(half, c.source + (c.scatter ? static_cast<uint64_t>(j) * n : 0) + e, sizeof(T));
#pragma unroll
      for (int h = 0; h < kW; ++h) ll_send(c.t, k, j, static_cast<int>(e) * kW + h, half[h]);
    }
  }

#if defined(GSHMEM_DEBUG_CHECKS)
  // Every member's record precedes its first word (reduce_check_record fenced it): an
  // acquire load that sees the word sees the record.
  for (int j = Scope::rank(); j < N; j += Scope::size())
    if (j != me) {
      const uint64_t* w0 = k.inbox(j);
      ll_wait(k, w0, ld_relaxed_sys(w0), c.call, team_world_pe(c.t, j));
      (void)ld_acquire_sys(w0);
    }
  Scope::sync();
  GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, 2 + k.parity);
#endif

  // 2. receive and reduce, element by element in team order, kMembers members at a time
  for (uint64_t e = Scope::rank(); e < n; e += Scope::size()) {
    const T own = c.source[ofs_me + e];
    A acc{};
    for (int j0 = 0; j0 < N; j0 += kMembers) {
      const uint64_t* p[kWords];
      uint64_t w[kWords];
      unsigned pending = 0;
#pragma unroll
      for (int x = 0; x < kWords; ++x) {
        const int j = j0 + x / kW;
        p[x] = k.inbox(j) + e * kW + x % kW;
        if (j < N && j != me) {
          w[x] = ld_relaxed_sys(p[x]);
          pending |= 1u << x;
        }
      }
      ll_wait_all(k, p, w, pending, c.call, [&](int x) { return team_world_pe(c.t, j0 + x / kW); });
#pragma unroll
      for (int b = 0; b < kMembers; ++b) {
        const int j = j0 + b;
        if (j >= N) break;
        T v = own;
        if (j != me) {
          uint32_t half[kW];
#pragma unroll
          for (int h = 0; h < kW; ++h) half[h] = static_cast<uint32_t>(w[b * kW + h]);
          memcpy(&v, half, sizeof(T));
        }
        acc = j == 0 ? to_acc(v) : reduce_fn<Op>::apply(acc, to_acc(v));
      }
    }
    c.dest[e] = from_acc<T>(acc);
  }
  ll_end<Scope>(k);
}

}  // namespace detail
}  // namespace gshmem

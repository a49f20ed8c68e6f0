// SPDX-License-Identifier: BSD-3-Clause
// LL path of the team reductions: arrays of 4- or 8-byte elements of at most the team's LL
// message size (GSHMEM_LL_MAX_BYTES, 64 bytes by default: a scalar, a norm, a few
// counters). The protocol, and why no word needs a fence or an acquire,
// is in coll_ll.cuh. Call k of the team's LL calls:
//   1. send my contribution to every other member j: words into j's words[p][me]
//      (reducescatter: my chunk j);
//   2. per element, in team order, my own source and the words of every other member,
//      each polled until it carries the tag; write dest.
// Each thread takes groups of G consecutive elements (reduce_ll_group): a warp or block
// one element per thread, several members' words polled together; a lone thread
// kLLThreadWide words of one member at a time, then the rest kLLThreadBatch at a time
// (one element per round trip cost a lone thread 2.9 us for a 16-byte sum at 2 PEs,
// against 1.3 for 4 bytes).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "coll_ll.cuh"
#include "memops.cuh"
#include "reduce_check.cuh"
#include "reduce_ops.cuh"
#include "reduce_proto.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

// Elements e0 .. e0 + G - 1 (those below n unless kFull) of this thread. Phase 1
// (reduce_ll_send): to every other member, loaded together, then sent. Phase 2
// (reduce_ll_recv): M members' words polled at a time, G * kW * M in flight, reduced in
// team order (every member computes the same bits) into dest.
template <int G, bool kFull, class T>
__device__ __forceinline__ void reduce_ll_send(const reduce_ctx<T>& c, const ll_call& k, uint64_t e0) {
  constexpr int kW = sizeof(T) / 4;  // words per element
  const int N = c.t.size, me = c.t.my_pe;
  const uint64_t n = c.n;
  for (int d = 1, j = me; d < N; ++d) {
    j = j + 1 < N ? j + 1 : 0;
    const T* src = c.source + (c.scatter ? static_cast<uint64_t>(j) * n : 0) + e0;
    const ll_outbox o = ll_outbox_of(c.t, k, j);
    uint32_t half[G][kW];
#pragma unroll
    for (int g = 0; g < G; ++g)
      if (kFull || e0 + g < n) memcpy(half[g], src + g, sizeof(T));
#pragma unroll
    for (int g = 0; g < G; ++g)
      if (kFull || e0 + g < n)
#pragma unroll
        for (int h = 0; h < kW; ++h) ll_put(o, static_cast<int>(e0 + g) * kW + h, half[g][h]);
  }
}

template <class Op, int G, int M, bool kFull, class T>
__device__ __forceinline__ void reduce_ll_recv(const reduce_ctx<T>& c, const ll_call& k, uint64_t e0) {
  constexpr int kW = sizeof(T) / 4;
  constexpr int X = G * kW * M;  // words in flight
  static_assert(X <= 32, "pending is a 32-bit mask");
  using A = typename reduce_acc<T>::type;
  const int N = c.t.size, me = c.t.my_pe;
  const uint64_t n = c.n;
  const T* own = c.source + (c.scatter ? static_cast<uint64_t>(me) * n : 0) + e0;
  T mine[G];
#pragma unroll
  for (int g = 0; g < G; ++g)
    if (kFull || e0 + g < n) mine[g] = own[g];
  A acc[G]{};
  for (int j0 = 0; j0 < N; j0 += M) {
    const uint64_t* p[X];
    uint64_t w[X];
    unsigned pending = 0;
#pragma unroll
    for (int x = 0; x < X; ++x) {
      const int j = j0 + x / (G * kW), g = x / kW % G;
      p[x] = k.inbox(j) + (e0 + g) * kW + x % kW;
      if (j < N && j != me && (kFull || e0 + g < n)) {
        w[x] = ld_relaxed_sys(p[x]);
        pending |= 1u << x;
      }
    }
    ll_wait_all(k, p, w, pending, c.call, [&](int x) { return team_world_pe(c.t, j0 + x / (G * kW)); });
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const int j = j0 + m;
      if (j >= N) break;
#pragma unroll
      for (int g = 0; g < G; ++g) {
        if (!kFull && e0 + g >= n) break;
        T v = mine[g];
        if (j != me) {
          uint32_t half[kW];
#pragma unroll
          for (int h = 0; h < kW; ++h) half[h] = static_cast<uint32_t>(w[(m * G + g) * kW + h]);
          memcpy(&v, half, sizeof(T));
        }
        acc[g] = j == 0 ? to_acc(v) : reduce_fn<Op>::apply(acc[g], to_acc(v));
      }
    }
  }
#pragma unroll
  for (int g = 0; g < G; ++g)
    if (kFull || e0 + g < n) c.dest[e0 + g] = from_acc<T>(acc[g]);
}

template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_ll(const reduce_ctx<T>& c, int part) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the LL path moves 4- and 8-byte elements");
  constexpr int kW = sizeof(T) / 4;
  constexpr bool kLone = std::is_same<Scope, thread_scope>::value;
  // A group: one element and 4 / kW members' words (a warp or block), or a lone thread's
  // kLLThreadWide words of whole groups, then kLLThreadBatch words of the rest.
  constexpr int kWide = kLLThreadWide / kW, kNarrow = kLLThreadBatch / kW;
  if (part != 0) return;  // one slot: the first participant
  const ll_call k = ll_begin(c.r.ll);
  GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, 2 + k.parity);
  const uint64_t n = c.n;
  uint64_t e0 = 0;

  // 1. send: my contribution to every other member
  if constexpr (kLone) {
    for (; e0 + kWide <= n; e0 += kWide) reduce_ll_send<kWide, true>(c, k, e0);
    for (; e0 < n; e0 += kNarrow) reduce_ll_send<kNarrow, false>(c, k, e0);
  } else {
    for (e0 = Scope::rank(); e0 < n; e0 += Scope::size()) reduce_ll_send<1, false>(c, k, e0);
  }

#if defined(GSHMEM_DEBUG_CHECKS)
  // Every member's record precedes its first word (reduce_check_record fenced it): an
  // acquire load that sees the word sees the record.
  for (int j = Scope::rank(); j < c.t.size; j += Scope::size())
    if (j != c.t.my_pe) {
      const uint64_t* w0 = k.inbox(j);
      ll_wait(k, w0, ld_relaxed_sys(w0), c.call, team_world_pe(c.t, j));
      (void)ld_acquire_sys(w0);
    }
  Scope::sync();
  GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, 2 + k.parity);
#endif

  // 2. receive and reduce, in team order
  if constexpr (kLone) {
    for (e0 = 0; e0 + kWide <= n; e0 += kWide) reduce_ll_recv<Op, kWide, 1, true>(c, k, e0);
    for (; e0 < n; e0 += kNarrow) reduce_ll_recv<Op, kNarrow, 1, false>(c, k, e0);
  } else {
    for (e0 = Scope::rank(); e0 < n; e0 += Scope::size()) reduce_ll_recv<Op, 1, 4 / kW, false>(c, k, e0);
  }
  ll_end<Scope>(k);
}

}  // namespace detail
}  // namespace gshmem

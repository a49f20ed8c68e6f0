// SPDX-License-Identifier: BSD-3-Clause
// LL path of the team reductions: arrays of 4- or 8-byte elements of at most the team's LL
// message size (GSHMEM_LL_MAX_BYTES, 256 bytes by default: a scalar, a norm, a few
// counters, a small gradient). The protocol, and why no word needs a fence or an acquire,
// is in coll_ll.cuh. Call k of the team's LL calls:
//   1. send my contribution to every other member j: words into j's words[p][me]
//      (reducescatter: my chunk j);
//   2. per element, in team order, my own source and the words of every other member,
//      each polled until it carries the tag; write dest.
// A warp or block takes one element per thread, several members' words polled together,
// all of step 1 before step 2; a lone thread goes a group of elements at a time - a line
// (kLLLine words), the last part of a line as one group, or kLLThreadBatch words when that
// part is short - steps 1 and 2 for each group, its members' words a line in flight (why a
// line: coll_ll.cuh).
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

// The words of elements p[0 .. G - 1] (those below `left` unless kFull) into w: 16-byte
// loads for a whole group at a 16-byte aligned p (a lone thread's), else element by element;
// a lone thread's group past `left` gets zero words. (L: the type of `left`.)
template <int G, bool kFull, class T, class L>
__device__ __forceinline__ void reduce_ll_load(const T* p, L left, uint32_t (&w)[G * sizeof(T) / 4]) {
  constexpr int kW = sizeof(T) / 4, X = G * kW;
  if constexpr (kFull && X % 4 == 0) {
    if (ll_aligned16(p)) {
#pragma unroll
      for (int i = 0; i < X / 4; ++i) {
        const uint4 v = reinterpret_cast<const uint4*>(p)[i];
        w[4 * i] = v.x;
        w[4 * i + 1] = v.y;
        w[4 * i + 2] = v.z;
        w[4 * i + 3] = v.w;
      }
      return;
    }
  }
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (kFull || g < left)
      memcpy(w + g * kW, p + g, sizeof(T));
    else if constexpr (G > 1)
#pragma unroll
      for (int h = 0; h < kW; ++h) w[g * kW + h] = 0;
  }
}

// Stores v[0 .. G - 1] (those below `left` unless kFull) to p, as reduce_ll_load loads.
template <int G, bool kFull, class T>
__device__ __forceinline__ void reduce_ll_store(T* p, int left, const T (&v)[G]) {
  if constexpr (kFull && (G * sizeof(T)) % 16 == 0) {
    if (ll_aligned16(p)) {
#pragma unroll
      for (int i = 0; i < static_cast<int>(G * sizeof(T) / 16); ++i) {
        uint4 x;
        memcpy(&x, reinterpret_cast<const char*>(v) + 16 * i, 16);
        reinterpret_cast<uint4*>(p)[i] = x;
      }
      return;
    }
  }
#pragma unroll
  for (int g = 0; g < G; ++g)
    if (kFull || g < left) p[g] = v[g];
}

// Phase 1: elements e0 .. e0 + G - 1 (those below n unless kFull) of this thread to every
// other member: loaded together (once, unless a reducescatter sends each its own chunk),
// then sent, in 16-byte pairs where they fill them. kPad: the whole group is sent, zero
// words past the message included (a lone thread's last part of a line: pair stores
// without a test each; they stay in the receiver's words for this sender, which has room
// for whole lines, and no receiver reads them).
template <int G, bool kFull, bool kPad = kFull, class T>
__device__ __forceinline__ void reduce_ll_send(const reduce_ctx<T>& c, const ll_call& k, uint64_t e0) {
  constexpr int kW = sizeof(T) / 4;  // words per element
  constexpr int X = G * kW;          // words of the group
  const int N = c.t.size, me = c.t.my_pe;
  const uint64_t n = c.n;
  const int nw = static_cast<int>((n - e0) * kW);  // words left in the message from e0
  // Elements left; a lone thread's group tests each of its elements against it, in 32 bits
  // (the LL message has at most kLLMaxWords words). A warp's or block's G == 1 keeps 64.
  using L = std::conditional_t<(G > 1), int, uint64_t>;
  const L left = static_cast<L>(n - e0);
  const int w0 = static_cast<int>(e0) * kW;
  uint32_t half[X];
  if (!c.scatter) reduce_ll_load<G, kFull>(c.source + e0, left, half);
#pragma unroll 1
  for (int d = 1, j = me; d < N; ++d) {
    j = j + 1 < N ? j + 1 : 0;
    if (c.scatter) reduce_ll_load<G, kFull>(c.source + static_cast<uint64_t>(j) * n + e0, left, half);
    const ll_outbox o = ll_outbox_of(c.t, k, j);
    if constexpr (X % 2 == 0) {
#pragma unroll
      for (int x = 0; x < X; x += 2)
        if (kPad || x < nw) st_relaxed_sys_v2(o.to + w0 + x, o.tag | half[x], o.tag | half[x + 1]);
    } else {
#pragma unroll
      for (int x = 0; x < X; ++x)
        if (kFull || x < nw) ll_put(o, w0 + x, half[x]);
    }
  }
}

// Phase 2 of a warp's or block's thread: element e (none if e >= n, which only a warp's
// lanes past the end have), M members' words polled at a time, reduced in team order
// (every member computes the same bits) into dest. Every round reloads all the words still
// pending, their loads in flight together, so a round costs one load latency however many
// words are late; waiting for them one at a time costs one latency per late word
// (perftest/probe/coll_small_probe.cu). A warp's lanes run the same rounds, each wait ended
// by a vote (ll_wait_vote, coll_ll.cuh): lanes leaving their waits one by one cost a warp
// more for sums of fewer elements than lanes. A block's threads wait one by one: for a
// block the vote costs more than it saves.
template <class Op, int M, class Scope, class T>
__device__ __forceinline__ void reduce_ll_recv(const reduce_ctx<T>& c, const ll_call& k, uint64_t e) {
  constexpr int kW = sizeof(T) / 4;
  constexpr int X = kW * M;  // words in flight
  static_assert(X <= 32, "pending is a 32-bit mask");
  using A = typename reduce_acc<T>::type;
  const int N = c.t.size, me = c.t.my_pe;
  const bool on = e < c.n;
  const T mine = on ? c.source[(c.scatter ? static_cast<uint64_t>(me) * c.n : 0) + e] : T{};
  A acc{};
  for (int j0 = 0; j0 < N; j0 += M) {
    const uint64_t* p[X];
    uint64_t w[X];
    unsigned pending = 0;
#pragma unroll
    for (int x = 0; x < X; ++x) {
      const int j = j0 + x / kW;
      p[x] = k.inbox(j) + e * kW + x % kW;
      w[x] = 0;
      if (on && j < N && j != me) {
        w[x] = ld_relaxed_sys(p[x]);
        pending |= 1u << x;
      }
    }
    const auto settle = [&] {
#pragma unroll
      for (int x = 0; x < X; ++x)
        if ((pending >> x & 1u) && static_cast<uint32_t>(w[x] >> 32) == k.tag) pending &= ~(1u << x);
      return pending != 0;
    };
    const auto round = [&] {
#pragma unroll
      for (int x = 0; x < X; ++x)
        if (pending >> x & 1u) w[x] = ld_relaxed_sys(p[x]);
      return settle();
    };
    const auto report = [&](wait_deadline& d) {
      const int j = j0 + (__ffs(pending) - 1) / kW;
      report_stuck(c.call, k.inbox(j), k.tag, team_world_pe(c.t, j));
    };
    if constexpr (std::is_same<Scope, warp_scope>::value) {
      ll_wait_vote(warp_scope::mask(), settle(), round, report);
    } else if (settle()) {
      wait_deadline d;
      while (round())
        if (d.expired()) report(d);
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const int j = j0 + m;
      if (j >= N) break;
      T v = mine;
      if (j != me) {
        uint32_t half[kW];
#pragma unroll
        for (int h = 0; h < kW; ++h) half[h] = static_cast<uint32_t>(w[m * kW + h]);
        memcpy(&v, half, sizeof(T));
      }
      acc = j == 0 ? to_acc(v) : reduce_fn<Op>::apply(acc, to_acc(v));
    }
  }
  if (on) c.dest[e] = from_acc<T>(acc);
}

// Phase 2 of a lone thread: elements e0 .. e0 + G - 1 (those below n unless kFull), member
// by member in team order, each member's G * kW words (at most a line) polled together
// (those past the message are zero, reduced and not stored); my own elements loaded again
// in my turn, from L1 (phase 1 loaded them): holding them in registers across the polls
// would take registers from a line's wait.
template <class Op, int G, bool kFull, class T>
__device__ __forceinline__ void reduce_ll_recv_lone(const reduce_ctx<T>& c, const ll_call& k, uint64_t e0) {
  constexpr int kW = sizeof(T) / 4;
  constexpr int X = G * kW;
  using A = typename reduce_acc<T>::type;
  const int N = c.t.size, me = c.t.my_pe;
  const uint64_t n = c.n;
  const int left = static_cast<int>(n - e0), nw = left * kW;
  A acc[G];
#pragma unroll 1
  for (int j = 0; j < N; ++j) {
    uint32_t words[X];
    if (j == me) {
      reduce_ll_load<G, kFull>(c.source + (c.scatter ? static_cast<uint64_t>(me) * n : 0) + e0, left, words);
    } else {
      uint64_t w[X];
      ll_wait_words<X, kFull>(k.tag, k.inbox(j) + e0 * kW, nw, w, c.call, team_world_pe(c.t, j));
#pragma unroll
      for (int x = 0; x < X; ++x) words[x] = static_cast<uint32_t>(w[x]);
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      T v;
      memcpy(&v, words + g * kW, sizeof(T));
      acc[g] = j == 0 ? to_acc(v) : reduce_fn<Op>::apply(acc[g], to_acc(v));
    }
  }
  T out[G];
#pragma unroll
  for (int g = 0; g < G; ++g) out[g] = from_acc<T>(acc[g]);
  reduce_ll_store<G, kFull>(c.dest + e0, left, out);
}

// With debug checks: waits for every member's first word of the call, then compares the
// members' records of it (every member's record precedes its first word:
// reduce_check_record fenced it, and an acquire load that sees the word sees the record).
template <class Scope, class T>
__device__ __forceinline__ void reduce_ll_check_peers(const reduce_ctx<T>& c, const ll_call& k) {
#if defined(GSHMEM_DEBUG_CHECKS)
  for (int j = Scope::rank(); j < c.t.size; j += Scope::size())
    if (j != c.t.my_pe) {
      const uint64_t* w0 = k.inbox(j);
      wait_for([&] { return static_cast<uint32_t>(ld_acquire_sys(w0) >> 32) == k.tag; }, c.call, team_world_pe(c.t, j));
    }
  Scope::sync();
  GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, 2 + k.parity);
#else
  (void)c;
  (void)k;
#endif
}

// A lone thread goes group by group - a line of elements; then what is left of a line, as
// one group if it is more than 2 * kLLThreadBatch words and the team's words have room for
// a line, else kLLThreadBatch words at a time - each group sent to every other member, then
// received from them and reduced. Each group costs a round trip, so a long rest goes as
// one group; a short one (a 4-byte sum) in kLLThreadBatch words, since a whole line's group
// costs more than a kLLThreadBatch round. Every member sends a group before it waits for
// that group from the others, so no member waits for words not yet on their way; and my
// elements, loaded to be sent, are still in L1 when they are reduced (rather than every
// group sent first and my elements loaded again for every member).
template <class Op, class T>
__device__ __forceinline__ void reduce_ll_lone(const reduce_ctx<T>& c, const ll_call& k) {
  constexpr int kW = sizeof(T) / 4, kLine = kLLLine / kW, kNarrow = kLLThreadBatch / kW;
  uint64_t e0 = 0;
#pragma unroll 1
  for (; e0 + kLine <= c.n; e0 += kLine) {
    reduce_ll_send<kLine, true>(c, k, e0);
    if (e0 == 0) reduce_ll_check_peers<thread_scope>(c, k);
    reduce_ll_recv_lone<Op, kLine, true>(c, k, e0);
  }
  if ((c.n - e0) * kW > 2 * kLLThreadBatch && k.a.w >= kLLLine) {
    reduce_ll_send<kLine, false, true>(c, k, e0);
    if (e0 == 0) reduce_ll_check_peers<thread_scope>(c, k);
    reduce_ll_recv_lone<Op, kLine, false>(c, k, e0);
    return;
  }
#pragma unroll 1
  for (; e0 < c.n; e0 += kNarrow) {
    reduce_ll_send<kNarrow, false>(c, k, e0);
    if (e0 == 0) reduce_ll_check_peers<thread_scope>(c, k);
    reduce_ll_recv_lone<Op, kNarrow, false>(c, k, e0);
  }
}

template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_ll(const reduce_ctx<T>& c, int part) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the LL path moves 4- and 8-byte elements");
  constexpr int kW = sizeof(T) / 4;  // words per element
  if (part != 0) return;             // one slot: the first participant
  const ll_call k = ll_begin(c.r.ll);
  GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, 2 + k.parity);
  if constexpr (std::is_same<Scope, thread_scope>::value) {
    reduce_ll_lone<Op>(c, k);
  } else {
    // 1. send: my contribution to every other member
    for (uint64_t e = Scope::rank(); e < c.n; e += Scope::size()) reduce_ll_send<1, false>(c, k, e);
    reduce_ll_check_peers<Scope>(c, k);
    // 2. receive and reduce, in team order; every lane of a warp runs the same iterations
    // (e0: the warp's first element of each), its elements past the end idle
    if constexpr (std::is_same<Scope, warp_scope>::value) {
      for (uint64_t e0 = 0; e0 < c.n; e0 += Scope::size()) reduce_ll_recv<Op, 4 / kW, Scope>(c, k, e0 + Scope::rank());
    } else {
      for (uint64_t e = Scope::rank(); e < c.n; e += Scope::size()) reduce_ll_recv<Op, 4 / kW, Scope>(c, k, e);
    }
  }
  ll_end<Scope>(k);
}

}  // namespace detail
}  // namespace gshmem

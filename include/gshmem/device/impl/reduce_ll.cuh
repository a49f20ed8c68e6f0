// SPDX-License-Identifier: BSD-3-Clause
// LL path of the team reductions: arrays of at most kReduceLLBytes of 4- or 8-byte
// elements (a scalar, a norm, a few counters), where the push path's cost is its
// ordering, not its data: a fence between the data and the flag (0.64 us on H200) and
// the flag's own flight.
//
// Each 8-byte word carries 4 bytes of data and the call's 32-bit tag, written with one
// relaxed system-scope store; an 8-byte aligned store is single-copy atomic, so a word
// whose tag is this call's also holds this call's data. No fence, no flag: one flight.
//
// Call k of the LL path (k counts LL calls; r.ll_count, local, the same on every member
// since all choose paths alike), parity p = k & 1, tag = k mod 2^32:
//   1. send my contribution to every other member j: words into j's ll[p][me]
//      (reducescatter: my chunk j);
//   2. per element, in team order, my own source and the words of every other member,
//      each polled (relaxed loads, all members' words in flight at once) until it
//      carries the tag; write dest.
// A word is taken only with this call's tag: one left from an older call has an older
// tag (k-2, k-4, ...), zeroed scratch has tag 0, and member j can overwrite ll[p][j]
// with call k+2's words only after my words of call k+1, which I send only after every
// word of call k came back with its tag. So no load needs acquire semantics (an acquire
// load also holds back the loads after it: with acquire polls a thread reducing 4 floats
// at 4 PEs took 7.5 us, with relaxed ones 5.6 us). The push and pull paths count their
// own epochs; LL calls do not appear in them, so neither path's reuse argument relies on
// the other.
#pragma once

#include <cstdint>
#include <cstring>

#include "memops.cuh"
#include "reduce_check.cuh"
#include "reduce_ops.cuh"
#include "reduce_proto.cuh"
#include "state.cuh"
#include "sync.cuh"

namespace gshmem {
namespace detail {

// Spin until the word at w (first read: v) carries `tag`; bounded when GSHMEM_WAIT_TIMEOUT is set.
__device__ __forceinline__ uint64_t ll_wait(const uint64_t* w, uint64_t v, uint32_t tag, const char* what,
                                            int peer) {
  if (static_cast<uint32_t>(v >> 32) == tag) return v;
  const uint64_t timeout = state().wait_timeout_ns;
  const uint64_t start = timeout ? global_timer_ns() : 0;
  uint32_t spins = 0;
  while (static_cast<uint32_t>((v = ld_relaxed_sys(w)) >> 32) != tag) {
    if (timeout && (++spins & 1023u) == 0 && global_timer_ns() - start > timeout)
      report_wait_timeout(what, peer, timeout / 1000000000ull);
  }
  return v;
}

template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_ll(const reduce_ctx<T>& c, int part) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the LL path moves 4- and 8-byte elements");
  constexpr int kW = sizeof(T) / 4;  // words per element
  constexpr int kBatch = 8;          // members whose words are loaded before any is waited for
  using A = typename reduce_acc<T>::type;
  if (part != 0) return;  // one slot: the first participant
  const int N = c.t.size, me = c.t.my_pe;
  const uint64_t k = ld_volatile(c.r.ll_count) + 1;
  const int parity = static_cast<int>(k & 1);
  const uint32_t tag = static_cast<uint32_t>(k);
  GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, 2 + parity);
  const uint64_t n = c.n;
  const uint64_t ofs_me = c.scatter ? static_cast<uint64_t>(me) * n : 0;

  // 1. send: element e of my contribution to member j, kW words each
  for (uint64_t e = Scope::rank(); e < n; e += Scope::size()) {
    for (int d = 1; d < N; ++d) {
      const int j = (me + d) % N;
      uint32_t half[kW];
      memcpy(half, c.source + (c.scatter ? static_cast<uint64_t>(j) * n : 0) + e, sizeof(T));
      uint64_t* dst = peer_address(c.r.ll_buf(parity, me) + e * kW, team_world_pe(c.t, j));
#pragma unroll
      for (int q = 0; q < kW; ++q) st_relaxed_sys(dst + q, (static_cast<uint64_t>(tag) << 32) | half[q]);
    }
  }

#if defined(GSHMEM_DEBUG_CHECKS)
  // Every member's record precedes its first word (reduce_check_record fenced it): an
  // acquire load that sees the word sees the record.
  for (int j = Scope::rank(); j < N; j += Scope::size())
    if (j != me) {
      const uint64_t* w0 = c.r.ll_buf(parity, j);
      ll_wait(w0, ld_relaxed_sys(w0), tag, c.call, team_world_pe(c.t, j));
      (void)ld_acquire_sys(w0);
    }
  Scope::sync();
  GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, 2 + parity);
#endif

  // 2. receive and reduce, in team order; the loads of kBatch members are in flight at once
  for (uint64_t e = Scope::rank(); e < n; e += Scope::size()) {
    A acc{};
    for (int j0 = 0; j0 < N; j0 += kBatch) {
      uint64_t w[kBatch][kW];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int j = j0 + b;
        if (j >= N || j == me) continue;
#pragma unroll
        for (int q = 0; q < kW; ++q) w[b][q] = ld_relaxed_sys(c.r.ll_buf(parity, j) + e * kW + q);
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int j = j0 + b;
        if (j >= N) break;
        T v;
        if (j == me) {
          v = c.source[ofs_me + e];
        } else {
          uint32_t half[kW];
#pragma unroll
          for (int q = 0; q < kW; ++q)
            half[q] = static_cast<uint32_t>(
                ll_wait(c.r.ll_buf(parity, j) + e * kW + q, w[b][q], tag, c.call, team_world_pe(c.t, j)));
          memcpy(&v, half, sizeof(T));
        }
        acc = j == 0 ? to_acc(v) : reduce_fn<Op>::apply(acc, to_acc(v));
      }
    }
    c.dest[e] = from_acc<T>(acc);
  }

  // The count advances after every thread of the group is done with it.
  Scope::sync();
  if (Scope::rank() == 0) st_volatile(c.r.ll_count, k);
  Scope::sync();
}

}  // namespace detail
}  // namespace gshmem

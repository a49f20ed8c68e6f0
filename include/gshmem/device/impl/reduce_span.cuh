// SPDX-License-Identifier: BSD-3-Clause
// Reductions of a team whose members are not all reached by loads and stores
// (GSHMEMI_TEAM_SPANS_NODES; docs/internode.md section 7), by push. A call runs in rounds of up
// to one receive slot of data per member: every member sends its contribution (reduce: its
// chunk of the source; reducescatter: chunk j of the source to member j only) into its slot at
// every other member, with a flag; each member waits for the other members' flags of the round,
// combines their slots and its own source in team PE order (so the results are identical on
// every member, bit for bit, as device/reduce.cuh promises) and writes its dest. A round costs
// one one-way latency: an all-reduce of up to 8 bytes is one inline proxy entry (data and
// signal, no copy out of device memory, no reply) to each remote member, then the wait.
//
// A send: to a mapped member stores and a release store of the flag; to a proxy member
// blocking proxy puts of at most 1 MiB, the last carrying the flag as a SET signal, which the
// proxy applies after the data (docs/memory-model.md, "Across the proxy") - span_send_pe of
// coll_span.cuh - or, up to 16 bytes, inline entries (span_push_inline). Every send returns
// with the source read: stores done, the proxy's copy taken, or the data in the entries.
//
// State (reduce_layout.cuh): receive slots [round parity][sender] in the push area of the
// team's reduction region, which no other path uses on such a team; flags[0][j], the last
// round team PE j signalled here; flags[0][me], this member's count of rounds (never written
// remotely). Rounds are numbered 1, 2, ... over all reductions of the team - every member runs
// the same calls, cut into the same rounds - and a flag is SET to its round, never reset.
//
// No synchronisation at entry or exit:
//   - a member waits for a round r with ">= r": a sender already in round r + 1 has SET its
//     flag past r only after r's data (one sender's transfers to one member apply in order:
//     stores before a release store; proxy operations in ticket order);
//   - a slot is free when written (two slots a sender, by round parity): member j writes round
//     r + 2 into its slot at member k that round r used only after it received k's round r + 1,
//     which k sends only after its scope finished reading its round-r slots (the scope's
//     barrier that ends each round comes before the next round's sends). So no member gets
//     more than one round ahead of another;
//   - the source may change once a member returns (its sends read it all); in place (dest ==
//     source), a round's dest writes come after its sends, each element read before it is
//     written by the same thread, and touch no element a later round sends (a reducescatter
//     writes the round's range of chunk 0, which this round has sent);
//   - dest is written by its member alone.
// Out of line: entered through one predictable branch of the reductions' entries.
#pragma once

#include "coll_span.cuh"
#include "proxy.cuh"
#include "reduce_layout.cuh"
#include "reduce_loop.cuh"
#include "reduce_ops.cuh"

namespace gshmem {
namespace detail {

static_assert(kReduceSpanPiece == kSpanPiece, "the slot cut assumes the proxy pieces of coll_span.cuh");

[[noreturn]] static __device__ __noinline__ inline void span_report_scratch(const char* call, uint64_t scratch_bytes,
                                                                            int n) {
  report_printf(
      "gshmem ERROR [PE %lld]: %s: the team's collective scratch (%llu bytes for %lld members) leaves no room for "
      "a reduction across nodes; raise GSHMEM_TEAM_SCRATCH_SIZE. Trapping.\n",
      state().my_pe, call, static_cast<unsigned long long>(scratch_bytes), n);
  __trap();
}

// Up to GSHMEMI_PROXY_INLINE_MAX (16) bytes to a proxy member by a block: inline entries, the
// flag SET to `round` as their signal (up to 8 bytes: one entry with its signal), complete on
// return. put_body sends a block's global source by reference (the proxy's copy out and a
// reply: registers, proxy.cuh); a thread's or a warp's goes inline there (span_send_pe).
template <class Scope>
static __device__ __noinline__ void span_push_inline(int pe, char* dst, const char* src, uint64_t bytes, uint64_t* flag,
                                                     uint64_t round) {
  Scope::sync();
  if (Scope::rank() == 0)
    proxy::put_inline(proxy::offset_of(dst), src, bytes, pe, proxy::signal_flags(flag, GSHMEM_SIGNAL_SET),
                      proxy::offset_of(flag), round);
}

// out(0)[e] = in(0)[e] Op ... Op in(nin - 1)[e] for e < m, inputs in index order, by the threads
// of Scope, through L2 (the receive slots were written by other GPUs and the proxy). The vector
// loop of reduce_loop.cuh in groups of two vectors (its groups of four cost a block's kernel 30
// registers here: tests/registers), a lone thread one vector at a time; all inputs and the
// output 16-byte aligned (`aligned`: the slots are), else element by element. Every member
// combines in the same order with the same operations: the same bits everywhere.
template <class Op, class T, class Scope, class In, class Out>
__device__ __forceinline__ void span_combine(int nin, const In& in, const Out& out, uint64_t m, bool aligned) {
  constexpr bool pair = !std::is_same_v<Scope, thread_scope>;
  const uint64_t nvec = aligned ? m / reduce_vec<T>::n : 0, st = static_cast<uint64_t>(Scope::size());
  uint64_t i = static_cast<uint64_t>(Scope::rank());
  if constexpr (pair) {
#pragma unroll 1
    for (; i + st < nvec; i += 2 * st) reduce_vectors<Op, T, 2, true, true, false>(nin, in, 1, out, i, st, nvec);
  }
#pragma unroll 1
  for (; i < nvec; i += st) reduce_vectors<Op, T, 1, true, pair, false>(nin, in, 1, out, i, st, nvec);
#pragma unroll 1
  for (uint64_t e = nvec * reduce_vec<T>::n + static_cast<uint64_t>(Scope::rank()); e < m; e += st) {
    typename reduce_acc<T>::type a = to_acc(ld_cg_elem(in(0) + e));
#pragma unroll 1
    for (int j = 1; j < nin; ++j) a = reduce_fn<Op>::apply(a, to_acc(ld_cg_elem(in(j) + e)));
    out(0)[e] = from_acc<T>(a);
  }
}

// reduce (scatter false) or reducescatter (true) of n elements per member (T canonical, the
// team spans nodes and has >= 2 members). Every thread of Scope calls with the same arguments.
template <class Op, class T, class Scope>
static __device__ __noinline__ void reduce_spanning(const char* call, gshmem_team_t team, T* dest, const T* source,
                                                    uint64_t n, bool scatter) {
  if (n == 0) return;                       // every member passes the same n
  const gshmemi_team t = team_entry(team);  // from the table: the caller passes only the handle
  const reduce_region r = reduce_region_of(t);
  const uint64_t slot = reduce_span_slot_bytes(r);
  const uint64_t chunk = slot / sizeof(T);
  if (chunk == 0) span_report_scratch(call, t.scratch_bytes, t.size);
  uint64_t* const flag = r.flags + t.my_pe;  // this member's flag at the others; here, its count of rounds
  uint64_t round = ld_volatile(flag);
  const T* const own = source + (scatter ? static_cast<uint64_t>(t.my_pe) * n : 0);  // my elements of each source
#pragma unroll 1
  for (uint64_t lo = 0; lo < n; lo += chunk) {
    const uint64_t m = n - lo < chunk ? n - lo : chunk, bytes = m * sizeof(T);
    const uint64_t parity = ++round & 1;
    // Send: to the remote members first (their puts take longest), then to the mapped ones.
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
#pragma unroll 1
      for (int k = 1; k < t.size; ++k) {
        const int j = (t.my_pe + k) % t.size, pe = team_world_pe(t, j);
        const bool remote = span_peer(r.push, pe) == nullptr;
        if (remote != (pass == 0)) continue;
        char* const to = r.push + reduce_span_slot_offset(slot, t.size, parity, t.my_pe, j);
        const char* const from = reinterpret_cast<const char*>(source + (scatter ? j * n : 0) + lo);
        if (std::is_same_v<Scope, block_scope> && remote && bytes <= GSHMEMI_PROXY_INLINE_MAX)
          span_push_inline<Scope>(pe, to, from, bytes, flag, round);
        else
          span_send_pe<Scope, true>(pe, to, from, bytes, flag, round);
      }
    }
    // Wait for the others' flags of this round, then combine.
#pragma unroll 1
    for (int j = Scope::rank(); j < t.size; j += Scope::size())
      if (j != t.my_pe) span_wait_epoch(r.flags + j, round, call, team_world_pe(t, j));
    Scope::sync();  // every thread reads what the flags released (coll_common.cuh)
    const int me = t.my_pe;
    const char* const rx = r.push + reduce_span_slot_offset(slot, t.size, parity, 0, t.size);  // the round's slots
    const T* const mine = own + lo;
    T* const res = dest + lo;
    auto in = [=](int j) -> const T* {
      return j == me ? mine : reinterpret_cast<const T*>(rx + static_cast<uint64_t>(j < me ? j : j - 1) * slot);
    };
    auto out = [=](int) -> T* { return res; };
    span_combine<Op, T, Scope>(t.size, in, out, m,
                               ((reinterpret_cast<uintptr_t>(mine) | reinterpret_cast<uintptr_t>(res)) & 15) == 0);
    Scope::sync();  // the round's slots are read before the next round's sends (file comment)
  }
  if (Scope::rank() == 0) st_volatile(flag, round);
  Scope::sync();
}

}  // namespace detail
}  // namespace gshmem

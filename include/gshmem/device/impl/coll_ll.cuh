// SPDX-License-Identifier: BSD-3-Clause
// The LL ("low latency") protocol of a team's small collectives: reductions, broadcast,
// fcollect and alltoall of at most the team's LL message size per message (4 *
// ll_area::w bytes: GSHMEM_LL_MAX_BYTES, 256 by default, in teams of up to 127 members
// with the default scratch; reduce_ll.cuh and ll_exchange below). For these calls the
// cost of the flag protocols is their ordering, not their data: a fence between the
// data and the flag, and the flag's own flight.
//
// Each 8-byte word carries 4 bytes of data and the call's 32-bit tag, written with one
// relaxed system-scope store (or a 16-byte one of two words: each word of it single-copy
// atomic); an 8-byte aligned store is single-copy atomic, so a word whose tag is this
// call's also holds this call's data. No fence, no flag: one flight.
//
// Call k of a team's LL calls (k counts them: area.count, local, the same on every
// member since all members choose paths alike), parity p = k & 1, tag = k mod 2^32:
//   1. every member sends every other member j at least one word, into j's words[p][me];
//   2. every member waits, with relaxed loads, until every word it expects from every
//      other member carries the tag.
// A word is taken only with this call's tag: one left from an older call k' < k carries
// tag k' mod 2^32, which differs from k's as long as k - k' < 2^32 (ll_refresh keeps it
// so: a word position that calls leave unwritten may otherwise wait 2^32 calls for its
// next use, and zeroed scratch is "call 0"), and member j can overwrite words[p][j]
// with call k+2's words only after it received my words of call k+1, which I send only
// after every word of call k came back with its tag. That is why every member sends to
// every other one in every call, even when it has nothing to say (a broadcast's
// non-roots send one tag-only word): a member that only sent could run ahead and
// overwrite words not yet read. For the same reason no load needs acquire semantics (an
// acquire load also holds back the loads after it, so acquire polls are slower). The other
// paths count their own epochs and sequence numbers; LL calls appear in none of them, so no
// path's reuse argument relies on another.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../scope.cuh"

#include "copy.cuh"
#include "ll_layout.cuh"
#include "memops.cuh"
#include "state.cuh"
#include "sync.cuh"
#include "team.cuh"

namespace gshmem {
namespace detail {

// Call k of the team's LL calls, as this member sees it.
struct ll_call {
  ll_area a;
  uint64_t k;
  int parity;
  uint32_t tag;

  // Words from team PE `sender` in this PE's area.
  __device__ const uint64_t* inbox(int sender) const { return a.buf(parity, sender); }
};

__device__ __forceinline__ ll_call ll_begin(const ll_area& a) {
  ll_call c;
  c.a = a;
  c.k = ld_volatile(a.count) + 1;
  c.parity = static_cast<int>(c.k & 1);
  c.tag = static_cast<uint32_t>(c.k);
  return c;
}

// Tags are 32 bits of a 64-bit count, so a word left in the area since call k' would match
// call k' + 2^32 again (and zeroed scratch, "call 0", matches call 2^32). So the two calls
// at every multiple of kLLRefreshCalls = P (k = mP and mP + 1: one of each parity) end by
// rewriting this member's own words of their parity with their tag. Nobody else writes
// those words then: member j writes words[p][j] here again only in call k + 2, after it
// received my words of call k + 1, which I send after the rewrite (and a release fence).
// A word that call k reads therefore carries the tag of a call in [k - P - 2, k), never
// k's, since P + 2 < 2^32. test_coll_ll moves the counts across those points.
// The cost is a predictable branch per call and the rest out of line, its arguments by
// value: with the call state passed by reference (an address) the LL loops reloaded it
// after every store; inline at the start of a call the rewrite cost small calls more than
// out of line at the end.
constexpr uint64_t kLLRefreshCalls = uint64_t{1} << 31;
static_assert(kLLRefreshCalls + 2 < (uint64_t{1} << 32), "the rewrite must come before a tag repeats");

template <class Scope>
__device__ __noinline__ void ll_refresh(uint64_t* words, uint64_t n, uint32_t tag) {
  for (uint64_t i = Scope::rank(); i < n; i += Scope::size()) st_relaxed_sys(words + i, uint64_t{tag} << 32);
  Scope::sync();
  fence_acq_rel_sys();  // after the barrier: releases every thread's rewrite before any later store
}

// Ends the call: the count advances after every thread of the group is done with it.
template <class Scope>
__device__ __forceinline__ void ll_end(const ll_call& c) {
  Scope::sync();
  if ((c.k & (kLLRefreshCalls - 1)) < 2)
    ll_refresh<Scope>(c.a.buf(c.parity, 0), static_cast<uint64_t>(c.a.n) * static_cast<uint64_t>(c.a.w), c.tag);
  if (Scope::rank() == 0) st_volatile(c.a.count, c.k);
  Scope::sync();
}

// Where this member's words go in team PE j's area (its words[parity][me]), with the
// call's tag in place. A thread sending many words works it out once per member: the
// stores' asm clobbers memory, so anything the address needs that is not already in a
// register would be loaded again for every word.
struct ll_outbox {
  uint64_t* to;
  uint64_t tag;  // the call's tag in the high half
};
__device__ __forceinline__ ll_outbox ll_outbox_of(const gshmemi_team& t, const ll_call& c, int j) {
  return ll_outbox{peer_address(c.a.buf(c.parity, t.my_pe), team_world_pe(t, j)), static_cast<uint64_t>(c.tag) << 32};
}
// Stores word w of this member's message through o.
__device__ __forceinline__ void ll_put(const ll_outbox& o, int w, uint32_t data) {
  st_relaxed_sys(o.to + w, o.tag | data);
}

// The n (1..4) bytes at p as a little-endian word, and back; p need not be aligned.
__device__ __forceinline__ uint32_t ll_load_bytes(const char* p, uint64_t n) {
  if (n == 4 && (reinterpret_cast<uintptr_t>(p) & 3) == 0) return *reinterpret_cast<const uint32_t*>(p);
  uint32_t v = 0;
  for (uint64_t b = 0; b < n; ++b) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[b])) << (8 * b);
  return v;
}
__device__ __forceinline__ void ll_store_bytes(char* p, uint64_t n, uint32_t v) {
  if (n == 4 && (reinterpret_cast<uintptr_t>(p) & 3) == 0) {
    *reinterpret_cast<uint32_t*>(p) = v;
    return;
  }
  for (uint64_t b = 0; b < n; ++b) p[b] = static_cast<char>(v >> (8 * b));
}

// Bytes carried by word w of an n-byte message.
__device__ __forceinline__ uint64_t ll_word_bytes(uint64_t n, int w) {
  const uint64_t at = 4ull * static_cast<uint64_t>(w);
  return n - at < 4 ? n - at : 4;
}

// Whether a data-movement call of `nbytes` per message takes the LL path: the area of
// the team's scratch if so, an empty one if not. Depends only on arguments every member
// agrees on and on the team, so all members decide alike.
__device__ __forceinline__ ll_area ll_plan(const gshmemi_team& t, uint64_t nbytes) {
  if (nbytes == 0 || t.size < 2) return ll_area{};
  const ll_area a = ll_area_of(t);
  return nbytes <= a.max_bytes() ? a : ll_area{};
}

// Copies word w of an n-byte message from `from` to `to` (both local).
__device__ __forceinline__ void ll_copy_word(char* to, const char* from, uint64_t n, int w) {
  ll_store_bytes(to + 4 * w, ll_word_bytes(n, w), ll_load_bytes(from + 4 * w, ll_word_bytes(n, w)));
}

// A lone thread moves its words in 16-byte pairs (ld/st_relaxed_sys_v2): a line of kLLLine
// words (128 bytes) sent together, then polled together, one line in flight; then whole
// 16-byte groups; the last, partial group kLLThreadBatch words at a time. Two things set
// its speed more than the number of loads:
//  - registers: a line's polls hold 32 of them, and a kernel bounded to 1024 threads has
//    64 a thread. Wider batches, or one that also held an address per word, spilled there,
//    and a thread's reload of a spilled value waits behind the polls issued before it: a
//    load latency per word;
//  - instructions: a lone thread waits for every instruction it fetches, so its loops are
//    not unrolled and its copies are vector loads and stores (unrolled, word-by-word copies
//    of the same pairs are much slower).
constexpr int kLLLine = 16;
constexpr int kLLThreadBatch = 4;

// Sends words w0 .. w0 + B - 1 of a message `src` (those below nw, the last maybe partial;
// src nullptr: a tag-only word) to `to`, the receiver's words for this sender, with `tag`
// (the call's, in the high half): loaded together, then stored in pairs. A pair whose
// second word is past the message stores that word as well, with the tag and no data: it
// lies in the sender's slot (nw is odd only below the slot's even length), and no receiver
// reads it.
template <int B>
__device__ __forceinline__ void ll_send_words(uint64_t* to, uint64_t tag, const char* src, int nw, int w0,
                                              uint64_t nbytes) {
  static_assert(B % 2 == 0, "pairs");
  uint32_t data[B];
#pragma unroll
  for (int b = 0; b < B; ++b) {
    const int w = w0 + b;
    data[b] = src != nullptr && w < nw ? ll_load_bytes(src + 4 * w, ll_word_bytes(nbytes, w)) : 0;
  }
#pragma unroll
  for (int b = 0; b < B; b += 2)
    if (w0 + b < nw) st_relaxed_sys_v2(to + w0 + b, tag | data[b], tag | data[b + 1]);
}

// Waits until words 0 .. n - 1 at `at` (16-byte aligned; all B if kFull) carry `tag`,
// loaded in pairs, all in flight together; v ends with them (the pairs past n: zero). A
// round that finds one missing reloads them all: nothing of a failed round stays live, so
// a line's wait holds only its 32 registers of values (reloading only the pairs still
// pending kept both rounds' values live, and spilled). peer: the world PE named on a timeout.
template <int B, bool kFull>
__device__ __forceinline__ void ll_wait_words(uint32_t tag, const uint64_t* at, int n, uint64_t (&v)[B],
                                              const char* what, int peer) {
  static_assert(B % 2 == 0, "pairs");
  const auto here = [&] {
    bool all = true;
#pragma unroll
    for (int q = 0; q < B / 2; ++q)
      if (kFull || 2 * q < n) {
        ld_relaxed_sys_v2(at + 2 * q, v[2 * q], v[2 * q + 1]);
        all &= static_cast<uint32_t>(v[2 * q] >> 32) == tag &&
               ((!kFull && 2 * q + 1 >= n) || static_cast<uint32_t>(v[2 * q + 1] >> 32) == tag);
      } else {
        v[2 * q] = v[2 * q + 1] = 0;
      }
    return all;
  };
  wait_deadline d;
  while (!here())
    if (d.expired()) report_stuck(what, at, tag, peer);
}

__device__ __forceinline__ bool ll_aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// Whole groups of G words (G / 4 16-byte loads, G / 2 pair stores) of a 16-byte aligned
// message src from word w0 on, to `to`; returns the first word not sent.
template <int G>
__device__ __forceinline__ int ll_send_groups(uint64_t* to, uint64_t tag, const char* src, int w0, uint64_t nbytes) {
#pragma unroll 1
  for (; 4ull * static_cast<uint64_t>(w0 + G) <= nbytes; w0 += G) {
    uint4 x[G / 4];
#pragma unroll
    for (int i = 0; i < G / 4; ++i) x[i] = reinterpret_cast<const uint4*>(src + 4 * w0)[i];
#pragma unroll
    for (int i = 0; i < G / 4; ++i) {
      st_relaxed_sys_v2(to + w0 + 4 * i, tag | x[i].x, tag | x[i].y);
      st_relaxed_sys_v2(to + w0 + 4 * i + 2, tag | x[i].z, tag | x[i].w);
    }
  }
  return w0;
}

// Whole groups of G words of a message from `in` into a 16-byte aligned dst, from word w0
// on; returns the first word not taken.
template <int G>
__device__ __forceinline__ int ll_recv_groups(const uint64_t* in, char* dst, int w0, uint64_t nbytes, uint32_t tag,
                                              const char* call, int peer) {
#pragma unroll 1
  for (; 4ull * static_cast<uint64_t>(w0 + G) <= nbytes; w0 += G) {
    uint64_t v[G];
    ll_wait_words<G, true>(tag, in + w0, G, v, call, peer);
#pragma unroll
    for (int i = 0; i < G / 4; ++i)
      reinterpret_cast<uint4*>(dst + 4 * w0)[i] =
          make_uint4(static_cast<uint32_t>(v[4 * i]), static_cast<uint32_t>(v[4 * i + 1]),
                     static_cast<uint32_t>(v[4 * i + 2]), static_cast<uint32_t>(v[4 * i + 3]));
  }
  return w0;
}

// A lone thread's message of nw words (nbytes bytes; src nullptr: one tag-only word) to
// `to`, a member's words for this sender. From a 16-byte aligned source: whole lines,
// then whole 16-byte groups, by vector loads and pair stores; the rest (a partial last
// word, or an unaligned source) kLLThreadBatch words at a time.
__device__ __forceinline__ void ll_lone_send(uint64_t* to, uint64_t tag, const char* src, int nw, uint64_t nbytes) {
  int w0 = 0;
  if (src != nullptr && ll_aligned16(src)) {
    w0 = ll_send_groups<kLLLine>(to, tag, src, w0, nbytes);
    w0 = ll_send_groups<4>(to, tag, src, w0, nbytes);
  }
#pragma unroll 1
  for (; w0 < nw; w0 += kLLThreadBatch) ll_send_words<kLLThreadBatch>(to, tag, src, nw, w0, nbytes);
}

// A lone thread's wait for a member's nw words at `in` (its words in this PE's area), their
// data to dst (nbytes bytes; nullptr: dropped, nw is then 1), in the groups of ll_lone_send.
// peer: the member's world PE.
__device__ __forceinline__ void ll_lone_recv(const uint64_t* in, char* dst, int nw, uint64_t nbytes, uint32_t tag,
                                             const char* call, int peer) {
  int w0 = 0;
  if (dst != nullptr && ll_aligned16(dst)) {
    w0 = ll_recv_groups<kLLLine>(in, dst, w0, nbytes, tag, call, peer);
    w0 = ll_recv_groups<4>(in, dst, w0, nbytes, tag, call, peer);
  }
#pragma unroll 1
  for (; w0 < nw; w0 += kLLThreadBatch) {
    uint64_t v[kLLThreadBatch];
    ll_wait_words<kLLThreadBatch, false>(tag, in + w0, nw - w0, v, call, peer);
    if (dst != nullptr)
#pragma unroll
      for (int b = 0; b < kLLThreadBatch; ++b)
        if (w0 + b < nw) ll_store_bytes(dst + 4 * (w0 + b), ll_word_bytes(nbytes, w0 + b), static_cast<uint32_t>(v[b]));
  }
}

// The data of words 2u and 2u + 1 of an n-byte message of nw words at src (zero past
// them; src nullptr: a tag-only word) - one 8-byte load where both are whole and aligned.
__device__ __forceinline__ void ll_load_pair(const char* src, uint64_t n, int nw, int u, uint32_t& d0, uint32_t& d1) {
  d0 = d1 = 0;
  if (src == nullptr) return;
  const char* p = src + 8 * u;
  if (8ull * static_cast<uint64_t>(u) + 8 <= n && (reinterpret_cast<uintptr_t>(p) & 7) == 0) {
    const uint2 x = *reinterpret_cast<const uint2*>(p);
    d0 = x.x;
    d1 = x.y;
    return;
  }
  d0 = ll_load_bytes(p, ll_word_bytes(n, 2 * u));
  if (2 * u + 1 < nw) d1 = ll_load_bytes(p + 4, ll_word_bytes(n, 2 * u + 1));
}
// Stores the data d0, d1 of words 2u and 2u + 1 (those of the nw words) into dst.
__device__ __forceinline__ void ll_store_pair(char* dst, uint64_t n, int nw, int u, uint32_t d0, uint32_t d1) {
  char* p = dst + 8 * u;
  if (8ull * static_cast<uint64_t>(u) + 8 <= n && (reinterpret_cast<uintptr_t>(p) & 7) == 0) {
    *reinterpret_cast<uint2*>(p) = make_uint2(d0, d1);
    return;
  }
  ll_store_bytes(p, ll_word_bytes(n, 2 * u), d0);
  if (2 * u + 1 < nw) ll_store_bytes(p + 4, ll_word_bytes(n, 2 * u + 1), d1);
}

// Pairs a lane of a warp polls at a time in ll_exchange, their loads in flight together.
// More spilled in gshmem-perf's kernels (64 registers a thread at 1024 threads): with 4,
// two of the four polls' values went to local memory, and the store of each waited for
// its poll to return before the next poll was issued.
constexpr int kLLUnits = 2;

// The wait of a lane of a warp or block in ll_exchange (and of a warp's lane in the LL
// reductions, reduce_ll.cuh), `pending` its first answer: repeats
// round() (which returns whether this lane still waits) until no lane of `lanes` waits, so
// that the warp stays converged; report(d) names the late member once past d. A lane that
// leaves a loop its neighbours still run leaves the warp diverged to the end of the call,
// which made a warp's call with one lane polling slower than one with every lane polling.
template <class Round, class Report>
__device__ __forceinline__ void ll_wait_vote(unsigned lanes, bool pending, Round round, Report report) {
  if (!__any_sync(lanes, pending)) return;
  wait_deadline d;
  do {
    if (pending) {
      pending = round();
      if (pending && d.expired()) report(d);
    }
  } while (__any_sync(lanes, pending));
}

// One LL call of a data-movement collective: every member sends every other member a
// message of nbytes (<= a.max_bytes()) or a tag-only word. The route R says, for this
// member,
//   const char* from(int j)  the message for team PE j (nullptr: a tag-only word);
//   char* to(int i)          where the message from team PE i goes (nullptr: team PE i
//                            sends a tag-only word, taken and dropped).
// to(me) receives from(me) by a local copy (unless either is nullptr or they are equal).
//
// A warp or block spreads the (member, piece) slots over its threads, a power-of-two
// number of slots per member (the unused ones skipped): each thread sends its pieces, then
// polls them, its warp's lanes converged (ll_wait_vote); below for the pieces. A warp's
// pair whose second word is past the message stores that word too, tag only, as a lone
// thread does: it lies in the sender's slot, and no receiver polls it. A lone thread goes
// member by member (ll_lone_send, ll_lone_recv), a line (kLLLine words) or less of one member loaded,
// sent and polled together: its latency is that of every instruction it runs, and these
// plain loops run fewest (fewer than an index space over the pairs, batched).
template <class Scope, class R>
__device__ __forceinline__ void ll_exchange(const gshmemi_team& t, const ll_area& a, const R& r, uint64_t nbytes,
                                            const char* call) {
  const ll_call c = ll_begin(a);
  const int N = t.size, me = t.my_pe;
  const int W = static_cast<int>((nbytes + 3) / 4);  // words of a message
  // Words member j is sent / sends: W with a message, 1 (tag only) without.
  const auto words = [W](const void* msg) { return msg != nullptr ? W : 1; };
  const char* self_src = r.from(me);
  char* self_dst = r.to(me);
  const bool self_copy = self_src != nullptr && self_dst != nullptr && self_src != self_dst;

  if constexpr (std::is_same<Scope, thread_scope>::value) {
    if (self_copy && W <= kLLThreadBatch)
      for (int w = 0; w < W; ++w) ll_copy_word(self_dst, self_src, nbytes, w);
    for (int d = 1, j = me; d < N; ++d) {
      j = j + 1 < N ? j + 1 : 0;
      const char* src = r.from(j);
      const ll_outbox o = ll_outbox_of(t, c, j);
      ll_lone_send(o.to, o.tag, src, words(src), nbytes);
    }
    // A longer message of my own: the copy loop's loads in flight, once my words are out.
    if (self_copy && W > kLLThreadBatch) scoped_copy<thread_scope>(self_dst, self_src, nbytes);
    for (int d = 1, j = me; d < N; ++d) {
      j = j + 1 < N ? j + 1 : 0;
      char* dst = r.to(j);
      ll_lone_recv(c.inbox(j), dst, words(dst), nbytes, c.tag, call, team_world_pe(t, j));
    }
  } else {
    // Slot i: piece i & (2^lg - 1) of the message to or from member me + 1 + (i >> lg)
    // (mod N), 2^lg >= the pieces of a message. A piece is a word, polled one at a time,
    // except where a warp has more words than lanes: then a 16-byte pair of words (one
    // store, one load), a lane polling kLLUnits pairs at a time rather than its words one
    // after the other. Pairs where each lane has a word would slow warps and blocks (more
    // registers in use across the call; a block's threads have a word each up to 1024 words).
    const int lgw = W > 1 ? 32 - __clz(W - 1) : 0;
    const bool pairs = std::is_same<Scope, warp_scope>::value && ((N - 1) << lgw) > Scope::size();
    const int piece = pairs ? 2 : 1;         // words a piece
    const int batch = pairs ? kLLUnits : 1;  // pieces a lane polls at a time
    const int lg = pairs ? (W > 2 ? 32 - __clz((W + 1) / 2 - 1) : 0) : lgw;
    const int slots = (N - 1) << lg;
    const auto member = [me, N, lg](int i) {
      const int j = me + 1 + (i >> lg);
      return j < N ? j : j - N;
    };
    const auto piece_of = [lg](int i) { return i & ((1 << lg) - 1); };
    const auto tagged = [&c](uint64_t v) { return static_cast<uint32_t>(v >> 32) == c.tag; };
    // My own message: loaded first, stored last (a store that waits for its load would
    // hold back the thread's sends and polls); words past kSelf per thread, which only
    // scopes of fewer than W / kSelf threads have, are copied directly at the end.
    constexpr int kSelf = 4;
    uint32_t self[kSelf];
#pragma unroll
    for (int m = 0; m < kSelf; ++m) {
      const int w = Scope::rank() + m * Scope::size();
      if (self_copy && w < W) self[m] = ll_load_bytes(self_src + 4 * w, ll_word_bytes(nbytes, w));
    }
    for (int i = Scope::rank(); i < slots; i += Scope::size()) {
      const int j = member(i), q = piece_of(i);
      const char* src = r.from(j);
      if (piece * q >= words(src)) continue;
      if (pairs) {
        uint32_t d0, d1;
        ll_load_pair(src, nbytes, words(src), q, d0, d1);
        const ll_outbox o = ll_outbox_of(t, c, j);
        st_relaxed_sys_v2(o.to + 2 * q, o.tag | d0, o.tag | d1);
      } else {
        const uint32_t d = src != nullptr ? ll_load_bytes(src + 4 * q, ll_word_bytes(nbytes, q)) : 0;
        ll_put(ll_outbox_of(t, c, j), q, d);
      }
    }
    // The polls: every lane of a warp runs the same iterations (b is the warp's first
    // slot), its slots past the end idle, and waits in ll_wait_vote.
    const int lane = Scope::rank() & 31;
    const unsigned lanes = warp_scope::mask();
    const auto report = [&](int i, wait_deadline& d) {
      report_stuck(call, c.inbox(member(i)), c.tag, team_world_pe(t, member(i)));
    };
    for (int b = Scope::rank() & ~31; b < slots; b += batch * Scope::size()) {
      if (pairs) {
        const uint64_t* p[kLLUnits];
        uint64_t v[2 * kLLUnits];
        unsigned pending = 0;  // bits 2k, 2k + 1: words 2q, 2q + 1 of pair k not yet tagged
#pragma unroll
        for (int k = 0; k < kLLUnits; ++k) {
          const int i = b + lane + k * Scope::size();
          p[k] = nullptr;
          v[2 * k] = v[2 * k + 1] = 0;
          if (i >= slots) continue;
          const int j = member(i), q = piece_of(i), nw = words(r.to(j));
          if (2 * q >= nw) continue;
          p[k] = c.inbox(j) + 2 * q;
          pending |= (2 * q + 1 < nw ? 3u : 1u) << (2 * k);
        }
        const unsigned need = pending;
        const auto round = [&] {
#pragma unroll
          for (int k = 0; k < kLLUnits; ++k)
            if (pending >> (2 * k) & 3u) ld_relaxed_sys_v2(p[k], v[2 * k], v[2 * k + 1]);
#pragma unroll
          for (int x = 0; x < 2 * kLLUnits; ++x)
            if ((pending >> x & 1u) && tagged(v[x])) pending &= ~(1u << x);
          return pending != 0;
        };
        ll_wait_vote(lanes, round(), round,
                     [&](wait_deadline& d) { report(b + lane + (__ffs(pending) - 1) / 2 * Scope::size(), d); });
#pragma unroll
        for (int k = 0; k < kLLUnits; ++k) {
          if ((need >> (2 * k) & 1u) == 0) continue;
          const int i = b + lane + k * Scope::size();
          char* dst = r.to(member(i));
          if (dst != nullptr) ll_store_pair(dst, nbytes, words(dst), piece_of(i), v[2 * k], v[2 * k + 1]);
        }
      } else {
        const int i = b + lane;
        const int j = i < slots ? member(i) : me, w = piece_of(i);
        char* dst = i < slots ? r.to(j) : nullptr;
        const bool on = i < slots && w < words(dst);
        const uint64_t* p = c.inbox(j) + w;
        uint64_t v = on ? ld_relaxed_sys(p) : 0;
        ll_wait_vote(
            lanes, on && !tagged(v), [&] { return !tagged(v = ld_relaxed_sys(p)); },
            [&](wait_deadline& d) { report(i, d); });
        if (on && dst != nullptr) ll_store_bytes(dst + 4 * w, ll_word_bytes(nbytes, w), static_cast<uint32_t>(v));
      }
    }
    if (self_copy) {
#pragma unroll
      for (int m = 0; m < kSelf; ++m) {
        const int w = Scope::rank() + m * Scope::size();
        if (w < W) ll_store_bytes(self_dst + 4 * w, ll_word_bytes(nbytes, w), self[m]);
      }
      for (int w = Scope::rank() + kSelf * Scope::size(); w < W; w += Scope::size())
        ll_copy_word(self_dst, self_src, nbytes, w);
    }
  }
  ll_end<Scope>(c);
}

}  // namespace detail
}  // namespace gshmem

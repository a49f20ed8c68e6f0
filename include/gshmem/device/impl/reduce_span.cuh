// SPDX-License-Identifier: BSD-3-Clause
// Reductions of a team whose members are not all reached by loads and stores
// (GSHMEMI_TEAM_SPANS_NODES; docs/internode.md section 7). Every member reads every member's
// source and combines them itself, in team PE order (so the results are identical on every
// member, bit for bit, as device/reduce.cuh promises):
//   - a team sync first: every member's source is ready;
//   - per chunk: the chunk of each proxy member's source is fetched into this member's scratch
//     (non-blocking proxy gets, then one proxy quiet: one round trip for all of them), mapped
//     members' sources are read in place (ld.global.cg), and the combined chunk is written to
//     dest; in place (dest == source) it is kept in scratch until a team sync says every member
//     has read that chunk of the sources;
//   - a team sync last (not in place): the sources may be reused on return.
// Flat: (members on other nodes) gets per chunk per member. The scratch used is the push
// buffers of the team's reduction region (impl/reduce_layout.cuh), which no peer writes while
// the team's calls take this path: a private area of (size + 1) slots here.
// Out of line: entered through one predictable branch of the reductions' entries.
#pragma once

#include <cstring>

#include "proxy.cuh"
#include "reduce_layout.cuh"
#include "reduce_ops.cuh"
#include "sync.cuh"

namespace gshmem {
namespace detail {

[[noreturn]] static __device__ __noinline__ inline void span_report_scratch(const char* call, uint64_t scratch_bytes,
                                                                            int n) {
  report_printf(
      "gshmem ERROR [PE %lld]: %s: the team's collective scratch (%llu bytes for %lld members) leaves no room for "
      "a reduction across nodes; raise GSHMEM_TEAM_SCRATCH_SIZE. Trapping.\n",
      state().my_pe, call, static_cast<unsigned long long>(scratch_bytes), n);
  __trap();
}

// One element through L2 (ld.global.cg): peers' memory and scratch the proxy wrote are not
// cached in this SM's L1 from an earlier chunk or call.
template <class T>
__device__ __forceinline__ T span_load(const T* p) {
  T v;
  if constexpr (sizeof(T) == 1) {
    const unsigned char b = __ldcg(reinterpret_cast<const unsigned char*>(p));
    memcpy(&v, &b, 1);
  } else if constexpr (sizeof(T) == 2) {
    const unsigned short b = __ldcg(reinterpret_cast<const unsigned short*>(p));
    memcpy(&v, &b, 2);
  } else if constexpr (sizeof(T) == 4) {
    const unsigned int b = __ldcg(reinterpret_cast<const unsigned int*>(p));
    memcpy(&v, &b, 4);
  } else if constexpr (sizeof(T) == 8) {
    const unsigned long long b = __ldcg(reinterpret_cast<const unsigned long long*>(p));
    memcpy(&v, &b, 8);
  } else {
    static_assert(sizeof(T) == 16, "reduction elements are 1, 2, 4, 8 or 16 bytes");
    unsigned long long b[2];
    b[0] = __ldcg(reinterpret_cast<const unsigned long long*>(p));
    b[1] = __ldcg(reinterpret_cast<const unsigned long long*>(p) + 1);
    memcpy(&v, b, 16);
  }
  return v;
}

// The chunk [from, +bytes) of every proxy member's source into its slot of `buf` (slot bytes
// apart): non-blocking gets, then one quiet (their data has landed when it returns).
template <class Scope>
static __device__ __noinline__ void span_fetch(const gshmemi_team t, char* buf, uint64_t slot, const void* from,
                                               uint64_t bytes) {
  bool fetched = false;
#pragma unroll 1
  for (int j = 0; j < t.size; ++j) {
    const int pe = team_world_pe(t, j);
    if (j == t.my_pe || peer_address(from, pe) != nullptr) continue;
    proxy::get<Scope>(buf + static_cast<uint64_t>(j) * slot, from, bytes, pe, true);
    fetched = true;
  }
  if (fetched) {
    Scope::sync();
    if (Scope::rank() == 0) proxy::quiet();
    Scope::sync();
  }
}

// reduce (scatter false) or reducescatter (true) of n elements per member (T canonical, the
// team spans nodes and has >= 2 members). Every thread of Scope calls with the same arguments.
template <class Op, class T, class Scope>
static __device__ __noinline__ void reduce_spanning(const char* call, gshmem_team_t team, T* dest, const T* source,
                                                    uint64_t n, bool scatter) {
  if (n == 0) return;                       // every member passes the same n
  const gshmemi_team t = team_entry(team);  // from the table: the caller passes only the handle
  using A = typename reduce_acc<T>::type;
  const reduce_region r = reduce_region_of(t);
  const uint64_t room = 2ull * static_cast<uint64_t>(r.n) * r.push_bytes;
  const uint64_t slot = room / static_cast<uint64_t>(t.size + 1) / 16 * 16;
  const uint64_t chunk = slot / sizeof(T);
  if (r.nslots == 0 || chunk == 0) span_report_scratch(call, t.scratch_bytes, t.size);
  const bool in_place = static_cast<const void*>(dest) == static_cast<const void*>(source);
  const uint64_t mine = scatter ? static_cast<uint64_t>(t.my_pe) * n : 0;  // my elements in every source
  T* kept = reinterpret_cast<T*>(r.push + static_cast<uint64_t>(t.size) * slot);
  sync_members_mixed<Scope>(t, call, false);
  for (uint64_t lo = 0; lo < n; lo += chunk) {
    const uint64_t m = n - lo < chunk ? n - lo : chunk;
    const T* from = source + mine + lo;
    span_fetch<Scope>(t, r.push, slot, from, m * sizeof(T));
    T* out = in_place ? kept : dest + lo;
#pragma unroll 1
    for (uint64_t i = Scope::rank(); i < m; i += Scope::size()) {
      A acc{};
#pragma unroll 1
      for (int j = 0; j < t.size; ++j) {
        const T* p = j == t.my_pe ? from : peer_address(from, team_world_pe(t, j));
        if (p == nullptr) p = reinterpret_cast<const T*>(r.push + static_cast<uint64_t>(j) * slot);
        const A x = to_acc(span_load(p + i));
        acc = j == 0 ? x : reduce_fn<Op>::apply(acc, x);
      }
      out[i] = from_acc<T>(acc);
    }
    if (in_place) {
      sync_members_mixed<Scope>(t, call, false);  // every member has read this chunk of the sources
#pragma unroll 1
      for (uint64_t i = Scope::rank(); i < m; i += Scope::size()) dest[lo + i] = kept[i];
    }
    Scope::sync();
  }
  if (!in_place) sync_members_mixed<Scope>(t, call, false);
}

}  // namespace detail
}  // namespace gshmem

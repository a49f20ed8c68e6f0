// SPDX-License-Identifier: BSD-3-Clause
// alltoall and alltoalls (contract: device/coll.cuh). Every member pushes block
// j of its source into member j's dest at block me, lane by lane (each lane a
// slice of every block), and signals (base+1). alltoalls does the same with
// element strides. alltoall blocks of LL size (ll_plan: up to 64 bytes by default) go by
// the LL path (coll_ll.cuh) instead: through the team's LL area, no signals.
#pragma once

#include <type_traits>

#include "coll_common.cuh"
#include "coll_span.cuh"
#include "rma.cuh"

namespace gshmem {
namespace detail {

// Small blocks: the (member, unit) pairs of all members form one index space
// spread over the scope's threads, so the loads for every member are in flight
// at once (a copy per member would wait for one load latency per member).
template <class Scope, class U>
__device__ __forceinline__ void push_flat_units(const gshmemi_team& t, char* to, const char* source, uint64_t nbytes,
                                                uint64_t lo, uint64_t len) {
  const uint64_t per = len / sizeof(U), total = per * static_cast<uint64_t>(t.size);
  for (uint64_t i = Scope::rank(); i < total; i += Scope::size()) {
    const int k = static_cast<int>(i / per);
    const uint64_t u = i - static_cast<uint64_t>(k) * per;
    const int j = (t.my_pe + 1 + k) % t.size;
    reinterpret_cast<U*>(team_peer(t, to, j))[u] =
        reinterpret_cast<const U*>(source + static_cast<uint64_t>(j) * nbytes + lo)[u];
  }
}

struct alltoall_op {
  static constexpr bool kLL = true, kSplit = true;
  char* dest;
  const char* source;
  uint64_t nbytes;  // per pair
  int lanes;
  uint64_t span;
  const char* call;
  ll_area ll;  // non-empty: the LL path (blocks of LL size, ll_plan)

  __device__ alltoall_op(const char* c, void* d, const void* s, uint64_t n, const gshmemi_team& t)
      : dest(static_cast<char*>(d)),
        source(static_cast<const char*>(s)),
        nbytes(n),
        lanes(coll_lanes(n * static_cast<uint64_t>(t.size))),
        span(1),
        call(c),
        ll(ll_plan(t, n)) {}

  // LL route: block j of my source to member j, member i's block to block i of dest.
  __device__ const char* from(int j) const { return source + static_cast<uint64_t>(j) * nbytes; }
  __device__ char* to(int i) const { return dest + static_cast<uint64_t>(i) * nbytes; }

  template <class Scope>
  __device__ void prepare(const gshmemi_team&, uint64_t, bool) {}

  template <class Scope>
  __device__ void push_flat(const gshmemi_team& t, char* to, uint64_t lo, uint64_t len) {
    const uint64_t a = reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source) | nbytes | lo | len;
    if (a % 16 == 0)
      push_flat_units<Scope, uint4>(t, to, source, nbytes, lo, len);
    else if (a % 8 == 0)
      push_flat_units<Scope, uint64_t>(t, to, source, nbytes, lo, len);
    else if (a % 4 == 0)
      push_flat_units<Scope, uint32_t>(t, to, source, nbytes, lo, len);
    else if (a % 2 == 0)
      push_flat_units<Scope, uint16_t>(t, to, source, nbytes, lo, len);
    else
      push_flat_units<Scope, uint8_t>(t, to, source, nbytes, lo, len);
  }

  // Blocks of at most this many bytes per member move as one flat index space,
  // except at thread scope: one thread walking the flat loop waits for each
  // load in turn, while scoped_copy keeps copy_unroll loads in flight.
  static constexpr uint64_t kFlatMaxBytes = 1024;

  template <class Scope>
  __device__ void push(const gshmemi_team& t, int s, int part, int parts) {
    uint64_t lo, hi;
    coll_piece(nbytes, lanes, s, part, parts, kSliceAlign, &lo, &hi);
    char* to = dest + static_cast<uint64_t>(t.my_pe) * nbytes + lo;
    if (!std::is_same_v<Scope, thread_scope> && hi - lo <= kFlatMaxBytes) {
      push_flat<Scope>(t, to, lo, hi - lo);
    } else {
      for (int k = 1; k <= t.size; ++k) {
        const int j = (t.my_pe + k) % t.size;
        scoped_copy<Scope>(team_peer(t, to, j), source + static_cast<uint64_t>(j) * nbytes + lo, hi - lo);
      }
    }
  }

  template <class Scope>
  __device__ void finish(const gshmemi_team& t, uint64_t base) {
    exchange_finish<Scope>(t, lanes, base + 1, call);
  }
};

struct alltoalls_op {
  static constexpr bool kLL = false, kSplit = true;
  char* dest;
  const char* source;
  ptrdiff_t dst, sst;  // element strides
  uint64_t nelems;     // per pair
  int esz;             // element bytes: 1, 2, 4, 8 or 16
  int lanes;
  uint64_t span;
  const char* call;

  __device__ alltoalls_op(const char* c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, uint64_t n, int e,
                          int team_size)
      : dest(static_cast<char*>(d)),
        source(static_cast<const char*>(s)),
        dst(ds),
        sst(ss),
        nelems(n),
        esz(e),
        lanes(coll_lanes(n * static_cast<uint64_t>(e) * static_cast<uint64_t>(team_size))),
        span(1),
        call(c) {}

  template <class Scope>
  __device__ void prepare(const gshmemi_team&, uint64_t, bool) {}

  template <class Scope, int Bytes>
  __device__ void push_elems(const gshmemi_team& t, uint64_t lo, uint64_t hi) {
    using E = typename elem_of<Bytes>::type;
    E* to = reinterpret_cast<E*>(dest) + static_cast<ptrdiff_t>(t.my_pe * nelems + lo) * dst;
    for (int k = 1; k <= t.size; ++k) {
      const int j = (t.my_pe + k) % t.size;
      const E* from = reinterpret_cast<const E*>(source) + static_cast<ptrdiff_t>(j * nelems + lo) * sst;
      scoped_strided_copy<Scope>(team_peer(t, to, j), dst, from, sst, hi - lo);
    }
  }

  template <class Scope>
  __device__ void push(const gshmemi_team& t, int s, int part, int parts) {
    uint64_t lo, hi;
    coll_piece(nelems, lanes, s, part, parts, 1, &lo, &hi);
    if (hi == lo) return;
    switch (esz) {
      case 1:
        push_elems<Scope, 1>(t, lo, hi);
        break;
      case 2:
        push_elems<Scope, 2>(t, lo, hi);
        break;
      case 4:
        push_elems<Scope, 4>(t, lo, hi);
        break;
      case 8:
        push_elems<Scope, 8>(t, lo, hi);
        break;
      default:
        push_elems<Scope, 16>(t, lo, hi);
        break;
    }
  }

  template <class Scope>
  __device__ void finish(const gshmemi_team& t, uint64_t base) {
    exchange_finish<Scope>(t, lanes, base + 1, call);
  }
};

template <class Scope>
__device__ inline int alltoallmem(const char* call, gshmem_team_t team, void* dest, const void* source, size_t nbytes) {
  gshmemi_team t;
  if (!team_for_call<Scope>(call, team, &t)) return -1;
  if (spans_nodes<Scope>(call, t)) {
    if constexpr (kProxyPath)
      return span_alltoall<Scope>(call, team, static_cast<char*>(dest), static_cast<const char*>(source), nbytes);
  }
  check_coll<Scope>(call, dest, nbytes * t.size, source, nbytes * t.size, false);
  alltoall_op op(call, dest, source, nbytes, t);
  return run_collective<Scope>(t, op);
}

template <class Scope>
__device__ inline int alltoallsmem(const char* call, gshmem_team_t team, void* dest, const void* source, ptrdiff_t dst,
                                   ptrdiff_t sst, size_t nelems, int esz) {
  gshmemi_team t;
  if (!team_for_call<Scope>(call, team, &t)) return -1;
  if (spans_nodes<Scope>(call, t)) {
    if constexpr (kProxyPath)
      return span_alltoalls<Scope>(call, team, static_cast<char*>(dest), static_cast<const char*>(source), dst, sst,
                                   nelems, esz);
  }
#if defined(GSHMEM_DEBUG_CHECKS)
  if (dst < 1 || sst < 1)
    fail_coll<Scope>(call, coll_bad::stride, nullptr, static_cast<unsigned long long>(dst < 1 ? dst : sst), nullptr,
                     dst < 1 ? 0 : 1);
#endif
  const uint64_t all = static_cast<uint64_t>(nelems) * t.size;
  check_coll<Scope>(call, dest, strided_bytes(all, dst, esz), source, strided_bytes(all, sst, esz), false);
  alltoalls_op op(call, dest, source, dst, sst, nelems, esz, t.size);
  return run_collective<Scope>(t, op);
}

}  // namespace detail

template <class Scope>
__device__ inline int alltoallmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes) {
  return detail::alltoallmem<Scope>("gshmem::alltoallmem", team, dest, source, nbytes);
}
template <class Scope, class T>
__device__ inline int alltoall(gshmem_team_t team, T* dest, const T* source, size_t nelems) {
  return detail::alltoallmem<Scope>("gshmem::alltoall", team, dest, source, nelems * sizeof(T));
}
template <class Scope>
__device__ inline int alltoallsmem(gshmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                                   size_t nbytes) {
  return detail::alltoallsmem<Scope>("gshmem::alltoallsmem", team, dest, source, dst, sst, nbytes, 1);
}
template <class Scope, class T>
__device__ inline int alltoalls(gshmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,
                                size_t nelems) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "alltoalls: element size must be 1, 2, 4, 8 or 16 bytes");
  return detail::alltoallsmem<Scope>("gshmem::alltoalls", team, dest, source, dst, sst, nelems,
                                     static_cast<int>(sizeof(T)));
}

}  // namespace gshmem

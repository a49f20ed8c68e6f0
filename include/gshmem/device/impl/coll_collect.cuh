// SPDX-License-Identifier: BSD-3-Clause
// fcollect and collect (contract: device/coll.cuh). Every member pushes its
// contribution into every member's dest at its offset, lane by lane, and
// signals; one phase of values (fcollect: base+1). fcollect contributions of
// LL size (ll_plan: up to 64 bytes by default) go by the LL path (coll_ll.cuh) instead.
// collect first exchanges the byte counts (counts[me] of every member, then
// lanes[0] = base+1), computes its offset as the sum of the counts of lower team
// PEs and the lanes from the total (the same on every member), then pushes
// (base+2). A member cannot overwrite counts[me] of a peer in its next collect
// before that peer has read it: finishing this collect needs the peer's data,
// which the peer sends only after reading the counts.
#pragma once

#include "coll_common.cuh"
#include "coll_span.cuh"

namespace gshmem {
namespace detail {

struct fcollect_op {
  static constexpr bool kLL = true, kSplit = true;
  char* dest;
  const char* source;
  uint64_t nbytes;  // per PE
  int lanes;
  uint64_t span;
  const char* call;
  ll_area ll;  // non-empty: the LL path (contributions of LL size, ll_plan)

  __device__ fcollect_op(const char* c, void* d, const void* s, uint64_t n, const gshmemi_team& t)
      : dest(static_cast<char*>(d)),
        source(static_cast<const char*>(s)),
        nbytes(n),
        lanes(coll_lanes(n * static_cast<uint64_t>(t.size))),
        span(1),
        call(c),
        ll(ll_plan(t, n)) {}

  // LL route: my source to every member, member i's into block i of dest.
  __device__ const char* from(int) const { return source; }
  __device__ char* to(int i) const { return dest + static_cast<uint64_t>(i) * nbytes; }

  template <class Scope>
  __device__ void prepare(const gshmemi_team&, uint64_t, bool) {}

  template <class Scope>
  __device__ void push(const gshmemi_team& t, int s, int part, int parts) {
    uint64_t lo, hi;
    coll_piece(nbytes, lanes, s, part, parts, kSliceAlign, &lo, &hi);
    push_to_all<Scope>(t, dest + static_cast<uint64_t>(t.my_pe) * nbytes + lo, source + lo, hi - lo, false);
  }

  template <class Scope>
  __device__ void finish(const gshmemi_team& t, uint64_t base) {
    exchange_finish<Scope>(t, lanes, base + 1, call);
  }
};

struct collect_op {
  static constexpr bool kLL = false, kSplit = true;
  char* dest;
  const char* source;
  uint64_t nbytes;  // this PE's contribution
  uint64_t offset = 0, total = 0;
  int lanes = 1;
  uint64_t span = 2;
  const char* call;

  __device__ collect_op(const char* c, void* d, const void* s, uint64_t n)
      : dest(static_cast<char*>(d)), source(static_cast<const char*>(s)), nbytes(n), call(c) {}

  // `signaller`: this scope publishes the count (in a multi-CTA kernel only
  // CTA 0 does; every CTA waits and reads).
  template <class Scope>
  __device__ void prepare(const gshmemi_team& t, uint64_t base, bool signaller) {
    uint64_t* counts = team_counts(t);
    if (signaller) {
      for (int i = Scope::rank(); i < t.size; i += Scope::size())
        if (i != t.my_pe) st_volatile(team_peer(t, counts + t.my_pe, i), nbytes);
      Scope::sync();
      lanes_signal<Scope>(t, 0, 1, base + 1);
    }
    lanes_wait<Scope>(t, 0, 1, -1, base + 1, call);
    total = nbytes;
    offset = 0;
    for (int i = 0; i < t.size; ++i) {
      if (i == t.my_pe) continue;
      const uint64_t c = ld_volatile(counts + i);
      total += c;
      if (i < t.my_pe) offset += c;
    }
    lanes = coll_lanes(total);
    Scope::sync();
    check_coll<Scope>(call, dest, total, source, nbytes, false);
  }

  template <class Scope>
  __device__ void push(const gshmemi_team& t, int s, int part, int parts) {
    uint64_t lo, hi;
    coll_piece(nbytes, lanes, s, part, parts, kSliceAlign, &lo, &hi);
    push_to_all<Scope>(t, dest + offset + lo, source + lo, hi - lo, false);
  }

  template <class Scope>
  __device__ void finish(const gshmemi_team& t, uint64_t base) {
    exchange_finish<Scope>(t, lanes, base + 2, call);
  }
};

template <class Scope>
__device__ inline int fcollectmem(const char* call, gshmem_team_t team, void* dest, const void* source, size_t nbytes) {
  gshmemi_team t;
  if (!team_for_call<Scope>(call, team, &t)) return -1;
  if (spans_nodes<Scope>(call, t)) {
    if constexpr (kProxyPath)
      return span_fcollect<Scope>(call, team, static_cast<char*>(dest), static_cast<const char*>(source), nbytes);
  }
  check_coll<Scope>(call, dest, nbytes * t.size, source, nbytes, false);
  fcollect_op op(call, dest, source, nbytes, t);
  return run_collective<Scope>(t, op);
}

template <class Scope>
__device__ inline int collectmem(const char* call, gshmem_team_t team, void* dest, const void* source, size_t nbytes) {
  gshmemi_team t;
  if (!team_for_call<Scope>(call, team, &t)) return -1;
  if (spans_nodes<Scope>(call, t)) {
    if constexpr (kProxyPath)
      return span_collect<Scope>(call, team, static_cast<char*>(dest), static_cast<const char*>(source), nbytes);
  }
  collect_op op(call, dest, source, nbytes);
  return run_collective<Scope>(t, op);
}

}  // namespace detail

template <class Scope>
__device__ inline int fcollectmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes) {
  return detail::fcollectmem<Scope>("gshmem::fcollectmem", team, dest, source, nbytes);
}
template <class Scope, class T>
__device__ inline int fcollect(gshmem_team_t team, T* dest, const T* source, size_t nelems) {
  return detail::fcollectmem<Scope>("gshmem::fcollect", team, dest, source, nelems * sizeof(T));
}
template <class Scope>
__device__ inline int collectmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes) {
  return detail::collectmem<Scope>("gshmem::collectmem", team, dest, source, nbytes);
}
template <class Scope, class T>
__device__ inline int collect(gshmem_team_t team, T* dest, const T* source, size_t nelems) {
  return detail::collectmem<Scope>("gshmem::collect", team, dest, source, nelems * sizeof(T));
}

}  // namespace gshmem

// SPDX-License-Identifier: BSD-3-Clause
// Broadcast (contract: device/coll.cuh). Two algorithms, chosen by
// plan_broadcast() from the byte count and team size alone:
//   direct  (bcast_op) the root pushes each lane's slice into every member's dest (one
//           pass over the source for up to kMaxFanout members) and signals it
//           (value base+1); members wait for the root.
//   relay   (bcast_relay_op; >= 3 PEs, large messages) the root sends each chunk of a lane only
//           once, to one non-root "owner", and the owner forwards it to the
//           other non-roots. Chunk k of lane s belongs to owner (k + s) mod
//           (N-1): the owners rotate with the lane, so at every moment the
//           root's lanes feed all owners and all owners forward (without the
//           rotation every lane would hit owner 0 first, then owner 1, ...).
//           The root's local copy (dest != source) rides in the same pass as
//           its push. Owner o's j-th chunk of lane s is announced by the root
//           with value base+1+j in lanes[s][root] of o, and forwarded chunks
//           with base+1+j in lanes[s][o] of the others. The root's outgoing
//           traffic is the message once instead of N-1 times; chunks pipeline
//           (root -> owner -> others). A lane's chunks: relay_chunk (coll_plan.cuh).
// Messages of LL size (ll_plan: up to GSHMEM_LL_MAX_BYTES, 256 bytes by default) go by the LL path
// (coll_ll.cuh) instead.
#pragma once

#include "coll_common.cuh"
#include "coll_span.cuh"

namespace gshmem {
namespace detail {

// The direct algorithm (and the LL path).
struct bcast_op {
  static constexpr bool kLL = true, kSplit = true;
  char* dest;
  const char* source;
  uint64_t nbytes;
  int root;
  int lanes;
  uint64_t span = 1;
  const char* call;
  ll_area ll;  // non-empty: the LL path (messages of LL size, ll_plan)
  bool is_root;

  __device__ bcast_op(const char* c, void* d, const void* s, uint64_t n, int r, const gshmemi_team& t,
                      const bcast_plan& p)
      : dest(static_cast<char*>(d)),
        source(static_cast<const char*>(s)),
        nbytes(n),
        root(r),
        lanes(p.lanes),
        call(c),
        ll(ll_plan(t, n)),
        is_root(t.my_pe == r) {}

  // LL route: the root's source to every member, into dest; the others send and
  // receive tag-only words among themselves (coll_ll.cuh says why).
  __device__ const char* from(int) const { return is_root ? source : nullptr; }
  __device__ char* to(int i) const { return i == root ? dest : nullptr; }

  template <class Scope>
  __device__ void prepare(const gshmemi_team&, uint64_t, bool) {}

  // The root's stores (its local copy rides along unless dest == source).
  template <class Scope>
  __device__ void push(const gshmemi_team& t, int s, int part, int parts) {
    if (!is_root) return;
    uint64_t lo, hi;
    coll_piece(nbytes, lanes, s, part, parts, kSliceAlign, &lo, &hi);
    push_to_all<Scope>(t, dest + lo, source + lo, hi - lo, dest == source);
  }

  template <class Scope>
  __device__ void finish(const gshmemi_team& t, uint64_t base) {
    if (is_root)
      lanes_signal<Scope>(t, 0, lanes, base + 1);
    else
      lanes_wait<Scope>(t, 0, lanes, root, base + 1, call);
  }
};

// The relay algorithm.
struct bcast_relay_op {
  static constexpr bool kLL = false, kSplit = false;
  char* dest;
  const char* source;
  uint64_t nbytes;
  int root;
  int lanes;
  uint64_t chunk;
  uint64_t span;
  const char* call;

  __device__ bcast_relay_op(const char* c, void* d, const void* s, uint64_t n, int r, const bcast_plan& p)
      : dest(static_cast<char*>(d)),
        source(static_cast<const char*>(s)),
        nbytes(n),
        root(r),
        lanes(p.lanes),
        chunk(p.chunk),
        span(p.span),
        call(c) {}

  template <class Scope>
  __device__ void prepare(const gshmemi_team&, uint64_t, bool) {}

  // Team PE of owner o, and owner number of team PE p (p != root).
  __device__ int owner_pe(const gshmemi_team& t, int o) const { return (root + 1 + o) % t.size; }
  __device__ int owner_of(const gshmemi_team& t, int p) const { return (p - root - 1 + t.size) % t.size; }
  // Owner of chunk k of lane s, and the first chunk of owner o in lane s (its
  // chunks are that one plus multiples of `owners`, so chunk k is its k/owners-th).
  __device__ static int chunk_owner(int s, uint64_t k, int owners) { return static_cast<int>((k + s) % owners); }
  __device__ static uint64_t first_chunk(int s, int o, int owners) { return ((o - s) % owners + owners) % owners; }

  template <class Scope>
  __device__ void lane(const gshmemi_team& t, uint64_t base, int s) {
    uint64_t lo, hi;
    coll_slice(nbytes, lanes, s, kSliceAlign, &lo, &hi);
    const int owners = t.size - 1;
    const uint64_t len = hi - lo, chunks = relay_chunk_count(len, chunk);
    if (t.my_pe == root) {
      for (uint64_t k = 0; k < chunks; ++k) {
        uint64_t a;
        const uint64_t n = relay_chunk(len, chunk, k, &a);
        a += lo;
        const int p = owner_pe(t, chunk_owner(s, k, owners));
        fanout d;
        d.add(team_peer(t, dest + a, p));
        if (dest != source) d.add(dest + a);
        scoped_copy_fanout<Scope>(d, source + a, n);
        Scope::sync();
        if (Scope::rank() == 0) st_release_sys(team_peer(t, lane_flag(t, s, root), p), base + 1 + k / owners);
      }
      return;
    }
    const int me_o = owner_of(t, t.my_pe);
    for (uint64_t k = first_chunk(s, me_o, owners), j = 0; k < chunks; k += owners, ++j) {  // mine: wait, forward
      uint64_t a;
      const uint64_t n = relay_chunk(len, chunk, k, &a);
      a += lo;
      lanes_wait<Scope>(t, s, 1, root, base + 1 + j, call);
      fanout d;
      for (int x = 1; x < owners; ++x) {
        d.add(team_peer(t, dest + a, owner_pe(t, (me_o + x) % owners)));
        if (d.n == kMaxFanout || x == owners - 1) {
          scoped_copy_fanout<Scope>(d, dest + a, n);
          d.n = 0;
        }
      }
      Scope::sync();
      for (int x = 1 + Scope::rank(); x < owners; x += Scope::size())
        st_release_sys(team_peer(t, lane_flag(t, s, t.my_pe), owner_pe(t, (me_o + x) % owners)), base + 1 + j);
    }
    for (int x = 1 + Scope::rank(); x < owners; x += Scope::size()) {  // everyone else's chunks
      const int o = (me_o + x) % owners;
      const uint64_t k0 = first_chunk(s, o, owners);
      if (k0 >= chunks) continue;
      const uint64_t owned = (chunks - 1 - k0) / owners + 1;
      wait_epoch(lane_flag(t, s, owner_pe(t, o)), base + owned, call, team_world_pe(t, owner_pe(t, o)));
    }
    Scope::sync();
  }
};

template <class Scope>
__device__ inline int broadcastmem(const char* call, gshmem_team_t team, void* dest, const void* source, size_t nbytes,
                                   int root) {
  gshmemi_team t;
  if (!team_for_call<Scope>(call, team, &t)) return -1;
  if (spans_nodes<Scope>(call, t)) {
    if constexpr (kProxyPath)
      return span_broadcast<Scope>(call, team, static_cast<char*>(dest), static_cast<const char*>(source), nbytes,
                                   root);
  }
#if defined(GSHMEM_DEBUG_CHECKS)
  if (root < 0 || root >= t.size) fail_coll<Scope>(call, coll_bad::root, nullptr, root, nullptr, t.size);
#endif
  check_coll<Scope>(call, dest, nbytes, source, t.my_pe == root ? nbytes : 0, true);
  const bcast_plan p = plan_broadcast(nbytes, t.size);
  if (p.relay) {
    bcast_relay_op op(call, dest, source, nbytes, root, p);
    return run_collective<Scope>(t, op);
  }
  bcast_op op(call, dest, source, nbytes, root, t, p);
  return run_collective<Scope>(t, op);
}

}  // namespace detail

template <class Scope>
__device__ inline int broadcastmem(gshmem_team_t team, void* dest, const void* source, size_t nbytes, int root) {
  return detail::broadcastmem<Scope>("gshmem::broadcastmem", team, dest, source, nbytes, root);
}

template <class Scope, class T>
__device__ inline int broadcast(gshmem_team_t team, T* dest, const T* source, size_t nelems, int root) {
  return detail::broadcastmem<Scope>("gshmem::broadcast", team, dest, source, nelems * sizeof(T), root);
}

}  // namespace gshmem

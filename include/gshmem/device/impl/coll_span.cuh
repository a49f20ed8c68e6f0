// SPDX-License-Identifier: BSD-3-Clause
// The data-movement collectives of a team whose members are not all reached by loads and
// stores (GSHMEMI_TEAM_SPANS_NODES: members on other nodes, reached through the proxy).
// docs/internode.md section 7 has the algorithms and their proxy operation counts.
//
// The same protocol as the load/store path (coll_common.cuh): sequence values in the lane flags,
// never reset, pushes into the receivers' dest, no entry or exit synchronisation (collect: an
// exit sync, below). A transfer to a member (span_send) is stores and a release store of the
// flag when its heap is mapped here, else one proxy put whose SET signal is the flag: the proxy
// applies a signal only after the data before it (docs/memory-model.md, "Across the proxy").
//
// Hierarchy. The members are grouped by node (gshmemi_team::node_run, g members per node in
// runs of consecutive team PEs; 1 when the layout is irregular, which makes every member a node
// of its own: the flat algorithm). The first member of a node is its leader. Steps inside a
// node go over NVLink; one transfer per remote node goes between leaders through the proxy
// (fewer, larger proxy operations: each costs ~30 us one-way). Lanes: 0 inside a node (from the
// data's owner), 1 between leaders, 2 from a leader to its node.
//
// Out of line (__noinline__), entered through one predictable branch of the collectives'
// entries, so that kernels of single-node teams keep their registers (tests/registers).
#pragma once

#include "coll_common.cuh"
#include "proxy.cuh"
#include "rma.cuh"

namespace gshmem {
namespace detail {

// The node layout of a team that spans nodes: g members per node, n nodes, this member's node
// and its first member (the node's leader).
struct span_nodes {
  int g, n, node, first;
  __device__ explicit span_nodes(const gshmemi_team& t) {
    const int r = static_cast<int>(t.node_run);
    g = r >= 1 && r <= t.size && t.size % r == 0 ? r : 1;
    n = t.size / g;
    node = t.my_pe / g;
    first = node * g;
  }
  // The leader of the k-th node after this one.
  __device__ int leader_after(int k) const { return ((node + k) % n) * g; }
};

// Element of `Bytes` bytes for strided copies (alignment of the C types using it).
template <int Bytes>
struct elem_of;
template <>
struct elem_of<1> {
  using type = uint8_t;
};
template <>
struct elem_of<2> {
  using type = uint16_t;
};
template <>
struct elem_of<4> {
  using type = uint32_t;
};
template <>
struct elem_of<8> {
  using type = uint64_t;
};
template <>
struct elem_of<16> {
  using type = bits128;
};

// Bytes spanned by n elements of e bytes, `stride` elements apart.
__device__ __forceinline__ uint64_t strided_bytes(uint64_t n, ptrdiff_t stride, int e) {
  return n ? ((n - 1) * static_cast<uint64_t>(stride) + 1) * static_cast<uint64_t>(e) : 0;
}

// Proxy puts are cut into pieces of at most this many bytes (the proxy stages a device payload
// through pinned buffers of a few MiB).
constexpr uint64_t kSpanPiece = 1u << 20;

// A copy by the threads of Scope in 16-byte units when both ends allow, else in bytes: lean
// rather than fast (the spanning path's time is the proxy's), so that it adds no registers to
// the kernels that call the collectives (the largest function a kernel may call sets its count).
template <class Scope>
__device__ __forceinline__ void span_copy(char* d, const char* s, uint64_t n) {
  uint64_t i = static_cast<uint64_t>(Scope::rank());
  if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 15) == 0) {
#pragma unroll 1
    for (; i < n / 16; i += Scope::size()) reinterpret_cast<uint4*>(d)[i] = reinterpret_cast<const uint4*>(s)[i];
    i = n / 16 * 16 + static_cast<uint64_t>(Scope::rank());
  }
#pragma unroll 1
  for (; i < n; i += Scope::size()) d[i] = s[i];
}

// Registers. ptxas assigns a function called out of line one set of registers for all its
// callers, above the registers its callers keep live across the call; a kernel needs the most
// any function of its call graph uses, and once it has them its own code spreads into them. So
// the spanning path's call chain (entry, gather, send, proxy put) is kept off the helpers the
// inline load/store path calls, and its deepest function holds few values across its calls
// (ptxas 13, sm_90, a kernel calling fcollect at thread scope: 68 before the spanning path, 101
// with it, 82 so; tests/registers).
//
// peer_address with its table load in line: its out-of-line load (peer_base_from_table) is
// called by the inline path's copies too (fcollect thread 101 -> 86 with this alone).
template <class T>
__device__ __forceinline__ T* span_peer(T* sym, int pe) {
  const gshmemi_device_state& s = state();
  const unsigned k = static_cast<unsigned>(pe - s.flat_first);
  const size_t off = static_cast<size_t>(reinterpret_cast<const char*>(sym) - s.heap_base);
  if (k < static_cast<unsigned>(s.flat_count)) return reinterpret_cast<T*>(s.flat_base + k * s.flat_stride + off);
  char* base = s.peer_base[pe];
  return base ? reinterpret_cast<T*>(base + off) : nullptr;
}

// wait_epoch out of line: its poll loop off the gather's frame.
static __device__ __noinline__ inline void span_wait_epoch(const uint64_t* flag, uint64_t target, const char* what,
                                                           int peer) {
  wait_epoch(flag, target, what, peer);
}

// The proxy half of span_send_pe: blocking proxy puts of at most kSpanPiece bytes, the last with
// a SET signal of `flag` (a signal alone when bytes is 0; flag NULL: none). kOne: bytes is at
// most kSpanPiece (one put), the caller loops over the pieces: no loop state is live around the
// put's poll loops (fcollect thread 86 -> 82, alltoall thread 76 -> 72). Broadcast and the
// alltoalls' flag-only signals loop here (kOne false): their kernels measured fewer so.
template <class Scope, bool kOne>
static __device__ __noinline__ void span_put_proxy(int pe, char* dst, const char* src, uint64_t bytes, uint64_t* flag,
                                                   uint64_t value) {
  if constexpr (kOne) {
    if (bytes != 0)
      proxy::put_body<Scope>(dst, src, bytes, pe, false, flag, value, GSHMEM_SIGNAL_SET);
    else if (flag != nullptr) {
      Scope::sync();
      if (Scope::rank() == 0) proxy::signal(flag, value, GSHMEM_SIGNAL_SET, pe);
    }
  } else {
#pragma unroll 1
    for (uint64_t pos = 0; pos < bytes; pos += kSpanPiece) {
      const uint64_t n = bytes - pos < kSpanPiece ? bytes - pos : kSpanPiece;
      proxy::put_body<Scope>(dst + pos, src + pos, n, pe, false, pos + n == bytes ? flag : nullptr, value,
                             GSHMEM_SIGNAL_SET);
    }
    if (bytes == 0 && flag != nullptr) {
      Scope::sync();
      if (Scope::rank() == 0) proxy::signal(flag, value, GSHMEM_SIGNAL_SET, pe);
    }
  }
}

// Moves `bytes` from local `src` (global, shared or local memory) to symmetric `dst` on world PE
// `pe` (not this PE), then sets the symmetric word `flag` there to `value` (flag NULL: no
// signal). Mapped peer: stores, the scope's barrier, a release store. Proxy peer: blocking proxy
// puts, the last with a SET signal (a signal alone when bytes is 0); `src` may change on return.
// Every thread of Scope calls with the same arguments. Out of line, with few arguments: the
// callers' loops keep only team indices live across it.
template <class Scope, bool kOne>
static __device__ __noinline__ void span_send_pe(int pe, char* dst, const char* src, uint64_t bytes, uint64_t* flag,
                                                 uint64_t value) {
  char* d = span_peer(dst, pe);
  if (d != nullptr) {
    span_copy<Scope>(d, src, bytes);
    if (flag == nullptr) return;
    Scope::sync();
    if (Scope::rank() == 0) {
      fence_acq_rel_sys();
      st_relaxed_sys(span_peer(flag, pe), value);
    }
    return;
  }
  if constexpr (kOne) {
#pragma unroll 1
    for (; bytes > kSpanPiece; bytes -= kSpanPiece, dst += kSpanPiece, src += kSpanPiece)
      span_put_proxy<Scope, true>(pe, dst, src, kSpanPiece, nullptr, value);
  }
  span_put_proxy<Scope, kOne>(pe, dst, src, bytes, flag, value);
}

// span_send_pe to team PE j, signalling lanes[s][me] there (s < 0: no signal).
template <class Scope, bool kOne = false>
__device__ __forceinline__ void span_send(const gshmemi_team& t, int j, char* dst, const char* src, uint64_t bytes,
                                          int s, uint64_t value) {
  span_send_pe<Scope, kOne>(team_world_pe(t, j), dst, src, bytes, s >= 0 ? lane_flag(t, s, t.my_pe) : nullptr, value);
}

// Waits until lanes[s][j] >= value for team PEs j in [from, to) but this one; then syncs the
// scope (its threads read what the flags released).
template <class Scope>
__device__ void span_wait(const gshmemi_team& t, int s, int from, int to, uint64_t value, const char* call) {
  for (int j = from + Scope::rank(); j < to; j += Scope::size())
    if (j != t.my_pe) span_wait_epoch(lane_flag(t, s, j), value, call, team_world_pe(t, j));
  Scope::sync();
}

// The end of every call: the team's sequence number advances by `span`.
template <class Scope>
__device__ void span_end(const gshmemi_team& t, uint64_t base, uint64_t span) {
  Scope::sync();
  if (Scope::rank() == 0) st_volatile(move_counter(t), base + span);
  Scope::sync();
}

// A gather's arguments (span_gather), in the caller's local memory: passed by reference to a
// function out of line, they are read where needed instead of all held in registers.
struct span_gather_args {
  gshmemi_team t;
  char* dest;
  const char* src;
  uint64_t unit;           // bytes of every block (fcollect), or 0: counts[i] bytes (collect)
  const uint64_t* counts;  // the members' byte counts (collect)
  uint64_t v;
  const char* call;
};

// Where member i's block starts in dest (i == size: the total).
__device__ __forceinline__ uint64_t span_off(const span_gather_args& a, int i) {
  if (a.counts == nullptr) return static_cast<uint64_t>(i) * a.unit;
  uint64_t o = 0;
#pragma unroll 1
  for (int k = 0; k < i; ++k) o += ld_volatile(a.counts + k);
  return o;
}

// Every member's block into every member's dest: member i's block is [off(i), off(i+1)) of
// dest, this member's comes from `src` (src == dest + off(me): already in place). Value v.
//   1. each member: its block into its own dest and into its node peers' (lane 0, NVLink);
//   2. each leader, once its node's blocks are in: the node's block (contiguous) to every other
//      leader (lane 1, one proxy put per remote node);
//   3. each leader, once every leader's block is in: everything outside its node's block to
//      its node peers (lane 2, NVLink).
template <class Scope>
static __device__ __noinline__ void span_gather(const span_gather_args& a) {
  const gshmemi_team& t = a.t;
  const span_nodes nd(t);
  const int me = t.my_pe;
  const uint64_t mo = span_off(a, me), mb = span_off(a, me + 1) - mo;
  if (a.dest + mo != a.src && mb) span_copy<Scope>(a.dest + mo, a.src, mb);
#pragma unroll 1
  for (int k = 1; k < nd.g; ++k)
    span_send<Scope, true>(t, nd.first + (me - nd.first + k) % nd.g, a.dest + mo, a.src, mb, 0, a.v);
  span_wait<Scope>(t, 0, nd.first, nd.first + nd.g, a.v, a.call);
  if (me != nd.first) {
    if (nd.n > 1) span_wait<Scope>(t, 2, nd.first, nd.first + 1, a.v, a.call);
    return;
  }
  if (nd.n == 1) return;
  const uint64_t lo = span_off(a, nd.first), hi = span_off(a, nd.first + nd.g);
#pragma unroll 1
  for (int k = 1; k < nd.n; ++k)
    span_send<Scope, true>(t, nd.leader_after(k), a.dest + lo, a.dest + lo, hi - lo, 1, a.v);
#pragma unroll 1
  for (int k = 1 + Scope::rank(); k < nd.n; k += Scope::size()) {
    const int l = nd.leader_after(k);
    span_wait_epoch(lane_flag(t, 1, l), a.v, a.call, team_world_pe(t, l));
  }
  Scope::sync();
#pragma unroll 1
  for (int j = nd.first + 1; j < nd.first + nd.g; ++j) {
    span_send<Scope, true>(t, j, a.dest, a.dest, lo, -1, 0);
    const uint64_t end = span_off(a, t.size);
    span_send<Scope, true>(t, j, a.dest + hi, a.dest + hi, end - hi, 2, a.v);
  }
}

// ---- the collectives (contracts: device/coll.cuh) ----

// The root's data to one leader per remote node (proxy) and to its own node (NVLink); each
// remote leader forwards to its node. Value base+1 on lane 0.
template <class Scope>
static __device__ __noinline__ int span_broadcast(const char* call, gshmem_team_t team, char* dest, const char* source,
                                                  uint64_t bytes, int root) {
  const gshmemi_team t = team_entry(team);
#if defined(GSHMEM_DEBUG_CHECKS)
  if (root < 0 || root >= t.size) fail_coll<Scope>(call, coll_bad::root, nullptr, root, nullptr, t.size);
#endif
  check_coll<Scope>(call, dest, bytes, source, t.my_pe == root ? bytes : 0, true);
  Scope::sync();
  const uint64_t base = ld_volatile(move_counter(t)), v = base + 1;
  const span_nodes nd(t);
  const int me = t.my_pe;
  if (me == root) {
    if (dest != source && bytes) span_copy<Scope>(dest, source, bytes);
    for (int k = 1; k < nd.n; ++k) span_send<Scope>(t, nd.leader_after(k), dest, source, bytes, 0, v);
    for (int j = nd.first; j < nd.first + nd.g; ++j)
      if (j != me) span_send<Scope>(t, j, dest, source, bytes, 0, v);
  } else {
    // The root's node and the remote leaders hear from the root, the rest from their leader.
    const bool forwards = nd.node != root / nd.g && me == nd.first;
    const int from = nd.node == root / nd.g || forwards ? root : nd.first;
    span_wait<Scope>(t, 0, from, from + 1, v, call);
    if (forwards)
      for (int j = nd.first + 1; j < nd.first + nd.g; ++j) span_send<Scope>(t, j, dest, dest, bytes, 0, v);
  }
  span_end<Scope>(t, base, 1);
  return 0;
}

template <class Scope>
static __device__ __noinline__ int span_fcollect(const char* call, gshmem_team_t team, char* dest, const char* source,
                                                 uint64_t nbytes) {
  const gshmemi_team t = team_entry(team);
  check_coll<Scope>(call, dest, nbytes * t.size, source, nbytes, false);
  Scope::sync();
  const uint64_t base = ld_volatile(move_counter(t));
  const span_gather_args a{t, dest, source, nbytes, nullptr, base + 1, call};
  span_gather<Scope>(a);
  span_end<Scope>(t, base, 1);
  return 0;
}

// The byte counts first (gathered into counts[] as an fcollect of 8 bytes, value base+1), then
// the data (base+2). A team sync at the end: a member's next collect gathers into counts[],
// which a leader reads while it forwards this one's blocks.
template <class Scope>
static __device__ __noinline__ int span_collect(const char* call, gshmem_team_t team, char* dest, const char* source,
                                                uint64_t nbytes) {
  const gshmemi_team t = team_entry(team);
  Scope::sync();
  const uint64_t base = ld_volatile(move_counter(t));
  uint64_t* counts = team_counts(t);
  if (Scope::rank() == 0) st_volatile(counts + t.my_pe, nbytes);
  Scope::sync();
  const span_gather_args c{
      t, reinterpret_cast<char*>(counts), reinterpret_cast<const char*>(counts + t.my_pe), 8, nullptr, base + 1, call};
  span_gather<Scope>(c);
  const span_gather_args a{t, dest, source, 0, counts, base + 2, call};
  check_coll<Scope>(call, dest, span_off(a, t.size), source, nbytes, false);
  span_gather<Scope>(a);
  sync_members_mixed<Scope>(t, call, false);
  span_end<Scope>(t, base, 2);
  return 0;
}

// Every pair directly (flat): block j of this member's source to block me of member j's dest
// (lane 0, value base+1), one proxy put per remote member.
template <class Scope>
static __device__ __noinline__ int span_alltoall(const char* call, gshmem_team_t team, char* dest, const char* source,
                                                 uint64_t nbytes) {
  const gshmemi_team t = team_entry(team);
  check_coll<Scope>(call, dest, nbytes * t.size, source, nbytes * t.size, false);
  Scope::sync();
  const uint64_t base = ld_volatile(move_counter(t)), v = base + 1;
  const int me = t.my_pe;
  if (nbytes) span_copy<Scope>(dest + me * nbytes, source + me * nbytes, nbytes);
  for (int k = 1; k < t.size; ++k) {
    const int j = (me + k) % t.size;
    span_send<Scope, true>(t, j, dest + me * nbytes, source + j * nbytes, nbytes, 0, v);
  }
  span_wait<Scope>(t, 0, 0, t.size, v, call);
  span_end<Scope>(t, base, 1);
  return 0;
}

// Strided: mapped members by strided stores; proxy members by one inline put per element (two
// for 16-byte elements), unless both strides are 1 (then one put per member), then the signal.
// Out of line, one function per element size: in line, the five sizes' proxy loops were one
// function whose values stayed live around span_send_pe (alltoalls warp 96 -> 72 registers).
template <class Scope, int Bytes>
static __device__ __noinline__ void span_alltoalls_to(const gshmemi_team& t, int j, char* dest, const char* source,
                                                      ptrdiff_t dst, ptrdiff_t sst, uint64_t n, uint64_t v) {
  using E = typename elem_of<Bytes>::type;
  const int me = t.my_pe, pe = team_world_pe(t, j);
  E* to = reinterpret_cast<E*>(dest) + static_cast<ptrdiff_t>(me * n) * dst;
  const E* from = reinterpret_cast<const E*>(source) + static_cast<ptrdiff_t>(j * n) * sst;
  E* peer = j == me ? to : span_peer(to, pe);
  if (peer != nullptr) {
#pragma unroll 1
    for (uint64_t k = Scope::rank(); k < n; k += Scope::size())
      peer[static_cast<ptrdiff_t>(k) * dst] = from[static_cast<ptrdiff_t>(k) * sst];
    if (j != me) span_send<Scope>(t, j, reinterpret_cast<char*>(to), nullptr, 0, 0, v);
    return;
  }
  if (dst == 1 && sst == 1) {
    span_send<Scope, true>(t, j, reinterpret_cast<char*>(to), reinterpret_cast<const char*>(from), n * Bytes, 0, v);
    return;
  }
  Scope::sync();
  if (Scope::rank() == 0) {
#pragma unroll 1
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t* w = reinterpret_cast<const uint64_t*>(from + static_cast<ptrdiff_t>(k) * sst);
      E* d = to + static_cast<ptrdiff_t>(k) * dst;
      if constexpr (Bytes == 16) {
        proxy::p(d, __ldcg(w), 8, pe);
        proxy::p(reinterpret_cast<char*>(d) + 8, __ldcg(w + 1), 8, pe);
      } else {
        proxy::p(d, static_cast<uint64_t>(__ldcg(from + static_cast<ptrdiff_t>(k) * sst)), Bytes, pe);
      }
    }
    proxy::signal(lane_flag(t, 0, me), v, GSHMEM_SIGNAL_SET, pe);
  }
}

template <class Scope>
static __device__ __noinline__ int span_alltoalls(const char* call, gshmem_team_t team, char* dest, const char* source,
                                                  ptrdiff_t dst, ptrdiff_t sst, uint64_t n, int esz) {
  const gshmemi_team t = team_entry(team);
#if defined(GSHMEM_DEBUG_CHECKS)
  if (dst < 1 || sst < 1)
    fail_coll<Scope>(call, coll_bad::stride, nullptr, static_cast<unsigned long long>(dst < 1 ? dst : sst), nullptr,
                     dst < 1 ? 0 : 1);
#endif
  const uint64_t all = n * static_cast<uint64_t>(t.size);
  check_coll<Scope>(call, dest, strided_bytes(all, dst, esz), source, strided_bytes(all, sst, esz), false);
  Scope::sync();
  const uint64_t base = ld_volatile(move_counter(t)), v = base + 1;
  for (int k = 0; k < t.size; ++k) {
    const int j = (t.my_pe + k) % t.size;
    switch (esz) {
      case 1:
        span_alltoalls_to<Scope, 1>(t, j, dest, source, dst, sst, n, v);
        break;
      case 2:
        span_alltoalls_to<Scope, 2>(t, j, dest, source, dst, sst, n, v);
        break;
      case 4:
        span_alltoalls_to<Scope, 4>(t, j, dest, source, dst, sst, n, v);
        break;
      case 8:
        span_alltoalls_to<Scope, 8>(t, j, dest, source, dst, sst, n, v);
        break;
      default:
        span_alltoalls_to<Scope, 16>(t, j, dest, source, dst, sst, n, v);
        break;
    }
  }
  span_wait<Scope>(t, 0, 0, t.size, v, call);
  span_end<Scope>(t, base, 1);
  return 0;
}

}  // namespace detail
}  // namespace gshmem

// SPDX-License-Identifier: BSD-3-Clause
// The element loop of the team reductions, shared by every algorithm and scope:
//
//   out(d)[i] = in(0)[i] Op in(1)[i] Op ... Op in(nin-1)[i]     i < count, d < nout
//
// in(j) / out(d) return element pointers (local, a peer's through NVLink, or a push
// buffer); nin >= 2 (a team of at least two members). Inputs are combined in index order;
// callers choose the order (the pull path starts every member at a different peer, so
// that the members' links share the load). The body moves 16-byte vectors in groups of
// kReduceUnroll per thread, from the element at which `phase` (the caller's pointer whose
// alignment matters most: the remote inputs') reaches a 16-byte boundary; the elements
// before it and the tail go one by one. Loads of inputs go through L2 (ld_cg16 /
// ld_cg_elem); outputs are plain stores, ordered by the caller's fence before its signal.
// The threads of Scope share the work; no synchronisation here.
//
// Two copies of the vector loop: the aligned one, and a misaligned one (Mixed) for arrays the
// algorithm makes misaligned at that element (a reducescatter's chunk m when the PE count does
// not divide its 16-byte vectors; a member's own chunk beside aligned push buffers). It loads or
// stores such an array element by element inside the same groups, so that its loads stay in
// flight together rather than one input after the other. Two copies, since alignment checks in
// every group slow the aligned loop; the misaligned one only for elements of 4 bytes and more
// where reduce_elems' Misaligned allows, since compiling it for every path and type doubles the
// compile time. Other misaligned arrays go element by element.
//
// Warps and blocks issue a group's loads of in(0) and in(1) together, before either is
// combined, so the group waits one load latency for both (for 2 members, for all its
// inputs), and a thread's last group is one group however few vectors it holds
// (predicated when more than one), not one round of loads per vector. A lone thread (thread
// scope) keeps the plain loop, inputs one after the other and its last vectors one by one: in
// kernels of 1024 threads (64 registers a thread) the pairing and the one-group remainder cost
// it more than they save.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../scope.cuh"
#include "reduce_ops.cuh"

namespace gshmem {
namespace detail {

constexpr int kReduceUnroll = 4;  // vectors per thread and input in flight

// Vector k of an array of T at p (16 / sizeof(T) elements). Mixed: p may be misaligned (then
// its elements are loaded one by one); else it is 16-byte aligned.
template <bool Mixed, class T>
__device__ __forceinline__ uint4 ld_cg_vec(const T* p, uint64_t k) {
  if constexpr (Mixed) {
    if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) {
      constexpr int n = reduce_vec<T>::n;
      T e[n];
#pragma unroll
      for (int x = 0; x < n; ++x) e[x] = ld_cg_elem(p + k * n + x);
      uint4 raw;
      memcpy(&raw, e, 16);
      return raw;
    }
  }
  return ld_cg16(reinterpret_cast<const uint4*>(p) + k);
}
template <bool Mixed, class T>
__device__ __forceinline__ void st_vec(T* p, uint64_t k, const uint4& raw) {
  if constexpr (Mixed) {
    if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) {
      constexpr int n = reduce_vec<T>::n;
      T e[n];
      memcpy(e, &raw, 16);
#pragma unroll
      for (int x = 0; x < n; ++x) p[k * n + x] = e[x];
      return;
    }
  }
  reinterpret_cast<uint4*>(p)[k] = raw;
}

// The vectors at indices i + u st (u < U) below nvec: all U of them when Full, else the
// predicated last group of a thread (at most U - 1 of them; the others load zeros, are
// combined and not stored). Pair: in(1)'s loads are issued before in(0)'s are used. Mixed:
// some inputs or outputs are not 16-byte aligned (ld_cg_vec, st_vec).
template <class Op, class T, int U, bool Full, bool Pair, bool Mixed, class In, class Out>
__device__ __forceinline__ void reduce_vectors(int nin, const In& in, int nout, const Out& out, uint64_t i, uint64_t st,
                                               uint64_t nvec) {
  bool live[U];
#pragma unroll
  for (int u = 0; u < U; ++u) live[u] = Full || i + u * st < nvec;
  auto load = [&](uint4(&raw)[U], const T* base) {
#pragma unroll
    for (int u = 0; u < U; ++u) raw[u] = live[u] ? ld_cg_vec<Mixed>(base, i + u * st) : make_uint4(0, 0, 0, 0);
  };
  reduce_vec<T> acc[U];
  uint4 raw[U];
  load(raw, in(0));
  int j = 1;
  if constexpr (Pair) {
    uint4 raw1[U];
    load(raw1, in(1));
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u].load(raw[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u].template combine<Op>(raw1[u]);
    j = 2;
  } else {
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u].load(raw[u]);
  }
  for (; j < nin; ++j) {
    load(raw, in(j));
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u].template combine<Op>(raw[u]);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) raw[u] = acc[u].pack();
  for (int d = 0; d < nout; ++d) {
    T* o = out(d);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (live[u]) st_vec<Mixed>(o, i + u * st, raw[u]);
  }
}

// Vectors [0, nvec) of the inputs into the outputs, shared by the threads of Scope. The
// misaligned form (Mixed) takes a thread's last vectors one by one, as a lone thread does: one
// loop body less to compile, for the rarer case.
template <class Op, class T, class Scope, bool Mixed, class In, class Out>
__device__ __forceinline__ void reduce_vector_loop(int nin, const In& in, int nout, const Out& out, uint64_t nvec) {
  constexpr bool pair = !std::is_same_v<Scope, thread_scope>;
  const uint64_t st = static_cast<uint64_t>(Scope::size());
  uint64_t i = static_cast<uint64_t>(Scope::rank());
  for (; i + (kReduceUnroll - 1) * st < nvec; i += kReduceUnroll * st)
    reduce_vectors<Op, T, kReduceUnroll, true, pair, Mixed>(nin, in, nout, out, i, st, nvec);
  if constexpr (!pair || Mixed) {  // a lone thread: its last few vectors one by one
    for (; i < nvec; i += st) reduce_vectors<Op, T, 1, true, pair, Mixed>(nin, in, nout, out, i, st, nvec);
  } else if (i + st >= nvec) {  // at most one vector left (every thread of a small call): no predicates
    if (i < nvec) reduce_vectors<Op, T, 1, true, true, Mixed>(nin, in, nout, out, i, st, nvec);
  } else {
    reduce_vectors<Op, T, kReduceUnroll, false, true, Mixed>(nin, in, nout, out, i, st, nvec);
  }
}

// Misaligned: false where misaligned arrays are the caller's rare choice (the all-reduce's
// pull path, whose slices start at whole vectors of source and dest) rather than what the
// algorithm makes (a reducescatter's chunks, a member's own chunk beside the push buffers):
// they then go element by element, and the misaligned copy of the loop is not compiled.
template <class Op, class T, class Scope, bool Misaligned = true, class In, class Out>
__device__ __forceinline__ void reduce_elems(int nin, const In& in, int nout, const Out& out, uint64_t count,
                                             const void* phase) {
  using A = typename reduce_acc<T>::type;
  constexpr uint64_t vec = reduce_vec<T>::n;
  const uint64_t st = static_cast<uint64_t>(Scope::size());
  // Elements before phase's next 16-byte boundary (T-aligned pointers: a whole number).
  uint64_t head = ((16 - (reinterpret_cast<uintptr_t>(phase) & 15)) & 15) / sizeof(T);
  if (head > count) head = count;
  uint64_t nvec = (count - head) / vec;
  if (nvec > 0) {
    auto vin = [&](int j) -> const T* { return in(j) + head; };
    auto vout = [&](int d) -> T* { return out(d) + head; };
    uintptr_t bits = 0;  // is any of them misaligned there?
    for (int j = 0; j < nin; ++j) bits |= reinterpret_cast<uintptr_t>(vin(j));
    for (int d = 0; d < nout; ++d) bits |= reinterpret_cast<uintptr_t>(vout(d));
    // Two copies of the loop (file comment): the aligned one, and where Misaligned allows, for
    // elements of 4 bytes and more, the misaligned one; else every element one by one.
    if ((bits & 15) == 0) {
      reduce_vector_loop<Op, T, Scope, false>(nin, vin, nout, vout, nvec);
    } else if constexpr (Misaligned && sizeof(T) >= 4) {
      reduce_vector_loop<Op, T, Scope, true>(nin, vin, nout, vout, nvec);
    } else {
      head = count;  // every element one by one, below
      nvec = 0;
    }
  }
  // The head and the tail: elements [0, head) and [head + nvec vec, count), one by one.
  const uint64_t body_end = head + nvec * vec, rest = head + (count - body_end);
  for (uint64_t r = static_cast<uint64_t>(Scope::rank()); r < rest; r += st) {
    const uint64_t e = r < head ? r : body_end + (r - head);
    A a = to_acc(ld_cg_elem(in(0) + e));
    for (int j = 1; j < nin; ++j) a = reduce_fn<Op>::apply(a, to_acc(ld_cg_elem(in(j) + e)));
    const T v = from_acc<T>(a);
    for (int d = 0; d < nout; ++d) out(d)[e] = v;
  }
}

}  // namespace detail
}  // namespace gshmem

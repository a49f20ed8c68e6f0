// SPDX-License-Identifier: BSD-3-Clause
// The element loop of the team reductions, shared by every algorithm and scope:
//
//   out(d)[i] = in(0)[i] Op in(1)[i] Op ... Op in(nin-1)[i]     i < count, d < nout
//
// in(j) / out(d) return element pointers (local, a peer's through NVLink, or a push
// buffer). Inputs are combined in index order; callers choose the order (the pull path
// starts every member at a different peer, so that the members' links share the load).
// With `aligned` (every pointer 16-byte aligned) the body moves 16-byte vectors,
// kReduceUnroll independent ones per thread and input in flight; the rest (and
// everything when not aligned) goes element by element. Loads of inputs go through L2
// (ld_cg16 / ld_cg_elem); outputs are plain stores, ordered by the caller's fence before
// its signal. The threads of Scope share the work; no synchronisation here.
#pragma once

#include <cstdint>

#include "reduce_ops.cuh"

namespace gshmem {
namespace detail {

constexpr int kReduceUnroll = 4;  // vectors per thread and input in flight

// U vectors at indices i, i + st, ..., i + (U-1) st.
template <class Op, class T, int U, class In, class Out>
__device__ __forceinline__ void reduce_vectors(int nin, const In& in, int nout, const Out& out, uint64_t i,
                                               uint64_t st) {
  reduce_vec<T> acc[U];
  uint4 raw[U];
  const uint4* p = reinterpret_cast<const uint4*>(in(0));
#pragma unroll
  for (int u = 0; u < U; ++u) raw[u] = ld_cg16(p + i + u * st);
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u].load(raw[u]);
  for (int j = 1; j < nin; ++j) {
    const uint4* q = reinterpret_cast<const uint4*>(in(j));
#pragma unroll
    for (int u = 0; u < U; ++u) raw[u] = ld_cg16(q + i + u * st);
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u].template combine<Op>(raw[u]);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) raw[u] = acc[u].pack();
  for (int d = 0; d < nout; ++d) {
    uint4* o = reinterpret_cast<uint4*>(out(d));
#pragma unroll
    for (int u = 0; u < U; ++u) o[i + u * st] = raw[u];
  }
}

template <class Op, class T, class Scope, class In, class Out>
__device__ __forceinline__ void reduce_elems(int nin, const In& in, int nout, const Out& out, uint64_t count,
                                             bool aligned) {
  using A = typename reduce_acc<T>::type;
  const uint64_t st = static_cast<uint64_t>(Scope::size());
  uint64_t done = 0;
  if (aligned) {
    const uint64_t nvec = count / reduce_vec<T>::n;
    uint64_t i = static_cast<uint64_t>(Scope::rank());
    for (; i + (kReduceUnroll - 1) * st < nvec; i += kReduceUnroll * st)
      reduce_vectors<Op, T, kReduceUnroll>(nin, in, nout, out, i, st);
    for (; i < nvec; i += st) reduce_vectors<Op, T, 1>(nin, in, nout, out, i, st);
    done = nvec * reduce_vec<T>::n;
  }
  for (uint64_t e = done + static_cast<uint64_t>(Scope::rank()); e < count; e += st) {
    A a = to_acc(ld_cg_elem(in(0) + e));
    for (int j = 1; j < nin; ++j) a = reduce_fn<Op>::apply(a, to_acc(ld_cg_elem(in(j) + e)));
    const T v = from_acc<T>(a);
    for (int d = 0; d < nout; ++d) out(d)[e] = v;
  }
}

}  // namespace detail
}  // namespace gshmem

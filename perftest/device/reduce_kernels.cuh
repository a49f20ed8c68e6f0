// SPDX-License-Identifier: BSD-3-Clause
// The definition behind reduce_bench.cuh's launch_reduce, instantiated for one datatype by each of
// reduce_int32.cu, reduce_int64.cu, reduce_float32.cu and reduce_float64.cu.
#pragma once

#include "reduce_bench.cuh"

namespace perf {

template <ReduceKind K, class Op, class T>
struct ReduceCall {
  template <class S>
  static __device__ int op(const CollArgs& p) {
    T* dst = static_cast<T*>(p.dst);
    const T* src = static_cast<const T*>(p.src);
    if constexpr (K == ReduceKind::reduce)
      return gshmem::reduce<Op, S>(GSHMEM_TEAM_WORLD, dst, src, p.count);
    else
      return gshmem::reducescatter<Op, S>(GSHMEM_TEAM_WORLD, dst, src, p.count);
  }
};

template <ReduceKind K, class T>
void launch_reduce(Ctx& ctx, const Case& c, const CollArgs& p, const ClockArgs& a) {
  with_reduce_op<T>(c.op, [&](auto op) {
    with_scope(c.scope, [&](auto s) {
      collective_launch(ctx, k_coll<decltype(s), ReduceCall<K, decltype(op), T>>, c.ctas, c.threads, p, a);
    });
  });
}

}  // namespace perf

// Both collectives' kernels for datatype T.
#define PERF_REDUCE_KERNELS(T)                                                                                         \
  template void perf::launch_reduce<perf::ReduceKind::reduce, T>(perf::Ctx&, const perf::Case&, const perf::CollArgs&, \
                                                                 const perf::ClockArgs&);                              \
  template void perf::launch_reduce<perf::ReduceKind::reducescatter, T>(                                               \
      perf::Ctx&, const perf::Case&, const perf::CollArgs&, const perf::ClockArgs&);

// SPDX-License-Identifier: BSD-3-Clause
// Device reduce and reducescatter benchmarks (reduction.cu, reducescatter.cu): the kernels of
// one datatype, every operation and scope of both collectives, compile in a file of their own
// (reduce_int32.cu ... reduce_float64.cu, from reduce_kernels.cuh), so that a build on few cores
// runs them side by side: in one file the NVSHMEM build's reduction kernels took 4-6 minutes,
// the last minutes of CI's build alone on one core.
#pragma once

#include <cstdint>

#include "coll_bench.cuh"

namespace perf {

enum class ReduceKind { reduce, reducescatter };

// Launches the benchmark kernel of collective K on datatype T for the case's operation and scope.
template <ReduceKind K, class T>
void launch_reduce(Ctx& ctx, const Case& c, const CollArgs& p, const ClockArgs& a);

// run() of both benchmarks.
template <ReduceKind K>
void run_reduce(Ctx& ctx, const Case& c, Result& r) {
  const bool all = K == ReduceKind::reduce;
  run_device_coll(ctx, c, r, all ? Coll::reduce : Coll::reducescatter, all ? "reduction" : "reducescatter",
                  [&](const CollArgs& p, const ClockArgs& a) {
                    with_coll_dtype(c.dtype, [&](auto t) { launch_reduce<K, decltype(t)>(ctx, c, p, a); });
                  });
}

}  // namespace perf

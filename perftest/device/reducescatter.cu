// SPDX-License-Identifier: BSD-3-Clause
// Device reducescatter<op, scope>(TEAM_WORLD), every PE (reduce_bench.cuh; the kernels in
// reduce_<datatype>.cu). size = one PE's input (N x its output). -o / -d as in reduction.
#include "reduce_bench.cuh"

namespace perf {
namespace {

Bench describe() {
  Bench b = device_coll_bench("reducescatter",
                              "device reducescatter<op, scope> on TEAM_WORLD (size = one PE's input, N x output)",
                              Bus::reducescatter);
  b.default_dtype = DType::float32;
  b.ops = reduce_ops();
  b.default_ops = {"sum"};
  b.bytes = coll_bytes;
  b.valid = reduce_valid;
  b.run = run_reduce<ReduceKind::reducescatter>;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

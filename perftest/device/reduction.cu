// SPDX-License-Identifier: BSD-3-Clause
// Device reduce<op, scope>(TEAM_WORLD) (all-reduce), every PE (reduce_bench.cuh; the kernels in
// reduce_<datatype>.cu).
// -o: sum prod min max and or xor (bitwise on integer types only); -d: int32 int64 float double.
#include "reduce_bench.cuh"

namespace perf {
namespace {

Bench describe() {
  Bench b = device_coll_bench("reduction", "device reduce<op, scope> (all-reduce) on TEAM_WORLD (size = bytes reduced)",
                              Bus::allreduce);
  b.default_dtype = DType::float32;
  b.ops = reduce_ops();
  b.default_ops = {"sum"};
  b.bytes = coll_bytes;
  b.valid = reduce_valid;
  b.run = run_reduce<ReduceKind::reduce>;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

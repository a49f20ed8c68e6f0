// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_TYPE_OP_reducescatter_on_stream(TEAM_WORLD) vs ncclReduceScatter, same
// buffers, sizes and stream (coll_stream.h). size = one PE's input (N x output); busbw = algbw (N-1)/N.
// -o sum prod min max (NCCL too) and or xor (gshmem only; integer types).
#include <gshmem/gshmem.h>

#include "coll_stream.h"
#include "reduce_stream.h"
#include "../common/verify.h"

namespace perf {
namespace {

const ReduceTable kTable = PERF_REDUCE_TABLE(reducescatter);

void run(Ctx& ctx, const Case& c, Result& r) {
  NcclCall nccl_call;
  if (nccl::supports(c.op))
    nccl_call = [&](nccl::Comm* comm, void* d, const void* s, size_t n, cudaStream_t st, std::string* err) {
      return nccl::reducescatter(comm, s, d, n, c.dtype, c.op, st, err);
    };
  run_stream_coll(
      ctx, c, r, Coll::reducescatter, "reducescatter_on_stream",
      [&](void* d, const void* s, size_t n, cudaStream_t st) {
        return reduce_call(kTable, c.dtype, c.op, d, s, n, st);
      },
      nccl_call, "NCCL has no bitwise reduction: gshmem only");
}

Bench describe() {
  Bench b = stream_coll_bench("reducescatter_on_stream",
                              "gshmemx_TYPE_OP_reducescatter_on_stream vs ncclReduceScatter (size = one PE's input)",
                              Bus::reducescatter);
  b.ops = reduce_ops();
  b.default_ops = {"sum"};
  b.valid = reduce_valid;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_TYPE_fcollect_on_stream(TEAM_WORLD) vs ncclAllGather, same buffers, sizes
// and stream (coll_stream.h). size = gathered bytes (N x per PE); busbw = algbw (N-1)/N.
#include <gshmem/gshmem.h>

#include "coll_stream.h"

namespace perf {
namespace {

int gshmem_call(DType t, void* d, const void* s, size_t n, cudaStream_t st) {
  const gshmem_team_t w = GSHMEM_TEAM_WORLD;
  switch (t) {
    case DType::int64:
      return gshmemx_int64_fcollect_on_stream(w, (int64_t*)d, (const int64_t*)s, n, st);
    case DType::float32:
      return gshmemx_float_fcollect_on_stream(w, (float*)d, (const float*)s, n, st);
    case DType::float64:
      return gshmemx_double_fcollect_on_stream(w, (double*)d, (const double*)s, n, st);
    default:
      return gshmemx_int32_fcollect_on_stream(w, (int32_t*)d, (const int32_t*)s, n, st);
  }
}

void run(Ctx& ctx, const Case& c, Result& r) {
  run_stream_coll(
      ctx, c, r, Coll::fcollect, "fcollect_on_stream",
      [&](void* d, const void* s, size_t n, cudaStream_t st) { return gshmem_call(c.dtype, d, s, n, st); },
      [&](nccl::Comm* comm, void* d, const void* s, size_t n, cudaStream_t st, std::string* err) {
        return nccl::allgather(comm, s, d, n, c.dtype, st, err);
      });
}

Bench describe() {
  Bench b = stream_coll_bench(
      "fcollect_on_stream", "gshmemx_TYPE_fcollect_on_stream vs ncclAllGather (size = gathered bytes)", Bus::allgather);
  b.default_dtype = DType::int32;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

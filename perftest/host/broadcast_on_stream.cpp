// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_TYPE_broadcast_on_stream(TEAM_WORLD) vs ncclBroadcast, same buffers,
// sizes and stream (coll_stream.h). size = bytes broadcast; busbw = algbw.
#include <gshmem/gshmem.h>

#include "coll_stream.h"

namespace perf {
namespace {

int gshmem_call(DType t, void* d, const void* s, size_t n, int root, cudaStream_t st) {
  const gshmem_team_t w = GSHMEM_TEAM_WORLD;
  switch (t) {
    case DType::int64:
      return gshmemx_int64_broadcast_on_stream(w, (int64_t*)d, (const int64_t*)s, n, root, st);
    case DType::float32:
      return gshmemx_float_broadcast_on_stream(w, (float*)d, (const float*)s, n, root, st);
    case DType::float64:
      return gshmemx_double_broadcast_on_stream(w, (double*)d, (const double*)s, n, root, st);
    default:
      return gshmemx_int32_broadcast_on_stream(w, (int32_t*)d, (const int32_t*)s, n, root, st);
  }
}

void run(Ctx& ctx, const Case& c, Result& r) {
  run_stream_coll(
      ctx, c, r, Coll::broadcast, "broadcast_on_stream",
      [&](void* d, const void* s, size_t n, cudaStream_t st) { return gshmem_call(c.dtype, d, s, n, c.root, st); },
      [&](nccl::Comm* comm, void* d, const void* s, size_t n, cudaStream_t st, std::string* err) {
        return nccl::broadcast(comm, s, d, n, c.dtype, c.root, st, err);
      });
}

Bench describe() {
  Bench b = stream_coll_bench("broadcast_on_stream", "gshmemx_TYPE_broadcast_on_stream vs ncclBroadcast (size = bytes)",
                              Bus::broadcast);
  b.default_dtype = DType::int32;
  b.valid = [](const Case& c, int npes) { return c.root < npes; };
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

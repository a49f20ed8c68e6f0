// SPDX-License-Identifier: BSD-3-Clause
// Device alltoall<scope>(TEAM_WORLD), every PE (coll_bench.cuh). size = one PE's
// buffer (N x the bytes per PE pair): 16 B per pair at 4 PEs is size 64.
#include "coll_bench.cuh"

namespace perf {
namespace {

template <class T>
struct Call {
  template <class S>
  static __device__ int op(const CollArgs& p) {
    return gshmem::alltoall<S>(GSHMEM_TEAM_WORLD, static_cast<T*>(p.dst), static_cast<const T*>(p.src), p.count);
  }
};

void run(Ctx& ctx, const Case& c, Result& r) {
  run_device_coll(ctx, c, r, Coll::alltoall, "alltoall", [&](const CollArgs& p, const ClockArgs& a) {
    with_coll_dtype(c.dtype, [&](auto t) {
      with_scope(c.scope, [&](auto s) {
        collective_launch(ctx, k_coll<decltype(s), Call<decltype(t)>>, c.ctas, c.threads, p, a);
      });
    });
  });
}

Bench describe() {
  Bench b = device_coll_bench("alltoall", "device alltoall<scope> on TEAM_WORLD (size = one PE's buffer, N x per pair)",
                              Bus::alltoall);
  b.bytes = coll_bytes;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

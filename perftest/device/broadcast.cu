// SPDX-License-Identifier: BSD-3-Clause
// Device broadcast<scope>(TEAM_WORLD) from --root, every PE (coll_bench.cuh).
#include "coll_bench.cuh"

namespace perf {
namespace {

template <class T>
struct Call {
  template <class S>
  static __device__ int op(const CollArgs& p) {
    return gshmem::broadcast<S>(GSHMEM_TEAM_WORLD, static_cast<T*>(p.dst), static_cast<const T*>(p.src), p.count,
                                p.root);
  }
};

void run(Ctx& ctx, const Case& c, Result& r) {
  run_device_coll(ctx, c, r, Coll::broadcast, "broadcast", [&](const CollArgs& p, const ClockArgs& a) {
    with_coll_dtype(c.dtype, [&](auto t) {
      with_scope(c.scope, [&](auto s) {
        collective_launch(ctx, k_coll<decltype(s), Call<decltype(t)>>, c.ctas, c.threads, p, a);
      });
    });
  });
}

Bench describe() {
  Bench b =
      device_coll_bench("broadcast", "device broadcast<scope> on TEAM_WORLD (size = bytes broadcast)", Bus::broadcast);
  b.bytes = coll_bytes;
  b.valid = [](const Case& c, int npes) { return c.root < npes; };
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

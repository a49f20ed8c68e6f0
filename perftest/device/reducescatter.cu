// SPDX-License-Identifier: BSD-3-Clause
// Device reducescatter<op, scope>(TEAM_WORLD), every PE (coll_bench.cuh). size = one
// PE's input (N x its output). -o / -d as in reduction.
#include "coll_bench.cuh"

namespace perf {
namespace {

template <class Op, class T>
struct Call {
  template <class S>
  static __device__ int op(const CollArgs& p) {
    return gshmem::reducescatter<Op, S>(GSHMEM_TEAM_WORLD, static_cast<T*>(p.dst), static_cast<const T*>(p.src),
                                        p.count);
  }
};

void run(Ctx& ctx, const Case& c, Result& r) {
  run_device_coll(ctx, c, r, Coll::reducescatter, "reducescatter", [&](const CollArgs& p, const ClockArgs& a) {
    with_coll_dtype(c.dtype, [&](auto t) {
      using T = decltype(t);
      with_reduce_op<T>(c.op, [&](auto op) {
        with_scope(c.scope, [&](auto s) {
          collective_launch(ctx, k_coll<decltype(s), Call<decltype(op), T>>, c.ctas, c.threads, p, a);
        });
      });
    });
  });
}

Bench describe() {
  Bench b = device_coll_bench("reducescatter",
                              "device reducescatter<op, scope> on TEAM_WORLD (size = one PE's input, N x output)",
                              Bus::reducescatter);
  b.default_dtype = DType::float32;
  b.ops = reduce_ops();
  b.default_ops = {"sum"};
  b.bytes = coll_bytes;
  b.valid = reduce_valid;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

// SPDX-License-Identifier: BSD-3-Clause
// Device barrier_all / sync_all latency at thread, warp and block scope, every PE
// (sync_bench.cuh), launched with gshmemx_collective_launch.
#include "sync_bench.cuh"

namespace perf {
namespace {

struct BarrierAll {
  template <class S>
  static __device__ void op() {
    gshmem::barrier_all<S>();
  }
  template <class S>
  static __device__ void order() {
    gshmem::barrier_all<S>();
  }
};
struct SyncAll {
  template <class S>
  static __device__ void op() {
    gshmem::sync_all<S>();
  }
  template <class S>
  static __device__ void order() {
    gshmem::quiet<S>();
    gshmem::sync_all<S>();
  }
};

void run_barrier(Ctx& ctx, const Case& c, Result& r) { run_sync<BarrierAll>(ctx, c, r, "barrier"); }
void run_sync_all(Ctx& ctx, const Case& c, Result& r) { run_sync<SyncAll>(ctx, c, r, "sync"); }

Bench describe_barrier() {
  Bench b = sync_bench("barrier", "device barrier_all<scope> latency (quiet + sync of all PEs), back to back");
  b.run = run_barrier;
  return b;
}
Bench describe_sync() {
  Bench b = sync_bench("sync", "device sync_all<scope> latency (all PEs arrive; no quiet), back to back");
  b.run = run_sync_all;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_barrier);
PERF_REGISTER(perf::describe_sync);

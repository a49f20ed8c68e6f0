// SPDX-License-Identifier: BSD-3-Clause
// Device team barrier / team_sync on GSHMEM_TEAM_WORLD at thread, warp and block
// scope (sync_bench.cuh): the team forms of barrier / sync.
#include "sync_bench.cuh"

namespace perf {
namespace {

struct TeamBarrier {
  template <class S>
  static __device__ void op() {
    gshmem::barrier<S>(GSHMEM_TEAM_WORLD);
  }
  template <class S>
  static __device__ void order() {
    gshmem::barrier<S>(GSHMEM_TEAM_WORLD);
  }
};
struct TeamSync {
  template <class S>
  static __device__ void op() {
    gshmem::team_sync<S>(GSHMEM_TEAM_WORLD);
  }
  template <class S>
  static __device__ void order() {
    gshmem::quiet<S>();
    gshmem::team_sync<S>(GSHMEM_TEAM_WORLD);
  }
};

void run_barrier(Ctx& ctx, const Case& c, Result& r) { run_sync<TeamBarrier>(ctx, c, r, "barrier_team"); }
void run_team_sync(Ctx& ctx, const Case& c, Result& r) { run_sync<TeamSync>(ctx, c, r, "sync_team"); }

Bench describe_barrier() {
  Bench b = sync_bench("barrier_team", "device barrier<scope>(TEAM_WORLD) latency, back to back");
  b.run = run_barrier;
  return b;
}
Bench describe_sync() {
  Bench b = sync_bench("sync_team", "device team_sync<scope>(TEAM_WORLD) latency, back to back");
  b.run = run_team_sync;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_barrier);
PERF_REGISTER(perf::describe_sync);

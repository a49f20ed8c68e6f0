// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_barrier_on_stream / gshmemx_team_sync_on_stream on GSHMEM_TEAM_WORLD,
// back to back on one stream, every PE (sync_stream.h).
#include "sync_stream.h"

namespace perf {
namespace {

void run_barrier(Ctx& ctx, const Case& c, Result& r) {
  run_sync_stream(ctx, c, r, "barrier_team_on_stream", [&](cudaStream_t s) {
    if (gshmemx_barrier_on_stream(GSHMEM_TEAM_WORLD, s)) ctx.failed = true;
  });
}
void run_sync(Ctx& ctx, const Case& c, Result& r) {
  run_sync_stream(ctx, c, r, "sync_team_on_stream", [&](cudaStream_t s) {
    if (gshmemx_team_sync_on_stream(GSHMEM_TEAM_WORLD, s)) ctx.failed = true;
  });
}

Bench describe_barrier() {
  Bench b = sync_stream_bench("barrier_team_on_stream", "gshmemx_barrier_on_stream(TEAM_WORLD) latency, back to back");
  b.run = run_barrier;
  return b;
}
Bench describe_sync() {
  Bench b = sync_stream_bench("sync_team_on_stream", "gshmemx_team_sync_on_stream(TEAM_WORLD) latency, back to back");
  b.run = run_sync;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_barrier);
PERF_REGISTER(perf::describe_sync);

// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_barrier_all_on_stream / gshmemx_sync_all_on_stream latency, back to back
// on one stream, every PE (sync_stream.h).
#include "sync_stream.h"

namespace perf {
namespace {

void run_barrier(Ctx& ctx, const Case& c, Result& r) {
  run_sync_stream(ctx, c, r, "barrier_on_stream", [](cudaStream_t s) { gshmemx_barrier_all_on_stream(s); });
}
void run_sync(Ctx& ctx, const Case& c, Result& r) {
  run_sync_stream(ctx, c, r, "sync_on_stream", [](cudaStream_t s) { gshmemx_sync_all_on_stream(s); });
}

Bench describe_barrier() {
  Bench b = sync_stream_bench("barrier_on_stream", "gshmemx_barrier_all_on_stream latency, back to back");
  b.run = run_barrier;
  return b;
}
Bench describe_sync() {
  Bench b = sync_stream_bench("sync_on_stream", "gshmemx_sync_all_on_stream latency, back to back");
  b.run = run_sync;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_barrier);
PERF_REGISTER(perf::describe_sync);

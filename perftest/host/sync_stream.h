// SPDX-License-Identifier: BSD-3-Clause
// On-stream barrier / sync benchmarks (barrier_on_stream.cpp, team_sync_on_stream.cpp):
// every PE enqueues the operation `iters` times per repetition on ctx.stream (events
// around the batch; --graph: captured once and replayed). Verified afterwards: every
// PE puts a tag into its slot on every PE (blocking host puts), enqueues `order` (the
// operation, or quiet + the operation for syncs) and waits for the stream; then every
// slot must hold its PE's tag.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {

inline void run_sync_stream(Ctx& ctx, const Case& c, Result& r, const char* name,
                            const std::function<void(cudaStream_t)>& op) {
  uint64_t* slots = static_cast<uint64_t*>(ctx.sym(0, sizeof(uint64_t) * ctx.npes));
  poison(slots, sizeof(uint64_t) * ctx.npes, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "poison");
  for (int i = 0; i < c.warmup; ++i) op(ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "warm-up");
  std::string note;
  r.us = time_batches(
      ctx, c.reps, c.iters,
      [&] {
        for (int i = 0; i < c.iters; ++i) op(ctx.stream);
      },
      c.graph, &note);
  r.timed = !r.us.empty();
  r.timer = c.graph ? "events+graph" : "events";
  r.note = note;
  // Check: tags put before the operation are visible to every PE after it.
  const uint64_t tag = seed_of(name, 0, static_cast<size_t>(c.iters)) & ~0xffffull;
  const uint64_t mine = tag + static_cast<uint64_t>(ctx.me);
  for (int pe = 0; pe < ctx.npes; ++pe) gshmem_putmem(slots + ctx.me, &mine, sizeof(mine), pe);
  gshmemx_quiet_on_stream(ctx.stream);
  op(ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "operation");
  std::vector<uint64_t> got(ctx.npes);
  ctx.cuda(cudaMemcpy(got.data(), slots, sizeof(uint64_t) * ctx.npes, cudaMemcpyDeviceToHost), "cudaMemcpy (slots)");
  Mismatch m;
  m.checked = static_cast<uint64_t>(ctx.npes);
  for (int pe = 0; pe < ctx.npes; ++pe) {
    if (got[pe] == tag + static_cast<uint64_t>(pe)) continue;
    if (m.bad++ == 0) {
      m.first = static_cast<uint64_t>(pe);
      m.expected = tag + static_cast<uint64_t>(pe);
      m.got = got[pe];
    }
  }
  record_check(ctx, r, c, "tags put before the operation", m);
  ctx.barrier();
}

inline Bench sync_stream_bench(const char* name, const char* what) {
  Bench b;
  b.name = name;
  b.what = what;
  b.kind = Kind::host;
  b.min_pes = 1;
  b.scopes = scope_bit(Scope::thread);
  b.iters = 100;
  b.warmup = 10;
  b.reps = 20;
  b.graph = true;
  return b;
}

}  // namespace perf

// SPDX-License-Identifier: BSD-3-Clause
// Device barrier / sync benchmarks (barrier.cu, team_sync.cu): the first group of
// the launch on every PE calls the operation back to back; each call is timed
// inside the kernel (clock64). A Call type provides
//   template <class S> static __device__ void op();     the timed operation
//   template <class S> static __device__ void order();  what makes the check's puts
//                                                       visible (barrier, or quiet + sync)
// Verified after the loop: every PE p()s a tag into its slot on every PE, calls
// order(), and each PE then finds every PE's tag in its slots.
#pragma once

#include <cstdint>
#include <vector>

#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/devclock.cuh"
#include "../common/launch.cuh"
#include "../common/scope.cuh"
#include "../common/verify.h"

namespace perf {

template <class S, class Call>
__global__ void __launch_bounds__(kMaxThreads) k_sync(ClockArgs a, uint64_t* slots, uint64_t tag) {
  if (!in_first_group<S>()) return;
  const bool rec = S::rank() == 0;
  clock_start(a, rec);
  for (int i = 0; i < a.warmup + a.iters; ++i) {
    const long long t0 = read_clock();
    Call::template op<S>();
    clock_record(a, rec, i, read_clock() - t0);
  }
  clock_stop(a, rec);
  const int me = gshmem::my_pe(), npes = gshmem::n_pes();
  for (int pe = S::rank(); pe < npes; pe += S::size()) gshmem::p(slots + me, tag + static_cast<uint64_t>(me), pe);
  Call::template order<S>();
}

template <class Call>
void run_sync(Ctx& ctx, const Case& c, Result& r, const char* name) {
  uint64_t* slots = static_cast<uint64_t*>(ctx.sym(0, sizeof(uint64_t) * ctx.npes));
  const uint64_t tag = seed_of(name, 0, static_cast<size_t>(c.scope), static_cast<uint64_t>(c.iters)) & ~0xffffull;
  poison(slots, sizeof(uint64_t) * ctx.npes, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "poison");
  ctx.barrier();
  DevClock clk(ctx);
  const ClockArgs a = clk.args(c.warmup, c.iters);
  with_scope(c.scope,
             [&](auto s) { collective_launch(ctx, k_sync<decltype(s), Call>, c.ctas, c.threads, a, slots, tag); });
  r.us = clk.samples_us();
  r.timed = true;
  r.timer = "clock64";
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
  record_check(ctx, r, c, "tags written before the last barrier", m);
  ctx.barrier();
}

inline Bench sync_bench(const char* name, const char* what) {
  Bench b;
  b.name = name;
  b.what = what;
  b.kind = Kind::device;
  b.min_pes = 1;
  b.scopes = kAllScopes;
  b.default_scope = Scope::block;
  b.ctas = 1;
  b.threads = 128;
  b.iters = 1000;
  b.warmup = 100;
  b.reps = 1;
  return b;
}

}  // namespace perf

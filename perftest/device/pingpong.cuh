// SPDX-License-Identifier: BSD-3-Clause
// Ping-pong between PE 0 and PE 1, the shared part of the pingpong_* benchmarks.
// Round k (k = 1, 2, ...): PE 0 sends k and waits until its own flag reaches k;
// PE 1 waits for k, then sends k back. A protocol (Proto) says how to send and how
// to wait:
//   template <class S> static __device__ void send(const PingArgs&, uint64_t k);
//   template <class S> static __device__ void wait(const PingArgs&, uint64_t k);
// The sample is half the round trip (one-way latency), timed inside the kernel on
// PE 0 (clock64). Afterwards both flags must hold the last round number and, for
// protocols that carry data, each PE's data buffer the other PE's pattern.
#pragma once

#include <cstdint>

#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/devclock.cuh"
#include "../common/scope.cuh"
#include "../common/verify.h"

namespace perf {

struct PingArgs {
  uint64_t* flag;   // symmetric: the word the peer updates
  char* data;       // symmetric: where the peer's data lands
  const char* src;  // local: what this PE sends
  size_t bytes;
  int peer;
};

template <class S, class Proto>
__global__ void __launch_bounds__(kMaxThreads) k_pingpong(PingArgs p, int me, ClockArgs a) {
  if (!in_first_group<S>()) return;
  const bool rec = me == 0 && S::rank() == 0;
  clock_start(a, rec);
  for (int i = 0; i < a.warmup + a.iters; ++i) {
    const uint64_t k = static_cast<uint64_t>(i) + 1;
    const long long t0 = read_clock();
    if (me == 0) {
      Proto::template send<S>(p, k);
      Proto::template wait<S>(p, k);
    } else {
      Proto::template wait<S>(p, k);
      Proto::template send<S>(p, k);
    }
    clock_record(a, rec, i, (read_clock() - t0) / 2);
  }
  clock_stop(a, rec);
}

// Waits at scope S until the local flag reaches k (acquire), then lets the group go.
template <class S>
__device__ __forceinline__ void wait_flag(const PingArgs& p, uint64_t k) {
  if (S::rank() == 0) gshmem::wait_until(p.flag, gshmem::cmp::ge, k);
  S::sync();
}

template <class Proto>
void run_pingpong(Ctx& ctx, const Case& c, Result& r, const char* name, bool carries_data) {
  const size_t n = carries_data ? c.size : 0;
  char* data = static_cast<char*>(ctx.sym(0, n ? n : 8));
  uint64_t* flag = static_cast<uint64_t*>(ctx.sym(1, sizeof(uint64_t)));
  char* src = static_cast<char*>(ctx.local(0, n ? n : 8));
  const bool active = ctx.me < 2;
  const int peer = ctx.me == 0 ? 1 : 0;
  if (active) {
    fill_bytes(src, n, seed_of(name, ctx.me, n), ctx.stream);
    poison(data, n, ctx.stream);
    ctx.cuda(cudaMemsetAsync(flag, 0, sizeof(uint64_t), ctx.stream), "cudaMemsetAsync (flag)");
  }
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "fill");
  ctx.barrier();
  if (active) {
    DevClock clk(ctx);
    const ClockArgs a = clk.args(c.warmup, c.iters);
    const PingArgs p{flag, data, src, n, peer};
    with_scope(c.scope,
               [&](auto s) { k_pingpong<decltype(s), Proto><<<c.ctas, c.threads, 0, ctx.stream>>>(p, ctx.me, a); });
    ctx.cuda(cudaGetLastError(), "ping-pong kernel launch");
    std::vector<double> us = clk.samples_us();
    if (ctx.me == 0) {
      r.us = us;
      r.timed = true;
      r.timer = "clock64";
    }
  }
  ctx.barrier();
  if (active) {
    const uint64_t rounds = static_cast<uint64_t>(c.warmup) + c.iters;
    record_check(ctx, r, c, "flag after the last round", check_const(flag, 1, sizeof(uint64_t), rounds, ctx.stream));
    if (n) record_check(ctx, r, c, "data from the peer", check_bytes(data, n, seed_of(name, peer, n), ctx.stream));
  }
}

// Descriptor defaults shared by the ping-pong benchmarks.
inline Bench pingpong_bench(const char* name, const char* what, bool sized) {
  Bench b;
  b.name = name;
  b.what = what;
  b.kind = Kind::device;
  b.min_pes = 2;
  b.iters = 1000;
  b.warmup = 100;
  b.reps = 1;
  if (sized) {
    b.min_size = 8;
    b.max_size = 64u << 10;
    b.scopes = kAllScopes;
    b.default_scope = Scope::thread;
    b.threads = 32;
    b.bus = Bus::p2p;
    b.bytes = [](const Case&, size_t size, int) { return static_cast<double>(size); };
  } else {
    b.scopes = scope_bit(Scope::thread);
    b.threads = 32;
  }
  return b;
}

}  // namespace perf

// SPDX-License-Identifier: BSD-3-Clause
// atomic_latency: one thread of PE 0 applies an AMO to one element on PE 1, one at
// a time; each iteration timed inside the kernel (clock64). Fetching operations
// end when the value is back; the others are followed by quiet (delivered). -o
// picks the operations (default: all), -d the type.
// Verified: PE 1's element holds the value the whole sequence of operations
// leaves (atomic_ops.cuh), and the last fetched value is the one before the last
// operation.
#include "../common/bench.h"
#include "../common/context.h"
#include "../common/devclock.cuh"
#include "../common/verify.h"
#include "atomic_ops.cuh"

namespace perf {
namespace {

template <Amo A, class T>
__global__ void __launch_bounds__(kMaxThreads) k_amo_latency(T* dest, T* fetched, int peer, ClockArgs a) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  T last = T(0);
  clock_start(a, true);
  for (int i = 0; i < a.warmup + a.iters; ++i) {
    const long long t0 = read_clock();
    if constexpr (amo_fetches(A)) {
      last = amo_apply<A, T>(dest, static_cast<uint64_t>(i), peer);
      consume(last);
    } else {
      amo_apply<A, T>(dest, static_cast<uint64_t>(i), peer);
      gshmem::quiet();
    }
    clock_record(a, true, i, read_clock() - t0);
  }
  clock_stop(a, true);
  *fetched = last;
}

void run(Ctx& ctx, const Case& c, Result& r) {
  Amo op = Amo::fetch_add;
  parse_amo(c.op, &op);
  const size_t es = size_of(c.dtype);
  char* elem = static_cast<char*>(ctx.sym(0, 8));
  char* fetched = static_cast<char*>(ctx.local(0, 8));
  const uint64_t total = static_cast<uint64_t>(c.warmup) + c.iters;
  uint64_t init = 0, final_v = 0, before_last = 0;
  with_amo_dtype(c.dtype, [&](auto t) {
    using T = decltype(t);
    init = amo_bits(amo_init<T>(op));
    final_v = amo_bits(amo_after<T>(op, total));
    before_last = amo_bits(amo_after<T>(op, total - 1));
  });
  if (ctx.me == 1) fill_const(elem, 1, es, init, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "fill");
  ctx.barrier();
  if (ctx.me == 0) {
    DevClock clk(ctx);
    const ClockArgs a = clk.args(c.warmup, c.iters);
    with_amo_dtype(c.dtype, [&](auto t) {
      using T = decltype(t);
      with_amo(op, [&](auto k) {
        k_amo_latency<decltype(k)::value, T>
            <<<1, 32, 0, ctx.stream>>>(reinterpret_cast<T*>(elem), reinterpret_cast<T*>(fetched), 1, a);
      });
    });
    ctx.cuda(cudaGetLastError(), "atomic_latency kernel launch");
    r.us = clk.samples_us();
    r.timed = true;
    r.timer = "clock64";
    if (amo_fetches(op))
      record_check(ctx, r, c, "last fetched value", check_const(fetched, 1, es, before_last, ctx.stream));
  }
  ctx.barrier();
  if (ctx.me == 1) record_check(ctx, r, c, "element on PE 1", check_const(elem, 1, es, final_v, ctx.stream));
  r.size = es;
}

Bench describe() {
  Bench b;
  b.name = "atomic_latency";
  b.what = "device AMO latency (fetching: value back; others: + quiet), one thread, PE 0 -> PE 1";
  b.kind = Kind::device;
  b.min_pes = 2;
  b.scopes = scope_bit(Scope::thread);
  b.dtypes = kAmoDTypes;
  b.default_dtype = DType::uint64;
  b.ops = amo_names();
  b.default_ops = amo_names();
  b.threads = 32;
  b.iters = 1000;
  b.warmup = 100;
  b.reps = 1;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

// SPDX-License-Identifier: BSD-3-Clause
// atomic_bw: AMO throughput, PE 0 -> PE 1. Every thread of -c x -t owns the
// elements tid, tid + nthreads, ... of a `size`-byte array on PE 1 and applies
// one AMO to each of them per iteration (`iters` iterations, then quiet). Events
// around the kernel; the extra column is millions of AMOs per second. -o picks
// the operations (default fetch_add, add, compare_swap), -d the type.
// Verified: every element of PE 1's array holds the value the whole sequence of
// operations (warm-up and repetitions included) leaves (atomic_ops.cuh).
#include "../common/bench.h"
#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"
#include "atomic_ops.cuh"

namespace perf {
namespace {

template <Amo A, class T>
__global__ void __launch_bounds__(kMaxThreads) k_amo_bw(T* dest, size_t n, int peer, uint64_t k0, int iters) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  T sink = T(0);
  for (int it = 0; it < iters; ++it)
    for (size_t i = first; i < n; i += stride) sink ^= amo_apply<A, T>(dest + i, k0 + it, peer);
  gshmem::quiet();
  if (sink == T(1) && n == 0) *dest = sink;  // keeps the fetches alive; never true
}

void run(Ctx& ctx, const Case& c, Result& r) {
  Amo op = Amo::fetch_add;
  parse_amo(c.op, &op);
  const size_t es = size_of(c.dtype);
  const size_t n = c.size / es;
  r.size = n * es;
  if (n == 0) {
    r.skip = true;
    return;
  }
  char* arr = static_cast<char*>(ctx.sym(0, r.size));
  uint64_t init = 0;
  with_amo_dtype(c.dtype, [&](auto t) { init = amo_bits(amo_init<decltype(t)>(op)); });
  if (ctx.me == 1) fill_const(arr, n, es, init, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "fill");
  ctx.barrier();
  uint64_t next_k = 0;  // operations applied to each element so far
  auto launch = [&](int iters) {
    if (ctx.me == 0) {
      with_amo_dtype(c.dtype, [&](auto t) {
        using T = decltype(t);
        with_amo(op, [&](auto k) {
          k_amo_bw<decltype(k)::value, T>
              <<<c.ctas, c.threads, 0, ctx.stream>>>(reinterpret_cast<T*>(arr), n, 1, next_k, iters);
        });
      });
      ctx.cuda(cudaGetLastError(), "atomic_bw kernel launch");
    }
    next_k += static_cast<uint64_t>(iters);
  };
  if (c.warmup) launch(c.warmup);
  r.us = time_batches(
      ctx, c.reps, c.iters, [&] { launch(c.iters); }, false, nullptr);
  r.timed = ctx.me == 0;
  r.ops_per_iter = static_cast<double>(n);
  ctx.barrier();
  if (ctx.me == 1) {
    uint64_t final_v = 0;
    with_amo_dtype(c.dtype, [&](auto t) { final_v = amo_bits(amo_after<decltype(t)>(op, next_k)); });
    record_check(ctx, r, c, "elements on PE 1", check_const(arr, n, es, final_v, ctx.stream));
  }
}

double bytes(const Case&, size_t size, int) { return static_cast<double>(size); }

Bench describe() {
  Bench b;
  b.name = "atomic_bw";
  b.what = "device AMO throughput (every thread its own elements), PE 0 -> PE 1, then quiet";
  b.kind = Kind::device;
  b.min_pes = 2;
  b.min_size = 4 << 10;
  b.max_size = 4u << 20;
  b.scopes = scope_bit(Scope::thread);
  b.dtypes = kAmoDTypes;
  b.default_dtype = DType::uint64;
  b.ops = amo_names();
  b.default_ops = {"fetch_add", "add", "compare_swap"};
  b.ctas = 32;
  b.threads = 1024;
  b.iters = 10;
  b.warmup = 2;
  b.reps = 10;
  b.bus = Bus::p2p;
  b.bytes = bytes;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

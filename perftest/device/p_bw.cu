// SPDX-License-Identifier: BSD-3-Clause
// p_bw: message rate of single-element puts (p<T>), PE 0 -> PE 1. Every thread of
// -c x -t stores elements tid, tid + nthreads, ... of a `size`-byte array on PE 1
// with p<T> (values from a local array), `iters` times, then quiet. Events around
// the kernel; the extra column is the rate in millions of p per second.
// Verified: PE 1's array is poisoned after the warm-up and checked afterwards.
#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/scope.cuh"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

template <class T>
__global__ void __launch_bounds__(kMaxThreads) k_p_bw(T* dst, const T* src, size_t n, int peer, int iters) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (int it = 0; it < iters; ++it)
    for (size_t i = first; i < n; i += stride) gshmem::p(dst + i, src[i], peer);
  gshmem::quiet();
}

void run(Ctx& ctx, const Case& c, Result& r) {
  const size_t es = size_of(c.dtype);
  const size_t n = c.size / es;
  r.size = n * es;
  if (n == 0) {
    r.skip = true;
    return;
  }
  char* sym = static_cast<char*>(ctx.sym(0, r.size));
  char* loc = static_cast<char*>(ctx.local(0, r.size));
  if (ctx.me == 0) fill_bytes(loc, r.size, seed_of("p_bw", 0, r.size), ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "fill");
  ctx.barrier();
  auto launch = [&](int iters) {
    if (ctx.me != 0) return;
    with_dtype(c.dtype, [&](auto t) {
      using T = decltype(t);
      k_p_bw<T><<<c.ctas, c.threads, 0, ctx.stream>>>(reinterpret_cast<T*>(sym), reinterpret_cast<const T*>(loc), n, 1,
                                                      iters);
    });
    ctx.cuda(cudaGetLastError(), "p_bw kernel launch");
  };
  if (c.warmup) launch(c.warmup);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "warm-up");
  ctx.barrier();
  if (ctx.me == 1) poison(sym, r.size, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "poison");
  r.us = time_batches(
      ctx, c.reps, c.iters, [&] { launch(c.iters); }, false, nullptr);
  r.timed = ctx.me == 0;
  r.ops_per_iter = static_cast<double>(n);
  ctx.barrier();
  if (ctx.me == 1)
    record_check(ctx, r, c, "destination on PE 1", check_bytes(sym, r.size, seed_of("p_bw", 0, r.size), ctx.stream));
}

double bytes(const Case&, size_t size, int) { return static_cast<double>(size); }

Bench describe() {
  Bench b;
  b.name = "p_bw";
  b.what = "device p<T> message rate (every thread its own elements), PE 0 -> PE 1, then quiet";
  b.kind = Kind::device;
  b.min_pes = 2;
  b.min_size = 4 << 10;
  b.max_size = 16u << 20;
  b.scopes = scope_bit(Scope::thread);
  b.dtypes = kAllDTypes;
  b.default_dtype = DType::int32;
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

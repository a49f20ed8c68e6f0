// SPDX-License-Identifier: BSD-3-Clause
// Host-initiated RMA between PE 0 and PE 1 (wall clock on the host):
//   host_put_bw / host_get_bw        `iters` x gshmem_putmem_nbi / getmem_nbi, then
//                                    gshmem_quiet; one sample per repetition; --bidir;
//                                    ceiling: cudaMemcpyAsync of the same bytes between
//                                    the same buffers (copy engine)
//   host_put_latency / _get_latency  one blocking gshmem_putmem / getmem per sample;
//                                    ceiling: the same, as a lone cudaMemcpyAsync and
//                                    cudaStreamSynchronize on the benchmark's stream,
//                                    timed first (the library's copy is the one checked)
// The local side is device memory (cudaMalloc). Verified: the destination is
// poisoned after the warm-up and checked after the timed calls.
#include <cuda_runtime_api.h>

#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

enum class H { put_bw, get_bw, put_latency, get_latency };

const char* bench_name(H h) {
  switch (h) {
    case H::put_bw:
      return "host_put_bw";
    case H::get_bw:
      return "host_get_bw";
    case H::put_latency:
      return "host_put_latency";
    case H::get_latency:
      return "host_get_latency";
  }
  return "?";
}

template <H K>
void run(Ctx& ctx, const Case& c, Result& r) {
  constexpr bool get = K == H::get_bw || K == H::get_latency;
  constexpr bool bw = K == H::put_bw || K == H::get_bw;
  const char* name = bench_name(K);
  const size_t n = c.size;
  char* sym = static_cast<char*>(ctx.sym(0, n));    // put: destination; get: source
  char* loc = static_cast<char*>(ctx.local(0, n));  // put: source; get: destination
  const bool active = ctx.me == 0 || (c.bidir && ctx.me == 1);
  const int peer = ctx.me == 0 ? 1 : 0;
  fill_bytes(get ? sym : loc, n, seed_of(name, ctx.me, n), ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "fill");
  ctx.barrier();
  auto one = [&](bool nbi) {
    if (get)
      nbi ? gshmem_getmem_nbi(loc, sym, n, peer) : gshmem_getmem(loc, sym, n, peer);
    else
      nbi ? gshmem_putmem_nbi(sym, loc, n, peer) : gshmem_putmem(sym, loc, n, peer);
  };
  // The ceiling: the same bytes between the same buffers as one copy-engine copy.
  char* remote = active ? static_cast<char*>(gshmem_ptr(sym, peer)) : nullptr;
  r.ceiling_timed = remote != nullptr;
  auto bare_copy = [&] {
    ctx.cuda(cudaMemcpyAsync(get ? loc : remote, get ? remote : loc, n, cudaMemcpyDefault, ctx.stream),
             "cudaMemcpyAsync (peer copy)");
  };
  if (bw) {
    r.ceiling_us = time_batches(
        ctx, c.reps, c.iters,
        [&] {
          for (int i = 0; remote && i < c.iters; ++i) bare_copy();
        },
        false, nullptr);
  }
  if (active) {
    for (int i = 0; i < c.warmup; ++i) one(bw);
    gshmem_quiet();
  }
  ctx.barrier();
  const bool receives = get ? active : (ctx.me == 1 || (c.bidir && ctx.me == 0));
  char* dst_here = get ? loc : sym;
  if (!bw) {
    // The floor under a blocking call: the bare copy it may reduce to, one at a time, timed
    // in the same state (the peer waiting in a barrier), before the destination is poisoned.
    for (int i = 0; remote && i < c.warmup + c.iters; ++i) {
      const double t0 = now_us();
      bare_copy();
      ctx.cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (peer copy)");
      if (i >= c.warmup) r.ceiling_us.push_back(now_us() - t0);
    }
    ctx.barrier();
  }
  if (receives) poison(dst_here, n, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "poison");
  if (bw) {
    for (int rep = 0; rep < c.reps; ++rep) {
      ctx.barrier();
      if (!active) continue;
      const double t0 = now_us();
      for (int i = 0; i < c.iters; ++i) one(true);
      gshmem_quiet();
      r.us.push_back((now_us() - t0) / c.iters);
    }
  } else {
    ctx.barrier();
    if (ctx.me == 0) {
      for (int i = 0; i < c.iters; ++i) {
        const double t0 = now_us();
        one(false);
        r.us.push_back(now_us() - t0);
      }
    }
  }
  r.timed = bw ? active : ctx.me == 0;
  r.timer = "host";
  ctx.barrier();
  if (receives)
    record_check(ctx, r, c, get ? "local destination" : "symmetric destination",
                 check_bytes(dst_here, n, seed_of(name, ctx.me == 0 ? 1 : 0, n), ctx.stream));
}

double bytes(const Case& c, size_t size, int) { return static_cast<double>(size) * (c.bidir ? 2 : 1); }

template <H K>
Bench describe() {
  Bench b;
  b.name = bench_name(K);
  b.kind = Kind::host;
  b.min_pes = 2;
  b.scopes = scope_bit(Scope::thread);
  b.bus = Bus::p2p;
  b.bytes = bytes;
  b.run = run<K>;
  if (K == H::put_bw || K == H::get_bw) {
    b.what = K == H::put_bw ? "host gshmem_putmem_nbi bandwidth (+ quiet), PE 0 -> PE 1"
                            : "host gshmem_getmem_nbi bandwidth (+ quiet), PE 0 reads PE 1";
    b.min_size = 4 << 10;
    b.max_size = 256u << 20;
    b.iters = 20;
    b.warmup = 5;
    b.reps = 10;
    b.bidir = true;
  } else {
    b.what = K == H::put_latency ? "host blocking gshmem_putmem latency, PE 0 -> PE 1"
                                 : "host blocking gshmem_getmem latency, PE 0 reads PE 1";
    b.min_size = 8;
    b.max_size = 1u << 20;
    b.ceiling_is_latency = true;
    b.iters = 200;
    b.warmup = 20;
    b.reps = 1;
  }
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe<perf::H::put_bw>);
PERF_REGISTER(perf::describe<perf::H::get_bw>);
PERF_REGISTER(perf::describe<perf::H::put_latency>);
PERF_REGISTER(perf::describe<perf::H::get_latency>);

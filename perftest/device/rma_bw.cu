// SPDX-License-Identifier: BSD-3-Clause
// put_bw / get_bw: device-initiated bandwidth between PE 0 and PE 1 (--bidir: both
// directions at once). ctas x threads split `size` bytes into one chunk per group
// of the scope; each group issues putmem_nbi / getmem_nbi of its chunk `iters`
// times, then quiet. Timed with events around the kernel (one sample per
// repetition). The copy-engine peer copy of the same bytes between the same
// buffers (cudaMemcpyAsync) is measured first: the ceiling column.
// Verified: the destination is poisoned after the warm-up and checked after the
// timed repetitions against the source pattern.
#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/scope.cuh"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

template <class S, bool kGet>
__global__ void __launch_bounds__(kMaxThreads) k_rma_bw(char* dst, const char* src, size_t bytes, int peer, int iters) {
  const size_t groups = static_cast<size_t>(gridDim.x) * groups_per_block<S>();
  size_t chunk = (bytes + groups - 1) / groups;
  chunk = (chunk + 15) & ~size_t(15);
  const size_t off = static_cast<size_t>(group_index<S>()) * chunk;
  const size_t len = off < bytes ? (bytes - off < chunk ? bytes - off : chunk) : 0;
  for (int i = 0; i < iters; ++i) {
    if (len == 0) break;
    if constexpr (kGet)
      gshmem::getmem_nbi<S>(dst + off, src + off, len, peer);
    else
      gshmem::putmem_nbi<S>(dst + off, src + off, len, peer);
  }
  gshmem::quiet<S>();
}

template <bool kGet>
void run(Ctx& ctx, const Case& c, Result& r) {
  const char* name = kGet ? "get_bw" : "put_bw";
  const size_t n = c.size;
  char* sym = static_cast<char*>(ctx.sym(0, n));    // put: destination; get: source
  char* loc = static_cast<char*>(ctx.local(0, n));  // put: source; get: destination
  const bool active = ctx.me == 0 || (c.bidir && ctx.me == 1);
  const int peer = ctx.me == 0 ? 1 : 0;
  char* src_here = kGet ? sym : loc;  // what this PE's pattern goes into
  fill_bytes(src_here, n, seed_of(name, ctx.me, n), ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "fill");
  ctx.barrier();

  // Ceiling: copy-engine peer copy between the same buffers.
  char* remote = active ? static_cast<char*>(gshmem_ptr(sym, peer)) : nullptr;
  r.ceiling_us = time_batches(
      ctx, c.reps, c.iters,
      [&] {
        if (!active || !remote) return;
        for (int i = 0; i < c.iters; ++i)
          ctx.cuda(cudaMemcpyAsync(kGet ? loc : remote, kGet ? remote : loc, n, cudaMemcpyDefault, ctx.stream),
                   "cudaMemcpyAsync (peer copy)");
      },
      false, nullptr);
  r.ceiling_timed = active && remote;

  auto launch = [&](int iters) {
    if (!active) return;
    with_scope(c.scope, [&](auto s) {
      using S = decltype(s);
      if (kGet)
        k_rma_bw<S, true><<<c.ctas, c.threads, 0, ctx.stream>>>(loc, sym, n, peer, iters);
      else
        k_rma_bw<S, false><<<c.ctas, c.threads, 0, ctx.stream>>>(sym, loc, n, peer, iters);
    });
    ctx.cuda(cudaGetLastError(), kGet ? "get_bw kernel launch" : "put_bw kernel launch");
  };
  if (c.warmup) launch(c.warmup);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "warm-up");
  ctx.barrier();
  // Destinations written by the timed iterations only: put -> the peer's symmetric
  // buffer (poisoned by its owner), get -> the initiator's local buffer.
  char* dst_here = kGet ? loc : sym;
  const bool receives = kGet ? active : (ctx.me == 1 || (c.bidir && ctx.me == 0));
  if (receives) poison(dst_here, n, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "poison");
  r.us = time_batches(
      ctx, c.reps, c.iters, [&] { launch(c.iters); }, false, nullptr);
  r.timed = active;
  r.timer = "events";
  ctx.barrier();
  if (receives) {
    const int writer = ctx.me == 0 ? 1 : 0;
    record_check(ctx, r, c, kGet ? "local destination" : "symmetric destination",
                 check_bytes(dst_here, n, seed_of(name, writer, n), ctx.stream));
  }
}

double bytes(const Case& c, size_t size, int) { return static_cast<double>(size) * (c.bidir ? 2 : 1); }

Bench describe(bool get) {
  Bench b;
  b.name = get ? "get_bw" : "put_bw";
  b.what = get ? "device getmem_nbi bandwidth, PE 0 reads PE 1 (then quiet)"
               : "device putmem_nbi bandwidth, PE 0 -> PE 1 (then quiet)";
  b.kind = Kind::device;
  b.min_pes = 2;
  b.min_size = 1 << 10;
  b.max_size = 256u << 20;
  b.scopes = kAllScopes;
  b.default_scope = Scope::block;
  b.ctas = 32;
  b.threads = 1024;
  b.iters = 20;
  b.warmup = 5;
  b.reps = 10;
  b.bus = Bus::p2p;
  b.bidir = true;
  b.bytes = bytes;
  b.run = get ? run<true> : run<false>;
  return b;
}

Bench describe_put() { return describe(false); }
Bench describe_get() { return describe(true); }

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_put);
PERF_REGISTER(perf::describe_get);

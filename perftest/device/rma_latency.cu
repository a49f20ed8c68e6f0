// SPDX-License-Identifier: BSD-3-Clause
// Device RMA latency, PE 0 -> PE 1, one operation at a time, each iteration timed
// inside the kernel (clock64; see devclock.cuh):
//   put_latency  putmem<Scope>(size) + quiet<Scope>    (the whole transfer delivered)
//   get_latency  getmem<Scope>(size)                   (the data is in local memory)
//   p_latency    p<T>(value) + quiet                   (one element delivered)
//   g_latency    g<T>()                                (one element loaded)
// The first group of the launch (thread 0 / warp 0 / block 0 of -c x -t) runs the loop.
// getmem reads a different slot of PE 1's buffer each iteration, round a window of
// kGetWindow bytes (every slot holds the same pattern): nothing in its loop invalidates
// L1, so gets of one address would time L1 hits after the first (0.17 us for 8 B,
// against 0.85 us for a volatile g). Puts need no such care: the quiet's fence leaves
// L1 cold, and their stores go to PE 1 anyway.
// Verified after the loop: put/p -> PE 1 checks its copy of PE 0's pattern; get/g ->
// PE 0 checks what it read against PE 1's pattern.
#include <gshmem/gshmem.h>

#include <algorithm>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/devclock.cuh"
#include "../common/scope.cuh"
#include "../common/verify.h"

namespace perf {
namespace {

enum class Op { put, get, p, g };

constexpr size_t kGetWindow = size_t{4} << 20;  // 16 x an H200 SM's L1

// The slots a get cycles through: `count` of `stride` bytes (the size rounded up to a
// 128-byte line); one for the other operations.
struct Slots {
  size_t stride;
  size_t count;
};
Slots slots_for(Op k, size_t bytes) {
  if (k != Op::get) return {bytes, 1};
  const size_t stride = std::max<size_t>(128, (bytes + 127) / 128 * 128);
  return {stride, std::max<size_t>(1, kGetWindow / stride)};
}

template <Op K, class S, class T>
__global__ void __launch_bounds__(kMaxThreads)
    k_latency(char* sym, char* loc, size_t bytes, int peer, Slots sl, ClockArgs a) {
  if (!in_first_group<S>()) return;
  const bool rec = S::rank() == 0;
  const T value = *reinterpret_cast<const T*>(loc);  // p: PE 0's pattern element
  T last{};
  size_t off = 0;  // get: this iteration's slot
  clock_start(a, rec);
  for (int i = 0; i < a.warmup + a.iters; ++i) {
    const long long t0 = read_clock();
    if constexpr (K == Op::put) {
      gshmem::putmem<S>(sym, loc, bytes, peer);
      gshmem::quiet<S>();
    } else if constexpr (K == Op::get) {
      gshmem::getmem<S>(loc, sym + off, bytes, peer);
      off = off + sl.stride == sl.stride * sl.count ? 0 : off + sl.stride;
    } else if constexpr (K == Op::p) {
      gshmem::p(reinterpret_cast<T*>(sym), value, peer);
      gshmem::quiet();
    } else {
      last = gshmem::g(reinterpret_cast<const T*>(sym), peer);
      consume(last);
    }
    clock_record(a, rec, i, read_clock() - t0);
  }
  clock_stop(a, rec);
  if constexpr (K == Op::g) {
    if (rec) *reinterpret_cast<T*>(loc) = last;
  }
}

const char* bench_name(Op k) {
  switch (k) {
    case Op::put:
      return "put_latency";
    case Op::get:
      return "get_latency";
    case Op::p:
      return "p_latency";
    case Op::g:
      return "g_latency";
  }
  return "?";
}

template <Op K>
void run(Ctx& ctx, const Case& c, Result& r) {
  const char* name = bench_name(K);
  constexpr bool elem = K == Op::p || K == Op::g;
  const size_t n = elem ? size_of(c.dtype) : c.size;
  const Slots sl = slots_for(K, n);
  char* sym = static_cast<char*>(ctx.sym(0, sl.stride * sl.count));
  char* loc = static_cast<char*>(ctx.local(0, n < 16 ? 16 : n));
  const bool pushes = K == Op::put || K == Op::p;
  // Sources: put/p -> PE 0's local buffer; get/g -> PE 1's symmetric buffer.
  if (pushes && ctx.me == 0) fill_bytes(loc, n, seed_of(name, 0, n), ctx.stream);
  if (!pushes && ctx.me == 1) {  // the pattern in slot 0, copied to the others by doubling
    fill_bytes(sym, n, seed_of(name, 1, n), ctx.stream);
    for (size_t have = 1; have < sl.count; have *= 2)
      ctx.cuda(cudaMemcpyAsync(sym + have * sl.stride, sym, std::min(have, sl.count - have) * sl.stride,
                               cudaMemcpyDeviceToDevice, ctx.stream),
               "cudaMemcpyAsync (get slots)");
  }
  // Destinations: poisoned before the loop.
  if (pushes && ctx.me == 1) poison(sym, n, ctx.stream);
  if (!pushes && ctx.me == 0) poison(loc, n, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "fill");
  ctx.barrier();
  if (ctx.me == 0) {
    DevClock clk(ctx);
    const ClockArgs a = clk.args(c.warmup, c.iters);
    if constexpr (elem) {  // one element of the datatype, one thread
      with_dtype(c.dtype, [&](auto t) {
        k_latency<K, gshmem::thread_scope, decltype(t)><<<c.ctas, c.threads, 0, ctx.stream>>>(sym, loc, n, 1, sl, a);
      });
    } else {  // bytes, any scope
      with_scope(c.scope, [&](auto s) {
        k_latency<K, decltype(s), char><<<c.ctas, c.threads, 0, ctx.stream>>>(sym, loc, n, 1, sl, a);
      });
    }
    ctx.cuda(cudaGetLastError(), "latency kernel launch");
    r.us = clk.samples_us();
    r.timed = true;
    r.timer = "clock64";
  }
  ctx.barrier();
  if (pushes && ctx.me == 1)
    record_check(ctx, r, c, "destination on PE 1", check_bytes(sym, n, seed_of(name, 0, n), ctx.stream));
  if (!pushes && ctx.me == 0)
    record_check(ctx, r, c, "data read from PE 1", check_bytes(loc, n, seed_of(name, 1, n), ctx.stream));
  r.size = n;
}

double bytes(const Case&, size_t size, int) { return static_cast<double>(size); }

template <Op K>
Bench describe() {
  Bench b;
  b.name = bench_name(K);
  b.kind = Kind::device;
  b.min_pes = 2;
  b.bus = Bus::p2p;
  b.iters = 1000;
  b.warmup = 100;
  b.reps = 1;
  b.run = run<K>;
  if (K == Op::put || K == Op::get) {
    b.what = K == Op::put ? "device putmem<scope> + quiet latency, PE 0 -> PE 1"
                          : "device getmem<scope> latency, PE 0 reads PE 1";
    b.min_size = 8;
    b.max_size = 1u << 20;
    b.scopes = kAllScopes;
    b.default_scope = Scope::block;
    b.threads = 1024;
    b.bytes = bytes;
  } else {
    b.what = K == Op::p ? "device p<T> + quiet latency (one element), PE 0 -> PE 1"
                        : "device g<T> latency (one element), PE 0 reads PE 1";
    b.scopes = scope_bit(Scope::thread);
    b.dtypes = kAllDTypes;
    b.default_dtype = DType::int32;
    b.threads = 32;
  }
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe<perf::Op::put>);
PERF_REGISTER(perf::describe<perf::Op::get>);
PERF_REGISTER(perf::describe<perf::Op::p>);
PERF_REGISTER(perf::describe<perf::Op::g>);

// SPDX-License-Identifier: BSD-3-Clause
// Device collectives (broadcast.cu, fcollect.cu, alltoall.cu, reduction.cu,
// reducescatter.cu): on every PE the first group of the launch (thread 0 / warp 0 /
// block 0; gshmemx_collective_launch) calls the collective on GSHMEM_TEAM_WORLD back
// to back on the same buffers, each call timed inside the kernel (clock64). Sizes,
// inputs and checks: common/coll.h. A Call type provides
//   template <class S> static __device__ int op(const CollArgs&);
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/coll.h"
#include "../common/context.h"
#include "../common/devclock.cuh"
#include "../common/launch.cuh"
#include "../common/scope.cuh"
#include "../common/verify.h"

namespace perf {

struct CollArgs {
  void* dst;
  const void* src;
  size_t count;
  int root;
  int* err;  // first non-zero return code
};

template <class S, class Call>
__global__ void __launch_bounds__(kMaxThreads) k_coll(CollArgs p, ClockArgs a) {
  if (!in_first_group<S>()) return;
  const bool rec = S::rank() == 0;
  int rc = 0;
  clock_start(a, rec);
  for (int i = 0; i < a.warmup + a.iters; ++i) {
    const long long t0 = read_clock();
    rc |= Call::template op<S>(p);
    clock_record(a, rec, i, read_clock() - t0);
  }
  clock_stop(a, rec);
  if (rec && rc) *p.err = rc;
}

// f(T{}) for the collective datatypes (coll.h: kCollDTypes).
template <class F>
void with_coll_dtype(DType t, F&& f) {
  switch (t) {
    case DType::int64:
      f(int64_t{});
      break;
    case DType::float32:
      f(float{});
      break;
    case DType::float64:
      f(double{});
      break;
    default:
      f(int32_t{});
      break;
  }
}

// f(gshmem::op::X{}) for the reduction operation; bitwise ones only for integer T.
template <class T, class F>
void with_reduce_op(const std::string& op, F&& f) {
  if (op == "prod")
    f(gshmem::op::prod{});
  else if (op == "min")
    f(gshmem::op::min{});
  else if (op == "max")
    f(gshmem::op::max{});
  else if constexpr (std::is_integral<T>::value) {
    if (op == "and")
      f(gshmem::op::and_{});
    else if (op == "or")
      f(gshmem::op::or_{});
    else if (op == "xor")
      f(gshmem::op::xor_{});
    else
      f(gshmem::op::sum{});
  } else {
    f(gshmem::op::sum{});
  }
}

// `launch(const CollArgs&, const ClockArgs&)` starts the kernel for the case's
// datatype / scope / op.
template <class Launch>
void run_device_coll(Ctx& ctx, const Case& c, Result& r, Coll k, const char* bench, Launch&& launch) {
  const CollLayout l = coll_layout(k, c.size, size_of(c.dtype), ctx.npes);
  r.size = l.size;
  if (l.count == 0) {
    r.skip = true;
    return;
  }
  void* src = ctx.sym(0, l.src_bytes);
  void* dst = ctx.sym(1, l.dst_bytes);
  int* err = static_cast<int*>(ctx.local(0, sizeof(int)));
  ctx.cuda(cudaMemsetAsync(err, 0, sizeof(int), ctx.stream), "cudaMemsetAsync");
  coll_prepare(ctx, k, c, l, src, dst, bench);
  ctx.barrier();
  DevClock clk(ctx);
  const ClockArgs a = clk.args(c.warmup, c.iters);
  launch(CollArgs{dst, src, l.count, c.root, err}, a);
  r.us = clk.samples_us();
  r.timed = true;
  r.timer = "clock64";
  int rc = 0;
  ctx.cuda(cudaMemcpy(&rc, err, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (rc) {
    r.note = "the collective returned " + std::to_string(rc);
    ctx.failed = true;
  }
  ctx.barrier();  // every PE's collective is complete before anyone checks
  coll_check(ctx, k, c, l, dst, r, bench, false);
}

// Descriptor defaults of the device collectives.
inline Bench device_coll_bench(const char* name, const char* what, Bus bus) {
  Bench b;
  b.name = name;
  b.what = what;
  b.kind = Kind::device;
  b.min_pes = 2;
  b.min_size = 4;
  b.max_size = 1u << 20;
  b.scopes = kAllScopes;
  b.default_scope = Scope::block;
  b.dtypes = kCollDTypes;
  b.default_dtype = DType::int32;
  b.ctas = 1;
  b.threads = 256;
  b.iters = 200;
  b.warmup = 20;
  b.reps = 1;
  b.bus = bus;
  return b;
}

}  // namespace perf

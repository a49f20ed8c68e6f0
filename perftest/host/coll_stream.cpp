// SPDX-License-Identifier: BSD-3-Clause
// The on-stream collective driver (coll_stream.h).
#include "coll_stream.h"

#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

// Warm-up, poison, timed repetitions, check: the same sequence for gshmem and NCCL.
// `one` enqueues one operation and returns non-zero on failure (the message in *err).
void measure(Ctx& ctx, const Case& c, Result& r, Coll k, const CollLayout& l, void* dst, const char* bench, bool nccl,
             const std::function<int(std::string*)>& one, std::vector<double>* samples, bool* timed) {
  std::string err;
  int rc = 0;
  for (int i = 0; i < c.warmup && rc == 0; ++i) rc = one(&err);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), nccl ? "NCCL warm-up" : "gshmem warm-up");
  ctx.barrier();
  coll_poison(ctx, l, dst);  // the timed operations alone must produce the result
  std::string note;
  *samples = time_batches(
      ctx, c.reps, c.iters,
      [&] {
        for (int i = 0; i < c.iters && rc == 0; ++i) rc = one(&err);
      },
      c.graph, &note);
  *timed = !samples->empty();
  if (rc) {
    r.note = (nccl ? "NCCL error: " : "gshmem error: ") + (err.empty() ? "code " + std::to_string(rc) : err);
    ctx.failed = true;
  } else if (!note.empty()) {
    r.note = (nccl ? "NCCL " : "gshmem ") + note;
  }
  ctx.cuda(cudaStreamSynchronize(ctx.stream), nccl ? "NCCL collective" : "gshmem collective");
  ctx.barrier();  // every PE's operation is complete before anyone checks
  coll_check(ctx, k, c, l, dst, r, bench, nccl);
  ctx.barrier();  // every check is done before the buffers are written again
}

}  // namespace

void run_stream_coll(Ctx& ctx, const Case& c, Result& r, Coll k, const char* bench, const GshmemCall& gshmem,
                     const NcclCall& nccl_call, const char* why_no_nccl) {
  const CollLayout l = coll_layout(k, c.size, size_of(c.dtype), ctx.npes);
  r.size = l.size;
  if (l.count == 0) {
    r.skip = true;
    return;
  }
  void* src = ctx.sym(0, l.src_bytes);
  void* dst = ctx.sym(1, l.dst_bytes);
  coll_prepare(ctx, k, c, l, src, dst, bench);
  ctx.barrier();
  r.timer = c.graph ? "events+graph" : "events";
  measure(
      ctx, c, r, k, l, dst, bench, false, [&](std::string*) { return gshmem(dst, src, l.count, ctx.stream); }, &r.us,
      &r.timed);

  nccl::Comm* comm = ctx.nccl();
  if (!comm) {
    if (r.note.empty()) r.note = ctx.nccl_note;
    return;
  }
  if (!nccl_call) {
    if (r.note.empty() && why_no_nccl) r.note = why_no_nccl;
    return;
  }
  measure(
      ctx, c, r, k, l, dst, bench, true,
      [&](std::string* err) { return nccl_call(comm, dst, src, l.count, ctx.stream, err); }, &r.nccl_us, &r.nccl_timed);
}

Bench stream_coll_bench(const char* name, const char* what, Bus bus) {
  Bench b;
  b.name = name;
  b.what = what;
  b.kind = Kind::host;
  b.min_pes = 2;
  b.min_size = 4;
  b.max_size = 256u << 20;
  b.scopes = scope_bit(Scope::thread);
  b.dtypes = kCollDTypes;
  b.default_dtype = DType::float32;
  b.iters = 20;
  b.warmup = 5;
  b.reps = 10;
  b.bus = bus;
  b.nccl = true;
  b.graph = true;
  b.bytes = coll_bytes;
  return b;
}

}  // namespace perf

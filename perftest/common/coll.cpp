// SPDX-License-Identifier: BSD-3-Clause
// Collective layouts, inputs and checks (coll.h).
#include "coll.h"

#include <cuda_runtime_api.h>

#include "context.h"
#include "verify.h"

namespace perf {

CollLayout coll_layout(Coll k, size_t size, size_t es, int npes) {
  CollLayout l;
  const size_t N = npes > 0 ? static_cast<size_t>(npes) : 1;
  switch (k) {
    case Coll::broadcast:
    case Coll::reduce:
      l.count = size / es;
      l.src_bytes = l.dst_bytes = l.size = l.count * es;
      break;
    case Coll::fcollect:
      l.count = size / (N * es);
      l.src_bytes = l.count * es;
      l.dst_bytes = l.size = N * l.count * es;
      break;
    case Coll::alltoall:
      l.count = size / (N * es);
      l.src_bytes = l.dst_bytes = l.size = N * l.count * es;
      break;
    case Coll::reducescatter:
      l.count = size / (N * es);
      l.src_bytes = l.size = N * l.count * es;
      l.dst_bytes = l.count * es;
      break;
  }
  return l;
}

namespace {
size_t block_bytes(const CollLayout& l, const Case& c) { return l.count * size_of(c.dtype); }
}  // namespace

void coll_prepare(Ctx& ctx, Coll k, const Case& c, const CollLayout& l, void* src, void* dst, const char* bench) {
  const size_t B = block_bytes(l, c);
  switch (k) {
    case Coll::broadcast:
    case Coll::fcollect:
      fill_bytes(src, l.src_bytes, seed_of(bench, ctx.me, l.size), ctx.stream);
      break;
    case Coll::alltoall:
      for (int j = 0; j < ctx.npes; ++j)
        fill_bytes(static_cast<char*>(src) + B * j, B, seed_of(bench, ctx.me, l.size, static_cast<uint64_t>(j)),
                   ctx.stream);
      break;
    case Coll::reduce:
    case Coll::reducescatter:
      fill_reduce(c.dtype, c.op, src, l.src_bytes / size_of(c.dtype), ctx.me, seed_of(bench, 0, l.size), 0, ctx.stream);
      break;
  }
  poison(dst, l.dst_bytes, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "input fill");
}

void coll_poison(Ctx& ctx, const CollLayout& l, void* dst) {
  poison(dst, l.dst_bytes, ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "poison");
}

void coll_check(Ctx& ctx, Coll k, const Case& c, const CollLayout& l, const void* dst, Result& r, const char* bench,
                bool nccl) {
  const size_t B = block_bytes(l, c);
  const char* d = static_cast<const char*>(dst);
  Result tmp;
  auto add = [&](const char* what, const Mismatch& m) { record_check(ctx, tmp, c, what, m); };
  switch (k) {
    case Coll::broadcast:
      add(nccl ? "NCCL broadcast result" : "broadcast result",
          check_bytes(d, l.dst_bytes, seed_of(bench, c.root, l.size), ctx.stream));
      break;
    case Coll::fcollect:
      for (int j = 0; j < ctx.npes; ++j)
        add(nccl ? "NCCL allgather block" : "fcollect block",
            check_bytes(d + B * j, B, seed_of(bench, j, l.size), ctx.stream));
      break;
    case Coll::alltoall:
      for (int j = 0; j < ctx.npes; ++j)
        add(nccl ? "NCCL alltoall block" : "alltoall block",
            check_bytes(d + B * j, B, seed_of(bench, j, l.size, static_cast<uint64_t>(ctx.me)), ctx.stream));
      break;
    case Coll::reduce:
      add(nccl ? "NCCL allreduce result" : "reduction result",
          check_reduce(c.dtype, c.op, d, l.count, ctx.npes, seed_of(bench, 0, l.size), 0, ctx.stream));
      break;
    case Coll::reducescatter:
      add(nccl ? "NCCL reducescatter result" : "reducescatter result",
          check_reduce(c.dtype, c.op, d, l.count, ctx.npes, seed_of(bench, 0, l.size),
                       l.count * static_cast<size_t>(ctx.me), ctx.stream));
      break;
  }
  r.checked += tmp.checked;
  if (nccl)
    r.nccl_bad += tmp.bad;
  else
    r.bad += tmp.bad;
}

std::vector<std::string> reduce_ops() { return {"sum", "prod", "min", "max", "and", "or", "xor"}; }

bool reduce_valid(const Case& c, int) { return !(is_bitwise(c.op) && is_float(c.dtype)); }

}  // namespace perf

// SPDX-License-Identifier: BSD-3-Clause
// malloc: time of gshmem_malloc(size) (collective; includes the agreement between
// PEs and, past the heap's current size, its growth), each call followed by
// gshmem_free outside the timed part. Wall clock, every PE; the row shows the
// slowest PE. Verified on the last allocation: the same heap offset on every PE
// (addresses may differ: each PE maps the heap where its GPU's address space has
// room), and a value put into the next PE's copy arrives there.
#include <cstring>

#include <cuda_runtime_api.h>

#include <gshmem/gshmem.h>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

void run(Ctx& ctx, const Case& c, Result& r) {
  ctx.release();  // start every size from the same heap state
  // Offsets are measured from an allocation made before the timed ones.
  char* anchor = static_cast<char*>(gshmem_malloc(1));
  for (int i = 0; i < c.warmup + c.iters; ++i) {
    ctx.barrier();
    const double t0 = now_us();
    void* p = gshmem_malloc(c.size);
    const double t1 = now_us();
    if (!p) {
      r.note = "gshmem_malloc returned NULL (heap too small: raise GSHMEM_SYMMETRIC_SIZE_MAX or lower -e)";
      Mismatch m;
      m.checked = m.bad = 1;
      record_check(ctx, r, c, "gshmem_malloc result", m);
      return;
    }
    if (i >= c.warmup) r.us.push_back(t1 - t0);
    const bool last = i + 1 == c.warmup + c.iters;
    if (last) {
      // Same offset everywhere.
      const uint64_t mine = static_cast<uint64_t>(static_cast<char*>(p) - anchor);
      std::vector<unsigned char> all = ctx.allgather(&mine, sizeof(mine));
      Mismatch m;
      m.checked = static_cast<uint64_t>(ctx.npes);
      for (int pe = 0; pe < ctx.npes; ++pe) {
        uint64_t v;
        memcpy(&v, &all[sizeof(v) * pe], sizeof(v));
        if (v != mine && m.bad++ == 0) {
          m.first = static_cast<uint64_t>(pe);
          m.expected = mine;
          m.got = v;
        }
      }
      record_check(ctx, r, c, "heap offset on every PE", m);
      // Usable: 8 bytes (or fewer) at the end of the next PE's copy.
      const size_t k = c.size < 8 ? c.size : 8;
      char* tail = static_cast<char*>(p) + c.size - k;
      const uint64_t val = seed_of("malloc", ctx.me, c.size);
      gshmem_putmem(tail, &val, k, (ctx.me + 1) % ctx.npes);
      ctx.barrier();
      uint64_t want = seed_of("malloc", (ctx.me + ctx.npes - 1) % ctx.npes, c.size), got = 0;
      ctx.cuda(cudaMemcpy(&got, tail, k, cudaMemcpyDeviceToHost), "cudaMemcpy");
      Mismatch u;
      u.checked = 1;
      if (memcmp(&got, &want, k) != 0) {
        u.bad = 1;
        u.expected = want;
        u.got = got;
      }
      record_check(ctx, r, c, "value put into the allocation", u);
      ctx.barrier();
    }
    gshmem_free(p);
  }
  gshmem_free(anchor);
  r.timed = true;
  r.timer = "host";
}

Bench describe() {
  Bench b;
  b.name = "malloc";
  b.what = "gshmem_malloc time by size (collective; gshmem_free untimed)";
  b.kind = Kind::host;
  b.min_pes = 1;
  b.min_size = 4 << 10;
  b.max_size = 256u << 20;
  b.scopes = scope_bit(Scope::thread);
  b.iters = 20;
  b.warmup = 2;
  b.reps = 1;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

// SPDX-License-Identifier: BSD-3-Clause
// halo_host: the host-driven 2D Jacobi loop as a user writes it (the periodic grid of floats of
// stencil.cuh; size = bytes of the grid, N = 4096 at 64 MiB, rows of 16 KiB), all on one stream:
//   per iteration   the step kernel over my rows;
//                   float_put_on_stream of my first row into the PE above's bottom halo;
//                   float_put_on_stream of my last row into the PE below's top halo;
//                   barrier_all_on_stream.
// On one PE both puts go to the PE itself (the periodic self-exchange). -o takes the iteration
// apart, each part a row per size, timed with CUDA events on that stream (-n iterations a
// sample, time per iteration):
//   loop       the whole iteration. ceiling: the same loop with each put replaced by
//              cudaMemcpyAsync of the same bytes between the same addresses (the peer's through
//              gshmem_ptr), the copy a put to a load/store peer can be; ceiling_ratio = the copy
//              loop's time / the put loop's, 1 when the puts cost what the copies cost.
//   nobarrier  the kernel and the two puts (ceiling: the kernel and the two copies). From 2 PEs
//              on nothing stops a PE overwriting a halo its neighbour still reads: a time, whose
//              grid is no solve.
//   put        the two puts alone (ceiling: the two copies alone).
//   barrier    barrier_all_on_stream alone, back to back.
// algbw counts the halo rows a PE sends per iteration (2 x N x 4 B). -t: threads per CTA of the
// kernel (default 1024); -c does not apply.
//
// Checked: loop (and its copy form), and nobarrier on one PE: every PE's rows after -n
// iterations from the start state equal the one-GPU solve's bit for bit. nobarrier from 2 PEs
// on, and put: every PE's halos hold its neighbours' boundary rows. barrier: after one put x2 +
// barrier_all_on_stream and a wait for the stream, with no other synchronisation, every PE's
// halos hold its neighbours' rows. The halos start poisoned.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"
#include "stencil.cuh"

namespace perf {
namespace {

enum class Exchange { none, put, copy };

struct Loop {
  stencil::Layout l;
  stencil::Shape sh;
  float* buf[2] = {nullptr, nullptr};
  float* peer_up[2] = {nullptr, nullptr};  // gshmem_ptr of where buffer b's first row goes
  float* peer_down[2] = {nullptr, nullptr};
  uint64_t it = 0;  // iterations computed (the kernel alternates the buffers)

  // The buffer the next exchange sends from; with the kernel, the one the last iteration wrote.
  float* out() const { return buf[(it + 1) & 1]; }

  // `iters` iterations on ctx.stream: the kernel (if `kernel`), the exchange of the buffer it
  // wrote (without the kernel, of out()), the barrier (if `barrier`).
  void run(Ctx& ctx, int iters, bool kernel, Exchange x, bool barrier) {
    for (int k = 0; k < iters; ++k) {
      const int o = static_cast<int>((it + 1) & 1);
      float* dst = buf[o];
      if (kernel) {
        stencil::k_plain<<<sh.grid, sh.threads, 0, ctx.stream>>>(buf[it & 1], dst, l.n);
        ctx.cuda(cudaGetLastError(), "halo_host step kernel launch");
      }
      if (x == Exchange::put) {
        gshmemx_float_put_on_stream(l.to_up(dst), l.first_row(dst), l.n, l.up, ctx.stream);
        gshmemx_float_put_on_stream(l.to_down(dst), l.last_row(dst), l.n, l.down, ctx.stream);
      } else if (x == Exchange::copy) {
        ctx.cuda(cudaMemcpyAsync(peer_up[o], l.first_row(dst), l.row_bytes(), cudaMemcpyDefault, ctx.stream),
                 "cudaMemcpyAsync (first row to the PE above)");
        ctx.cuda(cudaMemcpyAsync(peer_down[o], l.last_row(dst), l.row_bytes(), cudaMemcpyDefault, ctx.stream),
                 "cudaMemcpyAsync (last row to the PE below)");
      }
      if (barrier) gshmemx_barrier_all_on_stream(ctx.stream);
      if (kernel) ++it;
    }
  }
};

// Times one form (-r samples of -n iterations after -w), then runs -n iterations from the start
// state again, which the caller checks. Collective.
std::vector<double> measure(Ctx& ctx, const Case& c, Loop& lp, bool kernel, Exchange x, bool barrier) {
  stencil::start(ctx, lp.l, lp.buf, lp.it);
  ctx.barrier();
  lp.run(ctx, c.warmup, kernel, x, barrier);
  std::vector<double> us = time_batches(
      ctx, c.reps, c.iters, [&] { lp.run(ctx, c.iters, kernel, x, barrier); }, false, nullptr);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "halo_host timed loop");
  ctx.barrier();  // every PE is done with the buffers before they start again
  stencil::start(ctx, lp.l, lp.buf, lp.it);
  ctx.barrier();
  lp.run(ctx, c.iters, kernel, x, barrier);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "halo_host checked loop");
  ctx.barrier();
  return us;
}

void run(Ctx& ctx, const Case& c, Result& r) {
  const int n = stencil::side_of(c.size, ctx.npes);
  if (n == 0) {
    r.skip = true;
    return;
  }
  r.size = static_cast<size_t>(n) * n * sizeof(float);
  r.timer = "events";
  Loop lp;
  lp.l = stencil::layout(ctx.me, ctx.npes, n);
  lp.sh = stencil::shape(c.threads, lp.l.rows, n);
  for (int b = 0; b < 2; ++b) {
    lp.buf[b] = static_cast<float*>(ctx.sym(b, lp.l.buf_elems * sizeof(float)));
    lp.peer_up[b] = static_cast<float*>(gshmem_ptr(lp.l.to_up(lp.buf[b]), lp.l.up));
    lp.peer_down[b] = static_cast<float*>(gshmem_ptr(lp.l.to_down(lp.buf[b]), lp.l.down));
  }
  const bool copies = ctx.all(lp.peer_up[0] && lp.peer_up[1] && lp.peer_down[0] && lp.peer_down[1]);

  if (c.op == "barrier") {
    stencil::start(ctx, lp.l, lp.buf, lp.it);
    ctx.barrier();
    lp.run(ctx, c.warmup, false, Exchange::none, true);
    r.us = time_batches(
        ctx, c.reps, c.iters, [&] { lp.run(ctx, c.iters, false, Exchange::none, true); }, false, nullptr);
    r.timed = !r.us.empty();
    ctx.cuda(cudaStreamSynchronize(ctx.stream), "barrier_all_on_stream");
    ctx.barrier();
    // The check: one exchange that only the on-stream barrier orders before the reads (the
    // halos are still poisoned; the neighbours' rows do not change).
    lp.run(ctx, 1, false, Exchange::put, true);
    ctx.cuda(cudaStreamSynchronize(ctx.stream), "put_on_stream + barrier_all_on_stream");
    record_check(ctx, r, c, "halos after barrier_all_on_stream", stencil::halos_match(ctx, lp.l, lp.out()));
    ctx.barrier();
    return;
  }

  const bool kernel = c.op != "put", barrier = c.op == "loop";
  // The grid is a solve where every exchange is ordered before the next read of its halo: with
  // the barrier, or on one PE, where the stream orders them.
  const bool solve = kernel && (barrier || ctx.npes == 1);
  const float* want = solve ? stencil::reference(ctx, c.threads, n, c.iters) : nullptr;
  auto check = [&](const char* what) {
    float* got = kernel ? lp.buf[lp.it & 1] : lp.out();
    record_check(ctx, r, c, what,
                 solve ? stencil::compare(ctx, lp.l, got, want) : stencil::halos_match(ctx, lp.l, got));
    ctx.barrier();  // the neighbours have read my rows before they change again
  };
  r.us = measure(ctx, c, lp, kernel, Exchange::put, barrier);
  r.timed = !r.us.empty();
  check(barrier ? "put_on_stream loop" : kernel ? "put_on_stream loop without barrier" : "put_on_stream");
  if (copies) {
    r.ceiling_us = measure(ctx, c, lp, kernel, Exchange::copy, barrier);
    r.ceiling_timed = !r.ceiling_us.empty();
    check(barrier ? "cudaMemcpyAsync loop" : kernel ? "cudaMemcpyAsync loop without barrier" : "cudaMemcpyAsync");
  } else {
    r.note = "a neighbour is no load/store peer (gshmem_ptr is null): no cudaMemcpyAsync ceiling";
  }
}

double bytes(const Case& c, size_t size, int) {
  if (c.op == "barrier") return 0;
  return 2.0 * square_side(size, sizeof(float)) * sizeof(float);
}

Bench describe() {
  Bench b;
  b.name = "halo_host";
  b.what =
      "host-driven Jacobi loop on one stream: step kernel, float_put_on_stream x2, barrier_all_on_stream (-o loop "
      "| nobarrier | put | barrier); ceiling: cudaMemcpyAsync in place of the puts";
  b.kind = Kind::host;
  b.min_pes = 1;
  b.min_size = 4u << 20;    // 1024^2 floats
  b.max_size = 256u << 20;  // 8192^2
  b.scopes = scope_bit(Scope::thread);
  b.ops = {"loop", "nobarrier", "put", "barrier"};
  b.default_ops = b.ops;
  b.ctas = 0;  // does not apply
  b.threads = 1024;
  b.iters = 200;
  b.warmup = 20;
  b.reps = 10;
  b.bus = Bus::p2p;
  b.ceiling_is_latency = true;
  b.bytes = bytes;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

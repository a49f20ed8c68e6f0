// SPDX-License-Identifier: BSD-3-Clause
// jacobi: one iteration of the 2D Jacobi solver of apps/jacobi (a 5-point stencil on an N x N
// grid of doubles, fixed boundary; the solver, its decomposition and its halo protocol are in
// apps/jacobi/jacobi.cuh), three ways on the same GPUs, grid, stream and kernel:
//   gshmem    one kernel per iteration that waits for its halos and sends its boundary rows
//             itself (putmem_signal<block>, neighbour-only signal waits).
//   NCCL      the same kernel without waits or puts, then the halo rows exchanged by grouped
//             ncclSend/ncclRecv on the same stream: the offload model.
//   ceiling   the same kernel over the whole grid on this GPU alone; its time per iteration
//             divided by the PE count is perfect strong scaling, so ceiling_ratio (ceiling /
//             gshmem time) is the strong-scaling efficiency from one GPU to npes.
// Size = bytes of the whole grid (N = floor(sqrt(size / 8))); times are per iteration; algbw
// counts the grid read and written once per iteration (2 x size). -t: threads per CTA (the
// columns of a strip, default 128, at most 512); -c does not apply (the grid covers the rows).
//
// Checked: after `iters` iterations from a non-trivial start (every point a hash of its
// coordinates) every PE's rows equal, bit for bit, the single-GPU solve's (same kernel, same
// arithmetic), for gshmem and NCCL alike; the halo rows the neighbours write start poisoned.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <cstdint>
#include <string>

#include "../../apps/jacobi/jacobi.cuh"
#include "../common/bench.h"
#include "../common/context.h"
#include "../common/nccl.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

// The solver and, for the NCCL form, the communicator that exchanges its halos after each step.
struct Form {
  jacobi::Solver s;
  nccl::Comm* comm = nullptr;
  int error = 0;
  std::string err;

  void run(Ctx& ctx, int iters) {
    for (int k = 0; k < iters && error == 0; ++k) {
      ctx.cuda(s.step(ctx.stream), "jacobi step kernel launch");
      if (comm) {
        const nccl::SendRecv x[2] = {{s.l.up, s.first_row(), s.top_halo()}, {s.l.down, s.last_row(), s.bottom_halo()}};
        error = nccl::sendrecv(comm, x, 2, static_cast<size_t>(s.l.n), DType::float64, ctx.stream, &err);
      }
    }
  }
};

// My rows of `got` (local rows 1 .. rows) against rows first .. first + rows - 1 of the
// single-GPU solve `want` (the whole grid).
Mismatch compare(Ctx& ctx, const jacobi::Layout& l, const double* got, const double* want) {
  const size_t n = static_cast<size_t>(l.n);
  return compare_words(reinterpret_cast<const uint64_t*>(got + n),
                       reinterpret_cast<const uint64_t*>(want + static_cast<size_t>(l.first) * n),
                       static_cast<size_t>(l.rows) * n, ctx.stream);
}

// Times `f` (reps x iters after the warm-up), then solves `iters` iterations from the
// start state again and checks them against the single-GPU solve `want`.
void measure(Ctx& ctx, const Case& c, Form& f, const double* want, const char* what, Result& r, bool nccl) {
  ctx.cuda(f.s.start(ctx.stream), what);
  ctx.barrier();
  f.run(ctx, c.warmup);
  std::vector<double> us = time_batches(
      ctx, c.reps, c.iters, [&] { f.run(ctx, c.iters); }, false, nullptr);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), what);
  ctx.barrier();  // every PE is done with the buffers before they start again
  ctx.cuda(f.s.start(ctx.stream), what);
  ctx.barrier();
  f.run(ctx, c.iters);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), what);
  ctx.barrier();
  if (f.error) {  // only NCCL's calls report errors; a gshmem one would have ended the process
    r.note = "NCCL error: " + f.err;
    ctx.failed = true;
    return;
  }
  const Mismatch m = compare(ctx, f.s.l, f.s.result(), want);
  if (nccl) {
    Result tmp;
    record_check(ctx, tmp, c, what, m);
    r.nccl_bad += tmp.bad;
    r.nccl_us = us;
    r.nccl_timed = !us.empty();
  } else {
    record_check(ctx, r, c, what, m);
    r.us = us;
    r.timed = !us.empty();
  }
}

void run(Ctx& ctx, const Case& c, Result& r) {
  const int n = square_side(c.size, sizeof(double));
  if (n < 3 || n - 2 < ctx.npes) {  // every PE needs a row
    r.skip = true;
    return;
  }
  r.size = static_cast<size_t>(n) * n * sizeof(double);

  // The single-GPU solve: the reference every form is checked against, and the ceiling.
  Form ref;
  ref.s.l = jacobi::layout(0, 1, n);  // every interior row, no neighbours
  ref.s.sh = jacobi::shape(c.threads, ref.s.l.rows, n);
  const size_t grid_bytes = ref.s.l.buf_elems * sizeof(double);
  ref.s.buf[0] = static_cast<double*>(ctx.local(0, grid_bytes));
  ref.s.buf[1] = static_cast<double*>(ctx.local(1, grid_bytes));
  ctx.cuda(ref.s.start(ctx.stream), "jacobi single-GPU start");
  ref.run(ctx, c.warmup);
  std::vector<double> t1 = time_batches(
      ctx, c.reps, c.iters, [&] { ref.run(ctx, c.iters); }, false, nullptr);
  for (double& t : t1) t /= ctx.npes;
  r.ceiling_us = t1;
  r.ceiling_timed = !t1.empty();
  ctx.cuda(ref.s.start(ctx.stream), "jacobi single-GPU start");
  ref.run(ctx, c.iters);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "jacobi single-GPU solve");
  const double* want = ref.s.result();

  // gshmem: signals restart at 0 for this grid (no PE still sends: the last one's streams
  // were synchronised before its closing barrier).
  const jacobi::Layout l = jacobi::layout(ctx.me, ctx.npes, n);
  Form g;
  g.s.l = l;
  g.s.sh = jacobi::shape(c.threads, l.rows, n);
  g.s.buf[0] = static_cast<double*>(ctx.sym(0, l.buf_elems * sizeof(double)));
  g.s.buf[1] = static_cast<double*>(ctx.sym(1, l.buf_elems * sizeof(double)));
  g.s.sig = static_cast<uint64_t*>(ctx.sym(2, 2 * sizeof(uint64_t)));
  ctx.cuda(cudaMemsetAsync(g.s.sig, 0, 2 * sizeof(uint64_t), ctx.stream), "cudaMemsetAsync (signals)");
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "cudaMemsetAsync (signals)");
  ctx.barrier();
  r.timer = "events";
  measure(ctx, c, g, want, "jacobi gshmem", r, false);

  if (ctx.npes == 1) return;  // nothing to exchange
  Form x = g;                 // the same buffers and shape, NCCL's exchange instead of the puts
  x.s.sig = nullptr;
  x.comm = ctx.nccl();
  if (x.comm)
    measure(ctx, c, x, want, "jacobi NCCL", r, true);
  else if (r.note.empty())
    r.note = ctx.nccl_note;
}

double bytes(const Case&, size_t size, int) { return 2.0 * static_cast<double>(size); }

Bench describe() {
  Bench b;
  b.name = "jacobi";
  b.what =
      "2D Jacobi iteration (apps/jacobi), halo by putmem_signal<block> + signal waits in the kernel vs NCCL "
      "send/recv after it; ceiling: the whole grid on one GPU / npes";
  b.kind = Kind::host;
  b.min_pes = 1;
  b.min_size = 8u << 20;         // 1024^2
  b.max_size = size_t{2} << 30;  // 16384^2
  b.scopes = scope_bit(Scope::block);
  b.default_scope = Scope::block;
  b.ctas = 0;  // does not apply
  b.threads = jacobi::kDefaultThreads;
  b.iters = 100;
  b.warmup = 10;
  b.reps = 5;
  b.bus = Bus::p2p;
  b.nccl = true;
  b.bytes = bytes;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

// SPDX-License-Identifier: BSD-3-Clause
// matmul, matmul_rowwise: C = A x B for n x n matrices of doubles by circular shift, the solver of
// apps/matmul (matmul.cuh: the ring, its staged shift and why it is race-free), with the shift of
// B written two ways on the same GPUs, grid, stream and kernels:
//   matmul          all rows at once: each of the -c CTAs (-t threads) puts one contiguous slice
//                   of the block with putmem_signal<block>, one call per CTA and step.
//   matmul_rowwise  row by row: one putmem<S> per row (S = -s: thread, warp or block), then
//                   quiet<block> and one signal_op per CTA.
// -o picks what is timed (both by default):
//   product  one whole product: npes multiply steps and the npes - 1 shifts between them. In
//            matmul, the ceiling is the same multiply kernel over the whole product on this GPU
//            alone, its time divided by the PE count (perfect strong scaling, as in jacobi), so
//            ceiling_ratio is the strong-scaling efficiency from one GPU to npes.
//   shift    the npes - 1 shifts of one product alone (a one-thread wait kernel in place of each
//            multiply): the comparison of the target ("shifting all rows at once must be much
//            faster than row by row"). Needs 2 PEs or more.
// Size = bytes of one matrix (n = floor(sqrt(size / 8))); times are per product; algbw counts,
// for product, A, B and C once (3 x size), for shift the bytes one PE sends per product
// ((npes - 1) x size / npes; nominal where the blocks are uneven). -c / -t shape the shift
// kernels only (default 32 x 1024, the put_bw target's shape; -t rounded down to whole warps);
// the multiply kernel is fixed (64 x 64 tiles of C, 256 threads).
//
// Checked: every PE's rows of C equal the one-GPU product (same kernel) bit for bit (integer
// entries: exact in any order); -o shift checks the block each PE holds after the shifts against
// the rows of B it must be.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../../apps/matmul/matmul.cuh"
#include "../common/bench.h"
#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

using matmul::Form;
using matmul::Gemm;
using matmul::Ring;

void run_form(Ctx& ctx, const Case& c, Result& r, Form form) {
  const int n = square_side(c.size, sizeof(double));
  if (n < 1 || n < ctx.npes) {  // every PE needs a row
    r.skip = true;
    return;
  }
  const bool product = c.op != "shift";
  const char* what = form == Form::bulk ? (product ? "matmul product" : "matmul shift")
                                        : (product ? "matmul_rowwise product" : "matmul_rowwise shift");
  const size_t mat = static_cast<size_t>(n) * n * sizeof(double);
  r.size = mat;
  r.timer = "events";

  // A and B whole on every PE: each PE multiplies its rows of A and starts with its block of
  // B, and checks against the one-GPU product, with no communication.
  auto* a = static_cast<double*>(ctx.local(0, mat));
  auto* b = static_cast<double*>(ctx.local(1, mat));
  matmul::k_fill<<<264, 256, 0, ctx.stream>>>(a, n, 1);
  matmul::k_fill<<<264, 256, 0, ctx.stream>>>(b, n, 2);
  ctx.cuda(cudaGetLastError(), "matmul fill kernel launch");

  // The one-GPU product: the reference of -o product, and (matmul) the ceiling.
  double* want = nullptr;
  if (product) {
    want = static_cast<double*>(ctx.local(2, mat));
    Gemm g;
    g.a = a;
    g.b = b;
    g.c = want;
    g.m = g.n = g.k = n;
    auto whole = [&](int iters) {
      for (int k = 0; k < iters; ++k) ctx.cuda(matmul::launch_gemm(g, ctx.stream), "matmul multiply kernel launch");
    };
    whole(1);
    if (form == Form::bulk) {
      whole(c.warmup);
      std::vector<double> t1 = time_batches(
          ctx, c.reps, c.iters, [&] { whole(c.iters); }, false, nullptr);
      for (double& t : t1) t /= ctx.npes;
      r.ceiling_us = t1;
      r.ceiling_timed = !t1.empty();
    }
    ctx.cuda(cudaStreamSynchronize(ctx.stream), "matmul one-GPU product");
  }

  Ring g;
  g.n = n;
  g.npes = ctx.npes;
  g.me = ctx.me;
  g.form = form;
  g.scope = static_cast<matmul::Scope>(static_cast<int>(c.scope));  // the same order: thread, warp, block
  g.stream = ctx.stream;
  g.compute = product;
  g.ctas = std::max(1, c.ctas);
  g.threads = std::max(32, std::min(c.threads, kMaxThreads) / 32 * 32);
  g.a = a;
  g.buf_elems = static_cast<size_t>(matmul::rows_of(n, ctx.npes, 0)) * n;
  g.buf[0] = static_cast<double*>(ctx.sym(0, g.buf_elems * sizeof(double)));
  g.buf[1] = static_cast<double*>(ctx.sym(1, g.buf_elems * sizeof(double)));
  g.sig = static_cast<uint64_t*>(ctx.sym(2, 2 * sizeof(uint64_t)));
  if (product) g.c = static_cast<double*>(ctx.local(3, static_cast<size_t>(g.rows(ctx.me)) * n * sizeof(double)));
  // Signals restart at 0 for this point (no PE still sends: every PE synchronised its stream
  // before the previous point's closing barrier).
  ctx.cuda(cudaMemsetAsync(g.sig, 0, 2 * sizeof(uint64_t), ctx.stream), "cudaMemsetAsync (signals)");
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "cudaMemsetAsync (signals)");
  ctx.barrier();

  // Timed: reps x iters products (or their shifts) after the warm-up; then `iters` more from
  // the start state, checked.
  ctx.cuda(g.start(b), what);
  ctx.barrier();
  g.run(c.warmup);
  std::vector<double> us = time_batches(
      ctx, c.reps, c.iters, [&] { g.run(c.iters); }, false, nullptr);
  ctx.cuda(g.err, what);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), what);
  ctx.barrier();  // every PE is done with the buffers before they start again
  ctx.cuda(g.start(b), what);
  ctx.barrier();
  g.run(std::max(1, c.iters));
  ctx.cuda(g.err, what);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), what);
  ctx.barrier();
  Mismatch m;
  if (product) {
    const size_t row0 = static_cast<size_t>(g.first(ctx.me)) * n;
    m = compare_words(reinterpret_cast<const uint64_t*>(g.c), reinterpret_cast<const uint64_t*>(want + row0),
                      static_cast<size_t>(g.rows(ctx.me)) * n, ctx.stream);
  } else {
    const int q = g.held();
    m = compare_words(reinterpret_cast<const uint64_t*>(g.buf[g.t & 1]),
                      reinterpret_cast<const uint64_t*>(b + static_cast<size_t>(g.first(q)) * n),
                      static_cast<size_t>(g.rows(q)) * n, ctx.stream);
  }
  record_check(ctx, r, c, what, m);
  r.us = us;
  r.timed = !us.empty();
}

void run_bulk(Ctx& ctx, const Case& c, Result& r) { run_form(ctx, c, r, Form::bulk); }
void run_rows(Ctx& ctx, const Case& c, Result& r) { run_form(ctx, c, r, Form::rows); }

double bytes(const Case& c, size_t size, int npes) {
  if (c.op == "shift") return static_cast<double>(size) * (npes - 1) / npes;
  return 3.0 * static_cast<double>(size);
}

bool valid(const Case& c, int npes) { return c.op != "shift" || npes > 1; }

Bench common() {
  Bench b;
  b.kind = Kind::device;
  b.min_pes = 1;
  b.min_size = 8u << 20;    // 1024^2
  b.max_size = 128u << 20;  // 4096^2
  b.ops = {"product", "shift"};
  b.default_ops = {"product", "shift"};
  b.ctas = 32;
  b.threads = 1024;
  b.iters = 5;
  b.warmup = 1;
  b.reps = 5;
  b.bus = Bus::p2p;
  b.bytes = bytes;
  b.valid = valid;
  return b;
}

Bench describe_bulk() {
  Bench b = common();
  b.name = "matmul";
  b.what =
      "C = A x B by circular shift of B's row blocks, all rows at once (putmem_signal<block> per CTA); "
      "-o product (ceiling: one GPU / npes) | shift (the shifts alone)";
  b.scopes = scope_bit(Scope::block);
  b.default_scope = Scope::block;
  b.run = run_bulk;
  return b;
}

Bench describe_rows() {
  Bench b = common();
  b.name = "matmul_rowwise";
  b.what =
      "C = A x B by circular shift of B's row blocks, row by row (one putmem<scope> per row, then "
      "quiet<block> + signal_op per CTA); -o product | shift";
  b.scopes = kAllScopes;
  b.default_scope = Scope::block;
  b.run = run_rows;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe_bulk);
PERF_REGISTER(perf::describe_rows);

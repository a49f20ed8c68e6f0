// SPDX-License-Identifier: BSD-3-Clause
// jacobi_nbi: the periodic 2D Jacobi solver of stencil.cuh (floats, size = bytes of the grid,
// 4096^2 by default) with the halo exchange inside the step kernel, as third-party code writes
// it: CTAs of 1,024 threads along a row, the kernel declared __launch_bounds__(1024) (which holds
// it to 64 registers a thread, so whatever the library's calls inline into it must fit beside
// the stencil), one kernel per iteration. The CTAs of my first (last) row first wait until every
// strip of the neighbour's row of the previous iteration is in my halo (thread 0's
// signal_wait_until on a counting signal), compute, and then send their strip of the row
// (4 KiB at 1,024 threads) into the neighbour's halo. -o picks how they send:
//   quiet       putmem_nbi<block>, quiet<block>, thread 0's signal_op (add 1)
//   put_signal  putmem_signal_nbi<block> (add 1)
//   thread      thread 0 alone: putmem_nbi, quiet, signal_op (the put issued from a thread)
//   barrier     putmem_nbi<block> and no signal; the host enqueues barrier_all_on_stream after
//               each step kernel instead of the waits (global instead of neighbour-only
//               synchronisation)
// Times are per iteration (-n 200 a sample: a 200-iteration solve takes 200 x that); algbw counts
// the grid read and written once per iteration (2 x size). ceiling: the same kernel over my rows
// without waits or sends (stencil.cuh's k_plain), so ceiling_ratio (its time / the form's) is what
// the exchange leaves of the compute speed. -t: threads per CTA (default 1024); -c does not apply.
//
// Why the signal forms are race-free (as in jacobi.cu): the signal pair sig[0] (top halo) /
// sig[1] (bottom) counts strips received, so it reaches strips x (it + 1) once the neighbour's
// row of iteration it is in place. The neighbour reads the halo of my buffer (it + 1) % 2 (its
// input of iteration it - 1) only in the CTAs that then add to my signal, all of which my CTAs
// waited for before computing iteration it, so my sends of iteration it cannot overwrite a row
// still being read; and no PE runs more than one iteration ahead, since its next wait needs its
// neighbours' signals. On one PE both neighbours are the PE itself, and the waits are for the
// previous kernel on the same stream.
//
// Checked: after -n iterations from the start state every PE's rows equal the one-GPU solve's
// bit for bit (same update expression); the halos the sends write start poisoned.
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

enum class Form { quiet, put_signal, thread, barrier };

Form form_of(const std::string& op) {
  if (op == "put_signal") return Form::put_signal;
  if (op == "thread") return Form::thread;
  if (op == "barrier") return Form::barrier;
  return Form::quiet;
}

struct Step {
  const float* in = nullptr;
  float* out = nullptr;
  int rows = 0, n = 0;
  int up = 0, down = 0;
  int up_rows = 0;          // rows of the PE above: its bottom halo is its local row up_rows + 1
  uint64_t* sig = nullptr;  // [0]: strips of my top halo received, [1]: of the bottom one
  uint64_t it = 0;
};

// One CTA's strip of a boundary row into the neighbour's halo, `bytes` from `src` to `dest` on
// `pe`; `sig` is the neighbour's counter for that halo. Every thread of the CTA calls.
template <Form F>
__device__ __forceinline__ void send(float* dest, const float* src, size_t bytes, uint64_t* sig, int pe) {
  if constexpr (F == Form::quiet) {
    gshmem::putmem_nbi<gshmem::block_scope>(dest, src, bytes, pe);
    gshmem::quiet<gshmem::block_scope>();  // the whole strip is delivered before the signal
    if (threadIdx.x == 0) gshmem::signal_op(sig, 1, GSHMEM_SIGNAL_ADD, pe);
  } else if constexpr (F == Form::put_signal) {
    gshmem::putmem_signal_nbi<gshmem::block_scope>(dest, src, bytes, sig, 1, GSHMEM_SIGNAL_ADD, pe);
  } else if constexpr (F == Form::thread) {
    if (threadIdx.x == 0) {
      gshmem::putmem_nbi<gshmem::thread_scope>(dest, src, bytes, pe);
      gshmem::quiet<gshmem::thread_scope>();
      gshmem::signal_op(sig, 1, GSHMEM_SIGNAL_ADD, pe);
    }
  } else {
    gshmem::putmem_nbi<gshmem::block_scope>(dest, src, bytes, pe);
  }
}

// One iteration over local rows 1 .. rows (one CTA row a grid row), columns 1 .. n - 2.
template <Form F>
__global__ void __launch_bounds__(1024) k_step(Step s) {
  const bool top = blockIdx.y == 0, bottom = blockIdx.y == gridDim.y - 1;
  if (F != Form::barrier && (top || bottom)) {  // uniform over the CTA
    if (threadIdx.x == 0) {
      const uint64_t want = static_cast<uint64_t>(gridDim.x) * s.it;
      if (top) gshmem::signal_wait_until(&s.sig[0], gshmem::cmp::ge, want);
      if (bottom) gshmem::signal_wait_until(&s.sig[1], gshmem::cmp::ge, want);
    }
    __syncthreads();
  }
  const size_t n = static_cast<size_t>(s.n);
  const size_t j0 = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x, j = j0 + threadIdx.x;
  if (j + 1 < n) stencil::update(s.in, s.out, 1 + blockIdx.y, j, n);
  if (top || bottom) {
    __syncthreads();  // the strip is written before the CTA reads it to send
    const size_t bytes = min(static_cast<size_t>(blockDim.x), n - 1 - j0) * sizeof(float);
    if (top) send<F>(s.out + (s.up_rows + 1) * n + j0, s.out + n + j0, bytes, &s.sig[1], s.up);
    if (bottom) send<F>(s.out + j0, s.out + static_cast<size_t>(s.rows) * n + j0, bytes, &s.sig[0], s.down);
  }
}

struct Solver {
  stencil::Layout l;
  stencil::Shape sh;
  Form form = Form::quiet;
  float* buf[2] = {nullptr, nullptr};
  uint64_t* sig = nullptr;
  uint64_t it = 0;  // the iteration the signals count in, continuing across calls

  void run(Ctx& ctx, int iters) {
    for (int k = 0; k < iters; ++k, ++it) {
      Step st;
      st.in = buf[it & 1];
      st.out = buf[(it + 1) & 1];
      st.rows = l.rows;
      st.n = l.n;
      st.up = l.up;
      st.down = l.down;
      st.up_rows = l.up_rows;
      st.sig = sig;
      st.it = it;
      switch (form) {
        case Form::quiet:
          k_step<Form::quiet><<<sh.grid, sh.threads, 0, ctx.stream>>>(st);
          break;
        case Form::put_signal:
          k_step<Form::put_signal><<<sh.grid, sh.threads, 0, ctx.stream>>>(st);
          break;
        case Form::thread:
          k_step<Form::thread><<<sh.grid, sh.threads, 0, ctx.stream>>>(st);
          break;
        case Form::barrier:
          k_step<Form::barrier><<<sh.grid, sh.threads, 0, ctx.stream>>>(st);
          break;
      }
      ctx.cuda(cudaGetLastError(), "jacobi_nbi step kernel launch");
      if (form == Form::barrier) gshmemx_barrier_all_on_stream(ctx.stream);
    }
  }

  // The ceiling: the kernel alone over my rows, `iters` times (the buffers alternate; `it`
  // and the signals are left alone).
  void compute_only(Ctx& ctx, int iters) {
    for (int k = 0; k < iters; ++k) {
      stencil::k_plain<<<sh.grid, sh.threads, 0, ctx.stream>>>(buf[k & 1], buf[(k + 1) & 1], l.n);
      ctx.cuda(cudaGetLastError(), "jacobi_nbi compute-only kernel launch");
    }
  }
};

void run(Ctx& ctx, const Case& c, Result& r) {
  const int n = stencil::side_of(c.size, ctx.npes);
  if (n == 0) {
    r.skip = true;
    return;
  }
  r.size = static_cast<size_t>(n) * n * sizeof(float);
  r.timer = "events";
  const float* want = stencil::reference(ctx, c.threads, n, c.iters);

  Solver s;
  s.l = stencil::layout(ctx.me, ctx.npes, n);
  s.sh = stencil::shape(c.threads, s.l.rows, n);
  s.form = form_of(c.op);
  for (int b = 0; b < 2; ++b) s.buf[b] = static_cast<float*>(ctx.sym(b, s.l.buf_elems * sizeof(float)));
  s.sig = static_cast<uint64_t*>(ctx.sym(2, 2 * sizeof(uint64_t)));

  // The ceiling first: it leaves the buffers in no particular state, and start() resets them.
  stencil::start(ctx, s.l, s.buf, s.it);
  s.compute_only(ctx, c.warmup);
  r.ceiling_us = time_batches(
      ctx, c.reps, c.iters, [&] { s.compute_only(ctx, c.iters); }, false, nullptr);
  r.ceiling_timed = !r.ceiling_us.empty();
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "jacobi_nbi compute only");

  // Signals restart at 0 for this point: no PE still sends (the last point's streams were
  // synchronised before its closing barrier).
  ctx.cuda(cudaMemsetAsync(s.sig, 0, 2 * sizeof(uint64_t), ctx.stream), "cudaMemsetAsync (signals)");
  stencil::start(ctx, s.l, s.buf, s.it);
  ctx.barrier();
  s.run(ctx, c.warmup);
  r.us = time_batches(
      ctx, c.reps, c.iters, [&] { s.run(ctx, c.iters); }, false, nullptr);
  r.timed = !r.us.empty();
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "jacobi_nbi timed solve");
  ctx.barrier();  // every PE is done with the buffers before they start again
  stencil::start(ctx, s.l, s.buf, s.it);
  ctx.barrier();
  s.run(ctx, c.iters);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "jacobi_nbi checked solve");
  ctx.barrier();
  record_check(ctx, r, c, "jacobi_nbi solve", stencil::compare(ctx, s.l, s.buf[s.it & 1], want));
}

double bytes(const Case&, size_t size, int) { return 2.0 * static_cast<double>(size); }

Bench describe() {
  Bench b;
  b.name = "jacobi_nbi";
  b.what =
      "periodic 2D Jacobi step kernel (1024-thread CTAs) sending its boundary rows itself: -o quiet "
      "(putmem_nbi<block>, quiet, signal_op) | put_signal | thread | barrier; ceiling: the kernel alone";
  b.kind = Kind::host;
  b.min_pes = 1;
  b.min_size = 64u << 20;  // 4096^2 floats
  b.max_size = 64u << 20;
  b.scopes = scope_bit(Scope::block);
  b.default_scope = Scope::block;
  b.ops = {"quiet", "put_signal", "thread", "barrier"};
  b.default_ops = b.ops;
  b.ctas = 0;  // does not apply
  b.threads = 1024;
  b.iters = 200;
  b.warmup = 20;
  b.reps = 10;
  b.bus = Bus::p2p;
  b.bytes = bytes;
  b.run = run;
  return b;
}

}  // namespace
}  // namespace perf

PERF_REGISTER(perf::describe);

// SPDX-License-Identifier: BSD-3-Clause
// jacobi: one iteration of a 2D Jacobi solver (5-point stencil on an N x N grid of doubles,
// fixed boundary), the application the device-initiated model is for, three ways on the same
// GPUs, grid, stream and kernel:
//   gshmem    one kernel per iteration. The CTAs that compute a PE's first (last) rows first
//             wait for the neighbour above's (below's) signal that its halo row arrived; after
//             computing, each puts its strip of that row into the neighbour's halo with
//             putmem_signal<block>. Synchronisation is neighbour-only and the exchange overlaps
//             the other CTAs' work.
//   NCCL      the same kernel without waits or puts, then the halo rows exchanged by grouped
//             ncclSend/ncclRecv on the same stream: the offload model (compute kernel, then a
//             host-enqueued communication call).
//   ceiling   the same kernel over the whole grid on this GPU alone; its time per iteration
//             divided by the PE count is perfect strong scaling, so ceiling_ratio (ceiling /
//             gshmem time) is the strong-scaling efficiency from one GPU to npes.
// Size = bytes of the whole grid (N = floor(sqrt(size / 8))); times are per iteration; algbw
// counts the grid read and written once per iteration (2 x size). -t: threads per CTA (the
// columns of a strip, default 128, at most 512); -c does not apply (the grid covers the rows).
//
// Decomposition: the N - 2 interior rows are split over the PEs in contiguous chunks, the
// first (N - 2) % npes PEs one row more. A PE holds its rows plus a halo row on each side
// (local rows 0 .. rows + 1; at the ends the halo is the fixed boundary row) in two symmetric
// buffers that alternate (iteration `it` reads buf[it % 2], writes buf[(it + 1) % 2]). The
// signal pair sig[0] (top halo) / sig[1] (bottom) counts the strips received, so it reaches
// strips x (it + 1) when the neighbour's row of iteration it is in place. Why that is enough:
// the neighbour reads the halo row of buf[(it + 1) % 2] (its input of iteration it - 1) only in
// the CTAs that then add to my signal, all of which my CTAs waited for before computing, so
// my puts of iteration it cannot overwrite a row still being read; and the neighbour cannot
// run ahead by more than one iteration, because its next wait needs my signal.
//
// Checked: after `iters` iterations from a non-trivial start (every point a hash of its
// coordinates) every PE's rows equal, bit for bit, the single-GPU solve's (same kernel, same
// arithmetic), for gshmem and NCCL alike; the halo rows the neighbours write start poisoned.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/nccl.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

// Most threads per CTA of k_step (-t above it is clamped). The "1" in its __launch_bounds__
// matters: with a thread bound alone (256, 512 or 1024) ptxas held the kernel to 64 registers
// and spilled the loads kept in flight (16384^2 on an H200, 256 threads: 2.94 TB/s under
// (1024), 3.75 under (512, 1), which gives it 91 registers; 4.03 with 128 threads, the default).
constexpr int kMaxCtaThreads = 512;

// Grid point (i, j) at the start: a hash of its coordinates in [0, 1).
__device__ double start_value(uint64_t i, uint64_t j) {
  uint64_t x = (i << 32 | j) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 29)) * 0x94D049BB133111EBull;
  return static_cast<double>((x ^ (x >> 32)) >> 11) * 0x1.0p-53;
}

// Local rows 0 .. rows + 1 of a PE whose first computed row is global row `first`.
__global__ void k_start(double* buf, int64_t first, int rows, int n) {
  const size_t total = static_cast<size_t>(rows + 2) * n;
  for (size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<size_t>(gridDim.x) * blockDim.x)
    buf[k] = start_value(static_cast<uint64_t>(first - 1 + static_cast<int64_t>(k / n)), k % n);
}

// One iteration over local rows 1 .. rows, columns 1 .. n - 2. A CTA covers blockDim.x
// columns (a strip) of kRows consecutive rows: each thread loads its column's kRows + 2 rows
// and its left and right neighbours' kRows before it stores anything, which keeps enough loads
// in flight to run at the speed of a device copy (on an H200, 4.07 TB/s of grid read and
// written against 2.4-2.7 TB/s for a loop over the rows). The halo exchange is in the file
// comment (up / down < 0: none, for the NCCL form and the single-GPU solve): the CTAs of the
// first (last) CTA row each wait until all the strips of the neighbour's row are in, then send
// their own strip and add 1 to the neighbour's signal, which thus reaches strips x (it + 1)
// once iteration it's row is complete.
constexpr int kRows = 8;

struct Step {
  const double* in = nullptr;
  double* out = nullptr;
  int rows = 0, n = 0;
  int up = -1, down = -1;
  int up_rows = 0;          // rows of the PE above: its bottom halo is its local row up_rows + 1
  uint64_t* sig = nullptr;  // [0]: strips of my top halo received, [1]: of the bottom one
  uint64_t it = 0;
};

__global__ void __launch_bounds__(kMaxCtaThreads, 1) k_step(Step s) {
  const int r0 = 1 + static_cast<int>(blockIdx.y) * kRows;
  const bool top = blockIdx.y == 0 && s.up >= 0;
  const bool bottom = blockIdx.y == gridDim.y - 1 && s.down >= 0;
  if (top || bottom) {  // uniform over the CTA
    if (threadIdx.x == 0) {
      const uint64_t want = static_cast<uint64_t>(gridDim.x) * s.it;
      if (top) gshmem::signal_wait_until(&s.sig[0], gshmem::cmp::ge, want);
      if (bottom) gshmem::signal_wait_until(&s.sig[1], gshmem::cmp::ge, want);
    }
    __syncthreads();
  }
  const size_t n = static_cast<size_t>(s.n);
  const size_t j0 = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x, j = j0 + threadIdx.x;
  if (j + 1 < n) {
    const int rows = min(kRows, s.rows - r0 + 1);
    const double* p = s.in + (r0 - 1) * n + j;  // this column, the row above the first
    double c[kRows + 2], l[kRows], r[kRows];
#pragma unroll
    for (int k = 0; k < kRows + 2; ++k)
      if (k < rows + 2) c[k] = p[k * n];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      if (k < rows) {
        l[k] = p[(k + 1) * n - 1];
        r[k] = p[(k + 1) * n + 1];
      }
    }
#pragma unroll
    for (int k = 0; k < kRows; ++k)
      if (k < rows) s.out[(r0 + k) * n + j] = 0.25 * ((c[k] + c[k + 2]) + (l[k] + r[k]));
  }
  if (top || bottom) {
    __syncthreads();  // the strip is written before the CTA reads it to send
    const size_t bytes = min(static_cast<size_t>(blockDim.x), n - 1 - j0) * sizeof(double);
    if (top)
      gshmem::putmem_signal<gshmem::block_scope>(s.out + (s.up_rows + 1) * n + j0, s.out + n + j0, bytes, &s.sig[1], 1,
                                                 GSHMEM_SIGNAL_ADD, s.up);
    if (bottom)
      gshmem::putmem_signal<gshmem::block_scope>(s.out + j0, s.out + static_cast<size_t>(s.rows) * n + j0, bytes,
                                                 &s.sig[0], 1, GSHMEM_SIGNAL_ADD, s.down);
  }
}

// This PE's share of the grid and how its kernels are shaped.
struct Layout {
  int n = 0, rows = 0, max_rows = 0;
  int64_t first = 0;  // global row of local row 1
  int up = -1, down = -1, up_rows = 0;
  size_t buf_elems = 0;  // per buffer: (max_rows + 2) x n, the same on every PE
};

int rows_of(int n, int npes, int pe) { return (n - 2) / npes + (pe < (n - 2) % npes ? 1 : 0); }

Layout layout(int me, int npes, int n) {
  Layout l;
  l.n = n;
  l.rows = rows_of(n, npes, me);
  l.max_rows = rows_of(n, npes, 0);
  l.first = 1;
  for (int p = 0; p < me; ++p) l.first += rows_of(n, npes, p);
  if (me > 0) {
    l.up = me - 1;
    l.up_rows = rows_of(n, npes, l.up);
  }
  if (me + 1 < npes) l.down = me + 1;
  l.buf_elems = static_cast<size_t>(l.max_rows + 2) * n;
  return l;
}

// k_step's launch over `rows` rows of length n: strips of `threads` columns (-t, at most the
// interior's width rounded up to a warp, and kMaxCtaThreads) x groups of kRows rows.
struct Shape {
  dim3 grid;
  int threads = 32;
};

Shape shape(const Case& c, int rows, int n) {
  Shape sh;
  sh.threads = std::min({c.threads, kMaxCtaThreads, std::max(32, (n - 2 + 31) / 32 * 32)});
  sh.grid = dim3((n - 2 + sh.threads - 1) / sh.threads, (rows + kRows - 1) / kRows);
  return sh;
}

// One way of iterating: `iters` iterations from the current state, the iteration number `it`
// (which the gshmem form's signals count in) continuing across calls.
struct Solver {
  Layout l;
  Shape sh;
  double* buf[2] = {nullptr, nullptr};
  uint64_t* sig = nullptr;     // gshmem form only
  nccl::Comm* comm = nullptr;  // NCCL form only
  uint64_t it = 0;
  int error = 0;
  std::string err;

  void run(Ctx& ctx, int iters) {
    for (int k = 0; k < iters && error == 0; ++k, ++it) {
      Step st;
      st.in = buf[it & 1];
      st.out = buf[(it + 1) & 1];
      st.rows = l.rows;
      st.n = l.n;
      if (sig) {
        st.up = l.up;
        st.down = l.down;
        st.up_rows = l.up_rows;
        st.sig = sig;
        st.it = it;
      }
      k_step<<<sh.grid, sh.threads, 0, ctx.stream>>>(st);
      ctx.cuda(cudaGetLastError(), "jacobi step kernel launch");
      if (comm) error = exchange(ctx, st.out);
    }
  }

  // The NCCL form's halo exchange after the step that wrote `out`.
  int exchange(Ctx& ctx, double* out) {
    const size_t n = static_cast<size_t>(l.n);
    const nccl::SendRecv x[2] = {{l.up, out + n, out}, {l.down, out + l.rows * n, out + (l.rows + 1) * n}};
    return nccl::sendrecv(comm, x, 2, n, DType::float64, ctx.stream, &err);
  }

  // Both buffers at the start state, the halo rows the neighbours write in the first
  // iteration poisoned. Collective for the distributed forms (the caller's barriers).
  void start(Ctx& ctx) {
    for (double* b : buf) {
      k_start<<<256, 256, 0, ctx.stream>>>(b, l.first, l.rows, l.n);
      ctx.cuda(cudaGetLastError(), "jacobi start kernel launch");
    }
    double* out = buf[(it + 1) & 1];
    const size_t row = static_cast<size_t>(l.n) * sizeof(double);
    if (l.up >= 0) poison(out, row, ctx.stream);
    if (l.down >= 0) poison(out + static_cast<size_t>(l.rows + 1) * l.n, row, ctx.stream);
    ctx.cuda(cudaStreamSynchronize(ctx.stream), "jacobi start");
  }
  const double* result() const { return buf[it & 1]; }
};

// My rows of `got` (local rows 1 .. rows) against rows first .. first + rows - 1 of the
// single-GPU solve `want` (the whole grid).
Mismatch compare(Ctx& ctx, const Layout& l, const double* got, const double* want) {
  const size_t n = static_cast<size_t>(l.n);
  return compare_words(reinterpret_cast<const uint64_t*>(got + n),
                       reinterpret_cast<const uint64_t*>(want + static_cast<size_t>(l.first) * n),
                       static_cast<size_t>(l.rows) * n, ctx.stream);
}

// Times `s` (reps x iters after the warm-up), then solves `iters` iterations from the
// start state again and checks them against the single-GPU solve `want`.
void measure(Ctx& ctx, const Case& c, Solver& s, const double* want, const char* what, Result& r, bool nccl) {
  s.start(ctx);
  ctx.barrier();
  s.run(ctx, c.warmup);
  std::vector<double> us = time_batches(
      ctx, c.reps, c.iters, [&] { s.run(ctx, c.iters); }, false, nullptr);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), what);
  ctx.barrier();  // every PE is done with the buffers before they start again
  s.start(ctx);
  ctx.barrier();
  s.run(ctx, c.iters);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), what);
  ctx.barrier();
  if (s.error) {  // only NCCL's calls report errors; a gshmem one would have ended the process
    r.note = "NCCL error: " + s.err;
    ctx.failed = true;
    return;
  }
  const Mismatch m = compare(ctx, s.l, s.result(), want);
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
  const Layout l = layout(ctx.me, ctx.npes, n);

  // The single-GPU solve: the reference every form is checked against, and the ceiling.
  Solver ref;
  ref.l = layout(0, 1, n);  // every interior row, no neighbours
  ref.sh = shape(c, ref.l.rows, n);
  const size_t grid_bytes = ref.l.buf_elems * sizeof(double);
  ref.buf[0] = static_cast<double*>(ctx.local(0, grid_bytes));
  ref.buf[1] = static_cast<double*>(ctx.local(1, grid_bytes));
  ref.start(ctx);
  ref.run(ctx, c.warmup);
  std::vector<double> t1 = time_batches(
      ctx, c.reps, c.iters, [&] { ref.run(ctx, c.iters); }, false, nullptr);
  for (double& t : t1) t /= ctx.npes;
  r.ceiling_us = t1;
  r.ceiling_timed = !t1.empty();
  ref.start(ctx);
  ref.run(ctx, c.iters);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "jacobi single-GPU solve");
  const double* want = ref.result();

  // gshmem: signals restart at 0 for this grid (no PE still sends: the last one's streams
  // were synchronised before its closing barrier).
  Solver g;
  g.l = l;
  g.sh = shape(c, l.rows, n);
  g.buf[0] = static_cast<double*>(ctx.sym(0, l.buf_elems * sizeof(double)));
  g.buf[1] = static_cast<double*>(ctx.sym(1, l.buf_elems * sizeof(double)));
  g.sig = static_cast<uint64_t*>(ctx.sym(2, 2 * sizeof(uint64_t)));
  ctx.cuda(cudaMemsetAsync(g.sig, 0, 2 * sizeof(uint64_t), ctx.stream), "cudaMemsetAsync (signals)");
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "cudaMemsetAsync (signals)");
  ctx.barrier();
  r.timer = "events";
  measure(ctx, c, g, want, "jacobi gshmem", r, false);

  if (ctx.npes == 1) return;  // nothing to exchange
  Solver x = g;               // the same buffers and shape, NCCL's exchange instead of the puts
  x.sig = nullptr;
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
      "2D Jacobi iteration, halo by putmem_signal<block> + signal waits in the kernel vs NCCL send/recv "
      "after it; ceiling: the whole grid on one GPU / npes";
  b.kind = Kind::host;
  b.min_pes = 1;
  b.min_size = 8u << 20;         // 1024^2
  b.max_size = size_t{2} << 30;  // 16384^2
  b.scopes = scope_bit(Scope::block);
  b.default_scope = Scope::block;
  b.ctas = 0;  // does not apply
  b.threads = 128;
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

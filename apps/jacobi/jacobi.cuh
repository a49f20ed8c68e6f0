// SPDX-License-Identifier: BSD-3-Clause
// The 2D Jacobi solver: a 5-point stencil on an N x N grid of doubles with a fixed boundary,
// each iteration a kernel that also exchanges the halo rows with the neighbouring PEs itself.
// This header is the solver alone (kernels, decomposition, one iteration); main.cu is the
// program around it (the NCCL form, the one-GPU reference, the table), and perftest's
// `jacobi` row (perftest/apps/jacobi.cu) calls the same code. It needs only CUDA and the
// gshmem device API, so that perftest's NVSHMEM build compiles it too.
//
// Decomposition: the N - 2 interior rows are split over the PEs in contiguous chunks, the first
// (N - 2) % npes PEs one row more. A PE holds its rows plus a halo row on each side (local rows
// 0 .. rows + 1; at the ends of the grid the halo is the fixed boundary row) in two symmetric
// buffers that alternate: iteration `it` reads buf[it % 2] and writes buf[(it + 1) % 2].
//
// Communication, inside the step kernel (the device-initiated model): the CTAs that compute a
// PE's first (last) rows first wait for the neighbour above's (below's) signal that its halo row
// of the previous iteration arrived; after computing, each such CTA puts its strip of that row
// into the neighbour's halo with putmem_signal<block> (data, then +1 on the neighbour's counter,
// in one call). Synchronisation is neighbour-only and the exchange overlaps the other CTAs'
// work; nothing waits for the whole job.
//
// Why that is race-free: the signal pair sig[0] (top halo) / sig[1] (bottom) counts the strips
// received, so it reaches strips x (it + 1) when the neighbour's row of iteration it is in
// place (putmem_signal's release publishes the strip before the count; the wait is an
// acquire). The neighbour reads the halo row of buf[(it + 1) % 2] (its input of iteration
// it - 1) only in the CTAs that then add to my signal, all of which my CTAs waited for before
// computing, so my puts of iteration it cannot overwrite a row still being read; and the
// neighbour cannot run ahead by more than one iteration, because its next wait needs my signal.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdint>

namespace jacobi {

// Most threads per CTA of k_step. The "1" in its __launch_bounds__ matters: with a thread bound
// alone (256, 512 or 1024) ptxas held the kernel to 64 registers and spilled the loads kept in
// flight (16384^2 on an H200, 256 threads: 2.94 TB/s under (1024), 3.75 under (512, 1), which
// gives it 91 registers; 4.03 with 128 threads, the default).
constexpr int kMaxCtaThreads = 512;
constexpr int kDefaultThreads = 128;

// Grid point (i, j) at the start: a hash of its coordinates in [0, 1).
__device__ inline double start_value(uint64_t i, uint64_t j) {
  uint64_t x = (i << 32 | j) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 29)) * 0x94D049BB133111EBull;
  return static_cast<double>((x ^ (x >> 32)) >> 11) * 0x1.0p-53;
}

// Local rows 0 .. rows + 1 of a PE whose first computed row is global row `first`.
static __global__ void k_start(double* buf, int64_t first, int rows, int n) {
  const size_t total = static_cast<size_t>(rows + 2) * n;
  for (size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<size_t>(gridDim.x) * blockDim.x)
    buf[k] = start_value(static_cast<uint64_t>(first - 1 + static_cast<int64_t>(k / n)), k % n);
}

// One iteration over local rows 1 .. rows, columns 1 .. n - 2. A CTA covers blockDim.x columns
// (a strip) of kRows consecutive rows: each thread loads its column's kRows + 2 rows and its left
// and right neighbours' kRows before it stores anything, which keeps enough loads in flight to
// run at the speed of a device copy (on an H200, 4.07 TB/s of grid read and written against
// 2.4-2.7 TB/s for a loop over the rows). With up / down < 0 (the NCCL form, the one-GPU solve)
// the kernel neither waits nor sends.
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

// The work of one CTA of k_step: tile (bx, by) of a gx x gy grid of tiles (strips x row groups).
// k_step runs one tile per CTA; k_persistent loops its CTAs over the tiles, iteration after
// iteration. With s.sig the boundary tiles wait for their halo and signal theirs (the
// device-initiated form); with s.sig null but up / down set they only put (put_barrier form: the
// caller synchronises between iterations); with neither (NCCL, one GPU) they do no communication.
__device__ __forceinline__ void step_tile(const Step& s, int bx, int by, int gx, int gy) {
  const int r0 = 1 + by * kRows;
  const bool top = by == 0 && s.up >= 0;
  const bool bottom = by == gy - 1 && s.down >= 0;
  if ((top || bottom) && s.sig) {  // uniform over the CTA
    // 1. Wait until every strip of the neighbour's row of iteration it - 1 is in my halo. One
    //    thread waits (an acquire); the barrier orders every thread's loads after it.
    if (threadIdx.x == 0) {
      const uint64_t want = static_cast<uint64_t>(gx) * s.it;
      if (top) gshmem::signal_wait_until(&s.sig[0], gshmem::cmp::ge, want);
      if (bottom) gshmem::signal_wait_until(&s.sig[1], gshmem::cmp::ge, want);
    }
    __syncthreads();
  }
  // 2. Compute.
  const size_t n = static_cast<size_t>(s.n);
  const size_t j0 = 1 + static_cast<size_t>(bx) * blockDim.x, j = j0 + threadIdx.x;
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
  // 3. Send my strip of the boundary row into the neighbour's halo, and count it there.
  if (top || bottom) {
    __syncthreads();  // the strip is written before the CTA reads it to send
    const size_t bytes = min(static_cast<size_t>(blockDim.x), n - 1 - j0) * sizeof(double);
    double* to_up = s.out + (s.up_rows + 1) * n + j0;
    double* to_down = s.out + j0;
    const double* first = s.out + n + j0;
    const double* last = s.out + static_cast<size_t>(s.rows) * n + j0;
    if (s.sig) {
      if (top) gshmem::putmem_signal<gshmem::block_scope>(to_up, first, bytes, &s.sig[1], 1, GSHMEM_SIGNAL_ADD, s.up);
      if (bottom)
        gshmem::putmem_signal<gshmem::block_scope>(to_down, last, bytes, &s.sig[0], 1, GSHMEM_SIGNAL_ADD, s.down);
    } else {
      if (top) gshmem::putmem<gshmem::block_scope>(to_up, first, bytes, s.up);
      if (bottom) gshmem::putmem<gshmem::block_scope>(to_down, last, bytes, s.down);
    }
  }
}

static __global__ void __launch_bounds__(kMaxCtaThreads, 1) k_step(Step s) {
  step_tile(s, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), static_cast<int>(gridDim.x),
            static_cast<int>(gridDim.y));
}

// `iters` iterations in one kernel (the persistent form): communication and synchronisation both
// inside it. The grid is launched collectively (gshmemx_collective_launch: every CTA resident, a
// cooperative launch) with at most as many CTAs as fit on the GPU; they loop over the gx x gy
// tiles of k_step's grid. Per iteration, the neighbours are synchronised by the same signals as
// k_step's (boundary tiles wait for their halo, then put and count their strips), and the CTAs
// of this PE by a grid-wide barrier: the next iteration's tiles read rows that other CTAs wrote.
// The race argument at the top of this file holds unchanged: the CTAs that read a halo row are
// the ones whose signals the neighbour waits for, wherever those tiles run. Registers: under
// (512, 1) ptxas gives it the ceiling, 128, and spills 80 bytes of loop state (unbounded it would
// take 194, keeping the next tile's loads in flight); k_step needs 72.
static __global__ void __launch_bounds__(kMaxCtaThreads, 1) k_persistent(Step s, int gx, int gy, int iters) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const int tiles = gx * gy;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
#pragma unroll 1
    for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x))
      step_tile(s, t % gx, t / gx, gx, gy);
    grid.sync();  // every CTA's rows of this iteration are written before any CTA reads them
    const double* in = s.in;
    s.in = s.out;
    s.out = const_cast<double*>(in);
    ++s.it;
  }
}

// This PE's share of the grid.
struct Layout {
  int n = 0, rows = 0, max_rows = 0;
  int64_t first = 0;  // global row of local row 1
  int up = -1, down = -1, up_rows = 0;
  size_t buf_elems = 0;  // per buffer: (max_rows + 2) x n, the same on every PE (symmetric)
};

inline int rows_of(int n, int npes, int pe) { return (n - 2) / npes + (pe < (n - 2) % npes ? 1 : 0); }

inline Layout layout(int me, int npes, int n) {
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

// k_step's launch over `rows` rows of length n: strips of `threads` columns (at most the
// interior's width rounded up to a warp, and kMaxCtaThreads) x groups of kRows rows.
struct Shape {
  dim3 grid;
  int threads = 32;
};

inline Shape shape(int threads, int rows, int n) {
  Shape sh;
  sh.threads = std::min({threads, kMaxCtaThreads, std::max(32, (n - 2 + 31) / 32 * 32)});
  sh.grid = dim3((n - 2 + sh.threads - 1) / sh.threads, (rows + kRows - 1) / kRows);
  return sh;
}

// One way of iterating. With `sig` (symmetric, 2 counters, zero at the start) the kernel does
// the halo exchange and the neighbour synchronisation; with `put_only` it puts the halos but the
// caller synchronises after each step (gshmemx_barrier_all_on_stream); with neither, the caller
// exchanges the halos of result() after each step (the NCCL form), or there is nothing to
// exchange (the one-GPU solve: layout(0, 1, n)).
struct Solver {
  Layout l;
  Shape sh;
  double* buf[2] = {nullptr, nullptr};  // symmetric for the distributed forms
  uint64_t* sig = nullptr;
  bool put_only = false;
  uint64_t it = 0;  // iterations done; the signals count in it, across calls

  // The kernel's arguments for the next iteration.
  Step next() const {
    Step st;
    st.in = buf[it & 1];
    st.out = buf[(it + 1) & 1];
    st.rows = l.rows;
    st.n = l.n;
    if (sig || put_only) {
      st.up = l.up;
      st.down = l.down;
      st.up_rows = l.up_rows;
      st.sig = sig;
      st.it = it;
    }
    return st;
  }

  // One iteration on `stream`.
  cudaError_t step(cudaStream_t stream) {
    k_step<<<sh.grid, sh.threads, 0, stream>>>(next());
    ++it;
    return cudaGetLastError();
  }

  // The grid after the last step (local rows 0 .. rows + 1).
  double* result() const { return buf[it & 1]; }

  // Where an exchange after a step puts and gets rows of result(): my first row goes to the PE
  // above's bottom halo, my last row to the PE below's top halo.
  double* first_row() const { return result() + l.n; }
  double* last_row() const { return result() + static_cast<size_t>(l.rows) * l.n; }
  double* top_halo() const { return result(); }
  double* bottom_halo() const { return result() + static_cast<size_t>(l.rows + 1) * l.n; }

  // Both buffers at the start state, the halo rows the neighbours write in the first iteration
  // poisoned (0xA5 bytes: a missing exchange shows in the result). Collective for the
  // distributed forms through the caller's barriers: no PE may still be sending.
  cudaError_t start(cudaStream_t stream) {
    for (double* b : buf) k_start<<<256, 256, 0, stream>>>(b, l.first, l.rows, l.n);
    double* out = buf[(it + 1) & 1];
    const size_t row = static_cast<size_t>(l.n) * sizeof(double);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && l.up >= 0) e = cudaMemsetAsync(out, 0xA5, row, stream);
    if (e == cudaSuccess && l.down >= 0)
      e = cudaMemsetAsync(out + static_cast<size_t>(l.rows + 1) * l.n, 0xA5, row, stream);
    return e == cudaSuccess ? cudaStreamSynchronize(stream) : e;
  }
};

}  // namespace jacobi

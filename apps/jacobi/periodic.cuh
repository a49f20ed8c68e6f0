// SPDX-License-Identifier: BSD-3-Clause
// The periodic 2D Jacobi problem of perftest's halo_host and jacobi_nbi rows (perftest/apps/), the
// float variant of jacobi.cuh's solver on which those rows take the halo exchange apart, written as a user
// writes it: an N x N grid of floats, periodic in y (the rows wrap around), columns 0 and N - 1
// fixed; one thread a point, CTAs of up to 1,024 threads along a row (so a boundary CTA holds a
// strip of a row, 4 KiB at 1,024 threads, and a row of 4096 floats is 16 KiB), the step kernel
// declared __launch_bounds__(1024) as third-party code declares it.
//
// Decomposition: the N rows are split over the PEs in contiguous chunks, the first N % npes PEs
// one row more. A PE holds its rows plus a halo row on each side (local rows 0 .. rows + 1) in
// two symmetric buffers that alternate (iteration `it` reads buf[it % 2], writes
// buf[(it + 1) % 2]). Its first row goes into the halo below the last row of the PE above
// (me - 1, wrapping) and its last row into the halo above the first row of the PE below
// (me + 1, wrapping); on one PE both are the PE itself, as in a periodic self-exchange.
//
// The reference (perftest/apps/stencil.cuh) is the whole grid on one GPU with the same update (same
// expression, so the same bits) and its periodic halos copied on the device: every form's rows
// must equal it bit for bit. Kernels are static and helpers inline: each file that includes this
// has its own. Only CUDA here, so perftest's NVSHMEM build compiles it too.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace periodic {

constexpr int kMaxCtaThreads = 1024;

// Grid point (global row i, column j) at the start: a hash of its coordinates in [0, 1).
__device__ __forceinline__ float start_value(uint64_t i, uint64_t j) {
  uint64_t x = (i << 32 | j) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 29)) * 0x94D049BB133111EBull;
  return static_cast<float>((x ^ (x >> 32)) >> 40) * 0x1.0p-24f;
}

// Local rows 0 .. rows + 1 of a PE whose local row 1 is global row `first`, halos included (the
// neighbours' rows, wrapping at the ends of the grid of n rows).
static __global__ void k_start(float* buf, int64_t first, int rows, int n) {
  const size_t total = static_cast<size_t>(rows + 2) * n;
  for (size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int64_t g = ((first - 1 + static_cast<int64_t>(k / n)) % n + n) % n;
    buf[k] = start_value(static_cast<uint64_t>(g), k % n);
  }
}

// The update of point (r, j): every solver uses this expression, so all of them round alike.
__device__ __forceinline__ void update(const float* in, float* out, size_t r, size_t j, size_t n) {
  out[r * n + j] = 0.25f * ((in[r * n + j - 1] + in[r * n + j + 1]) + (in[(r - 1) * n + j] + in[(r + 1) * n + j]));
}

// One iteration over local rows 1 .. gridDim.y, columns 1 .. n - 2, nothing else: the kernel of
// the host-driven loop, the reference and the compute-only ceiling.
static __global__ void __launch_bounds__(kMaxCtaThreads) k_plain(const float* in, float* out, int n) {
  const size_t j = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j + 1 < static_cast<size_t>(n)) update(in, out, 1 + blockIdx.y, j, n);
}

inline int rows_of(int n, int npes, int pe) { return n / npes + (pe < n % npes ? 1 : 0); }

// This PE's share of the grid.
struct Layout {
  int n = 0, rows = 0, max_rows = 0;
  int64_t first = 0;  // global row of local row 1
  int up = 0, down = 0, up_rows = 0;
  size_t buf_elems = 0;  // per buffer: (max_rows + 2) x n, the same on every PE
  size_t row_bytes() const { return static_cast<size_t>(n) * sizeof(float); }
  // Where my first row goes (the PE above's bottom halo) and my last row (the PE below's top
  // halo), in buffer b: symmetric addresses, valid on those PEs.
  float* to_up(float* b) const { return b + static_cast<size_t>(up_rows + 1) * n; }
  float* to_down(float* b) const { return b; }
  float* first_row(float* b) const { return b + n; }
  float* last_row(float* b) const { return b + static_cast<size_t>(rows) * n; }
};

inline Layout layout(int me, int npes, int n) {
  Layout l;
  l.n = n;
  l.rows = rows_of(n, npes, me);
  l.max_rows = rows_of(n, npes, 0);
  for (int p = 0; p < me; ++p) l.first += rows_of(n, npes, p);
  l.up = (me + npes - 1) % npes;
  l.down = (me + 1) % npes;
  l.up_rows = rows_of(n, npes, l.up);
  l.buf_elems = static_cast<size_t>(l.max_rows + 2) * n;
  return l;
}

// CTAs of `threads` (-t: rounded down to whole warps, at most 1024 and the interior's width
// rounded up to a warp) along a row, one CTA row a grid row.
struct Shape {
  dim3 grid;
  int threads = 32;
};
inline Shape shape(int requested, int rows, int n) {
  Shape s;
  s.threads = std::min({std::max(32, requested / 32 * 32), kMaxCtaThreads, (n - 2 + 31) / 32 * 32});
  s.grid = dim3((n - 2 + s.threads - 1) / s.threads, rows);
  return s;
}

}  // namespace periodic

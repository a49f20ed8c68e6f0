// SPDX-License-Identifier: BSD-3-Clause
// The harness side of the periodic Jacobi problem of halo_host.cu and jacobi_nbi.cu: the problem
// itself (grid, update, decomposition, kernels) is apps/jacobi/periodic.cuh; here are what the
// benchmarks add to it: the size of a point, the start state with poisoned halos, the one-GPU
// reference solve and the checks, all on the harness's buffers (Ctx).
#pragma once

#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdint>

#include "../../apps/jacobi/periodic.cuh"
#include "../common/bench.h"
#include "../common/context.h"
#include "../common/verify.h"

namespace perf {
namespace stencil {

using namespace ::periodic;

// The side of the grid for a size (bytes of the whole grid), even so that rows are whole 8-byte
// words for compare_words; 0 when the point does not apply (every PE needs a row, a row needs an
// interior column, and a grid of CTAs has at most 65535 rows).
inline int side_of(size_t size, int npes) {
  const int n = square_side(size, sizeof(float)) & ~1;
  if (n < 4 || n < npes || rows_of(n, npes, 0) > 65535) return 0;
  return n;
}

// Both buffers at the start state, the halos of the buffer the next iteration writes poisoned
// (the neighbours' puts must fill them). Synchronises the stream; the caller's barrier makes it
// collective.
inline void start(Ctx& ctx, const Layout& l, float* const buf[2], uint64_t it) {
  for (int b = 0; b < 2; ++b) {
    k_start<<<256, 256, 0, ctx.stream>>>(buf[b], l.first, l.rows, l.n);
    ctx.cuda(cudaGetLastError(), "stencil start kernel launch");
  }
  float* out = buf[(it + 1) & 1];
  poison(out, l.row_bytes(), ctx.stream);
  poison(out + static_cast<size_t>(l.rows + 1) * l.n, l.row_bytes(), ctx.stream);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "stencil start");
}

// The one-GPU solve of `iters` iterations (every row, halos copied on the device), in this PE's
// local slots 0 and 1; returns the grid with its halos ((n + 2) x n).
inline const float* reference(Ctx& ctx, int requested_threads, int n, int iters) {
  const Layout l = layout(0, 1, n);
  const Shape sh = shape(requested_threads, l.rows, n);
  float* buf[2];
  for (int b = 0; b < 2; ++b) buf[b] = static_cast<float*>(ctx.local(b, l.buf_elems * sizeof(float)));
  start(ctx, l, buf, 0);
  for (int it = 0; it < iters; ++it) {
    float* out = buf[(it + 1) & 1];
    k_plain<<<sh.grid, sh.threads, 0, ctx.stream>>>(buf[it & 1], out, n);
    ctx.cuda(cudaGetLastError(), "stencil reference kernel launch");
    ctx.cuda(cudaMemcpyAsync(l.to_up(out), l.first_row(out), l.row_bytes(), cudaMemcpyDeviceToDevice, ctx.stream),
             "cudaMemcpyAsync (reference halo)");
    ctx.cuda(cudaMemcpyAsync(l.to_down(out), l.last_row(out), l.row_bytes(), cudaMemcpyDeviceToDevice, ctx.stream),
             "cudaMemcpyAsync (reference halo)");
  }
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "stencil reference solve");
  return buf[iters & 1];
}

// My rows (local rows 1 .. rows of `got`) against the same global rows of the reference.
inline Mismatch compare(Ctx& ctx, const Layout& l, const float* got, const float* want) {
  const size_t n = static_cast<size_t>(l.n);
  return compare_words(reinterpret_cast<const uint64_t*>(got + n),
                       reinterpret_cast<const uint64_t*>(want + static_cast<size_t>(l.first + 1) * n),
                       static_cast<size_t>(l.rows) * n / 2, ctx.stream);
}

// Whether my two halos of buffer b hold the neighbours' boundary rows of their buffer b (read
// with gshmem_getmem into local slot 2): what an exchange must leave whatever the rows' values.
// The neighbours must not change those rows meanwhile.
inline Mismatch halos_match(Ctx& ctx, const Layout& l, float* b) {
  const size_t n = static_cast<size_t>(l.n);
  float* theirs = static_cast<float*>(ctx.local(2, 2 * l.row_bytes()));
  // The PE above's last row is its local row up_rows; the PE below's first row its local row 1.
  gshmem_getmem(theirs, b + static_cast<size_t>(l.up_rows) * n, l.row_bytes(), l.up);
  gshmem_getmem(theirs + n, b + n, l.row_bytes(), l.down);
  Mismatch top =
      compare_words(reinterpret_cast<const uint64_t*>(b), reinterpret_cast<const uint64_t*>(theirs), n / 2, ctx.stream);
  const Mismatch bottom = compare_words(reinterpret_cast<const uint64_t*>(b + static_cast<size_t>(l.rows + 1) * n),
                                        reinterpret_cast<const uint64_t*>(theirs + n), n / 2, ctx.stream);
  if (top.bad == 0 && bottom.bad) {
    top.first = n / 2 + bottom.first;
    top.expected = bottom.expected;
    top.got = bottom.got;
  }
  top.checked += bottom.checked;
  top.bad += bottom.bad;
  return top;
}

}  // namespace stencil
}  // namespace perf

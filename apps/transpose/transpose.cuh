// SPDX-License-Identifier: BSD-3-Clause
// The distributed transpose B = A^T of an N x N matrix (float or double), both matrices split
// by rows over the PEs the same way (PE p owns rows first_p .. first_p + rows_p - 1, the first
// N % P PEs one row more, so any N >= P works). Row i of B is column i of A, so PE p holds, for
// every PE q, the block A[p's rows][q's columns] that q needs transposed: B[q's rows][p's
// columns]. In the destination each of that block's rows is rows_p contiguous elements.
//
// Two ways of moving it, both in this header (main.cu runs them, checks them, times them):
//
// In place, device-initiated (the GTC 2018 point): one kernel reads tiles of A, transposes each
// in shared memory and puts every transposed row straight into its final place in the owner's B
// (symmetric). No pack, no unpack, no staging buffer: the tile is in shared memory anyway for
// the transpose. Who issues the puts is the form:
//   thread  each thread puts single elements (gshmem::p): 32 x 32 tiles, consecutive threads
//           write consecutive destination addresses, so the stores coalesce on NVLink;
//   warp    each warp puts whole transposed rows of a 128 x 32 tile (putmem<warp>, 128
//           elements each);
//   block   the CTA puts each transposed row of a 512 x 8 tile together (putmem<block>).
// The kernel ends with nothing pending in the library's sense only once the caller completes
// the puts: the transpose is done when barrier_all_on_stream (quiet + barrier on every PE) has
// run after the kernel; before it no PE may read its B.
//
// Packed (the offload model, and the library's on-stream alltoall): pack A into P blocks of
// max_rows x max_rows (block q = the rows q needs, transposed, padded to the largest block so
// that an alltoall moves equal blocks), exchange the blocks (gshmemx_<T>_alltoall_on_stream, or
// ncclSend/ncclRecv to every PE), then unpack each received block into B's columns. The pack is
// the same tiled transpose as the in-place kernel, writing into the local send buffer instead of
// the remote B.
#pragma once

#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <cstdint>

namespace transpose {

// ---- the distribution: rows in contiguous blocks, the first N % P PEs one row more
struct Dist {
  int n = 0, npes = 1;
  __host__ __device__ int rows(int pe) const { return n / npes + (pe < n % npes ? 1 : 0); }
  __host__ __device__ int first(int pe) const { return pe * (n / npes) + (pe < n % npes ? pe : n % npes); }
  __host__ __device__ int max_rows() const { return rows(0); }
  // The PE that owns global row i.
  __host__ __device__ int owner(int i) const {
    const int base = n / npes, big = n % npes;  // the first `big` PEs own base + 1 rows
    return i < big * (base + 1) ? i / (base + 1) : big + (i - big * (base + 1)) / base;
  }
};

// Element (i, j) of A: bits hashed from its coordinates, exact in T (a 24- or 53-bit integer
// times a power of two), so the check can compare bit for bit and a misplaced element shows.
template <class T>
__host__ __device__ inline T value(uint64_t i, uint64_t j) {
  uint64_t x = (i << 32 | j) * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 29)) * 0x94D049BB133111EBull;
  x ^= x >> 32;
  if constexpr (sizeof(T) == 4)
    return static_cast<T>(x >> 40) * static_cast<T>(0x1.0p-24);
  else
    return static_cast<T>(x >> 11) * static_cast<T>(0x1.0p-53);
}

__device__ inline uint64_t bits(float v) { return __float_as_uint(v); }
__device__ inline uint64_t bits(double v) { return static_cast<uint64_t>(__double_as_longlong(v)); }

// My rows of A (rows x n, local memory).
template <class T>
static __global__ void k_fill(T* a, Dist d, int me) {
  const size_t total = static_cast<size_t>(d.rows(me)) * d.n;
  for (size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<size_t>(gridDim.x) * blockDim.x)
    a[k] = value<T>(d.first(me) + k / d.n, k % d.n);
}

// Counts the elements of my rows of B (rows x n) that are not A^T; out[0] += bad, out[1] = min
// index of a bad one.
template <class T>
static __global__ void k_check(const T* b, Dist d, int me, unsigned long long* out) {
  const size_t total = static_cast<size_t>(d.rows(me)) * d.n;
  for (size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const T want = value<T>(k % d.n, d.first(me) + k / d.n);  // B[i][j] = A[j][i]
    if (bits(b[k]) != bits(want)) {                           // bit for bit: a NaN-like poison never passes
      atomicAdd(&out[0], 1ull);
      atomicMin(&out[1], static_cast<unsigned long long>(k));
    }
  }
}

// ---- the tiled transpose, shared by the in-place kernel and the pack
enum class Form { thread, warp, block, pack };

// A tile is kRows rows x kCols columns of A; transposed, kCols rows of kRows contiguous elements.
template <Form F>
struct Tile;
template <>
struct Tile<Form::thread> {
  static constexpr int kRows = 32, kCols = 32;
};
template <>
struct Tile<Form::warp> {
  static constexpr int kRows = 128, kCols = 32;
};
template <>
struct Tile<Form::block> {
  static constexpr int kRows = 512, kCols = 8;
};
template <>
struct Tile<Form::pack> {
  static constexpr int kRows = 32, kCols = 32;
};
constexpr int kThreads = 256;

struct Args {
  const void* a = nullptr;  // my rows of A (local)
  void* b = nullptr;        // B (symmetric): the in-place forms' destination on every PE
  void* send = nullptr;     // pack: P blocks of max_rows x max_rows (local or symmetric)
  Dist d;
  int me = 0;
};

// One CTA a tile. 1. Load the tile of A into shared memory transposed (reads coalesced along
// A's rows). 2. For each of its kCols columns c (a row of B), find the destination: the owner q
// of row c of B and where my rows go in it (columns first_me + r0 ...), or, for the pack, block
// q of the send buffer. 3. Write the transposed rows there.
template <class T, Form F>
static __global__ void __launch_bounds__(kThreads) k_transpose(Args x) {
  constexpr int R = Tile<F>::kRows, C = Tile<F>::kCols;
  __shared__ T tile[C][R + 1];  // +1: the transposed stores in step 1 hit distinct banks
  __shared__ T* dest[C];
  __shared__ int pe[C];
  const Dist& d = x.d;
  const int rows = d.rows(x.me), n = d.n;
  const int r0 = blockIdx.y * R, c0 = blockIdx.x * C;
  const int nr = min(R, rows - r0), nc = min(C, n - c0);
  const T* a = static_cast<const T*>(x.a);

  for (int e = threadIdx.x; e < R * C; e += kThreads) {
    const int r = e / C, c = e % C;
    if (r < nr && c < nc) tile[c][r] = a[static_cast<size_t>(r0 + r) * n + c0 + c];
  }
  if (threadIdx.x < nc) {
    const int c = threadIdx.x, i = c0 + c, q = d.owner(i), li = i - d.first(q);
    if constexpr (F == Form::pack) {
      const size_t m = d.max_rows();  // block q: row li (of q's rows) holds my rows at stride m
      dest[c] = static_cast<T*>(x.send) + (q * m + li) * m + r0;
    } else {
      dest[c] = static_cast<T*>(x.b) + static_cast<size_t>(li) * n + d.first(x.me) + r0;
    }
    pe[c] = q;
  }
  __syncthreads();  // the tile and the destinations are in shared memory

  if constexpr (F == Form::thread || F == Form::pack) {
    // Element by element; consecutive threads take consecutive elements of a transposed row.
    for (int e = threadIdx.x; e < R * C; e += kThreads) {
      const int c = e / R, r = e % R;
      if (r < nr && c < nc) {
        if constexpr (F == Form::pack)
          dest[c][r] = tile[c][r];
        else
          gshmem::p(dest[c] + r, tile[c][r], pe[c]);
      }
    }
  } else if constexpr (F == Form::warp) {
    // A warp a transposed row: the put's source is the tile's row in shared memory.
    const int warp = threadIdx.x / 32;
    for (int c = warp; c < nc; c += kThreads / 32)
      gshmem::putmem<gshmem::warp_scope>(dest[c], &tile[c][0], nr * sizeof(T), pe[c]);
  } else {
    for (int c = 0; c < nc; ++c) gshmem::putmem<gshmem::block_scope>(dest[c], &tile[c][0], nr * sizeof(T), pe[c]);
  }
}

template <class T, Form F>
inline cudaError_t launch_transpose(const Args& x, cudaStream_t stream) {
  const int rows = x.d.rows(x.me);
  if (rows == 0) return cudaSuccess;
  const dim3 grid((x.d.n + Tile<F>::kCols - 1) / Tile<F>::kCols, (rows + Tile<F>::kRows - 1) / Tile<F>::kRows);
  k_transpose<T, F><<<grid, kThreads, 0, stream>>>(x);
  return cudaGetLastError();
}

// The unpack: block p of `recv` (p's rows of my columns, transposed: my row li at stride
// max_rows) into B[li][first_p ...]. One CTA row a (row, PE) pair, threads along the row.
template <class T>
static __global__ void k_unpack(const T* recv, T* b, Dist d, int me) {
  const size_t m = d.max_rows();
  const int rows = d.rows(me);
  for (int y = blockIdx.y; y < rows * d.npes; y += gridDim.y) {
    const int li = y % rows, p = y / rows;
    const T* src = recv + (p * m + li) * m;
    T* dst = b + static_cast<size_t>(li) * d.n + d.first(p);
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < d.rows(p); j += gridDim.x * blockDim.x) dst[j] = src[j];
  }
}

template <class T>
inline cudaError_t launch_unpack(const T* recv, T* b, const Dist& d, int me, cudaStream_t stream) {
  const int y = d.rows(me) * d.npes;
  if (y == 0) return cudaSuccess;
  k_unpack<T><<<dim3((d.max_rows() + 255) / 256, y < 65535 ? y : 65535), 256, 0, stream>>>(recv, b, d, me);
  return cudaGetLastError();
}

}  // namespace transpose

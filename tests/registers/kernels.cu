// SPDX-License-Identifier: BSD-3-Clause
// Representative user kernels for the register test (check_registers.py, which states the rules).
// The device API is inlined into the user's kernel, so whatever a call keeps live takes the
// kernel's registers; a slow path compiled in line (a timeout report's printf, a debug check) can
// raise the kernel's register count, give it a stack frame, or push a 1,024-thread kernel past the
// 64 registers with which it launches. Each kernel is compiled twice from this one source:
//   GSHMEM_REG_WITH=1  "with": the gshmem calls;
//   GSHMEM_REG_WITH=0  "bare": each call replaced by what the kernel would do in its place
//                      without the library: a local store or copy (as many 16-byte loads in
//                      flight as the library's copy), a volatile poll, __syncthreads(), or only
//                      keeping the arguments live (reg::use); the computation stays either way.
// Both builds have the same extern "C" kernels; the checker compares them one by one.
//
// Names, for the checker: _t1024  launched with 1,024 threads a block, without __launch_bounds__
// (as users' kernels often are): it launches only if it needs at most 64 registers; _lb1024
// __launch_bounds__(1024): ptxas may use up to 64 registers, and two such blocks share an SM only
// at 32 or fewer; _2x1024
// __launch_bounds__(1024, 2): two such blocks an SM, 32 registers a thread.
//   (a) stencil_*, jacobi_step  a 5-point stencil step ending in a block put of its boundary row
//                               and a signal to the neighbour (perftest/apps/jacobi.cu's k_step)
//       halo_row_step           the same with one row a CTA and waits (perftest/apps/jacobi_nbi.cu)
//   (b) gemm_wait_each          a compute loop that waits for a signal at the top of each
//                               iteration (perftest/apps/matmul.cu's k_gemm)
//   (c) rma_bw_put_*            perftest/device/rma_bw.cu's put kernel at each scope
//   (d) gemm_put_signal         a matmul step: wait, multiply, pass the block on (block put_signal)
//   (e) call_*                  each common call alone
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if !defined(GSHMEM_REG_WITH)
#error "compile with -DGSHMEM_REG_WITH=1 (with the gshmem calls) or 0 (bare)"
#endif

namespace reg {

constexpr bool kWith = GSHMEM_REG_WITH != 0;

// Keeps values live up to this point without an instruction (the bare forms' stand-in for a call
// that only consumes its arguments).
__device__ __forceinline__ void use1(unsigned long long a) { asm volatile("" ::"l"(a)); }
template <class... A>
__device__ __forceinline__ void use(A... a) {
  (use1(static_cast<unsigned long long>(a)), ...);
}

// The bare forms of the calls: what the kernel would do locally. A copy by `n` threads (thread r
// of them) keeps kU 16-byte loads in flight per thread, as the library's copy does (4; 8 for a
// lone thread): the same work, so that the comparison shows what the calls add to it.
template <int kU>
__device__ __forceinline__ void group_copy(void* dst, const void* src, size_t bytes, size_t r, size_t n) {
  const uint4* s = static_cast<const uint4*>(src);
  uint4* d = static_cast<uint4*>(dst);
  const size_t units = bytes / 16;
  size_t i = r;
  for (; i + (kU - 1) * n < units; i += kU * n) {
    uint4 v[kU];
#pragma unroll
    for (int k = 0; k < kU; ++k) v[k] = s[i + k * n];
#pragma unroll
    for (int k = 0; k < kU; ++k) d[i + k * n] = v[k];
  }
  for (; i < units; i += n) d[i] = s[i];
}
__device__ __forceinline__ void block_copy(void* dst, const void* src, size_t bytes) {
  group_copy<4>(dst, src, bytes, threadIdx.x, blockDim.x);
}
__device__ __forceinline__ void warp_copy(void* dst, const void* src, size_t bytes) {
  group_copy<4>(dst, src, bytes, threadIdx.x % 32, 32);
}
__device__ __forceinline__ void thread_copy(void* dst, const void* src, size_t bytes) {
  group_copy<8>(dst, src, bytes, 0, 1);
}
__device__ __forceinline__ void poll_ge(const uint64_t* p, uint64_t want) {
  while (*static_cast<const volatile uint64_t*>(p) < want) {
  }
}

// ---- (a) a 5-point stencil step over a tile, ending in a block put of its boundary row ----
// A CTA covers blockDim.x columns of a tile of `rows` rows; each thread walks its column down,
// keeping the rows above and below in registers.
struct Tile {
  const double* in;  // (rows + 2) x n, with the halo rows
  double* out;
  double* halo;  // symmetric: the neighbour's halo row
  uint64_t* sig;
  int rows, n, pe;
};

__device__ __forceinline__ void stencil(const Tile& t) {
  const size_t n = static_cast<size_t>(t.n);
  const size_t j = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j + 1 >= n) return;
  const double* p = t.in + j;
  double up = p[0], mid = p[n];
  for (int i = 1; i <= t.rows; ++i) {
    const double down = p[(i + 1) * n];
    t.out[i * n + j] = 0.25 * ((up + down) + (p[i * n - 1] + p[i * n + 1]));
    up = mid;
    mid = down;
  }
}

// The CTA's strip of the first computed row: its put's byte count.
__device__ __forceinline__ size_t strip_bytes(const Tile& t) {
  const size_t n = static_cast<size_t>(t.n), j0 = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x;
  return min(static_cast<size_t>(blockDim.x), n - 1 - j0) * sizeof(double);
}

// putmem_nbi_block, quiet of the block, then one thread's signal.
__device__ __forceinline__ void stencil_put_nbi(const Tile& t) {
  stencil(t);
  __syncthreads();
  const size_t j0 = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x;
  const size_t bytes = strip_bytes(t);
  if constexpr (kWith) {
    gshmemx_putmem_nbi_block(t.halo + j0, t.out + t.n + j0, bytes, t.pe);
    gshmem::quiet<gshmem::block_scope>();
    if (threadIdx.x == 0) gshmemx_signal_op(t.sig, 1, GSHMEM_SIGNAL_ADD, t.pe);
  } else {
    block_copy(t.halo + j0, t.out + t.n + j0, bytes);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(t.sig), 1ull);
    use(t.pe);
  }
}

// putmem_signal_nbi_block: the put and its signal in one call.
__device__ __forceinline__ void stencil_put_signal(const Tile& t) {
  stencil(t);
  __syncthreads();
  const size_t j0 = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x;
  const size_t bytes = strip_bytes(t);
  if constexpr (kWith) {
    gshmemx_putmem_signal_nbi_block(t.halo + j0, t.out + t.n + j0, bytes, t.sig, 1, GSHMEM_SIGNAL_ADD, t.pe);
  } else {
    block_copy(t.halo + j0, t.out + t.n + j0, bytes);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(t.sig), 1ull);
    use(t.pe);
  }
}

// ---- perftest/apps/jacobi.cu's k_step: wait for the halo rows, compute kRows rows a thread with
// all their loads in flight, put the boundary strip with putmem_signal<block> ----
constexpr int kRows = 8;

struct Step {
  const double* in;
  double* out;
  int rows, n;
  int up, down, up_rows;
  uint64_t* sig;
  uint64_t it;
};

// A boundary CTA's wait, by thread 0, until every strip of the neighbours' rows of the previous
// iteration is in its halos (sig[0]: top, sig[1]: bottom; `want` strips each).
__device__ __forceinline__ void wait_for_strips(uint64_t* sig, bool top, bool bottom, uint64_t want) {
  if (!top && !bottom) return;
  if (threadIdx.x == 0) {
    if constexpr (kWith) {
      if (top) gshmem::signal_wait_until(&sig[0], gshmem::cmp::ge, want);
      if (bottom) gshmem::signal_wait_until(&sig[1], gshmem::cmp::ge, want);
    } else {
      if (top) poll_ge(&sig[0], want);
      if (bottom) poll_ge(&sig[1], want);
    }
  }
  __syncthreads();
}

__device__ __forceinline__ void jacobi_step(const Step& s) {
  const int r0 = 1 + static_cast<int>(blockIdx.y) * kRows;
  const bool top = blockIdx.y == 0 && s.up >= 0;
  const bool bottom = blockIdx.y == gridDim.y - 1 && s.down >= 0;
  wait_for_strips(s.sig, top, bottom, static_cast<uint64_t>(gridDim.x) * s.it);
  const size_t n = static_cast<size_t>(s.n);
  const size_t j0 = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x, j = j0 + threadIdx.x;
  if (j + 1 < n) {
    const int rows = min(kRows, s.rows - r0 + 1);
    const double* p = s.in + (r0 - 1) * n + j;
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
    __syncthreads();
    const size_t bytes = min(static_cast<size_t>(blockDim.x), n - 1 - j0) * sizeof(double);
    if constexpr (kWith) {
      if (top)
        gshmem::putmem_signal<gshmem::block_scope>(s.out + (s.up_rows + 1) * n + j0, s.out + n + j0, bytes, &s.sig[1],
                                                   1, GSHMEM_SIGNAL_ADD, s.up);
      if (bottom)
        gshmem::putmem_signal<gshmem::block_scope>(s.out + j0, s.out + static_cast<size_t>(s.rows) * n + j0, bytes,
                                                   &s.sig[0], 1, GSHMEM_SIGNAL_ADD, s.down);
    } else {
      if (top) block_copy(s.out + (s.up_rows + 1) * n + j0, s.out + n + j0, bytes);
      if (bottom) block_copy(s.out + j0, s.out + static_cast<size_t>(s.rows) * n + j0, bytes);
      __syncthreads();
      if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(&s.sig[top ? 1 : 0]), 1ull);
      use(s.up, s.down);
    }
  }
}

// perftest/apps/jacobi_nbi.cu's step: one grid row a CTA of 1,024 threads (floats), thread 0's
// waits for the neighbours' strips, the update, then the boundary CTAs' block put, the block's
// quiet and thread 0's signal. Its bare form needs 14 registers: a block of 1,024 threads an SM
// holds two of them only at 32 or fewer, which is what the memory-bound update needs (issue 51:
// at 58 registers this kernel ran at 0.6 x NVSHMEM's speed).
struct Row {
  const float* in;
  float* out;
  int rows, n, up, down, up_rows;
  uint64_t* sig;
  uint64_t it;
};

__device__ __forceinline__ void row_send(float* dest, const float* src, size_t bytes, uint64_t* sig, int pe) {
  if constexpr (kWith) {
    gshmem::putmem_nbi<gshmem::block_scope>(dest, src, bytes, pe);
    gshmem::quiet<gshmem::block_scope>();
    if (threadIdx.x == 0) gshmem::signal_op(sig, 1, GSHMEM_SIGNAL_ADD, pe);
  } else {
    block_copy(dest, src, bytes);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(sig), 1ull);
    use(pe);
  }
}

__device__ __forceinline__ void halo_row_step(const Row& s) {
  const bool top = blockIdx.y == 0, bottom = blockIdx.y == gridDim.y - 1;
  wait_for_strips(s.sig, top, bottom, static_cast<uint64_t>(gridDim.x) * s.it);
  const size_t n = static_cast<size_t>(s.n), r = 1 + blockIdx.y;
  const size_t j0 = 1 + static_cast<size_t>(blockIdx.x) * blockDim.x, j = j0 + threadIdx.x;
  if (j + 1 < n)
    s.out[r * n + j] =
        0.25f * ((s.in[r * n + j - 1] + s.in[r * n + j + 1]) + (s.in[(r - 1) * n + j] + s.in[(r + 1) * n + j]));
  if (top || bottom) {
    __syncthreads();
    const size_t bytes = min(static_cast<size_t>(blockDim.x), n - 1 - j0) * sizeof(float);
    if (top) row_send(s.out + (s.up_rows + 1) * n + j0, s.out + n + j0, bytes, &s.sig[1], s.up);
    if (bottom) row_send(s.out + j0, s.out + static_cast<size_t>(s.rows) * n + j0, bytes, &s.sig[0], s.down);
  }
}

// ---- (b), (d) a tiled matrix product (perftest/apps/matmul.cu's k_gemm) ----
constexpr int kTile = 64, kTileK = 16, kGemmThreads = 256;

struct Gemm {
  const double* a;
  const double* b;
  double* c;
  double* dst;  // symmetric: (d) where the block goes on `pe`
  const double* src;
  uint64_t* sig;
  uint64_t want;
  int m, n, k, pe;
};

// C = A B over 16-deep slices of k. kWaitEach: thread 0 waits for slice k0's signal first
// (a compute loop fed slice by slice by another PE).
template <bool kWaitEach>
__device__ __forceinline__ void gemm(const Gemm& g) {
  __shared__ double as[kTileK][kTile + 1];
  __shared__ double bs[kTileK][kTile];
  const size_t n = static_cast<size_t>(g.n);
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int i0 = blockIdx.y * kTile, j0 = blockIdx.x * kTile;
  double acc[4][4] = {};
  for (int k0 = 0; k0 < g.k; k0 += kTileK) {
    if (kWaitEach) {
      if (threadIdx.x == 0) {
        if constexpr (kWith)
          gshmem_signal_wait_until(g.sig, GSHMEM_CMP_GE, g.want + k0);
        else
          poll_ge(g.sig, g.want + k0);
      }
      __syncthreads();
    }
    for (int e = threadIdx.x; e < kTile * kTileK; e += kGemmThreads) {
      const int ai = e / kTileK, ak = e % kTileK;
      as[ak][ai] = (i0 + ai < g.m && k0 + ak < g.k) ? g.a[static_cast<size_t>(i0 + ai) * n + k0 + ak] : 0.0;
      const int bk = e / kTile, bj = e % kTile;
      bs[bk][bj] = (k0 + bk < g.k && j0 + bj < g.n) ? g.b[static_cast<size_t>(k0 + bk) * n + j0 + bj] : 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      double av[4], bv[4];
#pragma unroll
      for (int r = 0; r < 4; ++r) av[r] = as[kk][ty + 16 * r];
#pragma unroll
      for (int s = 0; s < 4; ++s) bv[s] = bs[kk][tx + 16 * s];
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int s = 0; s < 4; ++s) acc[r][s] = fma(av[r], bv[s], acc[r][s]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int i = i0 + ty + 16 * r;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int j = j0 + tx + 16 * s;
      if (i < g.m && j < g.n) g.c[static_cast<size_t>(i) * n + j] = acc[r][s];
    }
  }
}

// ---- (c) perftest/device/rma_bw.cu's put kernel ----
template <class S>
__device__ __forceinline__ int groups_per_block() {
  return std::is_same<S, gshmem::thread_scope>::value ? blockDim.x
         : std::is_same<S, gshmem::warp_scope>::value ? blockDim.x / 32
                                                      : 1;
}
template <class S>
__device__ __forceinline__ int group_index() {
  return blockIdx.x * groups_per_block<S>() + (std::is_same<S, gshmem::thread_scope>::value ? threadIdx.x
                                               : std::is_same<S, gshmem::warp_scope>::value ? threadIdx.x / 32
                                                                                            : 0);
}
template <class S>
__device__ __forceinline__ void scope_copy(void* dst, const void* src, size_t bytes) {
  if constexpr (std::is_same<S, gshmem::block_scope>::value) {
    block_copy(dst, src, bytes);
  } else if constexpr (std::is_same<S, gshmem::warp_scope>::value) {
    warp_copy(dst, src, bytes);
  } else {
    thread_copy(dst, src, bytes);
  }
}

template <class S>
__device__ __forceinline__ void rma_bw_put(char* dst, const char* src, size_t bytes, int peer, int iters) {
  const size_t groups = static_cast<size_t>(gridDim.x) * groups_per_block<S>();
  size_t chunk = (bytes + groups - 1) / groups;
  chunk = (chunk + 15) & ~size_t(15);
  const size_t off = static_cast<size_t>(group_index<S>()) * chunk;
  const size_t len = off < bytes ? (bytes - off < chunk ? bytes - off : chunk) : 0;
  for (int i = 0; i < iters; ++i) {
    if (len == 0) break;
    if constexpr (kWith)
      gshmem::putmem_nbi<S>(dst + off, src + off, len, peer);
    else
      scope_copy<S>(dst + off, src + off, len);
  }
  if constexpr (kWith)
    gshmem::quiet<S>();
  else
    __syncthreads();
  use(peer);
}

}  // namespace reg

using reg::kWith;

// (a)
extern "C" __global__ void __launch_bounds__(1024) stencil_put_nbi_block_lb1024(reg::Tile t) {
  reg::stencil_put_nbi(t);
}
extern "C" __global__ void stencil_put_nbi_block_t1024(reg::Tile t) { reg::stencil_put_nbi(t); }
extern "C" __global__ void __launch_bounds__(1024) stencil_put_signal_block_lb1024(reg::Tile t) {
  reg::stencil_put_signal(t);
}
extern "C" __global__ void stencil_put_signal_block_t1024(reg::Tile t) { reg::stencil_put_signal(t); }
extern "C" __global__ void __launch_bounds__(1024, 2) stencil_put_nbi_block_2x1024(reg::Tile t) {
  reg::stencil_put_nbi(t);
}
extern "C" __global__ void __launch_bounds__(1024, 2) stencil_put_signal_block_2x1024(reg::Tile t) {
  reg::stencil_put_signal(t);
}
extern "C" __global__ void __launch_bounds__(1024) halo_row_step_lb1024(reg::Row s) { reg::halo_row_step(s); }
// As perftest/apps/jacobi.cu launches it.
extern "C" __global__ void __launch_bounds__(512, 1) jacobi_step(reg::Step s) { reg::jacobi_step(s); }

// (b) a compute loop that waits for a signal at the top of each iteration.
extern "C" __global__ void __launch_bounds__(reg::kGemmThreads) gemm_wait_each(reg::Gemm g) { reg::gemm<true>(g); }

// (c) as perftest builds it (__launch_bounds__(1024)), without the bound, and for two blocks an SM.
#define REG_RMA_BW(scope)                                                                                   \
  extern "C" __global__ void __launch_bounds__(1024)                                                        \
      rma_bw_put_##scope##_lb1024(char* dst, const char* src, size_t bytes, int peer, int iters) {          \
    reg::rma_bw_put<gshmem::scope##_scope>(dst, src, bytes, peer, iters);                                   \
  }                                                                                                         \
  extern "C" __global__ void rma_bw_put_##scope##_t1024(char* dst, const char* src, size_t bytes, int peer, \
                                                        int iters) {                                        \
    reg::rma_bw_put<gshmem::scope##_scope>(dst, src, bytes, peer, iters);                                   \
  }
extern "C" __global__ void __launch_bounds__(1024, 2)
    rma_bw_put_block_2x1024(char* dst, const char* src, size_t bytes, int peer, int iters) {
  reg::rma_bw_put<gshmem::block_scope>(dst, src, bytes, peer, iters);
}
REG_RMA_BW(thread)
REG_RMA_BW(warp)
REG_RMA_BW(block)

// (d) a matmul step: wait for the block, multiply, pass the block on with a block put + signal
// (matmul.cu's ring shift fused into the multiply).
extern "C" __global__ void __launch_bounds__(reg::kGemmThreads) gemm_put_signal(reg::Gemm g) {
  if (threadIdx.x == 0) {
    if constexpr (kWith)
      gshmem_signal_wait_until(g.sig, GSHMEM_CMP_GE, g.want);
    else
      reg::poll_ge(g.sig, g.want);
  }
  __syncthreads();
  reg::gemm<false>(g);
  const size_t off = static_cast<size_t>(blockIdx.y * gridDim.x + blockIdx.x) * reg::kTile * reg::kTile;
  const size_t bytes = reg::kTile * reg::kTile * sizeof(double);
  if constexpr (kWith) {
    gshmem::put_signal_nbi<gshmem::block_scope>(g.dst + off, g.src + off, reg::kTile * reg::kTile, g.sig + 1, 1,
                                                GSHMEM_SIGNAL_ADD, g.pe);
  } else {
    reg::block_copy(g.dst + off, g.src + off, bytes);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(g.sig + 1), 1ull);
    reg::use(g.pe);
  }
}

// ---- (e) each common call alone ----
extern "C" __global__ void call_p(int* dest, int value, int pe) {
  if constexpr (kWith)
    gshmem_int_p(dest, value, pe);
  else
    *static_cast<volatile int*>(dest) = value, reg::use(pe);
}
extern "C" __global__ void call_g(int* out, const int* source, int pe) {
  if constexpr (kWith)
    *out = gshmem_int_g(source, pe);
  else
    *out = *static_cast<const volatile int*>(source), reg::use(pe);
}
extern "C" __global__ void call_put_warp(double* dest, const double* source, size_t nelems, int pe) {
  if constexpr (kWith)
    gshmem::put<gshmem::warp_scope>(dest, source, nelems, pe);
  else
    reg::warp_copy(dest, source, nelems * sizeof(double)), reg::use(pe);
}
extern "C" __global__ void call_putmem_nbi_block(void* dest, const void* source, size_t bytes, int pe) {
  if constexpr (kWith)
    gshmemx_putmem_nbi_block(dest, source, bytes, pe);
  else
    reg::block_copy(dest, source, bytes), reg::use(pe);
}
extern "C" __global__ void call_putmem_signal_nbi_block(void* dest, const void* source, size_t bytes, uint64_t* sig,
                                                        int pe) {
  if constexpr (kWith) {
    gshmemx_putmem_signal_nbi_block(dest, source, bytes, sig, 1, GSHMEM_SIGNAL_ADD, pe);
  } else {
    reg::block_copy(dest, source, bytes);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(sig), 1ull);
    reg::use(pe);
  }
}
extern "C" __global__ void call_signal_op(uint64_t* sig, uint64_t value, int pe) {
  if constexpr (kWith)
    gshmemx_signal_op(sig, value, GSHMEM_SIGNAL_ADD, pe);
  else
    atomicAdd(reinterpret_cast<unsigned long long*>(sig), value), reg::use(pe);
}
extern "C" __global__ void call_quiet() {
  if constexpr (kWith)
    gshmem_quiet();
  else
    __threadfence_system();
}
extern "C" __global__ void call_quiet_block() {
  if constexpr (kWith) {
    gshmem::quiet<gshmem::block_scope>();
  } else {
    __syncthreads();
    __threadfence_system();
  }
}
extern "C" __global__ void call_fence() {
  if constexpr (kWith)
    gshmem_fence();
  else
    __threadfence_system();
}
extern "C" __global__ void call_atomic_fetch_add(long long* out, long long* dest, long long value, int pe) {
  if constexpr (kWith)
    *out = gshmem_longlong_atomic_fetch_add(dest, value, pe);
  else
    *out = atomicAdd(reinterpret_cast<unsigned long long*>(dest), static_cast<unsigned long long>(value)), reg::use(pe);
}
extern "C" __global__ void call_wait_until(int* ivar, int value) {
  if constexpr (kWith) {
    gshmem_int_wait_until(ivar, GSHMEM_CMP_GE, value);
  } else {
    while (*static_cast<volatile int*>(ivar) < value) {
    }
  }
}
extern "C" __global__ void call_signal_wait_until(uint64_t* out, uint64_t* sig, uint64_t value) {
  if constexpr (kWith)
    *out = gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, value);
  else
    reg::poll_ge(sig, value), *out = *sig;
}
extern "C" __global__ void call_barrier_all_block() {
  if constexpr (kWith)
    gshmemx_barrier_all_block();
  else
    __syncthreads();
}
extern "C" __global__ void call_sync_all_block() {
  if constexpr (kWith)
    gshmemx_sync_all_block();
  else
    __syncthreads();
}
// A data-movement collective: its spanning path (teams across nodes) is a chain of calls out of
// line (impl/coll_span.cuh), whose widest function sets the kernel's registers.
extern "C" __global__ void call_fcollect_thread(double* dest, const double* source, size_t nelems) {
  if constexpr (kWith)
    gshmem::fcollect<gshmem::thread_scope>(GSHMEM_TEAM_WORLD, dest, source, nelems);
  else
    reg::thread_copy(dest, source, nelems * sizeof(double));
}
extern "C" __global__ void call_alltoalls_warp(double* dest, const double* source, ptrdiff_t dst, ptrdiff_t sst,
                                               size_t nelems) {
  if constexpr (kWith) {
    gshmem::alltoalls<gshmem::warp_scope>(GSHMEM_TEAM_WORLD, dest, source, dst, sst, nelems);
  } else {
    for (size_t i = threadIdx.x % 32; i < nelems; i += 32) dest[i * dst] = source[i * sst];
    __syncwarp();
  }
}
extern "C" __global__ void call_reduce_block(float* dest, const float* source, size_t n) {
  if constexpr (kWith) {
    gshmemx_float_sum_reduce_block(GSHMEM_TEAM_WORLD, dest, source, n);
  } else {
    __syncthreads();
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) dest[i] = source[i];
    __syncthreads();
  }
}

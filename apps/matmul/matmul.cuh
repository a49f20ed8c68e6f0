// SPDX-License-Identifier: BSD-3-Clause
// C = A x B for n x n matrices of doubles by circular shift (the ring algorithm), the solver
// alone: main.cu is the program around it (reference product, table) and perftest's `matmul` and
// `matmul_rowwise` rows (perftest/apps/matmul.cu) call the same code. Only CUDA and the gshmem
// device API here, so that perftest's NVSHMEM build compiles it too. The shift of B is written
// two ways on the same GPUs, grid, stream and kernels:
//   bulk  all rows at once: each of the shift kernel's CTAs puts one contiguous slice of the
//         block with putmem_signal<block>, one call per CTA and step.
//   rows  row by row, as the textbook loop writes it: one putmem<S> per row (S = thread, warp or
//         block; the rows dealt round-robin over the grid's threads, warps or CTAs), then
//         quiet<block> and one signal_op per CTA. The same CTAs, threads, bytes and signals:
//         only the granularity of the puts differs.
//
// Decomposition: PE p owns rows first_p .. first_p + rows_p - 1 of A, B and C, contiguous, the
// first n % npes PEs one row more (rows_of). B's row blocks travel around the ring: PE p starts
// with its own block and passes the block it holds to its left neighbour (p - 1) after each
// multiply step, getting the next from its right neighbour (p + 1), so after t shifts it holds
// block q = (p + t) % npes, and step t adds A[my rows, first_q .. first_q + rows_q - 1] x block q
// to C (the first step of a product stores). The blocks are uneven when npes does not divide n:
// the buffers are sized for the largest block, and the multiply's k range, the length of the put
// and the rows the next step reads follow the held block's rows_q. The shift counter t runs on
// across products and calls (the next product starts from whichever block is held).
//
// The shift is staged. The textbook version puts the block straight into the neighbour's copy of
// B, which that neighbour may still be multiplying with (or sending on): without a barrier per
// step it races, and with one every step waits for the slowest PE. Here every PE has two
// symmetric buffers whose roles alternate with t: the block of step t is in buf[t % 2] and the
// shift of step t writes it into the left neighbour's buf[(t + 1) % 2]. Two counting signals
// per PE (G = the shift kernel's CTAs, the same on every PE):
//   sig[0] "full"  the right neighbour's CTAs each add 1 per shift once their part of the block is
//                  in my buf (putmem_signal's release; in the row form quiet<block>, then
//                  signal_op). Step t + 1 (the multiply, or the wait kernel when the shifts run alone) first
//                  waits until sig[0] >= G (t + 1).
//   sig[1] "free"  the left neighbour's CTAs each add 1 per shift once they are done reading the
//                  block they sent (their put returned; a block barrier and a fence before the
//                  add), i.e. its buf[t % 2] may be overwritten. The shift of step t first waits
//                  until sig[1] >= G t.
// Why that is race-free:
//   - a block is read only once all of it arrived: the right neighbour's shifts run in its stream
//     order, so all G adds of its shift t come before any add of its shift t + 1 and
//     sig[0] >= G (t + 1) means every part of shift t is in; each add is ordered after its part
//     (a release, or quiet then the add), and the wait is an acquire. The shift of step t + 1,
//     which sends that block on, comes after the wait in stream order.
//   - a buffer is overwritten only once its owner is done with it: the shift of step t writes the
//     left neighbour's buf[(t + 1) % 2], which it last read in step t - 1 (its multiply, before
//     its shift kernel in stream order, and the put of its shift t - 1), and sig[1] >= G t says
//     all of that shift's CTAs were past their put. At t = 0 nothing read that buffer since the
//     start, which the callers' barriers fence.
//   - within step t a PE reads only its buf[t % 2], which nobody writes during that step (the
//     right neighbour's shift t writes the other one), so the put needs no local copy.
//   - no deadlock, whatever the CTA count: every wait is for a kernel of an earlier step on another PE
//     (multiply t + 1 on the right neighbour's shift t, shift t on the left neighbour's shift
//     t - 1), and no CTA waits for another CTA of its own grid, so no grid needs to be
//     co-resident. A wait that never ends reports and traps under GSHMEM_WAIT_TIMEOUT.
//
// Checked: every entry of A and B is a small integer hashed from its coordinates, so every
// partial sum is an integer far below 2^53 and exact in any order: the ring adds the k blocks in
// another order than the one-GPU product (from block p on), and every PE's rows of C equal that
// product (same kernel) bit for bit. C and the buffer the first shift writes start poisoned.
// The shifts alone are checked by the block each PE holds after the shifts against the rows of B it must be.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace matmul {

constexpr int kMaxThreads = 1024;  // most threads per CTA of the shift kernels
enum class Scope { thread, warp, block };

// Entry (i, j) of A (salt 1) or B (salt 2): an integer in [-8, 8] hashed from its coordinates.
// |a b| <= 64, so an entry of C and every partial sum of it is an integer of magnitude at most
// 64 n: exact in double for any n that fits in memory, whatever the order of the additions.
__device__ inline double entry(uint64_t i, uint64_t j, uint64_t salt) {
  uint64_t x = (i << 32 | j) * 0x9E3779B97F4A7C15ull + salt * 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 29)) * 0x94D049BB133111EBull;
  x ^= x >> 32;
  return static_cast<double>(static_cast<int>(x % 17) - 8);
}

static __global__ void k_fill(double* m, int n, uint64_t salt) {
  const size_t total = static_cast<size_t>(n) * n;
  for (size_t k = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<size_t>(gridDim.x) * blockDim.x)
    m[k] = entry(k / n, k % n, salt);
}

// The multiply: C (m x n) = or += A (m x k) B (k x n), all rows n elements long (A's rows
// start at the column of the block's first row). A plain shared-memory tiled kernel: a CTA of
// 16 x 16 threads computes a 64 x 64 tile of C, each thread 4 x 4 entries 16 apart (so that a
// warp's shared loads of B are 16 consecutive doubles and those of A two broadcasts), over
// 16-deep slices of k. In the ring it first waits for the block it reads (sig, want).
constexpr int kTile = 64, kTileK = 16, kGemmThreads = 256;

struct Gemm {
  const double* a = nullptr;  // a[i * n + k]
  const double* b = nullptr;  // b[k * n + j]
  double* c = nullptr;        // c[i * n + j]
  int m = 0, n = 0, k = 0;
  bool accumulate = false;  // C += A B; else C = A B (C is not read)
  uint64_t* sig = nullptr;  // wait until *sig >= want before reading b; nullptr: no wait
  uint64_t want = 0;
};

static __global__ void __launch_bounds__(kGemmThreads) k_gemm(Gemm g) {
  __shared__ double as[kTileK][kTile + 1];  // A's tile transposed: as[k][i]
  __shared__ double bs[kTileK][kTile];
  if (g.sig) {
    if (threadIdx.x == 0) gshmem::signal_wait_until(g.sig, gshmem::cmp::ge, g.want);
    __syncthreads();  // every thread's loads of b come after thread 0's acquire
  }
  const size_t n = static_cast<size_t>(g.n);
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int i0 = blockIdx.y * kTile, j0 = blockIdx.x * kTile;
  double acc[4][4] = {};
  for (int k0 = 0; k0 < g.k; k0 += kTileK) {
    for (int e = threadIdx.x; e < kTile * kTileK; e += kGemmThreads) {
      const int ai = e / kTileK, ak = e % kTileK;  // 16 threads read 16 consecutive entries of a row
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
    __syncthreads();  // the tiles are read before the next slice overwrites them
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int i = i0 + ty + 16 * r;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int j = j0 + tx + 16 * s;
      if (i < g.m && j < g.n) {
        double* p = g.c + static_cast<size_t>(i) * n + j;
        *p = g.accumulate ? *p + acc[r][s] : acc[r][s];
      }
    }
  }
}

// One shift: my held block (buf[t % 2]) into the left neighbour's buf[(t + 1) % 2], at the
// same offsets. The protocol is in the file comment.
struct Shift {
  const double* src = nullptr;  // my buf[t % 2]
  double* dst = nullptr;        // buf[(t + 1) % 2] (symmetric: written on `left`)
  int rows = 0, n = 0;          // the held block's rows, the row length
  int left = 0, right = 0;
  uint64_t* sig = nullptr;  // [0] full, [1] free
  uint64_t want_free = 0;   // G t
};

// Start of a CTA's part: the left neighbour is done with the buffer this shift writes.
__device__ inline void wait_free(const Shift& s) {
  if (threadIdx.x == 0) gshmem::signal_wait_until(&s.sig[1], gshmem::cmp::ge, s.want_free);
  __syncthreads();  // every thread's stores into that buffer come after thread 0's acquire
}

// End of a CTA's part: its threads are done reading my buf[t % 2] (the block barrier orders
// their loads before thread 0's fence and add), so the right neighbour may overwrite it in its
// shift of step t + 1.
__device__ inline void ack_free(const Shift& s) {
  __syncthreads();
  if (threadIdx.x == 0) {
    gshmem::fence();
    gshmem::signal_op(&s.sig[1], 1, GSHMEM_SIGNAL_ADD, s.right);
  }
}

// Slices of the bulk shift start on multiples of 32 doubles (256 bytes), so that every CTA's
// copy runs on aligned 16-byte accesses.
constexpr size_t kSliceAlign = 32;

// All rows at once: CTA g puts slice g of the block, the put and its signal in one call.
static __global__ void __launch_bounds__(kMaxThreads) k_shift_bulk(Shift s) {
  wait_free(s);
  const size_t elems = static_cast<size_t>(s.rows) * s.n;
  const size_t chunk = ((elems + gridDim.x - 1) / gridDim.x + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
  const size_t lo = min(elems, blockIdx.x * chunk), hi = min(elems, lo + chunk);
  if (hi > lo)
    gshmem::putmem_signal<gshmem::block_scope>(s.dst + lo, s.src + lo, (hi - lo) * sizeof(double), &s.sig[0], 1,
                                               GSHMEM_SIGNAL_ADD, s.left);
  else if (threadIdx.x == 0)  // a small block leaves this CTA nothing to send: it counts all the same
    gshmem::signal_op(&s.sig[0], 1, GSHMEM_SIGNAL_ADD, s.left);
  ack_free(s);
}

// Row by row: one putmem<S> per row, the rows dealt round-robin over the grid's threads
// (thread_scope), warps or CTAs (block_scope); then the CTA's puts are completed together
// (quiet<block>) and thread 0 adds the CTA's 1 to the neighbour's count.
template <class S>
static __global__ void __launch_bounds__(kMaxThreads) k_shift_rows(Shift s) {
  wait_free(s);
  int unit = blockIdx.x, units = gridDim.x;
  if constexpr (std::is_same<S, gshmem::thread_scope>::value) {
    unit = blockIdx.x * blockDim.x + threadIdx.x;
    units = gridDim.x * blockDim.x;
  } else if constexpr (std::is_same<S, gshmem::warp_scope>::value) {
    unit = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    units = gridDim.x * (blockDim.x / 32);
  }
  const size_t row = static_cast<size_t>(s.n);
  for (int r = unit; r < s.rows; r += units)
    gshmem::putmem<S>(s.dst + r * row, s.src + r * row, row * sizeof(double), s.left);
  gshmem::quiet<gshmem::block_scope>();  // every row this CTA put is delivered
  if (threadIdx.x == 0) gshmem::signal_op(&s.sig[0], 1, GSHMEM_SIGNAL_ADD, s.left);
  ack_free(s);
}

// -o shift: what the multiply's wait does, alone.
static __global__ void __launch_bounds__(32) k_wait(uint64_t* sig, uint64_t want) {
  if (threadIdx.x == 0) gshmem::signal_wait_until(sig, gshmem::cmp::ge, want);
}

inline int rows_of(int n, int npes, int pe) { return n / npes + (pe < n % npes ? 1 : 0); }
inline int64_t first_of(int n, int npes, int pe) {
  return static_cast<int64_t>(pe) * (n / npes) + std::min(pe, n % npes);
}

inline cudaError_t launch_gemm(const Gemm& g, cudaStream_t stream) {
  const dim3 grid((g.n + kTile - 1) / kTile, (g.m + kTile - 1) / kTile);
  k_gemm<<<grid, kGemmThreads, 0, stream>>>(g);
  return cudaGetLastError();
}

enum class Form { bulk, rows };

// One way of running the ring: `iters` products (or their shifts alone) from the current state,
// the shift counter t (which the signals count in) continuing across calls. The first CUDA error
// of a launch is kept in `err` (the caller checks it).
struct Ring {
  int n = 0, npes = 1, me = 0;
  Form form = Form::bulk;
  Scope scope = Scope::block;           // of the row form's puts
  bool compute = true;                  // whole products; false: the shifts alone
  int ctas = 1, threads = 32;           // of the shift kernels
  const double* a = nullptr;            // A, whole (local): this PE reads its rows only
  double* c = nullptr;                  // my rows of C (local)
  double* buf[2] = {nullptr, nullptr};  // symmetric, max rows x n each
  uint64_t* sig = nullptr;              // symmetric [2]: full, free
  size_t buf_elems = 0;
  uint64_t t = 0;
  cudaStream_t stream = nullptr;
  cudaError_t err = cudaSuccess;
  void note(cudaError_t e) {
    if (err == cudaSuccess) err = e;
  }

  int rows(int pe) const { return rows_of(n, npes, pe); }
  int64_t first(int pe) const { return first_of(n, npes, pe); }
  int held() const { return static_cast<int>((static_cast<uint64_t>(me) + t) % static_cast<uint64_t>(npes)); }
  uint64_t count(uint64_t steps) const { return static_cast<uint64_t>(ctas) * steps; }

  void run(int iters) {
    for (int k = 0; k < iters; ++k) {
      for (int s = 0; s < npes; ++s) {
        consume(s);
        if (s + 1 < npes) {
          shift();
          ++t;
        }
      }
    }
  }

  // Step s of a product with the block of step t: multiply it into my rows of C, after waiting
  // for it; or, with the shifts alone, only the wait (none before a product's first shift: that block
  // is the one the previous shift's wait, or the start, put in place).
  void consume(int s) {
    const bool ring = npes > 1;
    if (!compute) {
      if (s > 0) {
        k_wait<<<1, 32, 0, stream>>>(&sig[0], count(t));
        note(cudaGetLastError());
      }
      return;
    }
    const int q = held();
    Gemm g;
    g.a = a + first(me) * static_cast<int64_t>(n) + first(q);
    g.b = buf[t & 1];
    g.c = c;
    g.m = rows(me);
    g.n = n;
    g.k = rows(q);
    g.accumulate = s > 0;
    if (ring) {
      g.sig = &sig[0];
      g.want = count(t);
    }
    note(launch_gemm(g, stream));
  }

  void shift() {
    Shift sh;
    sh.src = buf[t & 1];
    sh.dst = buf[(t + 1) & 1];
    sh.rows = rows(held());
    sh.n = n;
    sh.left = (me + npes - 1) % npes;
    sh.right = (me + 1) % npes;
    sh.sig = sig;
    sh.want_free = count(t);
    if (form == Form::bulk)
      k_shift_bulk<<<ctas, threads, 0, stream>>>(sh);
    else if (scope == Scope::thread)
      k_shift_rows<gshmem::thread_scope><<<ctas, threads, 0, stream>>>(sh);
    else if (scope == Scope::warp)
      k_shift_rows<gshmem::warp_scope><<<ctas, threads, 0, stream>>>(sh);
    else
      k_shift_rows<gshmem::block_scope><<<ctas, threads, 0, stream>>>(sh);
    note(cudaGetLastError());
  }

  // The block of step t in buf[t % 2], copied from B (every PE generated all of B); the other
  // buffer, which the next shift writes, and C poisoned. Collective through the callers'
  // barriers: no PE sends while another starts.
  cudaError_t start(const double* b) {
    const int q = held();
    note(cudaMemcpyAsync(buf[t & 1], b + first(q) * static_cast<int64_t>(n),
                         static_cast<size_t>(rows(q)) * n * sizeof(double), cudaMemcpyDeviceToDevice, stream));
    note(cudaMemsetAsync(buf[(t + 1) & 1], 0xA5, buf_elems * sizeof(double), stream));
    if (compute) note(cudaMemsetAsync(c, 0xA5, static_cast<size_t>(rows(me)) * n * sizeof(double), stream));
    note(cudaStreamSynchronize(stream));
    return err;
  }
};

}  // namespace matmul

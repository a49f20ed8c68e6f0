// SPDX-License-Identifier: BSD-3-Clause
// matmul, matmul_rowwise: C = A x B for n x n matrices of doubles by circular shift (the ring
// algorithm; the matrix multiplication of the application targets), with the shift of B written
// two ways on the same GPUs, grid, stream and kernels:
//   matmul          all rows at once: each of the -c CTAs (-t threads) puts one contiguous slice
//                   of the block with putmem_signal<block>, one call per CTA and step.
//   matmul_rowwise  row by row, as the textbook loop writes it: one putmem<S> per row (S = -s:
//                   thread, warp or block; the rows dealt round-robin over the grid's threads,
//                   warps or CTAs), then quiet<block> and one signal_op per CTA. The same CTAs,
//                   threads, bytes and signals: only the granularity of the puts differs.
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
// per PE (G = -c CTAs of the shift kernel, the same on every PE):
//   sig[0] "full"  the right neighbour's CTAs each add 1 per shift once their part of the block is
//                  in my buf (putmem_signal's release; in the row form quiet<block>, then
//                  signal_op). Step t + 1 (the multiply, or the wait kernel of -o shift) first
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
//   - no deadlock, whatever -c: every wait is for a kernel of an earlier step on another PE
//     (multiply t + 1 on the right neighbour's shift t, shift t on the left neighbour's shift
//     t - 1), and no CTA waits for another CTA of its own grid, so no grid needs to be
//     co-resident. A wait that never ends reports and traps under GSHMEM_WAIT_TIMEOUT.
//
// Checked: every entry of A and B is a small integer hashed from its coordinates, so every
// partial sum is an integer far below 2^53 and exact in any order: the ring adds the k blocks in
// another order than the one-GPU product (from block p on), and every PE's rows of C equal that
// product (same kernel) bit for bit. C and the buffer the first shift writes start poisoned.
// -o shift checks the block each PE holds after the shifts against the rows of B it must be.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/bench.h"
#include "../common/context.h"
#include "../common/timing.h"
#include "../common/verify.h"

namespace perf {
namespace {

// Entry (i, j) of A (salt 1) or B (salt 2): an integer in [-8, 8] hashed from its coordinates.
// |a b| <= 64, so an entry of C and every partial sum of it is an integer of magnitude at most
// 64 n: exact in double for any n that fits in memory, whatever the order of the additions.
__device__ double entry(uint64_t i, uint64_t j, uint64_t salt) {
  uint64_t x = (i << 32 | j) * 0x9E3779B97F4A7C15ull + salt * 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 29)) * 0x94D049BB133111EBull;
  x ^= x >> 32;
  return static_cast<double>(static_cast<int>(x % 17) - 8);
}

__global__ void k_fill(double* m, int n, uint64_t salt) {
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

__global__ void __launch_bounds__(kGemmThreads) k_gemm(Gemm g) {
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
__device__ void wait_free(const Shift& s) {
  if (threadIdx.x == 0) gshmem::signal_wait_until(&s.sig[1], gshmem::cmp::ge, s.want_free);
  __syncthreads();  // every thread's stores into that buffer come after thread 0's acquire
}

// End of a CTA's part: its threads are done reading my buf[t % 2] (the block barrier orders
// their loads before thread 0's fence and add), so the right neighbour may overwrite it in its
// shift of step t + 1.
__device__ void ack_free(const Shift& s) {
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
__global__ void __launch_bounds__(kMaxThreads) k_shift_bulk(Shift s) {
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
__global__ void __launch_bounds__(kMaxThreads) k_shift_rows(Shift s) {
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
__global__ void __launch_bounds__(32) k_wait(uint64_t* sig, uint64_t want) {
  if (threadIdx.x == 0) gshmem::signal_wait_until(sig, gshmem::cmp::ge, want);
}

int rows_of(int n, int npes, int pe) { return n / npes + (pe < n % npes ? 1 : 0); }
int64_t first_of(int n, int npes, int pe) { return static_cast<int64_t>(pe) * (n / npes) + std::min(pe, n % npes); }

void launch_gemm(Ctx& ctx, const Gemm& g) {
  const dim3 grid((g.n + kTile - 1) / kTile, (g.m + kTile - 1) / kTile);
  k_gemm<<<grid, kGemmThreads, 0, ctx.stream>>>(g);
  ctx.cuda(cudaGetLastError(), "matmul multiply kernel launch");
}

enum class Form { bulk, rows };

// One way of running the ring: `iters` products (or their shifts alone) from the current state,
// the shift counter t (which the signals count in) continuing across calls.
struct Ring {
  int n = 0, npes = 1, me = 0;
  Form form = Form::bulk;
  Scope scope = Scope::block;           // of the row form's puts
  bool compute = true;                  // -o product; false: -o shift
  int ctas = 1, threads = 32;           // of the shift kernels
  const double* a = nullptr;            // A, whole (local): this PE reads its rows only
  double* c = nullptr;                  // my rows of C (local)
  double* buf[2] = {nullptr, nullptr};  // symmetric, max rows x n each
  uint64_t* sig = nullptr;              // symmetric [2]: full, free
  size_t buf_elems = 0;
  uint64_t t = 0;

  int rows(int pe) const { return rows_of(n, npes, pe); }
  int64_t first(int pe) const { return first_of(n, npes, pe); }
  int held() const { return static_cast<int>((static_cast<uint64_t>(me) + t) % static_cast<uint64_t>(npes)); }
  uint64_t count(uint64_t steps) const { return static_cast<uint64_t>(ctas) * steps; }

  void run(Ctx& ctx, int iters) {
    for (int k = 0; k < iters; ++k) {
      for (int s = 0; s < npes; ++s) {
        consume(ctx, s);
        if (s + 1 < npes) {
          shift(ctx);
          ++t;
        }
      }
    }
  }

  // Step s of a product with the block of step t: multiply it into my rows of C, after waiting
  // for it; or, for -o shift, only the wait (none before a product's first shift: that block
  // is the one the previous shift's wait, or the start, put in place).
  void consume(Ctx& ctx, int s) {
    const bool ring = npes > 1;
    if (!compute) {
      if (s > 0) {
        k_wait<<<1, 32, 0, ctx.stream>>>(&sig[0], count(t));
        ctx.cuda(cudaGetLastError(), "matmul wait kernel launch");
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
    launch_gemm(ctx, g);
  }

  void shift(Ctx& ctx) {
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
      k_shift_bulk<<<ctas, threads, 0, ctx.stream>>>(sh);
    else if (scope == Scope::thread)
      k_shift_rows<gshmem::thread_scope><<<ctas, threads, 0, ctx.stream>>>(sh);
    else if (scope == Scope::warp)
      k_shift_rows<gshmem::warp_scope><<<ctas, threads, 0, ctx.stream>>>(sh);
    else
      k_shift_rows<gshmem::block_scope><<<ctas, threads, 0, ctx.stream>>>(sh);
    ctx.cuda(cudaGetLastError(), "matmul shift kernel launch");
  }

  // The block of step t in buf[t % 2], copied from B (every PE generated all of B); the other
  // buffer, which the next shift writes, and C poisoned. Collective through the callers'
  // barriers: no PE sends while another starts.
  void start(Ctx& ctx, const double* b) {
    const int q = held();
    ctx.cuda(cudaMemcpyAsync(buf[t & 1], b + first(q) * static_cast<int64_t>(n),
                             static_cast<size_t>(rows(q)) * n * sizeof(double), cudaMemcpyDeviceToDevice, ctx.stream),
             "cudaMemcpyAsync (matmul start)");
    poison(buf[(t + 1) & 1], buf_elems * sizeof(double), ctx.stream);
    if (compute) poison(c, static_cast<size_t>(rows(me)) * n * sizeof(double), ctx.stream);
    ctx.cuda(cudaStreamSynchronize(ctx.stream), "matmul start");
  }
};

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
  k_fill<<<264, 256, 0, ctx.stream>>>(a, n, 1);
  k_fill<<<264, 256, 0, ctx.stream>>>(b, n, 2);
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
      for (int k = 0; k < iters; ++k) launch_gemm(ctx, g);
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
  g.scope = c.scope;
  g.compute = product;
  g.ctas = std::max(1, c.ctas);
  g.threads = std::max(32, std::min(c.threads, kMaxThreads) / 32 * 32);
  g.a = a;
  g.buf_elems = static_cast<size_t>(rows_of(n, ctx.npes, 0)) * n;
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
  g.start(ctx, b);
  ctx.barrier();
  g.run(ctx, c.warmup);
  std::vector<double> us = time_batches(
      ctx, c.reps, c.iters, [&] { g.run(ctx, c.iters); }, false, nullptr);
  ctx.cuda(cudaStreamSynchronize(ctx.stream), what);
  ctx.barrier();  // every PE is done with the buffers before they start again
  g.start(ctx, b);
  ctx.barrier();
  g.run(ctx, std::max(1, c.iters));
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

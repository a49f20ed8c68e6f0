// SPDX-License-Identifier: BSD-3-Clause
// A data-parallel training step, Horovod-shaped: the backward pass produces one gradient bucket
// per layer, last layer first, and every bucket must be summed over the PEs (an allreduce) before
// the optimiser may use it. The allreduce of bucket b runs while the buckets after it are still
// being computed. This header is the step alone: the backward kernel (a GEMM per layer) and the
// device-initiated allreduce; main.cu is the program around it (the on-stream and NCCL forms, the
// reference, the table).
//
// The backward pass. Layer l's weight gradient dW = X^T dY, an R x C matrix (the bucket, R = n / C
// rounded up, the last row partial) from the layer's activations X (K x R) and output gradients
// dY (K x C), K the tokens of the micro-batch: a GEMM of 2 K n flops per bucket, tiled 64 x 64 per
// CTA. Its inputs are small integers (-1, 0, 1), so the accumulator is an exact integer, and the
// value stored is folded to a multiple of 1/16 in [-0.5, 0.4375] (grad_value): every sum of up to
// 32 PEs' gradients is then exact in fp32 and in bf16, whatever the order of the additions, and
// every form's result must equal the reference sum bit for bit. The fold takes a per-step seed
// (only its last 4 bits matter), so that consecutive steps' gradients differ everywhere.
//
// The device-initiated allreduce (k_allreduce): one kernel of a few CTAs on a second stream,
// launched at the start of the step, that reduces each bucket as its rows come out of the GEMM:
//  - readiness: each GEMM CTA, after storing its tile, adds 1 to its row band's counter (64 rows
//    of the bucket; __threadfence first: the release that publishes the tile). The allreduce
//    waits for the bands a chunk covers, not for the whole bucket or the kernel's end, so the
//    last bucket's communication starts while that bucket is still being computed.
//  - the bucket is cut into chunks (--chunk), consecutive chunks owned by PEs 0, 1, ..., P - 1 in
//    turn; a group is P consecutive chunks, one per owner, and CTA k takes groups k, k + CTAs, ...
//  - reduce-scatter: for each group, the CTA puts the chunks it does not own into their owners'
//    scratch (put_signal<block>, +1 on the owner's rs counter of the chunk), then waits for the
//    P - 1 contributions to its own chunk, sums them with its own in PE order (fp32, rounded once)
//    into its gradient, in place,
//  - all-gather: and puts the sum into every other PE's gradient (put_signal<block>, +1 on their
//    ag counter of the chunk). At the end the CTA waits until every chunk it did not own arrived.
// Deadlock-free: a CTA's puts of a group depend only on its own GEMM (which never waits), and the
// CTAs of every PE take the groups in the same order, each pushing before it waits.
//
// Why the buffers need no reset and no barrier between steps. Counters only grow: a step's
// targets are round x (per-round count). A PE's step ends when its allreduce kernel ends, after
// every result chunk arrived; each owner sent its result only after it had read its scratch and
// after every contribution to it had arrived. So when any PE starts the next step, (1) every
// owner is done reading the scratch the next step's puts overwrite, and (2) every put into this
// PE's gradient has landed before its next GEMM overwrites it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <cstddef>
#include <cstdint>

namespace train {

// ---- the backward GEMM
constexpr int kTile = 64;      // outputs per CTA: kTile x kTile
constexpr int kTileK = 16;     // K per shared-memory stage
constexpr int kThreads = 256;  // 16 x 16 threads, 4 x 4 outputs each

inline int64_t rows_of(int64_t n, int cols) { return (n + cols - 1) / cols; }
inline int bands_of(int64_t n, int cols) { return static_cast<int>((rows_of(n, cols) + kTile - 1) / kTile); }
inline int tiles_per_band(int cols) { return (cols + kTile - 1) / kTile; }

__device__ __forceinline__ uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 29)) * 0x94D049BB133111EBull;
  return x ^ (x >> 32);
}

// An input of PE `pe`'s layer `layer`: -1, 0 or 1, from a hash of the coordinates.
__device__ __forceinline__ float input_value(int pe, int layer, int which, uint64_t k, uint64_t i) {
  const uint64_t h = mix(
      (static_cast<uint64_t>(pe) << 48 | static_cast<uint64_t>(layer) << 32 | static_cast<uint64_t>(which) << 31 | k) *
          0x9E3779B97F4A7C15ull +
      i);
  return static_cast<float>(static_cast<int>(h % 3) - 1);
}

// X (k x rows) and dY (k x cols) of PE `pe`'s layer `layer`.
static __global__ void k_inputs(float* x, float* dy, int k, int64_t rows, int cols, int pe, int layer) {
  const size_t nx = static_cast<size_t>(k) * rows, total = nx + static_cast<size_t>(k) * cols;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (i < nx)
      x[i] = input_value(pe, layer, 0, i / rows, i % rows);
    else
      dy[i - nx] = input_value(pe, layer, 1, (i - nx) / cols, (i - nx) % cols);
  }
}

// The accumulator (an exact integer) folded to j / 16, j in [-8, 7], shifted by the step's seed.
template <class T>
__device__ __forceinline__ T grad_value(float acc, uint32_t seed) {
  const int j = static_cast<int>((static_cast<uint32_t>(static_cast<int>(acc)) + seed) & 15u) - 8;
  return static_cast<T>(static_cast<float>(j) * 0.0625f);
}
template <>
__device__ __forceinline__ __nv_bfloat16 grad_value<__nv_bfloat16>(float acc, uint32_t seed) {
  return __float2bfloat16_rn(grad_value<float>(acc, seed));
}

struct Gemm {
  const float* x = nullptr;   // k x rows
  const float* dy = nullptr;  // k x cols
  int k = 0, cols = 0;
  int64_t rows = 0, n = 0;  // the bucket: n elements, row-major rows x cols, the last row partial
  uint32_t seed = 0;
  uint64_t* ready = nullptr;  // per row band: +1 per finished CTA (device form), or null
};

// dW = X^T dY into `out` (n elements of T). CTA (bx, by): rows by*64.., columns bx*64..; thread
// (tx, ty) of 16 x 16: rows ty*4 + 0..3, columns tx*4 + 0..3 (consecutive threads store
// consecutive columns).
template <class T>
static __global__ void __launch_bounds__(kThreads) k_backward(Gemm g, T* out) {
  __shared__ __align__(16) float xs[kTileK][kTile];
  __shared__ __align__(16) float ys[kTileK][kTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int c0 = static_cast<int>(blockIdx.x) * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < g.k; k0 += kTileK) {
    for (int e = threadIdx.x; e < kTileK * kTile; e += kThreads) {
      const int kk = e / kTile, i = e % kTile, k = k0 + kk;
      xs[kk][i] = (k < g.k && r0 + i < g.rows) ? g.x[static_cast<size_t>(k) * g.rows + r0 + i] : 0.f;
      ys[kk][i] = (k < g.k && c0 + i < g.cols) ? g.dy[static_cast<size_t>(k) * g.cols + c0 + i] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      // One 16-byte shared load each (a warp reads 2 rows of X^T and 16 of dY: no bank conflict).
      const float4 a4 = *reinterpret_cast<const float4*>(&xs[kk][ty * 4]);
      const float4 b4 = *reinterpret_cast<const float4*>(&ys[kk][tx * 4]);
      const float a[4] = {a4.x, a4.y, a4.z, a4.w}, b[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int64_t r = r0 + ty * 4 + i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = c0 + tx * 4 + j;
      const int64_t e = r * g.cols + c;
      if (r < g.rows && c < g.cols && e < g.n) out[e] = grad_value<T>(acc[i][j], g.seed);
    }
  }
  if (g.ready) {  // the tile is stored: publish it (release), then count it in its band
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(reinterpret_cast<unsigned long long*>(&g.ready[blockIdx.y]), 1ull);
    }
  }
}

// ---- the device-initiated allreduce
constexpr int kCommThreads = 512;

// The chunks of a bucket and where everything lives. Every bucket has n elements; buffers hold
// them `stride` elements apart (n rounded up to 8: chunks start 16-byte aligned).
struct Plan {
  int me = 0, npes = 1, buckets = 0;
  int64_t n = 0, stride = 0;
  int64_t chunk = 0;   // elements, a multiple of 8
  int64_t groups = 0;  // per bucket: ceil(n / (npes * chunk))
  int cols = 0;        // the bucket's row length: for the row bands of the readiness counters
  int bands = 0, band_tiles = 0;
  __host__ __device__ int64_t chunks() const { return groups * npes; }
  __host__ __device__ int64_t scratch_per_bucket() const { return chunks() * chunk; }
};

inline Plan plan(int me, int npes, int buckets, int64_t n, int cols, int64_t chunk) {
  Plan p;
  p.me = me;
  p.npes = npes;
  p.buckets = buckets;
  p.n = n;
  p.stride = (n + 7) / 8 * 8;
  p.chunk = chunk < 8 ? 8 : chunk / 8 * 8;
  p.groups = (n + npes * p.chunk - 1) / (npes * p.chunk);
  p.cols = cols;
  p.bands = bands_of(n, cols);
  p.band_tiles = tiles_per_band(cols);
  return p;
}

template <class T>
struct Buffers {
  T* grad = nullptr;          // symmetric: buckets x stride, reduced in place
  T* scratch = nullptr;       // symmetric: buckets x chunks x chunk: the contributions to my chunks
  uint64_t* ready = nullptr;  // symmetric (waited on with signal_wait_until): buckets x bands
  uint64_t* rs = nullptr;     // symmetric: buckets x chunks: contributions received (my chunks)
  uint64_t* ag = nullptr;     // symmetric: buckets x chunks: results received (the others' chunks)
};

// Round r's targets (r = 1, 2, ...: the allreduce calls so far, this one included; compute_round:
// the backward passes that counted in `ready`, the one this call waits for included, or 0: do not
// wait for the GEMM, the data is there: the communication-only timing).
struct Round {
  uint64_t comm = 0, compute = 0;
};

// out[i] = sum over PEs p in order of (p == me ? out[i] : from + p * slot)[i], for i < len, in
// fp32 rounded once to T. 16-byte vectors where the length allows (out and from are 16-byte
// aligned: chunks start at multiples of 8 elements), kSumUnroll of them a thread at once with all
// their loads issued before any is used: one vector a thread kept too few loads in flight for a
// block to read its chunks at more than a few tens of GB/s.
constexpr int kSumUnroll = 4;

template <class T>
__device__ void sum_into(T* out, const T* from, int64_t slot, int me, int npes, int64_t len) {
  constexpr int kVec = 16 / sizeof(T);
  const int64_t vecs = len / kVec, step = static_cast<int64_t>(blockDim.x) * kSumUnroll;
  for (int64_t v0 = threadIdx.x; v0 < vecs; v0 += step) {
    float s[kSumUnroll][kVec];
#pragma unroll
    for (int u = 0; u < kSumUnroll; ++u)
#pragma unroll
      for (int e = 0; e < kVec; ++e) s[u][e] = 0.f;
    for (int p = 0; p < npes; ++p) {
      const uint4* src = reinterpret_cast<const uint4*>(p == me ? out : from + p * slot);
      uint4 w[kSumUnroll];
#pragma unroll
      for (int u = 0; u < kSumUnroll; ++u) {
        const int64_t v = v0 + u * static_cast<int64_t>(blockDim.x);
        if (v < vecs) w[u] = src[v];
      }
#pragma unroll
      for (int u = 0; u < kSumUnroll; ++u) {
        const T* t = reinterpret_cast<const T*>(&w[u]);
#pragma unroll
        for (int e = 0; e < kVec; ++e) s[u][e] += static_cast<float>(t[e]);
      }
    }
#pragma unroll
    for (int u = 0; u < kSumUnroll; ++u) {
      const int64_t v = v0 + u * static_cast<int64_t>(blockDim.x);
      if (v >= vecs) break;
      uint4 w;
      T* t = reinterpret_cast<T*>(&w);
#pragma unroll
      for (int e = 0; e < kVec; ++e) t[e] = static_cast<T>(s[u][e]);
      reinterpret_cast<uint4*>(out)[v] = w;
    }
  }
  for (int64_t i = vecs * kVec + threadIdx.x; i < len; i += blockDim.x) {
    float s = 0.f;
    for (int p = 0; p < npes; ++p) s += static_cast<float>((p == me ? out : from + p * slot)[i]);
    out[i] = static_cast<T>(s);
  }
}

template <class T>
static __global__ void __launch_bounds__(kCommThreads, 1) k_allreduce(Plan pl, Buffers<T> b, Round r) {
  const int me = pl.me, P = pl.npes;
  const int64_t chunks = pl.chunks();
  for (int bk = 0; bk < pl.buckets; ++bk) {
    T* grad = b.grad + bk * pl.stride;
    T* scratch = b.scratch + bk * pl.scratch_per_bucket();
    uint64_t* ready = b.ready + static_cast<int64_t>(bk) * pl.bands;
    uint64_t* rs = b.rs + bk * chunks;
    uint64_t* ag = b.ag + bk * chunks;
    for (int64_t g = blockIdx.x; g < pl.groups; g += gridDim.x) {
      const int64_t a = g * P * pl.chunk;  // the group's first element
      const int64_t e = a + P * pl.chunk < pl.n ? a + P * pl.chunk : pl.n;
      // 1. The group's rows are computed here (GEMM CTAs counted in their bands).
      if (r.compute && threadIdx.x == 0) {
        const int first = static_cast<int>(a / pl.cols / kTile), last = static_cast<int>((e - 1) / pl.cols / kTile);
        for (int band = first; band <= last; ++band)
          gshmem::signal_wait_until(&ready[band], gshmem::cmp::ge, r.compute * pl.band_tiles);
      }
      __syncthreads();
      if (P == 1) continue;  // one PE: the gradient is its own sum
      // 2. Reduce-scatter: each chunk I do not own to its owner's scratch, in slot `me`.
      for (int k = 1; k < P; ++k) {
        const int o = (me + k) % P;
        const int64_t c = g * P + o, ca = c * pl.chunk;
        if (ca >= pl.n) continue;  // the last group's empty chunks: nobody sends or waits
        const int64_t len = ca + pl.chunk < pl.n ? pl.chunk : pl.n - ca;
        gshmem::put_signal<gshmem::block_scope>(scratch + (g * P + me) * pl.chunk, grad + ca, static_cast<size_t>(len),
                                                &rs[c], 1, GSHMEM_SIGNAL_ADD, o);
      }
      // 3. My chunk: the other PEs' contributions, summed with mine in PE order, sent to all.
      const int64_t c = g * P + me, ca = c * pl.chunk;
      if (ca >= pl.n) continue;
      const int64_t len = ca + pl.chunk < pl.n ? pl.chunk : pl.n - ca;
      if (threadIdx.x == 0) gshmem::signal_wait_until(&rs[c], gshmem::cmp::ge, r.comm * (P - 1));
      __syncthreads();
      sum_into(grad + ca, scratch + g * P * pl.chunk, pl.chunk, me, P, len);
      __syncthreads();  // the sum is stored before the block's threads read it to send
      for (int k = 1; k < P; ++k)
        gshmem::put_signal<gshmem::block_scope>(grad + ca, grad + ca, static_cast<size_t>(len), &ag[c], 1,
                                                GSHMEM_SIGNAL_ADD, (me + k) % P);
    }
  }
  // 4. Every result chunk of the other owners is in my gradient.
  if (P > 1 && threadIdx.x == 0) {
    for (int bk = 0; bk < pl.buckets; ++bk)
      for (int64_t g = blockIdx.x; g < pl.groups; g += gridDim.x)
        for (int o = 0; o < P; ++o) {
          const int64_t c = g * P + o;
          if (o != me && c * pl.chunk < pl.n)
            gshmem::signal_wait_until(&b.ag[bk * chunks + c], gshmem::cmp::ge, r.comm);
        }
  }
}

}  // namespace train

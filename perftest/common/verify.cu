// SPDX-License-Identifier: BSD-3-Clause
// Pattern fill and check kernels behind verify.h.
#include <cuda_runtime.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "context.h"
#include "verify.h"

namespace perf {
namespace {

enum OpK : int { kSum, kProd, kMin, kMax, kAnd, kOr, kXor, kBadOp };

int op_kind(const std::string& op) {
  static const char* names[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
  for (int k = 0; k < kBadOp; ++k)
    if (op == names[k]) return k;
  return kBadOp;
}

__host__ __device__ inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

__host__ __device__ inline uint64_t word_of(uint64_t seed, uint64_t w) {
  return mix64(seed ^ (w * 0xD1B54A32D192ED03ull));
}
__host__ __device__ inline unsigned char byte_of(uint64_t seed, uint64_t i) {
  return static_cast<unsigned char>(word_of(seed, i >> 3) >> (8 * (i & 7)));
}

// ---- byte pattern
__global__ void k_fill_bytes(unsigned char* p, size_t bytes, uint64_t seed) {
  const size_t words = (bytes + 7) / 8;
  const bool aligned = (reinterpret_cast<uintptr_t>(p) & 7) == 0;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint64_t v = word_of(seed, w);
    if (aligned && 8 * w + 8 <= bytes) {
      reinterpret_cast<uint64_t*>(p)[w] = v;
    } else {
      for (size_t i = 8 * w; i < 8 * w + 8 && i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * (i & 7)));
    }
  }
}

__global__ void k_check_bytes(const unsigned char* p, size_t bytes, uint64_t seed, unsigned long long* out) {
  const size_t words = (bytes + 7) / 8;
  const bool aligned = (reinterpret_cast<uintptr_t>(p) & 7) == 0;
  unsigned long long bad = 0, first = ~0ull;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint64_t v = word_of(seed, w);
    if (aligned && 8 * w + 8 <= bytes && reinterpret_cast<const uint64_t*>(p)[w] == v) continue;
    for (size_t i = 8 * w; i < 8 * w + 8 && i < bytes; ++i) {
      if (p[i] != static_cast<unsigned char>(v >> (8 * (i & 7)))) {
        ++bad;
        if (i < first) first = i;
      }
    }
  }
  if (bad) {
    atomicAdd(&out[0], bad);
    atomicMin(&out[1], first);
  }
}

// ---- typed reduction values
template <class T>
__host__ __device__ inline T rvalue(int opk, int pe, uint64_t i, uint64_t seed) {
  const uint64_t h =
      mix64(seed ^ mix64((static_cast<uint64_t>(pe) + 1) * 0x9E3779B97F4A7C15ull) ^ (i * 0xD1B54A32D192ED03ull));
  switch (opk) {
    case kSum:
      return static_cast<T>(h % 61 + 1);
    case kProd:
      return static_cast<T>(1 + ((h >> 17) & 1));
    case kMin:
    case kMax:
      if (std::is_signed<T>::value || std::is_floating_point<T>::value)
        return static_cast<T>(static_cast<int64_t>(h % 2001) - 1000);
      return static_cast<T>(h % 100003);
    default:
      return static_cast<T>(h);  // bitwise: integer types only
  }
}

template <class T>
__host__ __device__ inline T fold(int opk, T a, T b) {
  switch (opk) {
    case kSum:
      return static_cast<T>(a + b);
    case kProd:
      return static_cast<T>(a * b);
    case kMin:
      return b < a ? b : a;
    case kMax:
      return a < b ? b : a;
    default:
      break;
  }
  if constexpr (std::is_integral<T>::value) {
    if (opk == kAnd) return a & b;
    if (opk == kOr) return a | b;
    return a ^ b;
  }
  return a;
}

template <class T>
__host__ __device__ inline T expected_reduce(int opk, int npes, uint64_t i, uint64_t seed) {
  T e = rvalue<T>(opk, 0, i, seed);
  for (int pe = 1; pe < npes; ++pe) e = fold<T>(opk, e, rvalue<T>(opk, pe, i, seed));
  return e;
}

template <class T>
__global__ void k_fill_reduce(T* p, size_t n, int opk, int pe, uint64_t seed, size_t index0) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = rvalue<T>(opk, pe, index0 + i, seed);
}

template <class T>
__global__ void k_check_reduce(const T* p, size_t n, int opk, int npes, uint64_t seed, size_t index0,
                               unsigned long long* out) {
  unsigned long long bad = 0, first = ~0ull;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (!(p[i] == expected_reduce<T>(opk, npes, index0 + i, seed))) {
      ++bad;
      if (i < first) first = i;
    }
  }
  if (bad) {
    atomicAdd(&out[0], bad);
    atomicMin(&out[1], first);
  }
}

template <class T>
__global__ void k_fill_const(T* p, size_t n, T v) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

template <class T>
__global__ void k_check_const(const T* p, size_t n, T v, unsigned long long* out) {
  unsigned long long bad = 0, first = ~0ull;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (p[i] != v) {
      ++bad;
      if (i < first) first = i;
    }
  }
  if (bad) {
    atomicAdd(&out[0], bad);
    atomicMin(&out[1], first);
  }
}

__global__ void k_compare_words(const uint64_t* got, const uint64_t* want, size_t n, unsigned long long* out) {
  unsigned long long bad = 0, first = ~0ull;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (got[i] != want[i]) {
      ++bad;
      if (i < first) first = i;
    }
  }
  if (bad) {
    atomicAdd(&out[0], bad);
    atomicMin(&out[1], first);
  }
}

void cuda_or_die(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "gshmem-perf: %s failed: %s\n", what, cudaGetErrorString(e));
  exit(1);
}

unsigned grid_for(size_t n) {
  size_t g = (n + 255) / 256;
  if (g < 1) g = 1;
  if (g > 4096) g = 4096;
  return static_cast<unsigned>(g);
}

// Counter pair {bad, first} in device memory, reused by every check.
unsigned long long* counters(cudaStream_t s) {
  static unsigned long long* d = nullptr;
  if (!d) cuda_or_die(cudaMalloc(&d, 2 * sizeof(unsigned long long)), "cudaMalloc (check counters)");
  const unsigned long long init[2] = {0, ~0ull};
  cuda_or_die(cudaMemcpyAsync(d, init, sizeof(init), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (check counters)");
  return d;
}

Mismatch finish(unsigned long long* d, cudaStream_t s, uint64_t checked, const void* p, size_t elem_bytes) {
  cuda_or_die(cudaGetLastError(), "check kernel launch");
  unsigned long long h[2];
  cuda_or_die(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (check result)");
  cuda_or_die(cudaStreamSynchronize(s), "check kernel");
  Mismatch m;
  m.checked = checked;
  m.bad = h[0];
  if (m.bad) {
    m.first = h[1];
    cuda_or_die(
        cudaMemcpy(&m.got, static_cast<const char*>(p) + m.first * elem_bytes, elem_bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy (first mismatch)");
  }
  return m;
}

template <class T>
uint64_t bits_of(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}

template <class F>
void with_dtype(DType t, F&& f) {
  switch (t) {
    case DType::int32:
      f(int32_t{});
      break;
    case DType::int64:
      f(int64_t{});
      break;
    case DType::uint32:
      f(uint32_t{});
      break;
    case DType::uint64:
      f(uint64_t{});
      break;
    case DType::float32:
      f(float{});
      break;
    case DType::float64:
      f(double{});
      break;
  }
}

}  // namespace

bool is_bitwise(const std::string& op) { return op == "and" || op == "or" || op == "xor"; }
bool is_float(DType t) { return t == DType::float32 || t == DType::float64; }

uint64_t seed_of(const char* bench, int pe, size_t size, uint64_t extra) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the name, then mixed with the rest
  for (const char* c = bench; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 0x100000001b3ull;
  return mix64(h ^ mix64(static_cast<uint64_t>(pe) * 0x9E3779B97F4A7C15ull + 1) ^ mix64(size + 7) ^ mix64(extra + 3));
}

void fill_bytes(void* p, size_t bytes, uint64_t seed, cudaStream_t s) {
  if (!bytes) return;
  k_fill_bytes<<<grid_for((bytes + 7) / 8), 256, 0, s>>>(static_cast<unsigned char*>(p), bytes, seed);
  cuda_or_die(cudaGetLastError(), "fill kernel launch");
}

Mismatch check_bytes(const void* p, size_t bytes, uint64_t seed, cudaStream_t s) {
  unsigned long long* d = counters(s);
  if (bytes)
    k_check_bytes<<<grid_for((bytes + 7) / 8), 256, 0, s>>>(static_cast<const unsigned char*>(p), bytes, seed, d);
  Mismatch m = finish(d, s, bytes, p, 1);
  if (m.bad) m.expected = byte_of(seed, m.first);
  return m;
}

void poison(void* p, size_t bytes, cudaStream_t s) {
  if (bytes) cuda_or_die(cudaMemsetAsync(p, kPoison, bytes, s), "cudaMemsetAsync (poison)");
}

void fill_reduce(DType t, const std::string& op, void* p, size_t n, int pe, uint64_t seed, size_t index0,
                 cudaStream_t s) {
  const int k = op_kind(op);
  if (!n) return;
  with_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    k_fill_reduce<T><<<grid_for(n), 256, 0, s>>>(static_cast<T*>(p), n, k, pe, seed, index0);
  });
  cuda_or_die(cudaGetLastError(), "fill kernel launch");
}

Mismatch check_reduce(DType t, const std::string& op, const void* p, size_t n, int npes, uint64_t seed, size_t index0,
                      cudaStream_t s) {
  const int k = op_kind(op);
  unsigned long long* d = counters(s);
  Mismatch m;
  with_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if (n) k_check_reduce<T><<<grid_for(n), 256, 0, s>>>(static_cast<const T*>(p), n, k, npes, seed, index0, d);
    m = finish(d, s, n, p, sizeof(T));
    if (m.bad) m.expected = bits_of(expected_reduce<T>(k, npes, index0 + m.first, seed));
  });
  return m;
}

void fill_const(void* p, size_t n, size_t elem_bytes, uint64_t v, cudaStream_t s) {
  if (!n) return;
  if (elem_bytes == 4)
    k_fill_const<uint32_t><<<grid_for(n), 256, 0, s>>>(static_cast<uint32_t*>(p), n, static_cast<uint32_t>(v));
  else
    k_fill_const<uint64_t><<<grid_for(n), 256, 0, s>>>(static_cast<uint64_t*>(p), n, v);
  cuda_or_die(cudaGetLastError(), "fill kernel launch");
}

Mismatch check_const(const void* p, size_t n, size_t elem_bytes, uint64_t v, cudaStream_t s) {
  unsigned long long* d = counters(s);
  if (n && elem_bytes == 4)
    k_check_const<uint32_t>
        <<<grid_for(n), 256, 0, s>>>(static_cast<const uint32_t*>(p), n, static_cast<uint32_t>(v), d);
  else if (n)
    k_check_const<uint64_t><<<grid_for(n), 256, 0, s>>>(static_cast<const uint64_t*>(p), n, v, d);
  Mismatch m = finish(d, s, n, p, elem_bytes);
  if (m.bad) m.expected = elem_bytes == 4 ? static_cast<uint32_t>(v) : v;
  return m;
}

Mismatch compare_words(const uint64_t* got, const uint64_t* want, size_t n, cudaStream_t s) {
  unsigned long long* d = counters(s);
  if (n) k_compare_words<<<grid_for(n), 256, 0, s>>>(got, want, n, d);
  Mismatch m = finish(d, s, n, got, 8);
  if (m.bad)
    cuda_or_die(cudaMemcpy(&m.expected, want + m.first, 8, cudaMemcpyDeviceToHost), "cudaMemcpy (first mismatch)");
  return m;
}

void record_check(Ctx& ctx, Result& r, const Case& c, const char* what, const Mismatch& m) {
  r.checked += m.checked;
  r.bad += m.bad;
  if (!m.bad) return;
  ctx.failed = true;
  char line[768];
  snprintf(line, sizeof(line),
           "gshmem-perf: PE %d: VERIFY FAILED %s (%s): %" PRIu64 " of %" PRIu64
           " elements wrong at size %zu, scope %s, dtype %s%s%s; first at index %" PRIu64 ": expected 0x%" PRIx64
           ", got 0x%" PRIx64 "\n",
           ctx.me, ctx.bench_name.c_str(), what, m.bad, m.checked, c.size, name_of(c.scope), name_of(c.dtype),
           c.op.empty() ? "" : ", op ", c.op.c_str(), m.first, m.expected, m.got);
  ctx.emit(stderr, line);
}

}  // namespace perf

// SPDX-License-Identifier: BSD-3-Clause
// The Graph500 input: a Kronecker (R-MAT) graph of 2^scale vertices and edge_factor x 2^scale
// undirected edges, made on the GPU from a seed, the same on every PE and every run, stored as
// CSR with both directions of every edge (self-loops dropped, duplicate edges kept, as the
// Graph500 kernel 1 may). Vertex v is owned by PE v / chunk (a 1D block distribution,
// chunk = ceil(2^scale / P) rounded up to whole 32-bit words of a bitmap); a PE's part of the
// graph is its rows of the CSR.
//
// Edge k: `scale` times, pick one quadrant of the adjacency matrix with probabilities
// A = 0.57, B = 0.19, C = 0.19, D = 0.05 (the Graph500 parameters) from a counter-based hash of
// (seed, k, level), so any edge can be made by any thread in any order. The labels are then
// scrambled by a bijection of [0, 2^scale) drawn from the seed, as Graph500 permutes vertices:
// without it the high-degree vertices would all be small numbers, on PE 0.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <cstdint>

namespace bfs {

using idx_t = unsigned long long;  // edge offsets: 2^26 x 16 x 2 = 2^31 entries at scale 26

__host__ __device__ inline uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct Kronecker {
  int scale = 0;
  int64_t edges = 0;  // edge_factor << scale
  uint64_t seed = 1;

  __host__ __device__ int64_t vertices() const { return int64_t{1} << scale; }

  // The label bijection: odd multiplications, an addition and xor-shifts, all mod 2^scale.
  __host__ __device__ uint32_t scramble(uint64_t v) const {
    const uint64_t mask = (uint64_t{1} << scale) - 1;
    const uint64_t m1 = mix(seed ^ 0x1234) | 1, m2 = mix(seed ^ 0x5678) | 1, a = mix(seed ^ 0x9abc);
    const int s = scale / 2 + 1;
    v = (v * m1) & mask;
    v ^= v >> s;
    v = (v * m2 + a) & mask;
    v ^= v >> s;
    return static_cast<uint32_t>(v);
  }

  // Edge k's endpoints.
  __device__ void edge(uint64_t k, uint32_t* u, uint32_t* v) const {
    constexpr uint32_t kA = 2448131359u;         // 0.57 x 2^32
    constexpr uint32_t kAB = kA + 816043786u;    // + 0.19 x 2^32
    constexpr uint32_t kABC = kAB + 816043786u;  // + 0.19 x 2^32
    uint64_t a = 0, b = 0;
    for (int l = 0; l < scale; ++l) {
      const uint32_t r = static_cast<uint32_t>(mix(seed * 0x9E3779B97F4A7C15ull + k * 64 + l) >> 32);
      const uint64_t bu = r >= kAB, bv = (r >= kA && r < kAB) || r >= kABC;  // quadrants A B / C D
      a = a << 1 | bu;
      b = b << 1 | bv;
    }
    *u = scramble(a);
    *v = scramble(b);
  }
};

// The graph as CSR: the neighbours of vertex v are adj[off[v] .. off[v + 1]).
struct Csr {
  int64_t n = 0;
  idx_t* off = nullptr;  // n + 1
  uint32_t* adj = nullptr;
  idx_t m = 0;  // adjacency entries (2 x the non-loop edges)
};

// Pass 1 (deg != nullptr): count each vertex's entries. Pass 2: place them (cursor = the
// offsets, advanced atomically; the order within a vertex's list is not fixed, which no BFS
// result depends on).
static __global__ void k_edges(Kronecker g, idx_t* deg, idx_t* cursor, uint32_t* adj) {
  for (uint64_t k = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; k < static_cast<uint64_t>(g.edges);
       k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    uint32_t u, v;
    g.edge(k, &u, &v);
    if (u == v) continue;
    if (deg) {
      atomicAdd(&deg[u], 1ull);
      atomicAdd(&deg[v], 1ull);
    } else {
      adj[atomicAdd(&cursor[u], 1ull)] = v;
      adj[atomicAdd(&cursor[v], 1ull)] = u;
    }
  }
}

// Builds the whole graph on this GPU; returns the first CUDA error.
inline cudaError_t build(const Kronecker& g, Csr* out, cudaStream_t s) {
  Csr c;
  c.n = g.vertices();
  idx_t* cursor = nullptr;
  void* tmp = nullptr;
  size_t tmp_bytes = 0;
  cudaError_t e = cudaMalloc(&c.off, (c.n + 1) * sizeof(idx_t));
  if (e == cudaSuccess) e = cudaMalloc(&cursor, (c.n + 1) * sizeof(idx_t));
  if (e == cudaSuccess) e = cudaMemsetAsync(cursor, 0, (c.n + 1) * sizeof(idx_t), s);
  if (e == cudaSuccess) e = cudaMemsetAsync(c.off, 0, sizeof(idx_t), s);
  if (e != cudaSuccess) return e;
  k_edges<<<1024, 256, 0, s>>>(g, cursor, nullptr, nullptr);  // degrees, in `cursor`
  // off[0] = 0, off[v + 1] = off[v] + deg[v].
  e = cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, cursor, c.off + 1, c.n, s);
  if (e == cudaSuccess) e = cudaMallocAsync(&tmp, tmp_bytes, s);
  if (e == cudaSuccess) e = cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, cursor, c.off + 1, c.n, s);
  if (e == cudaSuccess) e = cudaFreeAsync(tmp, s);
  if (e == cudaSuccess) e = cudaMemcpyAsync(&c.m, c.off + c.n, sizeof(idx_t), cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = cudaMalloc(&c.adj, (c.m ? c.m : 1) * sizeof(uint32_t));
  if (e == cudaSuccess) e = cudaMemcpyAsync(cursor, c.off, c.n * sizeof(idx_t), cudaMemcpyDeviceToDevice, s);
  if (e != cudaSuccess) return e;
  k_edges<<<1024, 256, 0, s>>>(g, nullptr, cursor, c.adj);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  cudaFree(cursor);
  *out = c;
  return e;
}

inline void release(Csr& c) {
  cudaFree(c.off);
  cudaFree(c.adj);
  c = Csr();
}

}  // namespace bfs

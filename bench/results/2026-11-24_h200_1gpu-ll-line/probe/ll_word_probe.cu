// SPDX-License-Identifier: BSD-3-Clause
// Why is a lone thread's LL word slow? Two blocks of one thread on one GPU play root and
// receiver of a broadcast: root writes N tagged words, waits for the receiver's tag word;
// receiver sends its tag word, polls the N words in batches. Variants of the load/store.
// Defect, as run: the "b64" variant polls 64 words with a 32-bit pending mask (1u << b for b
// >= 32), so its rows in ll_word_probe.txt are void; ll_vec_probe.cu measures batch widths.
#include <cstdio>
#include <cstdint>
#include <cstdlib>

enum V { kGenRelSys, kGlbRelSys, kGlbVolatile, kGlbRelGpu, kVec2RelSys, kGenRelSysB64, kGlbRelSysNoRepoll, kVec4Vol, kNV };
const char* kVN[kNV] = {"gen.relaxed.sys b16", "global.relaxed.sys b16", "global.volatile b16", "global.relaxed.gpu b16",
                        "global.relaxed.sys.v2 b16", "gen.relaxed.sys b64", "global.relaxed.sys b16 spin-first",
                        "global.volatile.v4.u32 b16"};

template <int V> __device__ __forceinline__ uint64_t ld(const uint64_t* p) {
  uint64_t v;
  if (V == kGenRelSys || V == kGenRelSysB64) asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  else if (V == kGlbVolatile) asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  else if (V == kGlbRelGpu) asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  else asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
template <int V> __device__ __forceinline__ void st(uint64_t* p, uint64_t v) {
  if (V == kGenRelSys || V == kGenRelSysB64) asm volatile("st.relaxed.sys.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
  else if (V == kGlbVolatile) asm volatile("st.volatile.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
  else if (V == kGlbRelGpu) asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
  else asm volatile("st.relaxed.sys.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

template <int V, int B>
__device__ __forceinline__ void poll_batch(const uint64_t* p, uint32_t tag, uint32_t* sink, unsigned long long* rounds) {
  uint64_t v[B];
  if (V == kVec2RelSys) {
#pragma unroll
    for (int b = 0; b < B; b += 2)
      asm volatile("ld.relaxed.sys.global.v2.u64 {%0,%1}, [%2];" : "=l"(v[b]), "=l"(v[b + 1]) : "l"(p + b) : "memory");
  } else if (V == kVec4Vol) {
#pragma unroll
    for (int b = 0; b < B; b += 2) {
      uint32_t a0, a1, a2, a3;
      asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "l"(p + b) : "memory");
      v[b] = (uint64_t)a1 << 32 | a0; v[b + 1] = (uint64_t)a3 << 32 | a2;
    }
  } else {
#pragma unroll
    for (int b = 0; b < B; ++b) v[b] = ld<V>(p + b);
  }
  unsigned pending = 0;
#pragma unroll
  for (int b = 0; b < B; ++b) if ((uint32_t)(v[b] >> 32) != tag) pending |= 1u << b;
  while (pending) {
    ++*rounds;
    if (V == kGlbRelSysNoRepoll) {  // spin on the first pending word alone, then recheck
      const int b0 = __ffs(pending) - 1;
      while ((uint32_t)(ld<V>(p + b0) >> 32) != tag) {}
    }
#pragma unroll
    for (int b = 0; b < B; ++b)
      if (pending >> b & 1u) {
        if (V == kVec2RelSys || V == kVec4Vol) v[b] = ld<kGlbRelSys>(p + b); else v[b] = ld<V>(p + b);
        if ((uint32_t)(v[b] >> 32) == tag) pending &= ~(1u << b);
      }
  }
  uint32_t s = 0;
#pragma unroll
  for (int b = 0; b < B; ++b) s += (uint32_t)v[b];
  *sink += s;
}

template <int V>
__device__ __forceinline__ void send(uint64_t* p, int n, uint64_t hi) {
  if (V == kVec2RelSys) {
    for (int w = 0; w < n; w += 16) {
#pragma unroll
      for (int b = 0; b < 16; b += 2)
        asm volatile("st.relaxed.sys.global.v2.u64 [%0], {%1,%2};" :: "l"(p + w + b), "l"(hi | (w + b)), "l"(hi | (w + b + 1)) : "memory");
    }
  } else if (V == kVec4Vol) {
    for (int w = 0; w < n; w += 16) {
#pragma unroll
      for (int b = 0; b < 16; b += 2)
        asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" :: "l"(p + w + b), "r"(w + b), "r"((uint32_t)(hi >> 32)), "r"(w + b + 1), "r"((uint32_t)(hi >> 32)) : "memory");
    }
  } else {
    for (int w = 0; w < n; w += 16) {
#pragma unroll
      for (int b = 0; b < 16; ++b) st<V>(p + w + b, hi | (w + b));
    }
  }
}

// buf: [2][n] words to the receiver, ack: [2] words to the root.
template <int V>
__global__ void k_pingpong(uint64_t* buf, uint64_t* ack, int n, int iters, uint32_t tag0, unsigned long long* out) {
  uint32_t sink = 0;
  unsigned long long rounds = 0;
  const unsigned long long t0 = clock64();
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  for (int i = 0; i < iters; ++i) {
    const uint32_t tag = tag0 + i;
    const int par = tag & 1;
    const uint64_t hi = (uint64_t)tag << 32;
    if (blockIdx.x == 0) {
      send<V>(buf + par * n, n, hi);
      poll_batch<kGlbRelSys, 1>(ack + par, tag, &sink, &rounds);
    } else {
      st<kGlbRelSys>(ack + par, hi);
      if (V == kGenRelSysB64) {
        for (int w = 0; w < n; w += 64) poll_batch<V, 64>(buf + par * n + w, tag, &sink, &rounds);
      } else {
        for (int w = 0; w < n; w += 16) poll_batch<V, 16>(buf + par * n + w, tag, &sink, &rounds);
      }
    }
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  out[blockIdx.x * 4 + 0] = g1 - g0;
  out[blockIdx.x * 4 + 1] = rounds;
  out[blockIdx.x * 4 + 2] = sink;
  out[blockIdx.x * 4 + 3] = clock64() - t0;
}

template <int V>
void run(uint64_t* buf, uint64_t* ack, unsigned long long* out, int n, uint32_t* tag) {
  const int iters = 2000;
  unsigned long long h[8];
  double best = 1e30, rr = 0;
  for (int rep = 0; rep < 3; ++rep) {
    k_pingpong<V><<<2, 1>>>(buf, ack, n, iters, *tag, out);
    *tag += iters;
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    const double us = h[4] / 1e3 / iters;
    if (us < best) { best = us; rr = (double)h[5] / iters; }
  }
  printf("%-36s words %4d (%5d B data): %7.3f us/call, receiver retry rounds/call %.2f\n", kVN[V], n, n * 4, best, rr);
}

int main() {
  uint64_t *buf, *ack;
  unsigned long long* out;
  cudaMalloc(&buf, 2 * 1024 * 8);
  cudaMalloc(&ack, 64);
  cudaMalloc(&out, 64);
  cudaMemset(buf, 0, 2 * 1024 * 8);
  cudaMemset(ack, 0, 64);
  uint32_t tag = 1;
  const int ns[] = {16, 64, 256};
  for (int n : ns) {
    run<kGenRelSys>(buf, ack, out, n, &tag);
    run<kGlbRelSys>(buf, ack, out, n, &tag);
    run<kGlbVolatile>(buf, ack, out, n, &tag);
    run<kGlbRelGpu>(buf, ack, out, n, &tag);
    run<kVec2RelSys>(buf, ack, out, n, &tag);
    run<kVec4Vol>(buf, ack, out, n, &tag);
    run<kGlbRelSysNoRepoll>(buf, ack, out, n, &tag);
    if (n % 64 == 0) run<kGenRelSysB64>(buf, ack, out, n, &tag);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("status: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}

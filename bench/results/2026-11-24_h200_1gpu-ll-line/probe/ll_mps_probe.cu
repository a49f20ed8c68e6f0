// SPDX-License-Identifier: BSD-3-Clause
// 2 PEs (MPS, one GPU, or two GPUs): the LL broadcast protocol by hand on symmetric memory
// (PE 0 root writes N tagged words into PE 1's buffer, waits for PE 1's tag word), against
// the library's broadcastmem<thread_scope> at the same sizes. Per-call median by clock64.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <gshmem/gshmem.h>
#include "probe_util.h"  // perftest/probe/

__device__ __forceinline__ uint64_t ldr(const uint64_t* p) { uint64_t v; asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void str(uint64_t* p, uint64_t v) { asm volatile("st.relaxed.sys.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory"); }

template <int B>
__device__ __forceinline__ uint32_t poll(const uint64_t* p, uint32_t tag) {
  uint64_t v[B];
#pragma unroll
  for (int b = 0; b < B; ++b) v[b] = ldr(p + b);
  unsigned pending = 0;
#pragma unroll
  for (int b = 0; b < B; ++b) if ((uint32_t)(v[b] >> 32) != tag) pending |= 1u << b;
  while (pending) {
#pragma unroll
    for (int b = 0; b < B; ++b)
      if (pending >> b & 1u) { v[b] = ldr(p + b); if ((uint32_t)(v[b] >> 32) == tag) pending &= ~(1u << b); }
  }
  uint32_t s = 0;
#pragma unroll
  for (int b = 0; b < B; ++b) s += (uint32_t)v[b];
  return s;
}

constexpr int kIters = 2000, kWarm = 200;

// mode 0: raw, batches of 16; 1: raw, batches of 32 (wider); 2: library broadcastmem<thread>.
__global__ void k_run(int mode, int me, uint64_t* buf, uint64_t* ack, uint64_t* peer_buf, uint64_t* peer_ack, int n,
                      uint32_t tag0, char* d, const char* s, long long* ns) {
  uint32_t sink = 0;
  long long total = 0;
  for (int i = 0; i < kWarm + kIters; ++i) {
    const long long t0 = clock64();
    if (mode == 2) {
      gshmem::broadcastmem<gshmem::thread_scope>(GSHMEM_TEAM_WORLD, d, s, n * 4, 0);
    } else {
      const uint32_t tag = tag0 + i;
      const int par = tag & 1;
      const uint64_t hi = (uint64_t)tag << 32;
      if (me == 0) {
        for (int w = 0; w < n; w += 16) {
#pragma unroll
          for (int b = 0; b < 16; ++b) str(peer_buf + par * 1024 + w + b, hi | (uint32_t)s[w + b]);
        }
        sink += poll<1>(ack + par, tag);
      } else {
        str(peer_ack + par, hi);
        if (mode == 0) for (int w = 0; w < n; w += 16) sink += poll<16>(buf + par * 1024 + w, tag);
        else for (int w = 0; w < n; w += 32) sink += poll<32>(buf + par * 1024 + w, tag);
      }
    }
    if (i >= kWarm) total += clock64() - t0;
  }
  ns[0] = total;
  ns[1] = sink;
}

int main() {
  gshmem_init();
  const int me = gshmem_my_pe();
  uint64_t* buf = static_cast<uint64_t*>(gshmem_calloc(2 * 1024 + 16, 8));
  uint64_t* ack = buf + 2 * 1024;
  uint64_t* peer_buf = static_cast<uint64_t*>(gshmem_ptr(buf, 1 - me));
  uint64_t* peer_ack = peer_buf + 2 * 1024;
  char* d = static_cast<char*>(gshmem_malloc(1 << 16));
  char* s = static_cast<char*>(gshmem_malloc(1 << 16));
  PROBE_CHECK(cudaMemset(s, 3, 1 << 16));
  long long* dns;
  PROBE_CHECK(cudaMalloc(&dns, 16));
  int clk = 0;
  PROBE_CHECK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  uint32_t tag = 1;
  const char* names[3] = {"raw b16", "raw b32", "lib broadcastmem<thread>"};
  for (int n : {16, 64, 256})
    for (int mode = 0; mode < 3; ++mode) {
      if (mode == 1 && n % 32) continue;
      std::vector<double> us;
      for (int r = 0; r < 3; ++r) {
        gshmem_barrier_all();
        k_run<<<1, 1>>>(mode, me, buf, ack, peer_buf, peer_ack, n, tag, d, s, dns);
        tag += kWarm + kIters;
        PROBE_CHECK(cudaDeviceSynchronize());
        long long h[2];
        PROBE_CHECK(cudaMemcpy(h, dns, 16, cudaMemcpyDeviceToHost));
        us.push_back(h[0] / (clk * 1e-3) / kIters);
      }
      if (me == 0) printf("%-26s %5d B: %7.3f us/call (clock64 at %d MHz)\n", names[mode], n * 4, probe_median(us), clk / 1000);
    }
  gshmem_barrier_all();
  gshmem_finalize();
  return 0;
}

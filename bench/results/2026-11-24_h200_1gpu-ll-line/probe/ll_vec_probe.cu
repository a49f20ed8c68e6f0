// SPDX-License-Identifier: BSD-3-Clause
// A lone thread's LL words: receiver load form x batch width x sender store form, one GPU,
// two blocks of one thread (root / receiver of a broadcast), kernels bounded to 1024 threads.
#include <cstdio>
#include <cstdint>

__device__ __forceinline__ uint64_t ld1(const uint64_t* p) { uint64_t v; asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void ld2(const uint64_t* p, uint64_t& a, uint64_t& b) { asm volatile("ld.relaxed.sys.global.v2.u64 {%0,%1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory"); }
__device__ __forceinline__ void st1(uint64_t* p, uint64_t v) { asm volatile("st.relaxed.sys.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory"); }
__device__ __forceinline__ void st2(uint64_t* p, uint64_t a, uint64_t b) { asm volatile("st.relaxed.sys.global.v2.u64 [%0], {%1,%2};" :: "l"(p), "l"(a), "l"(b) : "memory"); }

// Receive B words at p (VEC: 16-byte loads) into dst (32-bit data each).
template <int B, bool VEC>
__device__ __forceinline__ void recv(const uint64_t* p, uint32_t tag, uint32_t* dst) {
  uint64_t v[B];
  for (;;) {
    if (VEC) {
#pragma unroll
      for (int b = 0; b < B; b += 2) ld2(p + b, v[b], v[b + 1]);
    } else {
#pragma unroll
      for (int b = 0; b < B; ++b) v[b] = ld1(p + b);
    }
    bool ok = true;
#pragma unroll
    for (int b = 0; b < B; ++b) ok &= (uint32_t)(v[b] >> 32) == tag;
    if (ok) break;
  }
#pragma unroll
  for (int b = 0; b < B; ++b) dst[b] = (uint32_t)v[b];
}

template <bool VEC>
__device__ __forceinline__ void send16(uint64_t* p, const uint32_t* src, uint64_t hi) {
  uint32_t d[16];
#pragma unroll
  for (int b = 0; b < 16; ++b) d[b] = src[b];
  if (VEC) {
#pragma unroll
    for (int b = 0; b < 16; b += 2) st2(p + b, hi | d[b], hi | d[b + 1]);
  } else {
#pragma unroll
    for (int b = 0; b < 16; ++b) st1(p + b, hi | d[b]);
  }
}

template <int B, bool RVEC, bool SVEC>
__global__ void __launch_bounds__(1024) k_pp(uint64_t* buf, uint64_t* ack, uint32_t* src, uint32_t* dst, int n, int iters,
                                             uint32_t tag0, unsigned long long* out) {
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  for (int i = 0; i < iters; ++i) {
    const uint32_t tag = tag0 + i;
    const int par = tag & 1;
    const uint64_t hi = (uint64_t)tag << 32;
    if (blockIdx.x == 0) {
      for (int w = 0; w < n; w += 16) send16<SVEC>(buf + par * 1024 + w, src + w, hi);
      uint32_t x;
      recv<1, false>(ack + par, tag, &x);
    } else {
      st1(ack + par, hi);
      for (int w = 0; w < n; w += B) recv<B, RVEC>(buf + par * 1024 + w, tag, dst + w);
    }
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  out[blockIdx.x] = g1 - g0;
}

template <int B, bool RVEC, bool SVEC>
void run(uint64_t* buf, uint64_t* ack, uint32_t* src, uint32_t* dst, unsigned long long* out, int n, uint32_t* tag) {
  if (n % B) return;
  const int iters = 2000;
  unsigned long long h[2];
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    k_pp<B, RVEC, SVEC><<<2, 1>>>(buf, ack, src, dst, n, iters, *tag, out);
    *tag += iters;
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    const double us = h[1] / 1e3 / iters;
    if (us < best) best = us;
  }
  printf("recv %s b%-2d send %s  words %4d (%5d B): %7.3f us/call\n", RVEC ? "v2.u64" : "u64   ", B, SVEC ? "v2.u64" : "u64   ", n, n * 4, best);
}

int main() {
  uint64_t *buf, *ack;
  uint32_t *src, *dst;
  unsigned long long* out;
  cudaMalloc(&buf, 2 * 1024 * 8);
  cudaMalloc(&ack, 64);
  cudaMalloc(&src, 4096);
  cudaMalloc(&dst, 4096);
  cudaMalloc(&out, 64);
  cudaMemset(buf, 0, 2 * 1024 * 8);
  cudaMemset(ack, 0, 64);
  uint32_t tag = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (int n : {16, 64, 256}) {
      run<16, false, false>(buf, ack, src, dst, out, n, &tag);
      run<8, false, false>(buf, ack, src, dst, out, n, &tag);
      run<16, true, false>(buf, ack, src, dst, out, n, &tag);
      run<16, true, true>(buf, ack, src, dst, out, n, &tag);
      run<16, false, true>(buf, ack, src, dst, out, n, &tag);
      run<32, true, true>(buf, ack, src, dst, out, n, &tag);
      run<8, true, true>(buf, ack, src, dst, out, n, &tag);
      run<4, true, true>(buf, ack, src, dst, out, n, &tag);
    }
  cudaError_t e = cudaDeviceSynchronize();
  printf("status: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}

// SPDX-License-Identifier: BSD-3-Clause
// copy_probe: which way of moving bytes over NVLink from inside a kernel is
// fastest on this machine, as the ceiling under gshmem's put/get bandwidth.
// Not a gshmem API benchmark: plain CUDA peer access between GPUs 0 and 1 of
// one process (cudaDeviceEnablePeerAccess), 256 MiB, CUDA events.
//   bin/gshmem-copy-probe [MiB]
// Variants:
//   ce            cudaMemcpyPeerAsync (the copy engines)
//   st.v4 c x t   16-byte loads/stores, 4 in flight per thread (gshmem's copy loop)
//   split c x t x k  the same, each CTA's part copied as k contiguous pieces at once
//   tma c S B     one thread per CTA drives the TMA: bulk loads into S shared-memory
//                 stages of B bytes, bulk stores from them (cp.async.bulk, sm_90)
//   one CTA     a 8 KiB - 1 MiB put from one CTA + fence.sc.sys (putmem_block + quiet):
//               1024 threads' 16-byte stores against TMA bulk stores, timed in the kernel
// "put" writes GPU 1's memory from a kernel on GPU 0, "get" reads it into GPU 0.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_util.h"

namespace {

constexpr int kReps = 9, kWarmup = 2;

// Elements i, i + stride, ... of n, 4 loads in flight per thread before the stores.
__device__ __forceinline__ void copy_v4(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t n, size_t i,
                                        size_t stride) {
  constexpr int U = 4;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < U; ++k) dst[i + k * stride] = v[k];
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

// Grid-stride over the whole buffer.
__global__ void k_st_v4(uint4* dst, const uint4* src, size_t n) {
  copy_v4(dst, src, n, static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x,
          static_cast<size_t>(gridDim.x) * blockDim.x);
}

// Block-chunked like putmem_nbi_block: CTA b copies elements [b*n/c, (b+1)*n/c).
__global__ void k_st_v4_chunked(uint4* dst, const uint4* src, size_t n) {
  const size_t per = n / gridDim.x;
  copy_v4(dst + blockIdx.x * per, src + blockIdx.x * per, per, threadIdx.x, blockDim.x);
}

// Block-chunked, and the CTA's part split again into `streams` contiguous pieces, each
// copied by blockDim.x / streams threads (streams = 32 at 1024 threads: one piece a warp).
// More pieces: more separate address streams in flight at the peer's memory at once.
__global__ void k_st_v4_split(uint4* dst, const uint4* src, size_t n, int streams) {
  const size_t per = n / gridDim.x;
  const int group = blockDim.x / streams, g = threadIdx.x / group;
  const size_t piece = per / streams;
  const size_t at = blockIdx.x * per + g * piece;
  copy_v4(dst + at, src + at, piece, threadIdx.x % group, group);
}

// Put-loop variants at the put bandwidth target's shape (block-chunked): U loads in
// flight per thread; the store instruction (kind K: 0 plain C++, 1 st.global, 2 .cg,
// 3 .cs, 4 .wt, 5 st.relaxed.sys, 6 .L1::no_allocate); CONTIG: each thread's U units
// side by side (a warp's store covers 32 x 16 B spread U x 16 B apart) instead of
// blockDim apart (a warp's store covers 512 B in a row).
#define PROBE_ST_V4(OP) \
  asm volatile(OP " [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory")
template <int K>
__device__ __forceinline__ void store_v4(uint4* p, uint4 v) {
  if constexpr (K == 0)
    *p = v;
  else if constexpr (K == 1)
    PROBE_ST_V4("st.global.v4.u32");
  else if constexpr (K == 2)
    PROBE_ST_V4("st.global.cg.v4.u32");
  else if constexpr (K == 3)
    PROBE_ST_V4("st.global.cs.v4.u32");
  else if constexpr (K == 4)
    PROBE_ST_V4("st.global.wt.v4.u32");
  else if constexpr (K == 5)
    PROBE_ST_V4("st.relaxed.sys.global.v4.u32");
  else
    PROBE_ST_V4("st.global.L1::no_allocate.v4.u32");
}
#undef PROBE_ST_V4
template <int U, int K, bool CONTIG>
__global__ void k_put_variant(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t n) {
  const size_t per = n / gridDim.x;
  dst += blockIdx.x * per;
  src += blockIdx.x * per;
  const size_t t = blockDim.x;
  for (size_t i = CONTIG ? threadIdx.x * U : threadIdx.x; i < per; i += U * t) {
    uint4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = src[CONTIG ? i + k : i + k * t];
#pragma unroll
    for (int k = 0; k < U; ++k) store_v4<K>(dst + (CONTIG ? i + k : i + k * t), v[k]);
  }
}

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One thread per CTA; chunk j of `chunk` bytes goes through stage j % S.
__global__ void k_tma(char* __restrict__ dst, const char* __restrict__ src, size_t bytes, int stages, int chunk) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) uint64_t bar[8];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const size_t nchunks = bytes / chunk;
  // This CTA's chunks: blockIdx.x, + gridDim.x, ...
  const size_t mine = nchunks > blockIdx.x ? (nchunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto chunk_of = [&](size_t it) { return (blockIdx.x + it * gridDim.x) * static_cast<size_t>(chunk); };
  auto load = [&](size_t it) {
    const int s = static_cast<int>(it % stages);
    const uint32_t b = smem_addr(&bar[s]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(chunk) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(smem + static_cast<size_t>(s) * chunk)),
                 "l"(src + chunk_of(it)), "r"(chunk), "r"(b)
                 : "memory");
  };
  for (size_t it = 0; it < mine && it < static_cast<size_t>(stages); ++it) load(it);
  for (size_t it = 0; it < mine; ++it) {
    const int s = static_cast<int>(it % stages);
    const uint32_t parity = static_cast<uint32_t>((it / stages) & 1);
    const uint32_t b = smem_addr(&bar[s]);
    asm volatile(
        "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(b),
        "r"(parity)
        : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + chunk_of(it)),
                 "r"(smem_addr(smem + static_cast<size_t>(s) * chunk)), "r"(chunk)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // Refill the stage the previous iteration stored from once its reads are done.
    if (it >= 1 && it - 1 + stages < mine) {
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      load(it - 1 + stages);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// One CTA puts `bytes` and fences, `iters` times (putmem_block + quiet); mean us per put.
__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void k_one_cta_st(uint4* dst, const uint4* src, size_t n, int iters, double* us) {
  uint64_t t0 = 0;
  for (int it = -20; it < iters; ++it) {
    __syncthreads();
    if (it == 0) t0 = globaltimer();
    for (size_t i = threadIdx.x; i < n; i += 4 * blockDim.x) {
      uint4 v[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * blockDim.x < n) v[k] = src[i + k * blockDim.x];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * blockDim.x < n) dst[i + k * blockDim.x] = v[k];
    }
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("fence.sc.sys;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) *us = (globaltimer() - t0) / 1e3 / iters;
}

// The same with the TMA: shared memory (200 KiB) filled by bulk loads, drained by bulk
// stores in `chunk`-byte pieces, one thread issuing.
__global__ void k_one_cta_tma(char* dst, const char* src, int bytes, int chunk, int iters, double* us) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  const uint32_t b = smem_addr(&bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const int stages = (200 * 1024) / chunk, nch = bytes / chunk;
  uint32_t phase = 0;
  uint64_t t0 = 0;
  for (int it = -20; it < iters; ++it) {
    if (it == 0) t0 = globaltimer();
    for (int c = 0; c < nch; c += stages) {
      const int m = min(stages, nch - c);
      if (c > 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(m * chunk) : "memory");
      for (int j = 0; j < m; ++j)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem_addr(smem + j * chunk)),
                     "l"(src + static_cast<size_t>(c + j) * chunk), "r"(chunk), "r"(b)
                     : "memory");
      asm volatile(
          "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(b),
          "r"(phase)
          : "memory");
      phase ^= 1;
      for (int j = 0; j < m; ++j) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                         dst + static_cast<size_t>(c + j) * chunk),
                     "r"(smem_addr(smem + j * chunk)), "r"(chunk)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    asm volatile("fence.sc.sys;" ::: "memory");
  }
  *us = (globaltimer() - t0) / 1e3 / iters;
}

// `bytes` of GPU `dev`'s memory through the VMM API (cuMemCreate + cuMemMap), its
// virtual range aligned to `align`, readable and writable from GPUs 0 and 1: the
// driver picks larger pages for larger aligned ranges.
char* vmm_alloc(int dev, size_t bytes, size_t align) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  if (cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS) return nullptr;
  bytes = (bytes + align - 1) / align * align;
  CUdeviceptr va = 0;
  CUmemGenericAllocationHandle h;
  if (cuMemAddressReserve(&va, bytes, align, 0, 0) != CUDA_SUCCESS) return nullptr;
  if (cuMemCreate(&h, bytes, &prop, 0) != CUDA_SUCCESS) return nullptr;
  if (cuMemMap(va, bytes, 0, h, 0) != CUDA_SUCCESS) return nullptr;
  CUmemAccessDesc a[2] = {};
  for (int d = 0; d < 2; ++d) {
    a[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a[d].location.id = d;
    a[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  if (cuMemSetAccess(va, bytes, a, 2) != CUDA_SUCCESS) return nullptr;
  return reinterpret_cast<char*>(va);
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    PROBE_CHECK(cudaEventCreate(&a));
    PROBE_CHECK(cudaEventCreate(&b));
  }
};

template <class F>
double best_gbps(size_t bytes, F&& launch, double* median) {
  Timer t;
  std::vector<double> g;
  for (int r = 0; r < kWarmup + kReps; ++r) {
    PROBE_CHECK(cudaEventRecord(t.a));
    launch();
    PROBE_CHECK(cudaEventRecord(t.b));
    PROBE_CHECK(cudaEventSynchronize(t.b));
    PROBE_CHECK(cudaGetLastError());
    float ms = 0;
    PROBE_CHECK(cudaEventElapsedTime(&ms, t.a, t.b));
    if (r >= kWarmup) g.push_back(bytes / (ms * 1e-3) / 1e9);
  }
  std::sort(g.begin(), g.end());
  *median = g[g.size() / 2];
  return g.back();
}

bool check(const char* dst, const char* ref, size_t bytes) {
  std::vector<char> a(bytes), b(bytes);
  PROBE_CHECK(cudaMemcpy(a.data(), dst, bytes, cudaMemcpyDefault));
  PROBE_CHECK(cudaMemcpy(b.data(), ref, bytes, cudaMemcpyDefault));
  return a == b;
}

void report(const char* dir, const char* what, double best, double med, bool ok) {
  printf("%-4s %-26s %6.1f GB/s best  %6.1f median  %s\n", dir, what, best, med, ok ? "ok" : "WRONG DATA");
  fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int ndev = 0;
  PROBE_CHECK(cudaGetDeviceCount(&ndev));
  if (ndev < 2) {
    fprintf(stderr, "copy_probe: needs 2 GPUs, found %d\n", ndev);
    return 77;
  }
  const size_t bytes = (argc > 1 ? strtoull(argv[1], nullptr, 10) : 256) << 20;
  char *loc, *loc2, *rem;
  PROBE_CHECK(cudaSetDevice(1));
  PROBE_CHECK(cudaMalloc(&rem, bytes));
  PROBE_CHECK(cudaSetDevice(0));
  PROBE_CHECK(cudaDeviceEnablePeerAccess(1, 0));
  PROBE_CHECK(cudaMalloc(&loc, bytes));
  PROBE_CHECK(cudaMalloc(&loc2, bytes));
  {
    std::vector<uint32_t> h(bytes / 4);
    for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint32_t>(i * 2654435761u + 12345);
    PROBE_CHECK(cudaMemcpy(loc, h.data(), bytes, cudaMemcpyHostToDevice));
  }
  PROBE_CHECK(cudaFuncSetAttribute(k_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  double med, best;
  auto poison = [&](char* p) {
    PROBE_CHECK(cudaMemset(p, 0xA5, bytes));
    PROBE_CHECK(cudaDeviceSynchronize());
  };

  poison(rem);
  best = best_gbps(
      bytes, [&] { PROBE_CHECK(cudaMemcpyPeerAsync(rem, 1, loc, 0, bytes)); }, &med);
  report("put", "ce", best, med, check(rem, loc, bytes));
  poison(loc2);
  best = best_gbps(
      bytes, [&] { PROBE_CHECK(cudaMemcpyPeerAsync(loc2, 0, rem, 1, bytes)); }, &med);
  report("get", "ce", best, med, check(loc2, rem, bytes));

  const size_t n4 = bytes / 16;
  for (int c : {32, 64, 132, 264}) {
    for (int t : {512, 1024}) {
      char what[64];
      snprintf(what, sizeof what, "st.v4 %d x %d", c, t);
      poison(rem);
      best = best_gbps(
          bytes, [&] { k_st_v4<<<c, t>>>((uint4*)rem, (const uint4*)loc, n4); }, &med);
      report("put", what, best, med, check(rem, loc, bytes));
      poison(loc2);
      best = best_gbps(
          bytes, [&] { k_st_v4<<<c, t>>>((uint4*)loc2, (const uint4*)rem, n4); }, &med);
      report("get", what, best, med, check(loc2, rem, bytes));
    }
  }
  for (int c : {32, 64}) {
    char what[64];
    snprintf(what, sizeof what, "st.v4 chunked %d x 1024", c);
    poison(rem);
    best = best_gbps(
        bytes, [&] { k_st_v4_chunked<<<c, 1024>>>((uint4*)rem, (const uint4*)loc, n4); }, &med);
    report("put", what, best, med, check(rem, loc, bytes));
  }
  // The put bandwidth target's shape (32 CTAs x 1024, one part a CTA) with the CTA's part
  // copied as 1 (the library's loop), 2, 4, 8 or 32 separate streams.
  for (int c : {32, 64}) {
    for (int st : {1, 2, 4, 8, 32}) {
      char what[64];
      snprintf(what, sizeof what, "st.v4 split %d x 1024 x %d", c, st);
      poison(rem);
      best = best_gbps(
          bytes, [&] { k_st_v4_split<<<c, 1024>>>((uint4*)rem, (const uint4*)loc, n4, st); }, &med);
      report("put", what, best, med, check(rem, loc, bytes));
      poison(loc2);
      best = best_gbps(
          bytes, [&] { k_st_v4_split<<<c, 1024>>>((uint4*)loc2, (const uint4*)rem, n4, st); }, &med);
      report("get", what, best, med, check(loc2, rem, bytes));
    }
  }
  // Put-loop variants at 32 CTAs x 1024 (k_put_variant): unroll, store instruction, layout.
  {
    auto put_variant = [&](const char* what, void (*k)(uint4*, const uint4*, size_t)) {
      poison(rem);
      best = best_gbps(
          bytes, [&] { k<<<32, 1024>>>((uint4*)rem, (const uint4*)loc, n4); }, &med);
      report("put", what, best, med, check(rem, loc, bytes));
    };
    put_variant("var U4 plain", k_put_variant<4, 0, false>);
    put_variant("var U8 plain", k_put_variant<8, 0, false>);
    put_variant("var U16 plain", k_put_variant<16, 0, false>);
    put_variant("var U2 plain", k_put_variant<2, 0, false>);
    put_variant("var U1 plain", k_put_variant<1, 0, false>);
    put_variant("var U4 st.global", k_put_variant<4, 1, false>);
    put_variant("var U4 st.cg", k_put_variant<4, 2, false>);
    put_variant("var U4 st.cs", k_put_variant<4, 3, false>);
    put_variant("var U4 st.wt", k_put_variant<4, 4, false>);
    put_variant("var U4 st.relaxed.sys", k_put_variant<4, 5, false>);
    put_variant("var U4 st.L1::no_allocate", k_put_variant<4, 6, false>);
    put_variant("var U4 plain contig", k_put_variant<4, 0, true>);
    put_variant("var U8 plain contig", k_put_variant<8, 0, true>);
    put_variant("var U2 plain contig", k_put_variant<2, 0, true>);
    put_variant("var U8 st.cs", k_put_variant<8, 3, false>);
    put_variant("var U8 st.wt", k_put_variant<8, 4, false>);
    // 120 KiB of (unused) shared memory a CTA: one CTA an SM, whatever the registers allow.
    PROBE_CHECK(
        cudaFuncSetAttribute(k_put_variant<4, 0, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, 120 * 1024));
    poison(rem);
    best = best_gbps(
        bytes, [&] { k_put_variant<4, 0, false><<<32, 1024, 120 * 1024>>>((uint4*)rem, (const uint4*)loc, n4); }, &med);
    report("put", "var U4 plain 1 CTA/SM", best, med, check(rem, loc, bytes));
  }
  // The destination allocated through the VMM API with its virtual range aligned to 2 MiB,
  // 512 MiB or 1 GiB (page size), puts and gets at 32 CTAs x 1024.
  for (size_t align : {size_t{2} << 20, size_t{512} << 20, size_t{1} << 30}) {
    char* v = vmm_alloc(1, bytes, align);
    char what[64];
    if (!v) {
      printf("vmm_alloc with alignment %zu MiB failed\n", align >> 20);
      continue;
    }
    for (int c : {32, 64}) {  // k_st_v4_chunked needs a CTA count that divides the units
      snprintf(what, sizeof what, "vmm %zuM st.v4 chunked %d", align >> 20, c);
      poison(v);
      best = best_gbps(
          bytes, [&] { k_st_v4_chunked<<<c, 1024>>>((uint4*)v, (const uint4*)loc, n4); }, &med);
      report("put", what, best, med, check(v, loc, bytes));
      PROBE_CHECK(cudaMemcpy(v, loc, bytes, cudaMemcpyDefault));
      poison(loc2);
      best = best_gbps(
          bytes, [&] { k_st_v4_chunked<<<c, 1024>>>((uint4*)loc2, (const uint4*)v, n4); }, &med);
      report("get", what, best, med, check(loc2, v, bytes));
    }
  }
  struct Tma {
    int c, s, b;
  };
  for (Tma v : std::vector<Tma>{{32, 4, 32768},
                                {32, 6, 32768},
                                {64, 4, 32768},
                                {64, 3, 65536},
                                {132, 4, 32768},
                                {132, 6, 32768},
                                {132, 3, 65536},
                                {132, 8, 16384},
                                {264, 4, 16384},
                                {264, 6, 16384}}) {
    char what[64];
    snprintf(what, sizeof what, "tma %d x S%d x %dK", v.c, v.s, v.b / 1024);
    const size_t sm = static_cast<size_t>(v.s) * v.b;
    poison(rem);
    best = best_gbps(
        bytes, [&] { k_tma<<<v.c, 32, sm>>>(rem, loc, bytes, v.s, v.b); }, &med);
    report("put", what, best, med, check(rem, loc, bytes));
    poison(loc2);
    best = best_gbps(
        bytes, [&] { k_tma<<<v.c, 32, sm>>>(loc2, rem, bytes, v.s, v.b); }, &med);
    report("get", what, best, med, check(loc2, rem, bytes));
  }
  // One CTA, in-kernel timing.
  double* us = nullptr;
  PROBE_CHECK(cudaMallocManaged(&us, sizeof(double)));
  PROBE_CHECK(cudaFuncSetAttribute(k_one_cta_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  for (int b : {8 << 10, 64 << 10, 256 << 10, 1 << 20}) {
    k_one_cta_st<<<1, 1024>>>((uint4*)rem, (const uint4*)loc, b / 16, 200, us);
    PROBE_CHECK(cudaDeviceSynchronize());
    printf("put  one CTA %7d B + fence   st.v4 x 1024 %7.3f us (%5.1f GB/s)", b, *us, b / (*us * 1e3));
    for (int ch : {8 << 10, 32 << 10}) {
      if (ch > b) continue;
      k_one_cta_tma<<<1, 32, 200 * 1024>>>(rem, loc, b, ch, 200, us);
      PROBE_CHECK(cudaDeviceSynchronize());
      printf("   tma %2dK %7.3f us", ch >> 10, *us);
    }
    printf("\n");
  }
  return 0;
}

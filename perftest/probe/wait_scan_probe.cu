// SPDX-License-Identifier: BSD-3-Clause
// wait_scan_probe: what a lone thread's scan of n wait variables costs - the
// _all/_any/_some waits and tests of the device API (the host and on-stream
// forms scan with a warp instead: src/host/amo/wait_warp.cuh). Raw PTX first
// (acquire loads one by one; relaxed loads in batches of 4, 8 or 16 ended by
// fence.acq_rel.sys; a hit of an _any scan confirmed by a fence or by an
// acquire re-read), then the library's calls.
// Compiled against two versions of the headers, it compares their scans.
//   gshmrun -n 1 bin/gshmem-wait-scan-probe
// Prints one line per variant and n: the median over 5 repetitions of the mean
// time of a call (globaltimer), and how many results were wrong (must be 0).
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

constexpr size_t kMaxN = 512;
constexpr int kReps = 5;

enum Variant {
  raw_acquire,          // test_all by acquire loads, one after another
  raw_batch4,           // test_all by relaxed loads, 4 in flight, then a fence
  raw_batch8,           //   8 in flight
  raw_batch16,          //   16 in flight
  raw_any_fence,        // _any whose first element is met: a batch of 8, then a fence
  raw_any_reacquire,    //   a batch of 8, then the hit re-read by an acquire load
  api_test_all,         // gshmem::test_all, all met
  api_test_any_none,    // gshmem::test_any, none met (a whole scan that fails)
  api_test_some,        // gshmem::test_some, all met
  api_wait_all,         // gshmem::wait_until_all, all met
  api_wait_all_vector,  // gshmem::wait_until_all_vector, odd elements masked out
  api_wait_any,         // gshmem::wait_until_any, all met (the scan's first element hits)
  api_test_all_rt,      // test_all with the comparison read from memory (as a caller's kernel
  api_wait_all_rt,      //   may have it: known at run time only), and
                        //   wait_until_all with a status mask (odd elements out) the same way
  kVariants
};
const char* const kNames[kVariants] = {"raw acquire loads",
                                       "raw relaxed x4 + fence",
                                       "raw relaxed x8 + fence",
                                       "raw relaxed x16 + fence",
                                       "raw any: x8 + fence",
                                       "raw any: x8 + acquire",
                                       "test_all",
                                       "test_any (none met)",
                                       "test_some",
                                       "wait_until_all",
                                       "wait_until_all_vector",
                                       "wait_until_any",
                                       "test_all (cmp read)",
                                       "wait_until_all (cmp read)"};

__device__ int g_cmp_ge = static_cast<int>(gshmem::cmp::ge);  // a comparison unknown when compiling

__device__ __forceinline__ uint64_t ld_acq(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint64_t ld_rlx(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void fence() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

template <int B>
__device__ bool batched_all(const uint64_t* iv, size_t n, uint64_t want) {
  for (size_t i = 0; i < n; i += B) {
    uint64_t x[B];
#pragma unroll
    for (int k = 0; k < B; ++k)
      if (i + k < n) x[k] = ld_rlx(iv + i + k);
#pragma unroll
    for (int k = 0; k < B; ++k)
      if (i + k < n && x[k] != want) return false;
  }
  fence();
  return true;
}

// The first element that meets `want` (batches of 8 relaxed loads), its value acquired by a fence
// or by an acquire re-read; SIZE_MAX if none does.
__device__ size_t batched_any(const uint64_t* iv, size_t n, uint64_t want, bool reacquire) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      if (i + k < n) x[k] = ld_rlx(iv + i + k);
#pragma unroll
    for (int k = 0; k < 8; ++k)
      if (i + k < n && x[k] == want) {
        if (!reacquire) {
          fence();
          return i + k;
        }
        if (ld_acq(iv + i + k) == want) return i + k;
      }
  }
  return SIZE_MAX;
}

// One call of variant V on n variables; true when its result is right. (A kernel per variant:
// one kernel switching between them all would time its size, not the scans.)
template <int V>
__device__ __forceinline__ bool one_call(uint64_t* iv, size_t n, size_t* idx, const int* odd_out,
                                         const uint64_t* ones) {
  switch (V) {
    case raw_acquire: {
      for (size_t i = 0; i < n; ++i)
        if (ld_acq(iv + i) != 1) return false;
      return true;
    }
    case raw_batch4:
      return batched_all<4>(iv, n, 1);
    case raw_batch8:
      return batched_all<8>(iv, n, 1);
    case raw_batch16:
      return batched_all<16>(iv, n, 1);
    case raw_any_fence:
      return batched_any(iv, n, 1, false) == 0;
    case raw_any_reacquire:
      return batched_any(iv, n, 1, true) == 0;
    case api_test_all:
      return gshmem::test_all(iv, n, nullptr, gshmem::cmp::eq, uint64_t{1});
    case api_test_any_none:
      return gshmem::test_any(iv, n, nullptr, gshmem::cmp::eq, uint64_t{2}) == SIZE_MAX;
    case api_test_some: {
      if (gshmem::test_some(iv, n, idx, nullptr, gshmem::cmp::eq, uint64_t{1}) != n) return false;
      return idx[n - 1] == n - 1;
    }
    case api_wait_all:
      gshmem::wait_until_all(iv, n, nullptr, gshmem::cmp::eq, uint64_t{1});
      return true;
    case api_wait_all_vector:
      gshmem::wait_until_all_vector(iv, n, odd_out, gshmem::cmp::eq, ones);
      return true;
    case api_wait_any:
      return gshmem::wait_until_any(iv, n, nullptr, gshmem::cmp::eq, uint64_t{1}) < n;
    case api_test_all_rt:
      return gshmem::test_all(iv, n, nullptr, static_cast<gshmem::cmp>(g_cmp_ge), uint64_t{1});
    default:
      gshmem::wait_until_all(iv, n, odd_out, static_cast<gshmem::cmp>(g_cmp_ge), uint64_t{1});
      return true;
  }
}

template <int V>
__global__ void k_time(uint64_t* iv, size_t n, int iters, size_t* idx, const int* odd_out, const uint64_t* ones,
                       unsigned long long* ns, unsigned long long* wrong) {
  unsigned long long bad = 0;
  for (int i = 0; i < 8; ++i) bad += one_call<V>(iv, n, idx, odd_out, ones) ? 0 : 1;  // warm-up
  const uint64_t t0 = gshmem::detail::global_timer_ns();
  for (int i = 0; i < iters; ++i) bad += one_call<V>(iv, n, idx, odd_out, ones) ? 0 : 1;
  *ns = gshmem::detail::global_timer_ns() - t0;
  *wrong = bad;
}

using Kernel = void (*)(uint64_t*, size_t, int, size_t*, const int*, const uint64_t*, unsigned long long*,
                        unsigned long long*);
template <int... V>
constexpr std::array<Kernel, sizeof...(V)> kernels(std::integer_sequence<int, V...>) {
  return {k_time<V>...};
}

}  // namespace

int main() {
  gshmem_init();
  auto* iv = static_cast<uint64_t*>(gshmem_malloc(kMaxN * sizeof(uint64_t)));
  if (!iv) {
    fprintf(stderr, "wait_scan_probe: gshmem_malloc of %zu bytes failed\n", kMaxN * sizeof(uint64_t));
    return 1;
  }
  std::vector<uint64_t> ones(kMaxN, 1);
  std::vector<int> odd_out(kMaxN);
  for (size_t i = 0; i < kMaxN; ++i) odd_out[i] = static_cast<int>(i & 1);
  PROBE_CHECK(cudaMemcpy(iv, ones.data(), kMaxN * sizeof(uint64_t), cudaMemcpyHostToDevice));
  size_t* idx;
  int* d_odd;
  uint64_t* d_ones;
  unsigned long long *ns, *wrong;
  PROBE_CHECK(cudaMalloc(&idx, kMaxN * sizeof(size_t)));
  PROBE_CHECK(cudaMalloc(&d_odd, kMaxN * sizeof(int)));
  PROBE_CHECK(cudaMalloc(&d_ones, kMaxN * sizeof(uint64_t)));
  PROBE_CHECK(cudaMemcpy(d_odd, odd_out.data(), kMaxN * sizeof(int), cudaMemcpyHostToDevice));
  PROBE_CHECK(cudaMemcpy(d_ones, ones.data(), kMaxN * sizeof(uint64_t), cudaMemcpyHostToDevice));
  PROBE_CHECK(cudaMallocHost(&ns, sizeof(*ns)));
  PROBE_CHECK(cudaMallocHost(&wrong, sizeof(*wrong)));

  const auto kTimers = kernels(std::make_integer_sequence<int, kVariants>{});
  const size_t sizes[] = {1, 2, 3, 4, 5, 8, 9, 16, 41, 128, 500};
  unsigned long long total_wrong = 0;
  if (gshmem_my_pe() == 0) printf("%-26s %5s %12s %7s\n", "variant", "n", "us/call", "wrong");
  for (int v = 0; v < kVariants; ++v) {
    for (size_t n : sizes) {
      const int iters = static_cast<int>(20000 / n < 100 ? 100 : 20000 / n);
      std::vector<double> us;
      unsigned long long bad = 0;
      for (int r = 0; r < kReps; ++r) {
        kTimers[v]<<<1, 1>>>(iv, n, iters, idx, d_odd, d_ones, ns, wrong);
        PROBE_CHECK(cudaGetLastError());
        PROBE_CHECK(cudaDeviceSynchronize());
        us.push_back(static_cast<double>(*ns) / iters / 1000.0);
        bad += *wrong;
      }
      total_wrong += bad;
      if (gshmem_my_pe() == 0) printf("%-26s %5zu %12.3f %7llu\n", kNames[v], n, probe_median(us), bad);
    }
  }
  PROBE_CHECK(cudaFree(idx));
  PROBE_CHECK(cudaFree(d_odd));
  PROBE_CHECK(cudaFree(d_ones));
  PROBE_CHECK(cudaFreeHost(ns));
  PROBE_CHECK(cudaFreeHost(wrong));
  gshmem_free(iv);
  gshmem_finalize();
  if (total_wrong) fprintf(stderr, "wait_scan_probe: %llu wrong results\n", total_wrong);
  return total_wrong ? 1 : 0;
}

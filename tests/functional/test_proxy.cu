// SPDX-License-Identifier: BSD-3-Clause
// Device calls between PEs of different (simulated) nodes, through the proxy: each PE works with
// its right neighbour (PE + 1 mod N). Run under `gshmrun --sim-nodes K`, or with
// GSHMEM_DISABLE_P2P=1, the neighbour is reached through the proxy; on one node the same
// checks run over NVLink, so the two transports are held to one set of expectations.
//
//  - puts of 1 B .. 64 KiB + 3 from a thread, a warp and a block; non-blocking and blocking;
//    from global memory (by reference) and from shared memory (inline pieces); then quiet and
//    a barrier, and every byte of the neighbour's destination and its guard zones checked;
//  - gets of the same sizes into global and shared memory;
//  - p / g of 1, 2, 4 and 8-byte types;
//  - put_signal: 64 rounds of data + ADD signal to the neighbour, who waits for the signal and
//    checks the data in the kernel (a signal never overtakes its data);
//  - put; fence; p(flag): the neighbour sees the data once it sees the flag;
//  - AMOs: every PE's threads fetch_add one counter on PE 0 (mixing NVLink and proxy peers on
//    2 x 2 layouts): the total is exact and the fetched values are all distinct; compare_swap,
//    swap, set, fetch, and, or, xor on 4- and 8-byte words;
//  - 20,000 p from one thread: the ring (4096 entries by default) wraps and fills, then quiet;
//  - device barriers at every scope, 200 times, each checking a value written before it.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common.cuh"
#include "gshmem/gshmem.h"

using gt::value;

namespace {

constexpr size_t kMax = 65536 + 3;
constexpr size_t kGuard = 64;
const size_t kSizes[] = {1, 7, 16, 17, 1000, 4096, kMax};
constexpr uint8_t kPoison = 0xA5;

__device__ uint8_t pat(int pe, size_t i, unsigned salt) {
  return static_cast<uint8_t>(gt::mix64((uint64_t(pe) << 40) ^ (uint64_t(salt) << 32) ^ i) | 1u);
}

__global__ void fill(uint8_t* p, size_t n, int pe, unsigned salt) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = pat(pe, i, salt);
}

// Every byte of [0, n) must be pat(pe, i, salt); the guards around it poison.
__global__ void check(const uint8_t* p, size_t n, int pe, unsigned salt, unsigned long long* bad) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n + 2 * kGuard; i += size_t(gridDim.x) * blockDim.x) {
    const uint8_t want = (i < kGuard || i >= n + kGuard) ? kPoison : pat(pe, i - kGuard, salt);
    if (p[i] != want) atomicAdd(bad, 1ull);
  }
}

// Shared-memory sources and destinations go in pieces; 4 KiB of them is enough to cover it.
constexpr size_t kSmem = 4096;

template <class S>
__device__ void scoped_put(void* d, const void* s, size_t n, int pe, bool nbi) {
  if (nbi)
    gshmem::putmem_nbi<S>(d, s, n, pe);
  else
    gshmem::putmem<S>(d, s, n, pe);
}
template <class S>
__device__ void scoped_get(void* d, const void* s, size_t n, int pe, bool nbi) {
  if (nbi)
    gshmem::getmem_nbi<S>(d, s, n, pe);
  else
    gshmem::getmem<S>(d, s, n, pe);
}

// Scope 0 thread, 1 warp, 2 block (one block of 128 threads; only warp 0 of it for a warp).
template <class S>
__global__ void put_kernel(uint8_t* dst, const uint8_t* src, size_t n, int pe, bool nbi, bool shared, unsigned salt) {
  __shared__ uint8_t sm[kSmem];
  const bool active = gt::is_thread_v<S> ? threadIdx.x == 0 : gt::is_warp_v<S> ? threadIdx.x < 32 : true;
  if (shared) {
    for (size_t i = threadIdx.x; i < n && i < kSmem; i += blockDim.x) sm[i] = pat(gshmem_my_pe(), i, salt);
    __syncthreads();
  }
  if (active) {
    scoped_put<S>(dst, shared ? sm : src, n, pe, nbi);
    gshmem::quiet<S>();
  }
}

template <class S>
__global__ void get_kernel(uint8_t* dst, const uint8_t* src, size_t n, int pe, bool nbi, bool shared) {
  __shared__ uint8_t sm[kSmem];
  const bool active = gt::is_thread_v<S> ? threadIdx.x == 0 : gt::is_warp_v<S> ? threadIdx.x < 32 : true;
  if (active) {
    scoped_get<S>(shared ? sm : dst, src, n, pe, nbi);
    gshmem::quiet<S>();
  }
  __syncthreads();
  if (shared)
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = sm[i];
}

template <class T>
__global__ void pg_kernel(T* sym, int pe, int me, unsigned long long* bad) {
  const int i = threadIdx.x;
  const T v = static_cast<T>(gt::mix64(uint64_t(me) * 1000 + i) | 1);
  gshmem::p(sym + i, v, pe);
  gshmem_quiet();
  const T back = gshmem::g(sym + i, pe);
  if (back != v) atomicAdd(bad, 1ull);
}

// Rounds of put_signal to `right`; waits for `left`'s and checks its data in the kernel.
__global__ void put_signal_kernel(uint8_t* buf, uint8_t* src, size_t n, uint64_t* sig, int right, int left, int me,
                                  int rounds, unsigned long long* bad) {
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) src[i] = pat(me, i, 1000 + r);
    __syncthreads();
    gshmemx_putmem_signal_nbi_block(buf + size_t(r % 2) * n, src, n, sig, 1, GSHMEM_SIGNAL_ADD, right);
    if (threadIdx.x == 0) gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, uint64_t(r) + 1);
    __syncthreads();
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
      if (buf[size_t(r % 2) * n + i] != pat(left, i, 1000 + r)) atomicAdd(bad, 1ull);
    // The left neighbour may not overwrite this half before we read it: a barrier every round.
    gshmemx_barrier_all_block();
  }
}

// put; fence; p(flag) to the right; wait for the left's flag; check its data.
__global__ void fence_kernel(int* data, int* flag, int n, int right, int left, int me, unsigned long long* bad) {
  if (threadIdx.x != 0) return;
  for (int r = 1; r <= 32; ++r) {
    for (int i = 0; i < n; ++i) gshmem_int_p(data + i, me * 100000 + r * 100 + i, right);
    gshmem_fence();
    gshmem_int_p(flag, r, right);
    gshmem_int_wait_until(flag, GSHMEM_CMP_GE, r);
    for (int i = 0; i < n; ++i)
      if (gshmem::detail::ld_volatile(data + i) != left * 100000 + r * 100 + i) atomicAdd(bad, 1ull);
    gshmem_barrier_all();
  }
}

__global__ void fetch_add_kernel(unsigned long long* counter, unsigned long long* got, int per_thread) {
  for (int k = 0; k < per_thread; ++k)
    got[threadIdx.x * per_thread + k] = gshmem_ulonglong_atomic_fetch_add(counter, 1ull, 0);
}

__global__ void mark_kernel(const unsigned long long* got, int count, uint64_t* bitmap, unsigned long long total,
                            unsigned long long* bad) {
  for (int k = threadIdx.x; k < count; k += blockDim.x) {
    const unsigned long long v = got[k];
    if (v >= total) {
      atomicAdd(bad, 1ull);
      continue;
    }
    const uint64_t bit = uint64_t{1} << (v % 64);
    if (gshmem_uint64_atomic_fetch_or(bitmap + v / 64, bit, 0) & bit) atomicAdd(bad, 1ull);
  }
}

template <class T>
__global__ void amo_kernel(T* w, int pe, unsigned long long* bad) {
  if (threadIdx.x != 0) return;
  const T a = static_cast<T>(0x5a5a5a5a5a5a5a5aull), b = static_cast<T>(0x0ff00ff00ff00ff0ull);
  gshmem::atomic_set(w, a, pe);
  if (gshmem::atomic_fetch(w, pe) != a) atomicAdd(bad, 1ull);
  if (gshmem::atomic_swap(w, b, pe) != a) atomicAdd(bad, 1ull);
  if (gshmem::atomic_compare_swap(w, a, T(1), pe) != b) atomicAdd(bad, 1ull);  // no swap
  if (gshmem::atomic_compare_swap(w, b, a, pe) != b) atomicAdd(bad, 1ull);     // swaps
  if (gshmem::atomic_fetch_and(w, b, pe) != a) atomicAdd(bad, 1ull);
  if (gshmem::atomic_fetch_or(w, T(3), pe) != T(a & b)) atomicAdd(bad, 1ull);
  if (gshmem::atomic_fetch_xor(w, b, pe) != T((a & b) | 3)) atomicAdd(bad, 1ull);
  gshmem::atomic_add(w, T(5), pe);
  if (gshmem::atomic_fetch_inc(w, pe) != T((((a & b) | 3) ^ b) + 5)) atomicAdd(bad, 1ull);
}

__global__ void many_p_kernel(int* dst, int n, int pe, int me) {
  if (threadIdx.x != 0) return;
  for (int i = 0; i < n; ++i) gshmem_int_p(dst + i, me * 7 + i * 3 + 1, pe);
  gshmem_quiet();
}

template <class S>
__global__ void barrier_kernel(int* slot, int rounds, int me, int n, unsigned long long* bad) {
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) gshmem_int_p(slot + me, r * 1000 + me, (me + 1) % n);
    gt::barrier_all_scope<S>(r & 1);
    if (threadIdx.x == 0 && gshmem::detail::ld_volatile(slot + (me + n - 1) % n) != r * 1000 + (me + n - 1) % n)
      atomicAdd(bad, 1ull);
    gt::barrier_all_scope<S>(r & 1);
  }
}

// GT_PROXY_CASES=rma,pg,...: run only those sections (default: all), to narrow a failure down.
bool want(const char* name) {
  const char* only = getenv("GT_PROXY_CASES");
  return only == nullptr || strstr(only, name) != nullptr;
}

unsigned long long take(unsigned long long* bad) {
  unsigned long long v = 0;
  CUDA_CHECK(cudaMemcpy(&v, bad, sizeof v, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof v));
  return v;
}

template <class S>
void rma_cases(int me, int n, uint8_t* sym_dst, uint8_t* sym_src, uint8_t* local, unsigned long long* bad) {
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  unsigned salt = 0;
  for (size_t bytes : kSizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (int shared = 0; shared < 2; ++shared) {
        if (shared && bytes > kSmem) continue;
        ++salt;
        gt::set_context("%s put of %zu B (%s, %s)", gt::scope_name<S>(), bytes, nbi ? "nbi" : "blocking",
                        shared ? "shared source" : "global source");
        CUDA_CHECK(cudaMemset(sym_dst, kPoison, kMax + 2 * kGuard));
        fill<<<64, 256>>>(sym_src, bytes, me, salt);
        KERNEL_CHECK();
        gshmem_barrier_all();
        put_kernel<S><<<1, 128>>>(sym_dst + kGuard, sym_src, bytes, right, nbi, shared, salt);
        KERNEL_CHECK();
        gshmem_barrier_all();
        check<<<64, 256>>>(sym_dst, bytes, left, salt, bad);
        KERNEL_CHECK();
        GT_CHECK_EQ(0ull, take(bad));

        gt::set_context("%s get of %zu B (%s, %s)", gt::scope_name<S>(), bytes, nbi ? "nbi" : "blocking",
                        shared ? "shared destination" : "global destination");
        CUDA_CHECK(cudaMemset(local, kPoison, kMax + 2 * kGuard));
        get_kernel<S><<<1, 128>>>(local + kGuard, sym_src, bytes, right, nbi, shared);
        KERNEL_CHECK();
        check<<<64, 256>>>(local, bytes, right, salt, bad);
        KERNEL_CHECK();
        GT_CHECK_EQ(0ull, take(bad));
        gshmem_barrier_all();
      }
}

}  // namespace

int main() {
  gt::test_main_prologue(2, 0);
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  auto* sym_dst = static_cast<uint8_t*>(gshmem_malloc(kMax + 2 * kGuard));
  auto* sym_src = static_cast<uint8_t*>(gshmem_malloc(kMax));
  auto* words = static_cast<uint64_t*>(gshmem_calloc(4096 * 8, 1));
  auto* counter = static_cast<unsigned long long*>(gshmem_calloc(1, sizeof(unsigned long long)));
  auto* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  auto* flag = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  auto* many = static_cast<int*>(gshmem_calloc(20000, sizeof(int)));
  auto* bitmap = static_cast<uint64_t*>(gshmem_calloc(1024, sizeof(uint64_t)));  // 64 Ki values: 20 PEs
  GT_CHECK(sym_dst && sym_src && words && counter && sig && flag && many && bitmap);
  uint8_t* local = nullptr;
  unsigned long long* bad = nullptr;
  CUDA_CHECK(cudaMalloc(&local, kMax + 2 * kGuard));
  CUDA_CHECK(cudaMalloc(&bad, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof(unsigned long long)));
  gt::emit(stdout, "PE %d: right neighbour %d is %s\n", me, right,
           gshmem_ptr(sym_dst, right) ? "mapped (load/store)" : "reached through the proxy");

  if (want("rma")) {
    rma_cases<gshmem::thread_scope>(me, n, sym_dst, sym_src, local, bad);
    rma_cases<gshmem::warp_scope>(me, n, sym_dst, sym_src, local, bad);
    rma_cases<gshmem::block_scope>(me, n, sym_dst, sym_src, local, bad);
  }

  if (want("hostpg")) {
    gt::set_context("host p then quiet");
    gshmem_int_p(reinterpret_cast<int*>(words + 512), 42 + me, right);
    gshmem_quiet();
    GT_CHECK_EQ(42 + me, gshmem_int_g(reinterpret_cast<int*>(words + 512), right));
    gshmem_barrier_all();
  }
  if (want("pg")) {
    gt::set_context("p/g of 1, 2, 4, 8-byte types");
    const int t = gt::env_int("GT_PG_THREADS", 64);
    pg_kernel<uint8_t><<<1, t>>>(reinterpret_cast<uint8_t*>(words), right, me, bad);
    pg_kernel<short><<<1, t>>>(reinterpret_cast<short*>(words + 64), right, me, bad);
    pg_kernel<int><<<1, t>>>(reinterpret_cast<int*>(words + 128), right, me, bad);
    pg_kernel<double><<<1, t>>>(reinterpret_cast<double*>(words + 256), right, me, bad);
    KERNEL_CHECK();
    GT_CHECK_EQ(0ull, take(bad));
    gshmem_barrier_all();
  }
  if (want("signal")) {
    gt::set_context("put_signal rounds");
    put_signal_kernel<<<1, 256>>>(sym_dst, sym_src, 3000, sig, right, left, me, 64, bad);
    KERNEL_CHECK();
    GT_CHECK_EQ(0ull, take(bad));
    gshmem_barrier_all();
  }
  if (want("fence")) {
    gt::set_context("put; fence; p(flag)");
    fence_kernel<<<1, 32>>>(reinterpret_cast<int*>(words + 1024), flag, 50, right, left, me, bad);
    KERNEL_CHECK();
    GT_CHECK_EQ(0ull, take(bad));
    gshmem_barrier_all();
  }
  if (want("fadd")) {
    gt::set_context("fetch_add from every PE on PE 0's counter");
    constexpr int kThreads = 64, kPer = 50;
    unsigned long long* got = nullptr;
    CUDA_CHECK(cudaMalloc(&got, sizeof(unsigned long long) * kThreads * kPer));
    fetch_add_kernel<<<1, kThreads>>>(counter, got, kPer);
    KERNEL_CHECK();
    gshmem_barrier_all();
    // Distinct: each fetched value sets its bit in a bitmap on PE 0 (fetch_or, through the same
    // transports); a bit already set is a duplicate, and PE 0 then checks that every bit is set.
    const unsigned long long total = static_cast<unsigned long long>(n) * kThreads * kPer;
    mark_kernel<<<1, kThreads>>>(got, kThreads * kPer, bitmap, total, bad);
    KERNEL_CHECK();
    GT_CHECK_EQ(0ull, take(bad));
    gshmem_barrier_all();
    if (me == 0) {
      unsigned long long c = 0;
      CUDA_CHECK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
      GT_CHECK_EQ(total, c);
      std::vector<uint64_t> bits((total + 63) / 64);
      CUDA_CHECK(cudaMemcpy(bits.data(), bitmap, bits.size() * 8, cudaMemcpyDeviceToHost));
      for (unsigned long long v = 0; v < total; ++v)
        if (!((bits[v / 64] >> (v % 64)) & 1)) {
          GT_CHECK_EQ(1ull, 0ull);  // value v was never fetched
          break;
        }
    }
    CUDA_CHECK(cudaFree(got));
  }
  if (want("amo")) {
    gt::set_context("AMOs on 4- and 8-byte words of the right neighbour");
    amo_kernel<unsigned int><<<1, 32>>>(reinterpret_cast<unsigned int*>(words + 2048), right, bad);
    amo_kernel<unsigned long long><<<1, 32>>>(reinterpret_cast<unsigned long long*>(words + 2056), right, bad);
    KERNEL_CHECK();
    GT_CHECK_EQ(0ull, take(bad));
    gshmem_barrier_all();
  }
  if (want("many")) {
    gt::set_context("20,000 p from one thread (the ring wraps and fills)");
    many_p_kernel<<<1, 32>>>(many, 20000, right, me);
    KERNEL_CHECK();
    gshmem_barrier_all();
    {
      std::vector<int> h(20000);
      CUDA_CHECK(cudaMemcpy(h.data(), many, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
      int wrong = 0;
      for (int i = 0; i < 20000; ++i) wrong += h[i] != left * 7 + i * 3 + 1;
      GT_CHECK_EQ(0, wrong);
    }
  }
  if (want("barrier")) {
    gt::set_context("device barriers at every scope");
    auto* slots = reinterpret_cast<int*>(words + 3072);
    barrier_kernel<gshmem::thread_scope><<<1, 1>>>(slots, 200, me, n, bad);
    barrier_kernel<gshmem::warp_scope><<<1, 32>>>(slots, 200, me, n, bad);
    barrier_kernel<gshmem::block_scope><<<1, 256>>>(slots, 200, me, n, bad);
    KERNEL_CHECK();
    GT_CHECK_EQ(0ull, take(bad));
  }
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(local));
  CUDA_CHECK(cudaFree(bad));
  gshmem_free(bitmap);
  gshmem_free(many);
  gshmem_free(flag);
  gshmem_free(sig);
  gshmem_free(counter);
  gshmem_free(words);
  gshmem_free(sym_src);
  gshmem_free(sym_dst);
  return gt::test_main_epilogue("proxy");
}

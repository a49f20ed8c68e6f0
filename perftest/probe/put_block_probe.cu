// SPDX-License-Identifier: BSD-3-Clause
// put_block_probe: putmem_block + quiet (one CTA of 1024 threads, PE 0 -> PE 1)
// taken apart, as the floor under the suite's put_latency at block scope. From
// the bare store and fence of one thread up to the library's call, one piece at
// a time; each variant timed two ways:
//   loop   the mean of 20000 iterations (globaltimer around the loop)
//   iter   the median of per-iteration clock64 samples, each stored to global
//          memory by thread 0 after the iteration, as the suite's put_latency
//          (perftest/common/devclock.cuh) times it
//   gshmrun -n 2 bin/gshmem-put-block-probe
// Every variant's destination on PE 1 is poisoned first and checked after.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include <gshmem/gshmem.h>

#include "../common/devclock.cuh"  // read_clock, read_globaltimer: the suite's timers
#include "probe_util.h"

namespace {

constexpr int kThreads = 1024, kIters = 20000, kWarmup = 1000, kReps = 5;

enum Variant {
  v_alone,         // thread 0 alone: load, remote store, fence.sc.sys (8 B only)
  v_nbi_raw,       // hand-written copy; sync; thread 0 fence.sc.sys; sync (putmem_nbi + quiet)
  v_block_raw,     // sync; hand-written copy; sync; sync; fence; sync (putmem + quiet)
  v_raw_generic,   // v_nbi_raw with the pointers laundered: generic LD/ST instead of LDG/STG
  v_peer_select,   // v_raw_generic to the peer address worked out as a select (the library's
                   // form before 2026-11-22: the table's load predicated, not skipped)
  v_peer_lib,      // v_raw_generic to detail::peer_address(sym, 1)
  v_copy_param,    // detail::scoped_copy<block_scope> to the kernel parameter, sync, fence, sync
  v_copy_generic,  // the same with the laundered pointers
  v_copy_pred,     // an alternative copy loop: one loop predicated on the count, as raw_copy's
  v_nbi_lib,       // gshmem::putmem_nbi<block_scope> + gshmem::quiet<block_scope>
  v_block_lib,     // gshmem::putmem<block_scope> + gshmem::quiet<block_scope>
  v_nbi_prefetch,  // v_nbi_lib after prefetch.global.L1 of each thread's first 16 source bytes
                   // (rejected: slower, 1.35 against 1.29 us at 8 B)
  // quiet<block> with one barrier instead of two, the fence by every thread or by every
  // warp's lane 0 (rejected: 1.62-1.65 against 1.08 us at 8 B, 7.37-7.42 against 7.24 at
  // 256 KiB, on 2 x H200)
  v_quiet_each_sc,  // raw copy; every thread fence.sc.sys; sync
  v_quiet_each_ar,  // the same with fence.acq_rel.sys
  v_quiet_warp,     // raw copy; syncwarp; lane 0 fence.sc.sys; sync
  v_count
};
const char* const kNames[v_count] = {
    "thread 0 alone: ld, st, fence.sc.sys",         "raw copy, sync, fence, sync (nbi + quiet)",
    "sync, raw copy, sync, sync, fence, sync",      "raw copy, generic pointers",
    "raw copy to a select-form peer address",       "raw copy to detail::peer_address",
    "library copy loop, kernel-param pointers",     "library copy loop, generic pointers",
    "predicated copy loop, generic pointers",       "library putmem_nbi<block> + quiet<block>",
    "library putmem<block> + quiet<block>",         "L1 prefetch, putmem_nbi<block> + quiet<block>",
    "raw copy, every thread fence.sc.sys, sync",    "raw copy, every thread fence.acq_rel.sys, sync",
    "raw copy, syncwarp, lane 0 fence.sc.sys, sync"};

__device__ __forceinline__ void fence_sc_sys() { asm volatile("fence.sc.sys;" ::: "memory"); }

// The copy of copy_probe's one-CTA put: 16-byte units, 4 loads in flight per thread;
// an 8-byte put is one 8-byte load and store by thread 0.
__device__ __forceinline__ void raw_copy(char* dst, const char* src, size_t bytes) {
  if (bytes == 8) {
    if (threadIdx.x == 0) *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<const uint64_t*>(src);
    return;
  }
  const size_t n = bytes / 16;
  const uint4* s = reinterpret_cast<const uint4*>(src);
  uint4* d = reinterpret_cast<uint4*>(dst);
  for (size_t i = threadIdx.x; i < n; i += 4 * kThreads) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * kThreads < n) v[k] = s[i + k * kThreads];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * kThreads < n) d[i + k * kThreads] = v[k];
  }
}

// The same address, its provenance hidden from the compiler: accesses through it are generic.
template <class T>
__device__ __forceinline__ T* launder(T* p) {
  asm volatile("mov.b64 %0, %0;" : "+l"(p));
  return p;
}

// An alternative to the library's copy loop: each thread's units in one loop whose loads
// and stores are predicated on the count (no remainder loop), for sizes that are multiples
// of 16 or 8 bytes. In the a33a2c9 runs it was 0.01 us faster at 8 B and 0.15 us faster at
// 256 KiB than the library's loop. A predicated remainder in the library (7c94086) and one
// branch per remainder count (794beab) were measured and not kept.
template <class Scope, class U>
__device__ __forceinline__ void copy_units_pred(char* d, const char* s, size_t n) {
  const U* __restrict__ src = reinterpret_cast<const U*>(s);
  U* dst = reinterpret_cast<U*>(d);
  const size_t stride = static_cast<size_t>(Scope::size());
  for (size_t i = static_cast<size_t>(Scope::rank()); i < n; i += 4 * stride) {
    U v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * stride < n) v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * stride < n) dst[i + k * stride] = v[k];
  }
}
template <class Scope>
__device__ __forceinline__ void pred_copy(char* d, const char* s, size_t bytes) {
  const uintptr_t al = reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s) | bytes;
  if ((al & 15) == 0)
    copy_units_pred<Scope, uint4>(d, s, bytes >> 4);
  else if ((al & 7) == 0)
    copy_units_pred<Scope, uint64_t>(d, s, bytes >> 3);
  else
    gshmem::detail::scoped_copy<Scope>(d, s, bytes);
}

// The peer address as the library worked it out before: one expression selecting between
// the flat window and the table, which the compiler if-converts into a predicated load.
template <class T>
__device__ __forceinline__ T* peer_select(T* sym, int pe) {
  const gshmemi_device_state& s = gshmem::detail::state();
  const unsigned k = static_cast<unsigned>(pe - s.flat_first);
  char* base = k < static_cast<unsigned>(s.flat_count) ? s.flat_base + k * s.flat_stride : s.peer_base[pe];
  if (base == nullptr) return nullptr;
  return reinterpret_cast<T*>(base + (reinterpret_cast<const char*>(sym) - s.heap_base));
}

// The put between the scope barriers of the nbi variants: destination, source, copy.
template <Variant V>
__device__ __forceinline__ void nbi_copy(char* sym, char* peer_sym, const char* src, size_t bytes) {
  using gshmem::block_scope;
  char* d = V == v_peer_select                    ? peer_select(sym, 1)
            : V == v_peer_lib                     ? gshmem::detail::peer_address(sym, 1)
            : V == v_nbi_raw || V == v_copy_param ? peer_sym
                                                  : launder(peer_sym);
  const char* s = V == v_nbi_raw || V == v_copy_param ? src : launder(src);
  if constexpr (V == v_copy_param || V == v_copy_generic)
    gshmem::detail::scoped_copy<block_scope>(d, s, bytes);
  else if constexpr (V == v_copy_pred)
    pred_copy<block_scope>(d, s, bytes);
  else
    raw_copy(d, s, bytes);
}

template <Variant V>
__device__ __forceinline__ void one_put(char* sym, char* peer_sym, const char* src, size_t bytes) {
  if constexpr (V == v_alone) {
    *reinterpret_cast<volatile uint64_t*>(peer_sym) = *reinterpret_cast<const uint64_t*>(src);
    fence_sc_sys();
  } else if constexpr (V == v_nbi_lib) {
    gshmem::putmem_nbi<gshmem::block_scope>(sym, src, bytes, 1);
    gshmem::quiet<gshmem::block_scope>();
  } else if constexpr (V == v_nbi_prefetch) {
    if (threadIdx.x * size_t{16} < bytes) asm volatile("prefetch.global.L1 [%0];" ::"l"(src + threadIdx.x * 16));
    gshmem::putmem_nbi<gshmem::block_scope>(sym, src, bytes, 1);
    gshmem::quiet<gshmem::block_scope>();
  } else if constexpr (V == v_block_lib) {
    gshmem::putmem<gshmem::block_scope>(sym, src, bytes, 1);
    gshmem::quiet<gshmem::block_scope>();
  } else if constexpr (V == v_quiet_each_sc || V == v_quiet_each_ar || V == v_quiet_warp) {
    raw_copy(peer_sym, src, bytes);
    if (V == v_quiet_warp) __syncwarp();
    if (V == v_quiet_each_sc || (V == v_quiet_warp && threadIdx.x % 32 == 0)) fence_sc_sys();
    if (V == v_quiet_each_ar) asm volatile("fence.acq_rel.sys;" ::: "memory");
    __syncthreads();
  } else {
    if (V == v_block_raw) __syncthreads();
    nbi_copy<V == v_block_raw ? v_nbi_raw : V>(sym, peer_sym, src, bytes);
    __syncthreads();
    if (V == v_block_raw) __syncthreads();
    if (threadIdx.x == 0) fence_sc_sys();
    __syncthreads();
  }
}

// per_iter: thread 0 reads clock64 around every iteration and stores the difference
// (the suite's timing); otherwise only the loop is timed.
template <Variant V, bool PerIter>
__global__ void __launch_bounds__(kThreads)
    k_put(char* sym, char* peer_sym, const char* src, size_t bytes, long long* cycles, unsigned long long* cal) {
  if (V == v_alone && threadIdx.x != 0) return;
  const bool rec = threadIdx.x == 0;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    if (rec && i == kWarmup) {
      cal[0] = perf::read_globaltimer();
      cal[1] = static_cast<unsigned long long>(perf::read_clock());
    }
    const long long t0 = PerIter ? perf::read_clock() : 0;
    one_put<V>(sym, peer_sym, src, bytes);
    if (PerIter && rec && i >= kWarmup) cycles[i - kWarmup] = perf::read_clock() - t0;
  }
  if (rec) {
    cal[3] = static_cast<unsigned long long>(perf::read_clock());
    cal[2] = perf::read_globaltimer();
  }
}

using Kernel = void (*)(char*, char*, const char*, size_t, long long*, unsigned long long*);

template <Variant V>
Kernel kernel_of(bool per_iter) {
  return per_iter ? k_put<V, true> : k_put<V, false>;
}
template <int... V>
Kernel kernel_of(int v, bool per_iter, std::integer_sequence<int, V...>) {
  Kernel k = nullptr;
  ((v == V ? (k = kernel_of<static_cast<Variant>(V)>(per_iter)) : k), ...);
  return k;
}
Kernel kernel_of(int v, bool per_iter) { return kernel_of(v, per_iter, std::make_integer_sequence<int, v_count>{}); }

uint8_t pattern(size_t i, int v) { return static_cast<uint8_t>(i * 131 + v * 17 + 7); }

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "put_block_probe: needs 2 PEs (PE 0 puts to PE 1)\n");
    gshmem_finalize();
    return 77;
  }
  const size_t kMax = 256 * 1024;
  char* sym = static_cast<char*>(gshmem_malloc(kMax));
  char* src = nullptr;
  long long* cycles = nullptr;
  unsigned long long* cal = nullptr;
  PROBE_CHECK(cudaMalloc(&src, kMax));
  PROBE_CHECK(cudaMalloc(&cycles, kIters * sizeof(long long)));
  PROBE_CHECK(cudaMalloc(&cal, 4 * sizeof(unsigned long long)));
  char* peer_sym = static_cast<char*>(gshmem_ptr(sym, 1));
  int bad = 0;
  for (size_t bytes : {size_t{8}, kMax}) {
    for (int v = 0; v < v_count; ++v) {
      if (v == v_alone && bytes != 8) continue;
      std::vector<unsigned char> h(bytes);
      for (size_t i = 0; i < bytes; ++i) h[i] = pattern(i, v);
      if (me == 0) PROBE_CHECK(cudaMemcpy(src, h.data(), bytes, cudaMemcpyHostToDevice));
      if (me == 1) PROBE_CHECK(cudaMemset(sym, 0xA5, kMax));  // poison
      PROBE_CHECK(cudaDeviceSynchronize());
      gshmem_barrier_all();
      std::vector<double> loop_us, iter_us;
      for (int per_iter = 0; per_iter < 2 && me == 0; ++per_iter) {
        for (int r = 0; r < kReps; ++r) {
          kernel_of(v, per_iter)<<<1, kThreads>>>(sym, peer_sym, src, bytes, cycles, cal);
          PROBE_CHECK(cudaGetLastError());
          PROBE_CHECK(cudaDeviceSynchronize());
          unsigned long long c[4];
          PROBE_CHECK(cudaMemcpy(c, cal, sizeof c, cudaMemcpyDeviceToHost));
          const double ns_per_cycle = static_cast<double>(c[2] - c[0]) / static_cast<double>(c[3] - c[1]);
          if (!per_iter) {
            loop_us.push_back((c[2] - c[0]) / 1e3 / kIters);
          } else {
            std::vector<long long> s(kIters);
            PROBE_CHECK(cudaMemcpy(s.data(), cycles, kIters * sizeof(long long), cudaMemcpyDeviceToHost));
            std::vector<double> us(s.size());
            for (size_t i = 0; i < s.size(); ++i) us[i] = s[i] * ns_per_cycle / 1e3;
            iter_us.push_back(probe_median(us));
          }
        }
      }
      gshmem_barrier_all();
      if (me == 1) {  // every byte of the destination, and the poison after it
        std::vector<unsigned char> got(kMax);
        PROBE_CHECK(cudaMemcpy(got.data(), sym, kMax, cudaMemcpyDeviceToHost));
        size_t wrong = 0;
        for (size_t i = 0; i < kMax; ++i) wrong += got[i] != (i < bytes ? h[i] : 0xA5);
        if (wrong) {
          fprintf(stderr, "put_block_probe: PE 1: variant %d, %zu B: %zu bytes wrong\n", v, bytes, wrong);
          bad = 1;
        }
      }
      if (me == 0)
        printf("%7zu B  %d: %-44s loop %6.3f us   iter %6.3f us\n", bytes, v, kNames[v], probe_median(loop_us),
               probe_median(iter_us));
      fflush(stdout);
    }
  }
  gshmem_barrier_all();
  PROBE_CHECK(cudaFree(src));
  PROBE_CHECK(cudaFree(cycles));
  PROBE_CHECK(cudaFree(cal));
  gshmem_free(sym);
  gshmem_finalize();
  if (bad) fprintf(stderr, "put_block_probe: PE %d: FAILED (wrong data)\n", me);
  return bad;
}

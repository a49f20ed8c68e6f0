// SPDX-License-Identifier: BSD-3-Clause
// block_copy_probe: which copy loop makes a block's put + quiet and get of 16 KiB - 1 MiB
// fastest over NVLink: one CTA of 1,024 threads, PE 0 -> PE 1 (put) and
// PE 0 <- PE 1 (get), each iteration timed as the suite's put_latency / get_latency time it
// (clock64 around putmem<block> + quiet<block>, or getmem<block>; the median). The copies,
// each between the blocking forms' scope barriers (put: sync, copy, sync; then the quiet:
// sync, thread 0 fence.sc.sys, sync):
//   lib       the library's putmem/getmem<block_scope> (+ quiet): since this probe, loop1 for
//             puts and for gets of up to two units a thread, else copy_general (loop2 out of line)
//   loop1     16-byte units, one load in flight a thread (load, store, next)
//   loop2     the same, 2 loads in flight (predicated, no remainder loop)
//   loop4     the same, 4 loads in flight
//   inline4   detail::scoped_copy<block_scope> (the copy in line, 4 loads in flight, remainder
//             loop): the library's block RMA copy before the general path went out of line
//   first2    the first two units a thread loaded together, the rest by loop1
// A get reads a different slot of PE 1's buffer each iteration, round a 4 MiB window (as the
// suite does: no L1 hits). Every variant's destination is poisoned first and checked after.
//   gshmrun -n 2 bin/gshmem-block-copy-probe
// On 4 x H200 (2026-11-28, lib = the out-of-line copy before this probe's choice), put+quiet /
// get us: 32 KiB lib 2.92 / 3.01, loop1 1.91 / 2.45, loop2 1.92 / 1.67; 1 MiB lib 25.4 / 33.5,
// loop1 24.9 / 59.5, loop2 24.5 / 31.9, loop4 24.5 / 23.9 (NVSHMEM 3.4.5, suite: 2.18 / 2.46
// and 24.7 / 60.0). In line, loop2 takes a stencil kernel from 32 to 43 registers, loop1 none.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <gshmem/gshmem.h>

#include "../common/devclock.cuh"
#include "probe_util.h"

namespace {

constexpr int kThreads = 1024, kIters = 1000, kWarmup = 100, kReps = 3;
constexpr size_t kMax = size_t{1} << 20, kWindow = size_t{4} << 20;

enum Variant { v_lib, v_loop1, v_loop2, v_loop4, v_inline4, v_first2, v_count };
const char* const kNames[v_count] = {"lib", "loop1", "loop2", "loop4", "inline4", "first2"};

// n 16-byte units from unit i on, KU loads in flight a thread, the last group predicated: the
// library's own loop (impl/copy.cuh).
template <int KU>
__device__ __forceinline__ void loop_units(uint4* dst, const uint4* src, size_t n, size_t i) {
  gshmem::detail::copy_units_guarded<uint4, KU>(reinterpret_cast<char*>(dst), reinterpret_cast<const char*>(src), n, i,
                                                kThreads);
}

template <Variant V>
__device__ __forceinline__ void copy(char* d, const char* s, size_t bytes) {
  auto* dst = reinterpret_cast<uint4*>(d);
  auto* src = reinterpret_cast<const uint4*>(s);
  const size_t n = bytes / 16, r = threadIdx.x;
  if constexpr (V == v_loop1) {
    loop_units<1>(dst, src, n, r);
  } else if constexpr (V == v_loop2) {
    loop_units<2>(dst, src, n, r);
  } else if constexpr (V == v_loop4) {
    loop_units<4>(dst, src, n, r);
  } else if constexpr (V == v_inline4) {
    gshmem::detail::scoped_copy<gshmem::block_scope>(d, s, bytes);
  } else {  // v_first2
    loop_units<2>(dst, src, n < 2 * kThreads ? n : 2 * kThreads, r);
    loop_units<1>(dst, src, n, r + 2 * kThreads);
  }
}

__device__ __forceinline__ void fence_sc_sys() { asm volatile("fence.sc.sys;" ::: "memory"); }

template <Variant V, bool Get>
__global__ void __launch_bounds__(kThreads)
    k_rma(char* sym, char* peer_sym, char* loc, size_t bytes, long long* cycles, unsigned long long* cal) {
  const bool rec = threadIdx.x == 0;
  size_t off = 0;
  const size_t stride = (bytes + 127) / 128 * 128, slots = kWindow / stride;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    if (rec && i == kWarmup) {
      cal[0] = perf::read_globaltimer();
      cal[1] = static_cast<unsigned long long>(perf::read_clock());
    }
    const long long t0 = perf::read_clock();
    if constexpr (V == v_lib) {
      if constexpr (Get) {
        gshmem::getmem<gshmem::block_scope>(loc, sym + off, bytes, 1);
      } else {
        gshmem::putmem<gshmem::block_scope>(sym, loc, bytes, 1);
        gshmem::quiet<gshmem::block_scope>();
      }
    } else {
      __syncthreads();
      if constexpr (Get)
        copy<V>(loc, peer_sym + off, bytes);
      else
        copy<V>(peer_sym, loc, bytes);
      __syncthreads();
      if constexpr (!Get) {
        __syncthreads();
        if (rec) fence_sc_sys();
        __syncthreads();
      }
    }
    if (Get) off = off + stride == stride * slots ? 0 : off + stride;
    if (rec && i >= kWarmup) cycles[i - kWarmup] = perf::read_clock() - t0;
  }
  if (rec) {
    cal[3] = static_cast<unsigned long long>(perf::read_clock());
    cal[2] = perf::read_globaltimer();
  }
}

using Kernel = void (*)(char*, char*, char*, size_t, long long*, unsigned long long*);

template <int... V>
Kernel kernel_of(int v, bool get, std::integer_sequence<int, V...>) {
  Kernel k = nullptr;
  ((v == V ? (k = get ? k_rma<static_cast<Variant>(V), true> : k_rma<static_cast<Variant>(V), false>) : k), ...);
  return k;
}

uint8_t pattern(size_t i, int salt) { return static_cast<uint8_t>(i * 131 + salt * 17 + 7); }

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  if (npes < 2) {
    if (me == 0) fprintf(stderr, "block_copy_probe: needs 2 PEs\n");
    gshmem_finalize();
    return 77;
  }
  char* sym = static_cast<char*>(gshmem_malloc(kWindow));
  char *loc = nullptr, *peer_sym = static_cast<char*>(gshmem_ptr(sym, 1));
  long long* cycles = nullptr;
  unsigned long long* cal = nullptr;
  PROBE_CHECK(cudaMalloc(&loc, kMax));
  PROBE_CHECK(cudaMalloc(&cycles, kIters * sizeof(long long)));
  PROBE_CHECK(cudaMalloc(&cal, 4 * sizeof(unsigned long long)));
  int bad = 0;
  if (me == 0) printf("%-8s %-8s %s\n", "size", "variant", "put+quiet us   get us  (medians of clock64 samples)");
  for (size_t bytes = 16 << 10; bytes <= kMax; bytes *= 2) {
    for (int v = 0; v < v_count; ++v) {
      double us[2] = {};
      for (int get = 0; get < 2; ++get) {
        const int salt = v * 2 + get + static_cast<int>(bytes >> 14);
        // put: PE 0's source is the pattern, PE 1's buffer the poison; get: PE 1's window holds
        // the pattern in every slot, PE 0's destination the poison.
        std::vector<unsigned char> h(kWindow);
        for (size_t i = 0; i < kWindow; ++i) h[i] = pattern(get ? i % ((bytes + 127) / 128 * 128) : i, salt);
        if (me == 0)
          PROBE_CHECK(cudaMemcpy(loc, get ? std::vector<unsigned char>(kMax, 0xA5).data() : h.data(), kMax,
                                 cudaMemcpyHostToDevice));
        if (me == 1)
          PROBE_CHECK(get ? cudaMemcpy(sym, h.data(), kWindow, cudaMemcpyHostToDevice)
                          : cudaMemset(sym, 0xA5, kWindow));
        PROBE_CHECK(cudaDeviceSynchronize());
        gshmem_barrier_all();
        std::vector<double> med;
        for (int r = 0; r < kReps && me == 0; ++r) {
          kernel_of(v, get, std::make_integer_sequence<int, v_count>{})<<<1, kThreads>>>(sym, peer_sym, loc, bytes,
                                                                                         cycles, cal);
          PROBE_CHECK(cudaGetLastError());
          PROBE_CHECK(cudaDeviceSynchronize());
          unsigned long long c[4];
          PROBE_CHECK(cudaMemcpy(c, cal, sizeof c, cudaMemcpyDeviceToHost));
          const double ns_per_cycle = static_cast<double>(c[2] - c[0]) / static_cast<double>(c[3] - c[1]);
          std::vector<long long> s(kIters);
          PROBE_CHECK(cudaMemcpy(s.data(), cycles, kIters * sizeof(long long), cudaMemcpyDeviceToHost));
          std::vector<double> u(s.size());
          for (size_t i = 0; i < s.size(); ++i) u[i] = s[i] * ns_per_cycle / 1e3;
          med.push_back(probe_median(u));
        }
        gshmem_barrier_all();
        // Every byte where it landed (put: PE 1's buffer, get: PE 0's), the poison after it.
        if (me == (get ? 0 : 1)) {
          std::vector<unsigned char> got(kMax);
          PROBE_CHECK(cudaMemcpy(got.data(), get ? loc : sym, kMax, cudaMemcpyDeviceToHost));
          size_t wrong = 0;
          for (size_t i = 0; i < kMax; ++i) wrong += got[i] != (i < bytes ? h[i] : 0xA5);
          if (wrong) {
            fprintf(stderr, "block_copy_probe: PE %d: %s %s %zu B: %zu bytes wrong\n", me, kNames[v],
                    get ? "get" : "put", bytes, wrong);
            bad = 1;
          }
        }
        if (me == 0) us[get] = probe_median(med);
      }
      if (me == 0) printf("%-8zu %-8s %8.3f   %8.3f\n", bytes, kNames[v], us[0], us[1]);
      fflush(stdout);
    }
  }
  gshmem_barrier_all();
  PROBE_CHECK(cudaFree(loc));
  PROBE_CHECK(cudaFree(cycles));
  PROBE_CHECK(cudaFree(cal));
  gshmem_free(sym);
  gshmem_finalize();
  if (bad) fprintf(stderr, "block_copy_probe: PE %d: FAILED (wrong data)\n", me);
  return bad;
}

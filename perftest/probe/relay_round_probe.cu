// SPDX-License-Identifier: BSD-3-Clause
// relay_round_probe: what one round of the broadcast relay costs (coll_bcast.cuh: a CTA
// copies a chunk of its lane to the owner, then announces it), and whether a cheaper
// announcement pays. PE 0 pushes `size` bytes to PE 1 in 64 lanes, CTA b of G taking lanes
// b, b + G, ..., each lane cut into `chunks` chunks; PE 1's CTAs wait for every chunk of
// their lanes in turn, as the relay's owners do before forwarding. Variants:
//   barrier    the library's round: copy, block barrier, thread 0's release store of the
//              chunk's number into the lane's flag;
//   warp-add   copy, then each warp releases its own stores with one red.release.sys.add on
//              the lane's counter (32 a chunk); no block barrier between chunks;
//   once       the floor: every chunk copied, then one barrier and release per lane.
// The receiver's kernel time (from PE 1's launch, after a host barrier, to its last chunk)
// is the measure; PE 0's own kernel time is printed beside it. PE 1's buffer is poisoned
// before each variant and checked byte by byte after it.
//   gshmrun -n 2 bin/gshmem-relay-round-probe [ctas ...]       (default: 64 16)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

constexpr int kThreads = 1024, kLanes = 64, kReps = 7;
enum Variant { v_barrier, v_warp_add, v_once, v_count };
const char* const kNames[v_count] = {"barrier", "warp-add", "once"};

__device__ __forceinline__ void st_release_sys(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void red_release_sys_add(uint64_t* p, uint64_t v) {
  asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ uint64_t ld_acquire_sys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// [lo, hi) of chunk k of lane s: 4 KiB multiples, as the relay's (the last takes the rest).
__device__ __forceinline__ void chunk_range(size_t size, int chunks, int s, int k, size_t* lo, size_t* hi) {
  const size_t lane = size / kLanes, c = lane / chunks / 4096 * 4096;
  *lo = s * lane + k * c;
  *hi = k == chunks - 1 ? (s + 1) * lane : *lo + c;
}

// PE 0: lanes of this CTA, chunk by chunk, into PE 1's dest (peer_dst), announced in PE 1's
// flags (peer_flags, one per lane). `epoch`: the rep's number, so flags only grow.
template <Variant V>
__global__ void __launch_bounds__(kThreads)
    k_root(char* peer_dst, const char* src, size_t size, int chunks, uint64_t* peer_flags, uint64_t epoch) {
  for (int s = blockIdx.x; s < kLanes; s += gridDim.x) {
    for (int k = 0; k < chunks; ++k) {
      size_t lo, hi;
      chunk_range(size, chunks, s, k, &lo, &hi);
      gshmem::detail::scoped_copy<gshmem::block_scope>(peer_dst + lo, src + lo, hi - lo);
      const uint64_t n = epoch * chunks + k + 1;  // chunks announced in this lane so far, all reps
      if constexpr (V == v_barrier) {
        __syncthreads();
        if (threadIdx.x == 0) st_release_sys(peer_flags + s, n);
      } else if constexpr (V == v_warp_add) {
        __syncwarp();
        if (threadIdx.x % 32 == 0) red_release_sys_add(peer_flags + s, 1);
      }
    }
    if constexpr (V == v_once) {
      __syncthreads();
      if (threadIdx.x == 0) st_release_sys(peer_flags + s, (epoch + 1) * chunks);
    }
  }
}

// PE 1: each lane's chunks in turn, as an owner waits before forwarding.
template <Variant V>
__global__ void __launch_bounds__(kThreads) k_recv(int chunks, const uint64_t* flags, uint64_t epoch) {
  for (int s = blockIdx.x; s < kLanes; s += gridDim.x) {
    for (int k = V == v_once ? chunks - 1 : 0; k < chunks; ++k) {
      const uint64_t n = epoch * chunks + k + 1;
      const uint64_t want = V == v_warp_add ? n * (kThreads / 32) : n;
      if (threadIdx.x == 0)
        while (ld_acquire_sys(flags + s) < want) {
        }
      __syncthreads();
    }
  }
}

using Kernel = void (*)(char*, const char*, size_t, int, uint64_t*, uint64_t);
using RecvKernel = void (*)(int, const uint64_t*, uint64_t);
const Kernel kRoot[v_count] = {k_root<v_barrier>, k_root<v_warp_add>, k_root<v_once>};
const RecvKernel kRecv[v_count] = {k_recv<v_barrier>, k_recv<v_warp_add>, k_recv<v_once>};

uint8_t pattern(size_t i, int salt) { return static_cast<uint8_t>(i * 131 + (i >> 13) * 7 + salt * 17 + 3); }

}  // namespace

int main(int argc, char** argv) {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  if (npes != 2) {
    if (me == 0) fprintf(stderr, "relay_round_probe: needs 2 PEs (PE 0 pushes to PE 1)\n");
    gshmem_finalize();
    return 77;
  }
  std::vector<int> ctas;
  for (int i = 1; i < argc; ++i) ctas.push_back(atoi(argv[i]));
  if (ctas.empty()) ctas = {64, 16};
  const size_t kMax = size_t{64} << 20;
  char* dst = static_cast<char*>(gshmem_malloc(kMax));
  uint64_t* flags = static_cast<uint64_t*>(gshmem_malloc(kLanes * sizeof(uint64_t)));
  char* src = nullptr;
  PROBE_CHECK(cudaMalloc(&src, kMax));
  char* peer_dst = static_cast<char*>(gshmem_ptr(dst, 1));
  uint64_t* peer_flags = static_cast<uint64_t*>(gshmem_ptr(flags, 1));
  cudaEvent_t e0, e1;
  PROBE_CHECK(cudaEventCreate(&e0));
  PROBE_CHECK(cudaEventCreate(&e1));
  std::vector<unsigned char> h(kMax);
  int bad = 0, salt = 0;
  if (me == 0) printf("%5s %8s %6s %-9s %10s %10s\n", "ctas", "size", "chunks", "variant", "recv us", "root us");
  for (int g : ctas)
    for (size_t size : {size_t{16} << 20, size_t{64} << 20})
      for (int chunks : {4, 6, 8, 16})
        for (int v = 0; v < v_count; ++v) {
          ++salt;
          if (me == 0) {
            for (size_t i = 0; i < size; ++i) h[i] = pattern(i, salt);
            PROBE_CHECK(cudaMemcpy(src, h.data(), size, cudaMemcpyHostToDevice));
          } else {
            PROBE_CHECK(cudaMemset(dst, 0xA5, kMax));
          }
          PROBE_CHECK(cudaMemset(flags, 0, kLanes * sizeof(uint64_t)));
          PROBE_CHECK(cudaDeviceSynchronize());
          gshmem_barrier_all();
          std::vector<double> us;
          for (int r = 0; r < kReps; ++r) {
            gshmem_barrier_all();
            PROBE_CHECK(cudaEventRecord(e0));
            if (me == 0)
              kRoot[v]<<<g, kThreads>>>(peer_dst, src, size, chunks, peer_flags, r);
            else
              kRecv[v]<<<g, kThreads>>>(chunks, flags, r);
            PROBE_CHECK(cudaGetLastError());
            PROBE_CHECK(cudaEventRecord(e1));
            PROBE_CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            PROBE_CHECK(cudaEventElapsedTime(&ms, e0, e1));
            us.push_back(ms * 1e3);
          }
          double mine = probe_median(us), theirs = 0;
          // After the check, PE 1's time goes to PE 0 through PE 1's flags (reset before the next variant).
          gshmem_barrier_all();
          if (me == 1) {
            std::vector<unsigned char> got(kMax);
            PROBE_CHECK(cudaMemcpy(got.data(), dst, kMax, cudaMemcpyDeviceToHost));
            size_t wrong = 0;
            for (size_t i = 0; i < kMax; ++i) wrong += got[i] != (i < size ? pattern(i, salt) : 0xA5);
            if (wrong) {
              fprintf(stderr, "relay_round_probe: PE 1: %s, %d CTAs, %zu B, %d chunks: %zu bytes wrong\n", kNames[v], g,
                      size, chunks, wrong);
              bad = 1;
            }
            PROBE_CHECK(cudaMemcpy(flags, &mine, sizeof mine, cudaMemcpyHostToDevice));
          }
          gshmem_barrier_all();
          if (me == 0) {
            gshmem_getmem(&theirs, flags, sizeof theirs, 1);
            printf("%5d %7zuM %6d %-9s %10.1f %10.1f\n", g, size >> 20, chunks, kNames[v], theirs, mine);
            fflush(stdout);
          }
          gshmem_barrier_all();
        }
  PROBE_CHECK(cudaFree(src));
  gshmem_free(flags);
  gshmem_free(dst);
  gshmem_finalize();
  if (bad) fprintf(stderr, "relay_round_probe: PE %d: FAILED (wrong data)\n", me);
  return bad;
}

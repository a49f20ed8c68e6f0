// SPDX-License-Identifier: BSD-3-Clause
// ordering_probe: what each memory-ordering instruction costs on the NVLink
// load/store path, as the floor under gshmem's latency-bound operations (p
// ping-pong, put + quiet, barriers). Not a gshmem API benchmark: raw PTX on
// symmetric flags reached through gshmem_ptr.
//   gshmrun -n 2 bin/gshmem-ordering-probe     (ping-pong and fences; PEs 0 and 1)
//   gshmrun -n 4 bin/gshmem-ordering-probe     (also the all-to-all flag barrier)
// Prints one line per variant: the median over 7 repetitions of the mean time of
// 20000 iterations (globaltimer), on PE 0.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

constexpr int kMaxPes = 8;
constexpr int kIters = 20000, kWarmup = 1000, kReps = 7;

struct Peers {
  uint64_t* flag[kMaxPes];  // flag block of PE i as mapped here
};

// ---- stores ----
enum Store { st_volatile, st_relaxed_sys, st_release_sys, fence_then_relaxed };
// ---- waits ----
enum Wait { ld_volatile_nofence, ld_volatile_fence, ld_acquire_spin, ld_volatile_then_acquire, ld_relaxed_fence };

__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void store(int s, uint64_t* p, uint64_t v) {
  switch (s) {
    case st_volatile:
      *reinterpret_cast<volatile uint64_t*>(p) = v;
      break;
    case st_relaxed_sys:
      asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
      break;
    case st_release_sys:
      asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
      break;
    default:
      asm volatile("fence.acq_rel.sys;" ::: "memory");
      asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
}
__device__ __forceinline__ uint64_t ld_vol(const uint64_t* p) { return *reinterpret_cast<const volatile uint64_t*>(p); }
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
__device__ __forceinline__ void wait_ge(int w, const uint64_t* p, uint64_t k) {
  switch (w) {
    case ld_volatile_nofence:
      while (ld_vol(p) < k) {
      }
      break;
    case ld_volatile_fence:
      while (ld_vol(p) < k) {
      }
      asm volatile("fence.acq_rel.sys;" ::: "memory");
      break;
    case ld_acquire_spin:
      while (ld_acq(p) < k) {
      }
      break;
    case ld_volatile_then_acquire:
      while (ld_vol(p) < k) {
      }
      (void)ld_acq(p);
      break;
    default:
      while (ld_rlx(p) < k) {
      }
      asm volatile("fence.acq_rel.sys;" ::: "memory");
  }
}

// One thread per PE, PEs 0 and 1; slot `v` of the flag block per variant.
__global__ void k_pingpong(Peers peers, uint64_t* mine, int me, int s, int w, int v, uint64_t base,
                           unsigned long long* ns) {
  uint64_t* to = peers.flag[me ^ 1] + v;
  const uint64_t* from = mine + v;
  uint64_t t0 = 0;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    if (i == kWarmup) t0 = now_ns();
    const uint64_t k = base + static_cast<uint64_t>(i) + 1;
    if (me == 0) {
      store(s, to, k);
      wait_ge(w, from, k);
    } else {
      wait_ge(w, from, k);
      store(s, to, k);
    }
  }
  *ns = now_ns() - t0;
}

// Fence costs by themselves and after a remote store (= put of 8 B + quiet).
// Variant 5 loads the stored value from local memory first, as a put does from its
// source (the fence leaves L1 cold, so the load goes to L2 every time).
__global__ void k_fences(Peers peers, const uint64_t* local, int me, int variant, unsigned long long* ns) {
  uint64_t* remote = peers.flag[me ^ 1] + 60;
  uint64_t t0 = 0;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    if (i == kWarmup) t0 = now_ns();
    switch (variant) {
      case 0:
        asm volatile("fence.acq_rel.sys;" ::: "memory");
        break;
      case 1:
        asm volatile("fence.sc.sys;" ::: "memory");
        break;
      case 2:
        *reinterpret_cast<volatile uint64_t*>(remote) = i;
        asm volatile("fence.acq_rel.sys;" ::: "memory");
        break;
      case 3:
        *reinterpret_cast<volatile uint64_t*>(remote) = i;
        asm volatile("fence.sc.sys;" ::: "memory");
        break;
      case 5:
        *reinterpret_cast<volatile uint64_t*>(remote) = local[i & 7];
        asm volatile("fence.sc.sys;" ::: "memory");
        break;
      default:
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
  }
  *ns = now_ns() - t0;
}

// All-to-all flag barrier, one CTA of 128 threads (the perftest's barrier shape);
// thread i signals and waits for PE i.
//   0: st.release.sys + ld.acquire.sys polling (gshmem 1.x)
//   1: fence.acq_rel.sys, st.relaxed.sys; ld.volatile polling, fence.acq_rel.sys
//   2: fence.acq_rel.sys, st.relaxed.sys; ld.volatile polling, one ld.acquire.sys
//   3: no ordering at all (floor)
//   4: variant 0 preceded by fence.sc.sys (barrier_all's quiet)
//   5: variant 2 preceded by fence.sc.sys
// 6-8 as the library's barrier_all up to 497c0af: the epoch is a counter in global memory, read by
// every thread and advanced by thread 0 (a fence leaves L1 cold, so each read goes to
// L2); fence.sc.sys; ld.acquire.sys polling.
//   6: peers' flag addresses from a table in global memory (as team fields), the
//      epoch stored with st.relaxed.sys: the signal waits for both loads
//   7: 6 with red.relaxed.sys.add of 1 as the signal: it needs no epoch (a flag with
//      one writer that adds 1 per barrier holds the writer's epoch)
//   8: 7 with the addresses from the kernel's parameters: no load before the fence
//   9: gshmem::barrier_all<block_scope> itself
// 10-11 count instead of carrying an epoch: the signal is red.add of 1 into the peer's
// slot for this PE, the wait polls its own slot for >= 1 and then takes the one
// barrier's signal back with red.add of -1 (a faster peer's next signal stays
// counted). No epoch is loaded or stored.
//   10: the peers' flag addresses from the kernel's parameters (constant bank): the
//       library's barrier_all since then (world team entry in the __constant__ state)
//   11: the peers' flag addresses from a table in global memory, as in 6
//   12: 10 with atom.add (result unused) instead of red.add, as cuda::atomic_ref emits
__global__ void k_barrier(Peers peers, uint64_t* mine, int me, int npes, int variant, int slot, uint64_t base,
                          uint64_t* const* table, uint64_t* epoch, unsigned long long* ns) {
  const int i = threadIdx.x;
  uint64_t t0 = 0;
  for (int it = 0; it < kWarmup + kIters; ++it) {
    if (it == kWarmup) t0 = now_ns();
    if (variant == 9) {
      gshmem::barrier_all<gshmem::block_scope>();
      continue;
    }
    if (variant >= 10) {
      __syncthreads();
      if (i < npes && i != me) {
        uint64_t* to = variant != 11 ? peers.flag[i] + slot * kMaxPes + me : table[i];
        uint64_t* from = mine + slot * kMaxPes + i;
        asm volatile("fence.sc.sys;" ::: "memory");
        if (variant == 12) {
          uint64_t old;
          asm volatile("atom.add.relaxed.sys.u64 %0, [%1], %2;" : "=l"(old) : "l"(to), "l"(1ull) : "memory");
          wait_ge(ld_acquire_spin, from, 1);
          asm volatile("atom.add.relaxed.sys.u64 %0, [%1], %2;" : "=l"(old) : "l"(from), "l"(~0ull) : "memory");
          asm volatile("" ::"l"(old));  // the result stays unused, as in cuda::atomic_ref's fetch_add
        } else {
          asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(to), "l"(1ull) : "memory");
          wait_ge(ld_acquire_spin, from, 1);
          asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(from), "l"(~0ull) : "memory");
        }
      }
      __syncthreads();
      continue;
    }
    if (variant >= 6) {
      const uint64_t e = ld_vol(epoch) + 1;
      __syncthreads();
      if (i < npes && i != me) {
        uint64_t* to = variant == 8 ? peers.flag[i] + slot * kMaxPes + me : table[i];
        asm volatile("fence.sc.sys;" ::: "memory");
        if (variant == 6)
          asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(to), "l"(e) : "memory");
        else
          asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(to), "l"(1ull) : "memory");
        wait_ge(ld_acquire_spin, mine + slot * kMaxPes + i, e);
      }
      if (i == 0) *reinterpret_cast<volatile uint64_t*>(epoch) = e;
      __syncthreads();
      continue;
    }
    const uint64_t e = base + static_cast<uint64_t>(it) + 1;
    __syncthreads();
    if (i < npes && i != me) {
      uint64_t* to = peers.flag[i] + slot * kMaxPes + me;
      const uint64_t* from = mine + slot * kMaxPes + i;
      if (variant >= 4) asm volatile("fence.sc.sys;" ::: "memory");
      const int v = variant >= 4 ? (variant == 4 ? 0 : 2) : variant;
      if (v == 0) {
        store(st_release_sys, to, e);
        wait_ge(ld_acquire_spin, from, e);
      } else if (v == 1) {
        store(fence_then_relaxed, to, e);
        wait_ge(ld_volatile_fence, from, e);
      } else if (v == 2) {
        store(fence_then_relaxed, to, e);
        wait_ge(ld_volatile_then_acquire, from, e);
      } else {
        store(st_volatile, to, e);
        wait_ge(ld_volatile_nofence, from, e);
      }
    }
    __syncthreads();
  }
  if (i == 0) *ns = now_ns() - t0;
}

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  if (npes < 2 || npes > kMaxPes) {
    if (me == 0) fprintf(stderr, "ordering_probe: needs 2..%d PEs\n", kMaxPes);
    gshmem_finalize();
    return 77;
  }
  const size_t words = 64 * kMaxPes;
  uint64_t* flags = static_cast<uint64_t*>(gshmem_calloc(words, sizeof(uint64_t)));
  Peers peers{};
  for (int pe = 0; pe < npes; ++pe) peers.flag[pe] = static_cast<uint64_t*>(gshmem_ptr(flags, pe));
  unsigned long long* d_ns = nullptr;
  PROBE_CHECK(cudaMalloc(&d_ns, sizeof(unsigned long long)));
  auto read_ns = [&] {
    unsigned long long ns = 0;
    PROBE_CHECK(cudaDeviceSynchronize());
    PROBE_CHECK(cudaMemcpy(&ns, d_ns, sizeof(ns), cudaMemcpyDeviceToHost));
    return static_cast<double>(ns) / kIters;
  };
  gshmem_barrier_all();

  static const char* store_names[] = {"st.volatile", "st.relaxed.sys", "st.release.sys", "fence.acq_rel+st.relaxed"};
  static const char* wait_names[] = {"ld.volatile spin (no acquire)", "ld.volatile spin + fence.acq_rel.sys",
                                     "ld.acquire.sys spin", "ld.volatile spin + ld.acquire.sys",
                                     "ld.relaxed.sys spin + fence.acq_rel.sys"};
  const int combos[][2] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 3}, {2, 2}, {2, 3}, {3, 3}, {0, 4}};
  if (me < 2) {
    int v = 0;
    for (const auto& c : combos) {
      std::vector<double> us;
      for (int r = 0; r < kReps; ++r) {
        const uint64_t base = static_cast<uint64_t>(r) * (kWarmup + kIters);
        k_pingpong<<<1, 1>>>(peers, flags, me, c[0], c[1], v, base, d_ns);
        us.push_back(read_ns() / 2 / 1000);  // one way
      }
      if (me == 0)
        printf("pingpong one-way  %-26s / %-40s %7.3f us\n", store_names[c[0]], wait_names[c[1]], probe_median(us));
      ++v;
    }
    static const char* fence_names[] = {"fence.acq_rel.sys",
                                        "fence.sc.sys",
                                        "remote st + fence.acq_rel.sys",
                                        "remote st + fence.sc.sys (put 8 B + quiet)",
                                        "fence.acq_rel.gpu",
                                        "local ld, remote st + fence.sc.sys (put 8 B from memory + quiet)"};
    for (int f = 0; f < 6; ++f) {
      std::vector<double> us;
      for (int r = 0; r < kReps; ++r) {
        k_fences<<<1, 1>>>(peers, flags + 100, me, f, d_ns);
        us.push_back(read_ns() / 1000);
      }
      if (me == 0) printf("per iteration     %-67s %7.3f us\n", fence_names[f], probe_median(us));
    }
  }
  gshmem_barrier_all();
  static const char* barrier_names[] = {"st.release.sys / ld.acquire.sys polling",
                                        "fence+st.relaxed / ld.volatile polling + fence.acq_rel",
                                        "fence+st.relaxed / ld.volatile polling + ld.acquire",
                                        "no ordering (floor)",
                                        "fence.sc.sys + variant 0 (barrier_all)",
                                        "fence.sc.sys + variant 2",
                                        "epoch + addresses loaded, fence.sc, st.relaxed / ld.acquire",
                                        "epoch + addresses loaded, fence.sc, red.add / ld.acquire",
                                        "epoch loaded, fence.sc, red.add / ld.acquire",
                                        "gshmem::barrier_all<block_scope>",
                                        "counting: addresses from parameters, fence.sc, red.add / ld.acquire",
                                        "counting: addresses loaded, fence.sc, red.add / ld.acquire",
                                        "counting: 10 with atom.add (result unused) for red.add"};
  // Variants 6-8 and 11: each its own epoch counter, address table and flag slot,
  // all starting at 0 (table v serves variant kTabled[v]).
  constexpr int kTabled[] = {6, 7, 8, 11}, kTables = 4, kBarriers = 13;
  uint64_t* d_epochs = nullptr;
  uint64_t** d_tables = nullptr;
  PROBE_CHECK(cudaMalloc(&d_epochs, kTables * sizeof(uint64_t)));
  PROBE_CHECK(cudaMemset(d_epochs, 0, kTables * sizeof(uint64_t)));
  PROBE_CHECK(cudaMalloc(&d_tables, kTables * kMaxPes * sizeof(uint64_t*)));
  for (int v = 0; v < kTables; ++v) {
    uint64_t* t[kMaxPes] = {};
    for (int pe = 0; pe < npes; ++pe) t[pe] = peers.flag[pe] + (16 + kTabled[v]) * kMaxPes + me;
    PROBE_CHECK(cudaMemcpy(d_tables + v * kMaxPes, t, sizeof(t), cudaMemcpyHostToDevice));
  }
  for (int b = 0; b < kBarriers; ++b) {
    std::vector<double> us;
    for (int r = 0; r < kReps; ++r) {
      gshmem_barrier_all();
      const uint64_t base = static_cast<uint64_t>(r) * (kWarmup + kIters);
      int v = 0;
      while (v < kTables - 1 && kTabled[v] != b) ++v;
      k_barrier<<<1, 128>>>(peers, flags, me, npes, b, 16 + b, base, d_tables + v * kMaxPes, d_epochs + v, d_ns);
      us.push_back(read_ns() / 1000);
    }
    if (me == 0) printf("barrier %d PEs     %d: %-63s %7.3f us\n", npes, b, barrier_names[b], probe_median(us));
  }
  PROBE_CHECK(cudaFree(d_epochs));
  PROBE_CHECK(cudaFree(d_tables));
  gshmem_barrier_all();
  PROBE_CHECK(cudaFree(d_ns));
  gshmem_free(flags);
  gshmem_finalize();
  return 0;
}

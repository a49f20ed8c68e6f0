// SPDX-License-Identifier: BSD-3-Clause
// reduce_phase_probe: where the time of a small device all-reduce goes. The push path
// (include/gshmem/device/impl/reduce_push.cuh) is rebuilt here from the library's own
// pieces with a globaltimer stamp after each stage, and timed back to back next to the
// library's reduce and, as controls, the flag paths of alltoall and broadcast.
//   gshmrun -n 2 bin/gshmem-reduce-phase-probe
// Prints, on PE 0, one line per case (mean per call over 2000 calls, median of 5 runs):
// the total, then the stages: setup (region + plan), push (copies + sync), signal
// (fence + flags), wait (flags from every peer + sync), reduce (local) and finish.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

using namespace gshmem::detail;

constexpr int kWarm = 200, kIters = 2000, kReps = 5, kStages = 6;
const char* const kStageNames[kStages] = {"setup", "push", "signal", "wait", "reduce", "finish"};

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One push-path all-reduce of n floats (at most 8 KiB: one slot), the stages stamped into
// acc (rank 0 only).
template <class S>
__device__ void push_reduce_stamped(float* dest, const float* source, uint64_t n, unsigned long long* acc) {
  using Op = gshmem::op::sum;
  using T = float;
  unsigned long long t[kStages + 1];
  S::sync();
  t[0] = now_ns();
  reduce_ctx<T> c;
  team_entry(GSHMEM_TEAM_WORLD, &c.t);
  c.r = reduce_region_of(c.t);
  c.plan = reduce_plan_of(n, sizeof(T), false, c.r);
  c.dest = dest;
  c.source = source;
  c.n = n;
  c.scatter = false;
  c.staging = false;
  c.call = "probe";
  c.record = 0;
  reduce_begin_slots(c, reduce_slot_range{0, 1});
  const int N = c.t.size, me = c.t.my_pe;
  constexpr uint32_t vec = reduce_vec<T>::n;
  const int s = 0;
  const int parity = static_cast<int>(reduce_epoch(c, s) & 1);
  const reduce_span sp = reduce_slot_span(c.n, vec, c.plan.slots, s);
  S::sync();
  t[1] = now_ns();
  for (int d = 1; d < N; ++d) {
    const int j = (me + d) % N;
    scoped_copy<S>(peer_address(c.r.push_buf(parity, me) + sp.lo * sizeof(T), team_world_pe(c.t, j)), c.source + sp.lo,
                   (sp.hi - sp.lo) * sizeof(T));
  }
  S::sync();
  t[2] = now_ns();
  reduce_signal<S>(c, 0, 1, 0);
  S::sync();
  t[3] = now_ns();
  reduce_wait<S>(c, s, s + 1, 0);
  t[4] = now_ns();
  const T* mine = c.source + sp.lo;
  T* out0 = c.dest + sp.lo;
  const reduce_region& r = c.r;
  auto in = [&](int j) -> const T* {
    return j == me ? mine : reinterpret_cast<const T*>(r.push_buf(parity, j)) + sp.lo;
  };
  auto out = [&](int) -> T* { return out0; };
  reduce_elems<Op, T, S>(N, in, 1, out, sp.hi - sp.lo, in((me + 1) % N));
  S::sync();
  t[5] = now_ns();
  reduce_finish<S>(c);
  t[6] = now_ns();
  if (S::rank() == 0)
    for (int k = 0; k < kStages; ++k) acc[k] += t[k + 1] - t[k];
}

enum Case { kLibReduce, kStamped, kAlltoall, kBroadcast, kCases };
const char* const kCaseNames[kCases] = {"reduce (library)", "reduce (stamped)", "alltoall", "broadcast"};

template <class S>
__global__ void __launch_bounds__(1024)
    k_calls(int which, size_t nbytes, void* d, const void* s, unsigned long long* out) {
  unsigned long long acc[kStages] = {};
  unsigned long long t0 = 0;
  for (int i = 0; i < kWarm + kIters; ++i) {
    if (i == kWarm) {
      t0 = now_ns();
      for (int k = 0; k < kStages; ++k) acc[k] = 0;
    }
    switch (which) {
      case kLibReduce:
        gshmem::reduce<gshmem::op::sum, S>(GSHMEM_TEAM_WORLD, static_cast<float*>(d), static_cast<const float*>(s),
                                           nbytes / 4);
        break;
      case kStamped:
        push_reduce_stamped<S>(static_cast<float*>(d), static_cast<const float*>(s), nbytes / 4, acc);
        break;
      case kAlltoall:
        gshmem::alltoallmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes);
        break;
      default:
        gshmem::broadcastmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes, 0);
        break;
    }
  }
  const unsigned long long t1 = now_ns();
  if (S::rank() == 0) {
    out[0] = t1 - t0;
    for (int k = 0; k < kStages; ++k) out[1 + k] = acc[k];
  }
}

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  constexpr size_t kBytes = 1 << 17;
  void* d = gshmem_malloc(kBytes);
  void* s = gshmem_malloc(kBytes);
  PROBE_CHECK(cudaMemset(s, 1, kBytes));
  unsigned long long* d_out = nullptr;
  PROBE_CHECK(cudaMalloc(&d_out, sizeof(unsigned long long) * (kStages + 1)));
  for (size_t nb : {32, 256, 4096, 65536})
    for (int which = 0; which < kCases; ++which)
      for (int sc = 0; sc < 3; ++sc) {
        if (which == kStamped && nb > 8192) continue;  // the stamped copy runs one slot (calls up to 8 KiB)
        if (sc == 0 && nb > 4096) continue;            // a lone thread: minutes
        std::vector<double> tot, st[kStages];
        for (int r = 0; r < kReps; ++r) {
          gshmem_barrier_all();
          if (sc == 0)
            k_calls<gshmem::thread_scope><<<1, 1>>>(which, nb, d, s, d_out);
          else if (sc == 1)
            k_calls<gshmem::warp_scope><<<1, 32>>>(which, nb, d, s, d_out);
          else
            k_calls<gshmem::block_scope><<<1, 256>>>(which, nb, d, s, d_out);
          PROBE_CHECK(cudaDeviceSynchronize());
          unsigned long long h[kStages + 1];
          PROBE_CHECK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
          tot.push_back(static_cast<double>(h[0]) / 1000.0 / kIters);
          for (int k = 0; k < kStages; ++k) st[k].push_back(static_cast<double>(h[1 + k]) / 1000.0 / kIters);
        }
        if (me != 0) continue;
        printf("%d PEs %-17s %5zu B %-6s %7.3f us", npes, kCaseNames[which], nb,
               sc == 0   ? "thread"
               : sc == 1 ? "warp"
                         : "block",
               probe_median(tot));
        if (which == kStamped)
          for (int k = 0; k < kStages; ++k) printf("  %s %.3f", kStageNames[k], probe_median(st[k]));
        printf("\n");
      }
  gshmem_barrier_all();
  PROBE_CHECK(cudaFree(d_out));
  gshmem_free(d);
  gshmem_free(s);
  gshmem_finalize();
  return 0;
}

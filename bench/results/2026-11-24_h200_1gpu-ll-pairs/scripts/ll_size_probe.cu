// SPDX-License-Identifier: BSD-3-Clause
// ll_size_probe: perftest/probe/coll_small_probe.cu taken to the LL sizes, for the warp
// and block forms of ll_exchange: alltoall, fcollect and broadcast (root 0) of the given
// bytes per message (per pair for alltoall, per PE for fcollect), each timed back to back in
// one kernel by globaltimer, at warp, 128-thread and 1024-thread block scope. The kernel
// also holds the reduction (as coll_small_probe's does), so its registers are as scarce as
// in a user's kernel bounded to 1024 threads. Built once per header variant (mkprobe.sh).
//   gshmrun -n 4 probe_<label> <label> 4 8 32 64 128 256
// Prints, on PE 0, one line per case: label, PEs, collective, bytes per message, scope,
// median over 5 runs of the mean time of 2000 calls.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

constexpr int kWarm = 200, kIters = 2000, kReps = 5;
enum Op { kAlltoall, kFcollect, kBroadcast, kReduce, kBarrier, kOps };
constexpr int kOpsRun = 3;
const char* const kNames[kOps] = {"alltoall", "fcollect", "broadcast", "reduce f32", "barrier_all"};

template <class S>
__global__ void __launch_bounds__(1024) k_calls(int op, size_t nbytes, void* d, const void* s, unsigned long long* ns) {
  unsigned long long t0 = 0, t1 = 0;
  for (int i = 0; i < kWarm + kIters; ++i) {
    if (i == kWarm) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    switch (op) {
      case kAlltoall: gshmem::alltoallmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes); break;
      case kFcollect: gshmem::fcollectmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes); break;
      case kBroadcast: gshmem::broadcastmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes, 0); break;
      case kReduce:
        gshmem::reduce<gshmem::op::sum, S>(GSHMEM_TEAM_WORLD, static_cast<float*>(d), static_cast<const float*>(s),
                                           nbytes / 4);
        break;
      default: gshmem::barrier_all<S>(); break;
    }
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  if (S::rank() == 0) *ns = t1 - t0;
}

}  // namespace

int main(int argc, char** argv) {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const char* label = argc > 1 ? argv[1] : "gshmem";
  std::vector<size_t> sizes;
  for (int a = 2; a < argc; ++a) sizes.push_back(strtoull(argv[a], nullptr, 10));
  if (sizes.empty()) sizes = {4, 16, 64};
  constexpr size_t kBytes = 1 << 16;
  void* d = gshmem_malloc(kBytes);
  void* s = gshmem_malloc(kBytes);
  PROBE_CHECK(cudaMemset(s, 1, kBytes));
  unsigned long long* d_ns = nullptr;
  PROBE_CHECK(cudaMalloc(&d_ns, sizeof(*d_ns)));
  for (int op = 0; op < kOpsRun; ++op)
    for (size_t nb : sizes) {
      if (op == kBarrier && nb != 4) continue;
      for (int sc = 1; sc < 4; ++sc) {
        std::vector<double> us;
        for (int r = 0; r < kReps; ++r) {
          gshmem_barrier_all();
          if (sc == 0) k_calls<gshmem::thread_scope><<<1, 1>>>(op, nb, d, s, d_ns);
          else if (sc == 1) k_calls<gshmem::warp_scope><<<1, 32>>>(op, nb, d, s, d_ns);
          else k_calls<gshmem::block_scope><<<1, sc == 2 ? 128 : 1024>>>(op, nb, d, s, d_ns);
          PROBE_CHECK(cudaDeviceSynchronize());
          unsigned long long ns = 0;
          PROBE_CHECK(cudaMemcpy(&ns, d_ns, sizeof(ns), cudaMemcpyDeviceToHost));
          us.push_back(static_cast<double>(ns) / 1000.0 / kIters);
        }
        if (me == 0)
          printf("%s %d PEs %-12s %3zu B/msg %-6s %7.3f us\n", label, npes, kNames[op], nb,
                 sc == 1 ? "warp" : sc == 2 ? "blk128" : "blk1024", probe_median(us));
      }
    }
  gshmem_barrier_all();
  PROBE_CHECK(cudaFree(d_ns));
  gshmem_free(d);
  gshmem_free(s);
  gshmem_finalize();
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// lone_probe.cu with a form argument: `scope_vN LABEL warp` times warp-scope calls (32
// threads of the 256 launched), `block` block-scope calls (256 threads), else thread scope.
// Small collectives (LL bound from GSHMEM_LL_MAX_BYTES) in a kernel bounded to 1024 threads:
// median per-call latency (clock64) of broadcast, alltoall, fcollect (bytes per message) and
// a float sum-reduce (array bytes).
#include <cstdio>
#include <vector>
#include <algorithm>
#include <gshmem/gshmem.h>
#include "probe_util.h"  // perftest/probe/

constexpr int kIters = 400, kWarm = 50;
enum { kBcast, kA2A, kFcol, kRed, kOps };
const char* kN[kOps] = {"broadcast", "alltoall", "fcollect", "reduce f32"};

template <class S>
__global__ void __launch_bounds__(1024) k_run(int op, char* d, const char* s, size_t nb, long long* cyc) {
  if (threadIdx.x >= S::size()) return;
  for (int i = 0; i < kWarm + kIters; ++i) {
    const long long t0 = clock64();
    switch (op) {
      case kBcast: gshmem::broadcastmem<S>(GSHMEM_TEAM_WORLD, d, s, nb, 0); break;
      case kA2A: gshmem::alltoallmem<S>(GSHMEM_TEAM_WORLD, d, s, nb); break;
      case kFcol: gshmem::fcollectmem<S>(GSHMEM_TEAM_WORLD, d, s, nb); break;
      default:
        gshmem::reduce<gshmem::op::sum, S>(GSHMEM_TEAM_WORLD, reinterpret_cast<float*>(d),
                                                              reinterpret_cast<const float*>(s), nb / 4);
    }
    const long long t1 = clock64();
    if (i >= kWarm) if (S::rank() == 0) cyc[i - kWarm] = t1 - t0;
  }
}

int main(int argc, char** argv) {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const char form = argc > 2 ? argv[2][0] : 't';  // t(hread), w(arp), b(lock: 256 threads)
  char* d = static_cast<char*>(gshmem_malloc(1 << 16));
  char* s = static_cast<char*>(gshmem_malloc(1 << 16));
  PROBE_CHECK(cudaMemset(s, 1, 1 << 16));
  long long* dc;
  PROBE_CHECK(cudaMalloc(&dc, kIters * sizeof(long long)));
  int clk = 0;
  PROBE_CHECK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  std::vector<long long> h(kIters);
  for (int op = 0; op < kOps; ++op) {
    if (me == 0) printf("%s %d PEs %-10s", argc > 1 ? argv[1] : "", npes, kN[op]);
    for (size_t nb : {4, 16, 64, 256, 1024}) {
      gshmem_barrier_all();
      if (form == 'w') k_run<gshmem::warp_scope><<<1, 256>>>(op, d, s, nb, dc);
      else if (form == 'b') k_run<gshmem::block_scope><<<1, 256>>>(op, d, s, nb, dc);
      else k_run<gshmem::thread_scope><<<1, 256>>>(op, d, s, nb, dc);
      PROBE_CHECK(cudaDeviceSynchronize());
      PROBE_CHECK(cudaMemcpy(h.data(), dc, kIters * sizeof(long long), cudaMemcpyDeviceToHost));
      std::sort(h.begin(), h.end());
      if (me == 0) printf(" %4zu:%6.2f", nb, h[kIters / 2] / (clk * 1e-3));
    }
    if (me == 0) printf("   (bytes: median us)\n");
  }
  gshmem_barrier_all();
  gshmem_finalize();
  return 0;
}

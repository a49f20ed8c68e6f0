// SPDX-License-Identifier: BSD-3-Clause
// coll_small_probe: the device collectives at small sizes, each timed back to back in one
// kernel by globaltimer; barrier_all as a control. Built from whichever gshmem headers it is
// compiled against, so two builds of it (say, before and after a change to
// include/gshmem/device/impl/) compare the device paths in one device session: the LL path
// of the tiny collectives was chosen that way. The kernel holds every collective, so its
// registers are as scarce as in a user's kernel bounded to 1024 threads.
//   gshmrun -n 4 bin/gshmem-coll-small-probe [label [size ...]] [--scopes S,...] [--ops O,...]
// sizes: bytes per message (per pair for alltoall, per PE for fcollect; default 4 16 64);
// scopes: thread, warp, blk128, blk1024 (default thread,warp,blk128); ops: alltoall,
// fcollect, broadcast, reduce, barrier (default all). Prints, on PE 0, one line per case:
// label, PEs, collective, bytes per message, scope, median over 5 runs of the mean time of
// 2000 calls.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

constexpr int kWarm = 200, kIters = 2000, kReps = 5;
enum Op { kAlltoall, kFcollect, kBroadcast, kReduce, kBarrier, kOps };
const char* const kNames[kOps] = {"alltoall", "fcollect", "broadcast", "reduce f32", "barrier_all"};
const char* const kOpArgs[kOps] = {"alltoall", "fcollect", "broadcast", "reduce", "barrier"};
// The scopes: name, threads of the one CTA (1: thread scope, 32: warp scope, else block).
struct Form {
  const char* name;
  int threads;
};
constexpr Form kForms[] = {{"thread", 1}, {"warp", 32}, {"blk128", 128}, {"blk1024", 1024}};

// Whether `name` is in the comma-separated `list`.
bool listed(const std::string& list, const char* name) {
  size_t at = 0;
  for (;;) {
    const size_t end = list.find(',', at);
    if (list.compare(at, end == std::string::npos ? std::string::npos : end - at, name) == 0) return true;
    if (end == std::string::npos) return false;
    at = end + 1;
  }
}

template <class S>
__global__ void __launch_bounds__(1024) k_calls(int op, size_t nbytes, void* d, const void* s, unsigned long long* ns) {
  unsigned long long t0 = 0, t1 = 0;
  for (int i = 0; i < kWarm + kIters; ++i) {
    if (i == kWarm) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    switch (op) {
      case kAlltoall:
        gshmem::alltoallmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes);
        break;
      case kFcollect:
        gshmem::fcollectmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes);
        break;
      case kBroadcast:
        gshmem::broadcastmem<S>(GSHMEM_TEAM_WORLD, d, s, nbytes, 0);
        break;
      case kReduce:
        gshmem::reduce<gshmem::op::sum, S>(GSHMEM_TEAM_WORLD, static_cast<float*>(d), static_cast<const float*>(s),
                                           nbytes / 4);
        break;
      default:
        gshmem::barrier_all<S>();
        break;
    }
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  if (S::rank() == 0) *ns = t1 - t0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* label = "gshmem";
  std::vector<size_t> sizes;
  std::string scopes = "thread,warp,blk128", ops = "alltoall,fcollect,broadcast,reduce,barrier";
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--scopes") == 0 && i + 1 < argc)
      scopes = argv[++i];
    else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc)
      ops = argv[++i];
    else if (i == 1)
      label = argv[i];
    else
      sizes.push_back(strtoull(argv[i], nullptr, 10));
  }
  if (sizes.empty()) sizes = {4, 16, 64};
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  constexpr size_t kBytes = 1 << 16;
  void* d = gshmem_malloc(kBytes);
  void* s = gshmem_malloc(kBytes);
  PROBE_CHECK(cudaMemset(s, 1, kBytes));
  unsigned long long* d_ns = nullptr;
  PROBE_CHECK(cudaMalloc(&d_ns, sizeof(*d_ns)));
  for (int op = 0; op < kOps; ++op) {
    if (!listed(ops, kOpArgs[op])) continue;
    for (size_t nb : sizes) {
      if (op == kBarrier && nb != sizes[0]) continue;
      for (const Form& f : kForms) {
        if (!listed(scopes, f.name)) continue;
        std::vector<double> us;
        for (int r = 0; r < kReps; ++r) {
          gshmem_barrier_all();
          if (f.threads == 1)
            k_calls<gshmem::thread_scope><<<1, 1>>>(op, nb, d, s, d_ns);
          else if (f.threads == 32)
            k_calls<gshmem::warp_scope><<<1, 32>>>(op, nb, d, s, d_ns);
          else
            k_calls<gshmem::block_scope><<<1, f.threads>>>(op, nb, d, s, d_ns);
          PROBE_CHECK(cudaDeviceSynchronize());
          unsigned long long ns = 0;
          PROBE_CHECK(cudaMemcpy(&ns, d_ns, sizeof(ns), cudaMemcpyDeviceToHost));
          us.push_back(static_cast<double>(ns) / 1000.0 / kIters);
        }
        if (me == 0)
          printf("%s %d PEs %-12s %3zu B/msg %-7s %7.3f us\n", label, npes, kNames[op], nb, f.name, probe_median(us));
      }
    }
  }
  gshmem_barrier_all();
  PROBE_CHECK(cudaFree(d_ns));
  gshmem_free(d);
  gshmem_free(s);
  gshmem_finalize();
  return 0;
}

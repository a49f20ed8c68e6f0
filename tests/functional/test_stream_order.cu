// SPDX-License-Identifier: BSD-3-Clause
// Stream order of the on-stream collectives that may start early. The library launches
// its reduction kernel and its single-CTA collective kernels with programmatic stream
// serialisation (src/host/launch/early_launch.h), so each may begin before the kernel ahead
// of it on the stream has ended. The results must not show it.
//
// Every round poisons the arrays, then enqueues on one stream:
//   1. a user kernel that lets its dependents launch at once (griddepcontrol.launch_dependents,
//      as kernels of libraries that use programmatic launches do), spins for kDelayNs and
//      only then writes the source (a value pattern per PE, element and round);
//   2. the calls under test, reading that source:
//        reduce:   sum-reduce (uint32, wrapping) into mid, then broadcast mid into dest
//                  (the broadcast reads what the reduction wrote, on the root by other PEs
//                  too, one early kernel after another);
//        fcollect: the source into dest;
//        alltoall: the source into dest;
//   3. a wait for the stream, then every element of dest is checked.
// An early call that does not wait for step 1 reads poison: the check fails (it does with a
// library whose kernels lack the wait). The reduce chain also runs as a CUDA graph (captured
// calls are launched plainly). Element counts from 1 to 100003 cover the reduction's LL,
// push and pull paths and single- and multi-CTA data-movement grids; the roots vary.
#include <algorithm>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr unsigned long long kDelayNs = 30000;  // how long the source's writer spins first
constexpr int kReps = 3;

__global__ void k_late_fill(uint32_t* p, size_t n, int pe, uint64_t salt, unsigned long long delay_ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Lets a kernel launched early after this one start now, while this one still spins.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  if (delay_ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < delay_ns);
  }
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = value<uint32_t>(pe, i, salt);
}

void late_fill(uint32_t* p, size_t n, uint64_t salt, cudaStream_t st) {
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 264));
  k_late_fill<<<blocks, 256, 0, st>>>(p, n, gshmem_my_pe(), salt, kDelayNs);
  CUDA_CHECK(cudaGetLastError());
}

enum Kind { kReduce, kFcollect, kAlltoall };
const char* kind_name(Kind k) { return k == kReduce ? "reduce+broadcast" : k == kFcollect ? "fcollect" : "alltoall"; }

struct Bufs {
  uint32_t *src, *mid, *dest;
  size_t cap;  // elements of each
};

// Enqueues the calls of `kind` for n elements per PE (step 2).
void enqueue(const Bufs& b, Kind kind, size_t n, int root, cudaStream_t st) {
  const gshmem_team_t w = GSHMEM_TEAM_WORLD;
  switch (kind) {
    case kReduce:
      GT_CHECK_STATUS(gshmemx_uint32_sum_reduce_on_stream(w, b.mid, b.src, n, st));
      GT_CHECK_STATUS(gshmemx_uint32_broadcast_on_stream(w, b.dest, b.mid, n, root, st));
      break;
    case kFcollect:
      GT_CHECK_STATUS(gshmemx_uint32_fcollect_on_stream(w, b.dest, b.src, n, st));
      break;
    case kAlltoall:
      GT_CHECK_STATUS(gshmemx_uint32_alltoall_on_stream(w, b.dest, b.src, n, st));
      break;
  }
}

void run_round(const Bufs& b, Kind kind, size_t n, int rep, bool graph, cudaStream_t st) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int root = (rep + static_cast<int>(n)) % npes;
  const uint64_t salt = 0x5EED0000ull + static_cast<uint64_t>(rep) * 131 + n * 7 + static_cast<uint64_t>(kind);
  const size_t src_n = kind == kAlltoall ? n * npes : n;
  const size_t dest_n = kind == kReduce ? n : n * npes;
  set_context("%s, %zu elements, rep %d, root %d%s", kind_name(kind), n, rep, root, graph ? ", graph" : "");
  CUDA_CHECK(cudaMemset(b.src, kPoison, b.cap * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemset(b.mid, kPoison, b.cap * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemset(b.dest, kPoison, b.cap * sizeof(uint32_t)));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();  // every PE poisoned before any writes into another's arrays

  if (graph) {
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    late_fill(b.src, src_n, salt, st);
    enqueue(b, kind, n, root, st);
    CUDA_CHECK(cudaStreamEndCapture(st, &g));
    CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0));
    CUDA_CHECK(cudaGraphLaunch(ge, st));
    CUDA_CHECK(cudaStreamSynchronize(st));
    CUDA_CHECK(cudaGraphExecDestroy(ge));
    CUDA_CHECK(cudaGraphDestroy(g));
  } else {
    late_fill(b.src, src_n, salt, st);
    enqueue(b, kind, n, root, st);
    CUDA_CHECK(cudaStreamSynchronize(st));
  }

  std::vector<uint32_t> h(dest_n);
  CUDA_CHECK(cudaMemcpy(h.data(), b.dest, dest_n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  switch (kind) {
    case kReduce:
      GT_VERIFY("dest", h.data(), n, [&](size_t i) {
        uint32_t s = 0;
        for (int p = 0; p < npes; ++p) s += value<uint32_t>(p, i, salt);
        return s;
      });
      break;
    case kFcollect:
      GT_VERIFY("dest", h.data(), dest_n,
                [&](size_t i) { return value<uint32_t>(static_cast<int>(i / n), i % n, salt); });
      break;
    case kAlltoall:  // block p of my dest: block `me` of PE p's source
      GT_VERIFY("dest", h.data(), dest_n, [&](size_t i) {
        return value<uint32_t>(static_cast<int>(i / n), static_cast<uint64_t>(me) * n + i % n, salt);
      });
      break;
  }
  gshmem_barrier_all();  // every PE checked before the next round poisons
}

}  // namespace

int main() {
  test_main_prologue(2, 0);
  const int npes = gshmem_n_pes();
  const size_t reduce_counts[] = {1, 5, 7, 257, 4099, 40000, 100003};
  const size_t coll_counts[] = {1, 5, 257, 4099, 20001};
  Bufs b;
  b.cap = 100003 * static_cast<size_t>(npes);
  b.src = static_cast<uint32_t*>(gshmem_malloc(b.cap * sizeof(uint32_t)));
  b.mid = static_cast<uint32_t*>(gshmem_malloc(b.cap * sizeof(uint32_t)));
  b.dest = static_cast<uint32_t*>(gshmem_malloc(b.cap * sizeof(uint32_t)));
  if (!GT_CHECK(b.src && b.mid && b.dest)) return test_main_epilogue("stream_order");
  cudaStream_t st;
  CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

  for (int rep = 0; rep < kReps; ++rep) {
    for (size_t n : reduce_counts) run_round(b, kReduce, n, rep, false, st);
    for (size_t n : coll_counts) {
      run_round(b, kFcollect, n, rep, false, st);
      run_round(b, kAlltoall, n, rep, false, st);
    }
  }
  for (size_t n : {size_t{5}, size_t{40000}}) run_round(b, kReduce, n, 0, true, st);

  CUDA_CHECK(cudaStreamDestroy(st));
  gshmem_free(b.dest);
  gshmem_free(b.mid);
  gshmem_free(b.src);
  return test_main_epilogue("stream_order");
}

// SPDX-License-Identifier: BSD-3-Clause
// stream_barrier_probe: how a barrier on a CUDA stream is best launched. The same
// one-block barrier kernel (gshmem::barrier_all<block_scope>, 32 threads) launched
//   plain          <<<>>>, ordered after the previous kernel by the stream;
//   early (PDL)    cudaLaunchKernelEx with programmatic stream serialisation: the
//                  block may start before the previous kernel has finished and
//                  waits for it in griddepcontrol.wait;
//   library        gshmemx_barrier_all_on_stream, as built;
// each 1000 times back to back and 1000 times after an empty user kernel, on a
// stream and captured into a CUDA graph; then the host time of the CUDA calls a
// launch may make. This chose how src/host/sync/barrier.cu launches its kernels.
//   gshmrun -n 4 bin/gshmem-stream-barrier-probe
// Prints on PE 0: the median over 5 repetitions of the time per barrier (events).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gshmem/gshmem.h>

#include "probe_util.h"

namespace {

constexpr int kCalls = 1000, kReps = 5;

__global__ void k_barrier() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");  // returns at once unless launched early
#endif
  gshmem::barrier_all<gshmem::block_scope>();
}
__global__ void k_user(int* p) {
  if (p) ++*p;
}

enum Mode { kPlain, kEarly, kLibrary, kModes };
const char* const kModeNames[kModes] = {"plain <<<>>>", "early (PDL)", "library call"};

void launch_barrier(Mode m, cudaStream_t s) {
  if (m == kLibrary) {
    gshmemx_barrier_all_on_stream(s);
    return;
  }
  if (m == kPlain) {
    k_barrier<<<1, 32, 0, s>>>();
    return;
  }
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(32);
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  PROBE_CHECK(cudaLaunchKernelEx(&cfg, k_barrier));
}

void enqueue(Mode m, bool after_user, cudaStream_t s) {
  for (int i = 0; i < kCalls; ++i) {
    if (after_user) k_user<<<1, 32, 0, s>>>(nullptr);
    launch_barrier(m, s);
  }
}

// Host microseconds per call of fn, in batches of 100 calls with the stream drained between.
template <class F>
double host_us(cudaStream_t s, F fn) {
  std::vector<double> v;
  for (int rep = 0; rep < kReps; ++rep) {
    PROBE_CHECK(cudaStreamSynchronize(s));
    gshmem_barrier_all();
    double total = 0;
    for (int b = 0; b < 20; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) fn();
      total += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      PROBE_CHECK(cudaStreamSynchronize(s));
    }
    v.push_back(total / 2000);
  }
  return probe_median(v);
}

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  cudaStream_t s;
  PROBE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  PROBE_CHECK(cudaEventCreate(&e0));
  PROBE_CHECK(cudaEventCreate(&e1));
  for (int after_user = 0; after_user < 2; ++after_user)
    for (int graph = 0; graph < 2; ++graph)
      for (int m = 0; m < kModes; ++m) {
        cudaGraphExec_t exec = nullptr;
        if (graph) {
          cudaGraph_t g;
          PROBE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
          enqueue(static_cast<Mode>(m), after_user, s);
          PROBE_CHECK(cudaStreamEndCapture(s, &g));
          PROBE_CHECK(cudaGraphInstantiate(&exec, g, 0));
          PROBE_CHECK(cudaGraphDestroy(g));
        }
        std::vector<double> v;
        for (int rep = 0; rep <= kReps; ++rep) {  // rep 0 warms up
          PROBE_CHECK(cudaStreamSynchronize(s));
          gshmem_barrier_all();
          PROBE_CHECK(cudaEventRecord(e0, s));
          if (exec)
            PROBE_CHECK(cudaGraphLaunch(exec, s));
          else
            enqueue(static_cast<Mode>(m), after_user, s);
          PROBE_CHECK(cudaEventRecord(e1, s));
          PROBE_CHECK(cudaStreamSynchronize(s));
          float ms = 0;
          PROBE_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          if (rep) v.push_back(ms * 1000.0 / kCalls);
        }
        if (me == 0)
          printf("%d PEs  %-6s  %-13s  %-22s %7.3f us per barrier\n", npes, graph ? "graph" : "stream", kModeNames[m],
                 after_user ? "after an empty kernel" : "back to back", probe_median(v));
        if (exec) PROBE_CHECK(cudaGraphExecDestroy(exec));
      }
  cudaStream_t idle;
  PROBE_CHECK(cudaStreamCreateWithFlags(&idle, cudaStreamNonBlocking));
  const struct {
    const char* what;
    double us;
  } host[] = {
      {"cudaStreamIsCapturing", host_us(s,
                                        [&] {
                                          cudaStreamCaptureStatus c;
                                          PROBE_CHECK(cudaStreamIsCapturing(s, &c));
                                        })},
      {"cudaStreamQuery (idle stream)", host_us(s, [&] { (void)cudaStreamQuery(idle); })},
      {"<<<>>> of the barrier kernel", host_us(s, [&] { launch_barrier(kPlain, s); })},
      {"cudaLaunchKernelEx, early", host_us(s, [&] { launch_barrier(kEarly, s); })},
      {"gshmemx_barrier_all_on_stream", host_us(s, [&] { launch_barrier(kLibrary, s); })},
  };
  for (const auto& h : host)
    if (me == 0) printf("%d PEs  host    %-38s %7.3f us per call\n", npes, h.what, h.us);
  PROBE_CHECK(cudaStreamDestroy(idle));
  PROBE_CHECK(cudaEventDestroy(e0));
  PROBE_CHECK(cudaEventDestroy(e1));
  PROBE_CHECK(cudaStreamDestroy(s));
  gshmem_finalize();
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// launch_probe: what a launch costs the library's on-stream collectives, by launch
// form, on one GPU: plain, cooperative (the data-movement collectives' form,
// src/host/coll/launch.cpp), with programmatic stream serialisation (PDL), and
// cooperative with PDL; 1 and 16 CTAs of 512 and 1024 threads; an empty kernel and one
// with four block barriers. 20 launches back to back on a stream and as a CUDA graph;
// the median time per launch over 25 repetitions.
//   gshmem-launch-probe
// The kernels count their launches; the count is checked at the end.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "probe_util.h"

namespace {

__global__ void k_empty(unsigned* count) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(count, 1u);
}
__global__ void k_sync4(unsigned* count) {
  __syncthreads();
  __syncthreads();
  __syncthreads();
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(count, 1u);
}

enum Form { plain, cooperative, pdl, cooperative_pdl, kForms };
const char* const kFormNames[kForms] = {"plain", "cooperative", "pdl", "cooperative+pdl"};

cudaError_t launch(const void* kernel, Form f, int ctas, int threads, unsigned* count, cudaStream_t s) {
  void* args[] = {&count};
  if (f == plain) return cudaLaunchKernel(kernel, dim3(ctas), dim3(threads), args, 0, s);
  if (f == cooperative) return cudaLaunchCooperativeKernel(kernel, dim3(ctas), dim3(threads), args, 0, s);
  cudaLaunchAttribute a[2] = {};
  a[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a[0].val.programmaticStreamSerializationAllowed = 1;
  a[1].id = cudaLaunchAttributeCooperative;
  a[1].val.cooperative = 1;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(ctas);
  c.blockDim = dim3(threads);
  c.stream = s;
  c.attrs = a;
  c.numAttrs = f == cooperative_pdl ? 2 : 1;
  return cudaLaunchKernelExC(&c, kernel, args);
}

}  // namespace

int main() {
  constexpr int kLaunches = 20, kReps = 25, kWarmReps = 5;
  unsigned* count = nullptr;
  PROBE_CHECK(cudaMalloc(&count, sizeof(unsigned)));
  PROBE_CHECK(cudaMemset(count, 0, sizeof(unsigned)));
  cudaStream_t s;
  PROBE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  PROBE_CHECK(cudaEventCreate(&e0));
  PROBE_CHECK(cudaEventCreate(&e1));
  const struct {
    const void* f;
    const char* name;
  } kernels[] = {{reinterpret_cast<const void*>(k_empty), "empty"},
                 {reinterpret_cast<const void*>(k_sync4), "4 barriers"}};
  unsigned long long expected = 0;
  printf("%-11s %7s %4s %-16s %-6s %s\n", "kernel", "threads", "ctas", "launch", "where", "us per launch");
  for (const auto& k : kernels)
    for (int threads : {512, 1024})
      for (int ctas : {1, 16})
        for (int f = 0; f < kForms; ++f)
          for (int graph = 0; graph < 2; ++graph) {
            cudaGraphExec_t exec = nullptr;
            if (graph) {
              cudaGraph_t g;
              PROBE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
              for (int i = 0; i < kLaunches; ++i) PROBE_CHECK(launch(k.f, Form(f), ctas, threads, count, s));
              PROBE_CHECK(cudaStreamEndCapture(s, &g));
              PROBE_CHECK(cudaGraphInstantiate(&exec, g, 0));
              PROBE_CHECK(cudaGraphDestroy(g));
              PROBE_CHECK(cudaGraphLaunch(exec, s));  // upload and first launch: untimed
              expected += kLaunches;
            }
            std::vector<double> t;
            for (int r = 0; r < kWarmReps + kReps; ++r) {
              PROBE_CHECK(cudaStreamSynchronize(s));
              PROBE_CHECK(cudaEventRecord(e0, s));
              if (graph)
                PROBE_CHECK(cudaGraphLaunch(exec, s));
              else
                for (int i = 0; i < kLaunches; ++i) PROBE_CHECK(launch(k.f, Form(f), ctas, threads, count, s));
              PROBE_CHECK(cudaEventRecord(e1, s));
              PROBE_CHECK(cudaEventSynchronize(e1));
              expected += kLaunches;
              float ms = 0;
              PROBE_CHECK(cudaEventElapsedTime(&ms, e0, e1));
              if (r >= kWarmReps) t.push_back(ms * 1e3 / kLaunches);
            }
            printf("%-11s %7d %4d %-16s %-6s %.3f\n", k.name, threads, ctas, kFormNames[f], graph ? "graph" : "stream",
                   probe_median(t));
            if (exec) PROBE_CHECK(cudaGraphExecDestroy(exec));
          }
  unsigned got = 0;
  PROBE_CHECK(cudaMemcpy(&got, count, sizeof(got), cudaMemcpyDeviceToHost));
  if (got != static_cast<unsigned>(expected)) {
    printf("FAILED: the kernels ran %u times, expected %llu\n", got, expected);
    return 1;
  }
  printf("# every launch ran (%u)\n", got);
  return 0;
}

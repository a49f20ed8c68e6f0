// SPDX-License-Identifier: BSD-3-Clause
// Event- and graph-based batch timing (timing.h).
#include "timing.h"

#include <cuda_runtime_api.h>

#include <chrono>

#include "context.h"

namespace perf {

double now_us() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::micro>(clock::now().time_since_epoch()).count();
}

std::vector<double> time_batches(Ctx& ctx, int reps, int per_batch, const std::function<void()>& batch, bool graph,
                                 std::string* note) {
  std::vector<double> out;
  cudaEvent_t ev[2];
  ctx.cuda(cudaEventCreate(&ev[0]), "cudaEventCreate");
  ctx.cuda(cudaEventCreate(&ev[1]), "cudaEventCreate");
  cudaGraphExec_t exec = nullptr;
  // Every PE must take the same path (the batch may contain collectives), so the
  // capture outcome is agreed before any replay.
  bool captured = true;
  if (graph) {
    ctx.cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamBeginCapture(ctx.stream, cudaStreamCaptureModeGlobal);
    if (e == cudaSuccess) {
      batch();
      e = cudaStreamEndCapture(ctx.stream, &g);
    }
    if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, g, 0);
    if (g) cudaGraphDestroy(g);
    if (e != cudaSuccess) {
      cudaGetLastError();
      exec = nullptr;
      captured = false;
      if (note) *note = std::string("graph capture failed: ") + cudaGetErrorString(e);
    }
    if (!ctx.all(captured)) {
      if (captured && note) *note = "graph capture failed on another PE";
      if (exec) cudaGraphExecDestroy(exec);
      cudaEventDestroy(ev[0]);
      cudaEventDestroy(ev[1]);
      return out;
    }
    // One untimed replay: graph upload and first-launch costs stay out of the samples.
    ctx.cuda(cudaGraphLaunch(exec, ctx.stream), "cudaGraphLaunch");
  }
  for (int r = 0; r < reps; ++r) {
    ctx.cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
    ctx.barrier();
    ctx.cuda(cudaEventRecord(ev[0], ctx.stream), "cudaEventRecord");
    if (exec)
      ctx.cuda(cudaGraphLaunch(exec, ctx.stream), "cudaGraphLaunch");
    else
      batch();
    ctx.cuda(cudaEventRecord(ev[1], ctx.stream), "cudaEventRecord");
    ctx.cuda(cudaEventSynchronize(ev[1]), "cudaEventSynchronize (timed batch)");
    float ms = 0;
    ctx.cuda(cudaEventElapsedTime(&ms, ev[0], ev[1]), "cudaEventElapsedTime");
    out.push_back(static_cast<double>(ms) * 1e3 / (per_batch > 0 ? per_batch : 1));
  }
  ctx.cuda(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
  if (exec) cudaGraphExecDestroy(exec);
  cudaEventDestroy(ev[0]);
  cudaEventDestroy(ev[1]);
  return out;
}

}  // namespace perf

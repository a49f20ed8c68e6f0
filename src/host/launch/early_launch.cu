// SPDX-License-Identifier: BSD-3-Clause
#include "early_launch.h"

#include "host/core/config.h"
#include "host/core/log.h"
#include "stream_order.cuh"

namespace gshmem {
namespace {

// Compiled like every kernel of the library: tells which PTX they were built from.
__global__ void probe_kernel() { wait_for_stream_predecessors(); }

bool kernels_wait_for_predecessors() {
  static const bool yes = [] {
    cudaFuncAttributes a{};
    const bool ok = cudaFuncGetAttributes(&a, probe_kernel) == cudaSuccess && a.ptxVersion >= 90;
    cudaGetLastError();
    GSHMEM_LOG_INFO("the library's kernels on streams %s (compiled for compute_%d)",
                    ok ? "start early where they may (programmatic stream serialisation)" : "are launched plainly",
                    a.ptxVersion);
    return ok;
  }();
  return yes;
}

}  // namespace

bool stream_captured(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return capture != cudaStreamCaptureStatusNone;
}

cudaError_t launch_plain(const void* kernel, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t stream,
                         bool captured) {
  if (!captured && config::get().early_launch && kernels_wait_for_predecessors()) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    if (cudaLaunchKernelExC(&cfg, kernel, args) == cudaSuccess) return cudaSuccess;
    cudaGetLastError();  // a platform without programmatic launches: the plain one
  }
  return cudaLaunchKernel(kernel, grid, block, args, smem, stream);
}

}  // namespace gshmem

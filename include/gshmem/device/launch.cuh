// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_collective_launch for CUDA translation units (host code). The kernel
// pointer is turned into a driver function handle by *this* TU's CUDA runtime
// (the one that registered the kernel), then libgshmem checks co-residency and
// launches it cooperatively.
#pragma once

#include <cuda_runtime.h>

#include "gshmem/host.h"

static inline int gshmemx_collective_launch_query_gridsize(const void* func, dim3 block, void** args, size_t shared_mem,
                                                           int* grid_blocks) {
  (void)args;
  cudaFunction_t f = nullptr;
  if (cudaGetFuncBySymbol(&f, func) != cudaSuccess) {
    cudaGetLastError();
    return gshmemi_collective_launch_query_gridsize(nullptr, block, shared_mem, grid_blocks);
  }
  return gshmemi_collective_launch_query_gridsize(f, block, shared_mem, grid_blocks);
}

static inline int gshmemx_collective_launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                            cudaStream_t stream) {
  cudaFunction_t f = nullptr;
  if (cudaGetFuncBySymbol(&f, func) != cudaSuccess) {
    cudaGetLastError();
    f = nullptr;  // the library reports the bad kernel pointer
  }
  return gshmemi_collective_launch(f, grid, block, args, shared_mem, stream);
}

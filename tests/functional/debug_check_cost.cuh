// SPDX-License-Identifier: BSD-3-Clause
// The kernel test_debug_check_cost times, compiled twice: by debug_check_cost_release.cu as a
// Release user's translation unit and by debug_check_cost_debug.cu with GSHMEM_DEBUG_CHECKS (the
// device checks, with the search of the live-allocation table). One thread, `iters` calls of each
// kind in a row; every call writes a value the host checks afterwards.
#pragma once

#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

namespace cost {

// dst: 256 longs on every PE. Returns the kernel's time in ms (cudaEvent), or -1 on a CUDA error.
float run_release(long* dst, int pe, int iters, int kind);
float run_debug(long* dst, int pe, int iters, int kind);

}  // namespace cost

#if defined(GSHMEM_COST_KERNEL_NAME)
// kind 0: gshmem_long_p; 1: gshmem_putmem of 8 bytes; 2: gshmem_long_atomic_add (adds 1).
static __global__ void GSHMEM_COST_KERNEL_NAME(long* dst, int pe, int iters, int kind) {
  for (int i = 0; i < iters; ++i) {
    long* at = dst + (i & 255);
    const long v = i;
    if (kind == 0)
      gshmem_long_p(at, v, pe);
    else if (kind == 1)
      gshmem_putmem(at, &v, sizeof(v), pe);
    else
      gshmem_long_atomic_add(at, 1, pe);
  }
  gshmem_quiet();
}

static float time_kernel(long* dst, int pe, int iters, int kind) {
  cudaEvent_t t0, t1;
  if (cudaEventCreate(&t0) != cudaSuccess || cudaEventCreate(&t1) != cudaSuccess) return -1;
  cudaEventRecord(t0);
  GSHMEM_COST_KERNEL_NAME<<<1, 1>>>(dst, pe, iters, kind);
  cudaEventRecord(t1);
  float ms = -1;
  if (cudaEventSynchronize(t1) != cudaSuccess || cudaEventElapsedTime(&ms, t0, t1) != cudaSuccess) ms = -1;
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return ms;
}
#endif

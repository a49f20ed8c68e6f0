// SPDX-License-Identifier: BSD-3-Clause
// Cooperative ("collective") kernel launch with a co-residency check that
// fails with a message instead of hanging.
#include <cuda_runtime.h>
#include <cxxabi.h>

#include <cstdlib>
#include <string>

#include "host/core/driver.h"
#include "host/core/runtime.h"

namespace gshmem {
namespace {

// Readable name of a kernel for messages ("ring(int*, int*)"), or "kernel".
std::string kernel_name(CUfunction f) {
  const char* name = nullptr;
  if (!f || !cu::api().FuncGetName || cu::api().FuncGetName(&name, f) != CUDA_SUCCESS || !name) return "kernel";
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = status == 0 && plain ? plain : name;
  free(plain);
  return result;
}

// With a proxy (a PE on another node), AMOs and ADD signals from other nodes are applied by a
// one-thread kernel on this GPU (host/proxy/apply_kernel.h): a collective kernel that filled
// every SM and waited for one would wait forever (the jacobi app's persistent form across 2
// simulated nodes under MPS did). One SM's worth of blocks is left to it.
bool reserve_for_applies() { return rt().proxy != nullptr; }

// Blocks of `threads` threads and `smem` bytes that fit on the GPU at once, less one SM's worth
// where the proxy applies (above), or this PE's share of them where PEs share the GPU
// (share_of_gpu): every sharing PE's grid must be resident at once, for a kernel that waits for
// another PE's cannot finish while that one cannot start.
Status max_resident_blocks(const char* call, CUfunction f, unsigned threads, size_t smem, int* blocks, int* per_sm,
                           int* sms) {
  if (!f) {
    GSHMEM_LOG_ERROR(
        "%s: the kernel pointer is not a __global__ function registered in this program "
        "(pass the kernel itself, e.g. (const void*)my_kernel)",
        call);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  GSHMEM_TRY(cu::load(nullptr));
  int dev = 0;
  GSHMEM_CUDA_TRY(call, cudaGetDevice(&dev));
  GSHMEM_CUDA_TRY(call, cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev));
  GSHMEM_CU_TRY(call, cu::api().OccupancyMaxActiveBlocksPerMultiprocessor(per_sm, f, (int)threads, smem));
  const int whole = *per_sm * *sms;
  *blocks = share_of_gpu(reserve_for_applies() && *sms > 1 ? whole - *per_sm : whole);
  return GSHMEM_SUCCESS;
}

}  // namespace
}  // namespace gshmem

using namespace gshmem;

extern "C" {

GSHMEM_API int gshmemi_collective_launch_query_gridsize(CUfunction f, dim3 block, size_t smem, int* grid_blocks) {
  const char* call = "gshmemx_collective_launch_query_gridsize";
  if (!grid_blocks) {
    GSHMEM_LOG_ERROR("%s: grid_blocks is NULL", call);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  int per_sm = 0, sms = 0;
  GSHMEM_TRY(max_resident_blocks(call, f, block.x * block.y * block.z, smem, grid_blocks, &per_sm, &sms));
  return GSHMEM_SUCCESS;
}

GSHMEM_API int gshmemi_collective_launch(CUfunction f, dim3 grid, dim3 block, void** args, size_t smem,
                                         cudaStream_t stream) {
  const char* call = "gshmemx_collective_launch";
  GSHMEM_TRY(require_init(call));
  const unsigned threads = block.x * block.y * block.z;
  const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  int max_blocks = 0, per_sm = 0, sms = 0;
  GSHMEM_TRY(max_resident_blocks(call, f, threads, smem, &max_blocks, &per_sm, &sms));
  if (blocks == 0 || threads == 0 || (unsigned long long)max_blocks < blocks) {
    const size_t sharing = rt().gpu_pes.size();
    GSHMEM_LOG_ERROR(
        "%s: %s with %llu blocks of %u threads and %zu bytes of shared memory cannot be "
        "co-resident on GPU %d: at most %d blocks fit (%d per SM x %d SMs%s%s)%s. Launch at most "
        "%d blocks (gshmemx_collective_launch_query_gridsize tells the limit), or use fewer "
        "threads, registers or shared memory per block.",
        call, kernel_name(f).c_str(), blocks, threads, smem, rt().device, max_blocks, per_sm, sms,
        reserve_for_applies() && sms > 1 ? ", less one SM for the proxy's applies" : "",
        sharing > 1 ? (" / " + std::to_string(sharing) + " PEs sharing the GPU").c_str() : "",
        per_sm == 0 ? " - not even one block fits" : "", max_blocks);
    return GSHMEM_ERROR_LAUNCH;
  }
  GSHMEM_CU_TRY(call, cu::api().LaunchCooperativeKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                                        (unsigned)smem, (CUstream)stream, args));
  return GSHMEM_SUCCESS;
}

// For C/C++ translation units: resolves `func` with libgshmem's CUDA runtime,
// which knows kernels registered by a CUDA runtime shared with the caller.
GSHMEM_API int gshmemx_collective_launch(const void* func, dim3 grid, dim3 block, void** args, size_t smem,
                                         cudaStream_t stream) {
  cudaFunction_t f = nullptr;
  if (cudaGetFuncBySymbol(&f, func) != cudaSuccess) cudaGetLastError(), f = nullptr;
  return gshmemi_collective_launch(f, grid, block, args, smem, stream);
}

GSHMEM_API int gshmemx_collective_launch_query_gridsize(const void* func, dim3 block, void** args, size_t smem,
                                                        int* grid_blocks) {
  (void)args;
  cudaFunction_t f = nullptr;
  if (cudaGetFuncBySymbol(&f, func) != cudaSuccess) cudaGetLastError(), f = nullptr;
  return gshmemi_collective_launch_query_gridsize(f, block, smem, grid_blocks);
}

}  // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// libnordc_a.so: puts from a kernel of its own (no -rdc). See nordc.h.
#include <gshmem/gshmem.h>

#include "common.h"
#include "nordc.h"

namespace {

__global__ void a_fill(int* src, size_t n, int salt) {
  const int me = gshmem_my_pe();
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    src[i] = gt::value<int>(me, i, static_cast<uint64_t>(salt));
}

// Block b puts slice b of src into dst on the next PE, at block scope.
__global__ void a_put(int* dst, const int* src, size_t n) {
  const int next = (gshmem_my_pe() + 1) % gshmem_n_pes();
  const size_t slice = (n + gridDim.x - 1) / gridDim.x;
  const size_t begin = blockIdx.x * slice;
  const size_t len = begin >= n ? 0 : (n - begin < slice ? n - begin : slice);
  gshmemx_int_put_block(dst + begin, src + begin, len, next);
  gshmem_quiet();
}

}  // namespace

extern "C" NORDC_API int nordc_a_put(int* dst_sym, int* src_local, size_t n, int salt) {
  a_fill<<<64, 256>>>(src_local, n, salt);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  a_put<<<8, 256>>>(dst_sym, src_local, n);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}

// SPDX-License-Identifier: BSD-3-Clause
// app::diff_words (app.h): the bit-for-bit comparison of a result with its reference, on the GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "app.h"

namespace app {
namespace {
__global__ void k_diff(const uint64_t* got, const uint64_t* want, size_t n, unsigned long long* out) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (got[i] != want[i]) {
      atomicAdd(&out[0], 1ull);
      atomicMin(&out[1], static_cast<unsigned long long>(i));
    }
  }
}
}  // namespace

Diff diff_words(const void* got, const void* want, size_t n, cudaStream_t stream) {
  unsigned long long* d = nullptr;
  APP_CUDA(cudaMallocAsync(&d, 2 * sizeof(*d), stream));
  const unsigned long long init[2] = {0, static_cast<unsigned long long>(n)};
  APP_CUDA(cudaMemcpyAsync(d, init, sizeof(init), cudaMemcpyHostToDevice, stream));
  if (n) k_diff<<<264, 256, 0, stream>>>(static_cast<const uint64_t*>(got), static_cast<const uint64_t*>(want), n, d);
  APP_CUDA(cudaGetLastError());
  unsigned long long h[2];
  APP_CUDA(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, stream));
  APP_CUDA(cudaFreeAsync(d, stream));
  APP_CUDA(cudaStreamSynchronize(stream));
  return Diff{h[0], h[1]};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace app

// SPDX-License-Identifier: BSD-3-Clause
#include "launch.h"

#include <mutex>
#include <unordered_map>

#include "host/core/runtime.h"
#include "host/launch/early_launch.h"

namespace gshmem::coll {
namespace {

struct Key {
  const void* kernel;
  int device, threads;
  size_t smem;
  bool operator==(const Key& o) const {
    return kernel == o.kernel && device == o.device && threads == o.threads && smem == o.smem;
  }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<const void*>()(k.kernel) ^ (static_cast<size_t>(k.device) << 48) ^
           (static_cast<size_t>(k.threads) << 32) ^ k.smem;
  }
};

// Co-resident CTAs of `kernel` on the current GPU (cached: occupancy does not change), or
// this PE's share of them when PEs share the GPU (share_of_gpu).
Status capacity(const char* call, const void* kernel, int threads, size_t smem, int* out) {
  static std::mutex mu;
  static std::unordered_map<Key, int, KeyHash> cache;
  int dev = 0;
  GSHMEM_CUDA_TRY(call, cudaGetDevice(&dev));
  const Key key{kernel, dev, threads, smem};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) {
    *out = share_of_gpu(it->second);
    return GSHMEM_SUCCESS;
  }
  int sms = 0, per_sm = 0;
  GSHMEM_CUDA_TRY(call, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  GSHMEM_CUDA_TRY(call, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  if (per_sm < 1) {
    GSHMEM_LOG_ERROR(
        "%s: the library's collective kernel does not fit on GPU %d with %d threads per block "
        "(no block can be resident); this is a gshmem build problem, please report it",
        call, dev, threads);
    return GSHMEM_ERROR_LAUNCH;
  }
  cache.emplace(key, per_sm * sms);
  *out = share_of_gpu(per_sm * sms);
  return GSHMEM_SUCCESS;
}

}  // namespace

Status grid_for(const char* call, const void* kernel, int wanted, int threads, size_t smem, int* ctas) {
  int cap = 0;
  GSHMEM_TRY(capacity(call, kernel, threads, smem, &cap));
  *ctas = wanted < 1 ? 1 : (wanted < cap ? wanted : cap);
  return GSHMEM_SUCCESS;
}

Status launch(const char* call, const void* kernel, int ctas, int threads, void** args, size_t smem,
              cudaStream_t stream) {
  // One CTA is resident by itself, so it needs no cooperative launch, and a plain one costs
  // less.
  // It may also start early (host/launch/early_launch.h).
  const bool cooperative = ctas > 1;
  cudaError_t e = cooperative
                      ? cudaLaunchCooperativeKernel(kernel, dim3(ctas), dim3(threads), args, smem, stream)
                      : launch_plain(kernel, dim3(ctas), dim3(threads), args, smem, stream, stream_captured(stream));
  if (e != cudaSuccess) {
    cudaGetLastError();
    GSHMEM_LOG_ERROR("%s: launching the collective kernel (%d blocks of %d threads%s) failed: %s (%s)", call, ctas,
                     threads, cooperative ? ", cooperative" : "", cudaGetErrorString(e), cudaGetErrorName(e));
    return e == cudaErrorCooperativeLaunchTooLarge ? GSHMEM_ERROR_LAUNCH : GSHMEM_ERROR_CUDA;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::coll

// SPDX-License-Identifier: BSD-3-Clause
#include "host/launch/preload.h"

#include <chrono>
#include <vector>

#include "host/core/log.h"

namespace gshmem::preload {
namespace {

std::vector<LoadFn>& registry() {
  static std::vector<LoadFn> fns;  // filled during static initialisation, read after
  return fns;
}

}  // namespace

Entry::Entry(LoadFn load) { registry().push_back(load); }

cudaError_t load(std::initializer_list<const void*> kernels) {
  for (const void* k : kernels) {
    cudaFuncAttributes a{};
    const cudaError_t e = cudaFuncGetAttributes(&a, k);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

Status all(const char* call) {
  const auto t0 = std::chrono::steady_clock::now();
  for (LoadFn load : registry()) {
    const cudaError_t e = load();
    if (e != cudaSuccess) {
      cudaGetLastError();
      GSHMEM_LOG_ERROR(
          "%s: loading the library's kernels failed: %s (%s); was libgshmem built for this GPU "
          "(CMAKE_CUDA_ARCHITECTURES when it was built)?",
          call, cudaGetErrorString(e), cudaGetErrorName(e));
      return GSHMEM_ERROR_CUDA;
    }
  }
  GSHMEM_LOG_INFO("%s: the library's kernels are loaded (%zu files, %.1f ms)", call, registry().size(),
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::preload

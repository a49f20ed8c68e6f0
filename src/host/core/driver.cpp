// SPDX-License-Identifier: BSD-3-Clause
#include "driver.h"

#include <cuda_runtime.h>

#include <mutex>

namespace gshmem::cu {
namespace {

Api g_api{};
Status g_status = GSHMEM_ERROR_INTERNAL;
std::once_flag g_once;

// `version`: the driver ABI version of the entry point (CUDA 12.0 unless newer).
template <class F>
Status get(const char* name, F* out, unsigned version = 12000, bool required = true) {
  cudaDriverEntryPointQueryResult q;
  void* fn = nullptr;
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || fn == nullptr) {
    cudaGetLastError();
    if (!required) return GSHMEM_ERROR_UNSUPPORTED;
    GSHMEM_LOG_ERROR(
        "gshmem_init: cannot load CUDA driver function %s (%s); is the NVIDIA driver "
        "installed and at least as new as CUDA 12?",
        name, e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
    return GSHMEM_ERROR_CUDA;
  }
  *out = reinterpret_cast<F>(fn);
  return GSHMEM_SUCCESS;
}

Status load_all() {
  GSHMEM_TRY(get("cuMemCreate", &g_api.MemCreate));
  GSHMEM_TRY(get("cuMemRelease", &g_api.MemRelease));
  GSHMEM_TRY(get("cuMemAddressReserve", &g_api.MemAddressReserve));
  GSHMEM_TRY(get("cuMemAddressFree", &g_api.MemAddressFree));
  GSHMEM_TRY(get("cuMemMap", &g_api.MemMap));
  GSHMEM_TRY(get("cuMemUnmap", &g_api.MemUnmap));
  GSHMEM_TRY(get("cuMemSetAccess", &g_api.MemSetAccess));
  GSHMEM_TRY(get("cuMemExportToShareableHandle", &g_api.MemExportToShareableHandle));
  GSHMEM_TRY(get("cuMemImportFromShareableHandle", &g_api.MemImportFromShareableHandle));
  GSHMEM_TRY(get("cuMemGetAllocationGranularity", &g_api.MemGetAllocationGranularity));
  GSHMEM_TRY(get("cuDeviceGetAttribute", &g_api.DeviceGetAttribute));
  GSHMEM_TRY(get("cuCtxGetCurrent", &g_api.CtxGetCurrent));
  GSHMEM_TRY(get("cuGetErrorString", &g_api.GetErrorString));
  GSHMEM_TRY(get("cuOccupancyMaxActiveBlocksPerMultiprocessor", &g_api.OccupancyMaxActiveBlocksPerMultiprocessor));
  GSHMEM_TRY(get("cuLaunchCooperativeKernel", &g_api.LaunchCooperativeKernel));
  GSHMEM_TRY(get("cuMemRetainAllocationHandle", &g_api.MemRetainAllocationHandle));
  GSHMEM_TRY(get("cuMemGetAllocationPropertiesFromHandle", &g_api.MemGetAllocationPropertiesFromHandle));
  GSHMEM_TRY(get("cuMemGetAddressRange", &g_api.MemGetAddressRange));
  GSHMEM_TRY(get("cuPointerGetAttribute", &g_api.PointerGetAttribute));
  GSHMEM_TRY(get("cuModuleGetGlobal", &g_api.ModuleGetGlobal));
  GSHMEM_TRY(get("cuMemcpyHtoD", &g_api.MemcpyHtoD));
  GSHMEM_TRY(get("cuMemcpyAsync", &g_api.MemcpyAsync));
  GSHMEM_TRY(get("cuCtxGetDevice", &g_api.CtxGetDevice));
  GSHMEM_TRY(get("cuCtxPushCurrent", &g_api.CtxPushCurrent));
  GSHMEM_TRY(get("cuCtxPopCurrent", &g_api.CtxPopCurrent));
  GSHMEM_TRY(get("cuDevicePrimaryCtxRetain", &g_api.DevicePrimaryCtxRetain));
  GSHMEM_TRY(get("cuDevicePrimaryCtxRelease", &g_api.DevicePrimaryCtxRelease));
  // Optional (messages only): kernel names need a 12.3+ driver.
  if (get("cuFuncGetName", &g_api.FuncGetName, 12030, false) != GSHMEM_SUCCESS) g_api.FuncGetName = nullptr;
  // Optional: stream memory operations (signals on streams); a kernel replaces them when absent.
  if (get("cuStreamWaitValue64", &g_api.StreamWaitValue64, 12000, false) != GSHMEM_SUCCESS)
    g_api.StreamWaitValue64 = nullptr;
  if (get("cuStreamWriteValue64", &g_api.StreamWriteValue64, 12000, false) != GSHMEM_SUCCESS)
    g_api.StreamWriteValue64 = nullptr;
  if (get("cuStreamBatchMemOp", &g_api.StreamBatchMemOp, 12000, false) != GSHMEM_SUCCESS)
    g_api.StreamBatchMemOp = nullptr;
  if (get("cuModuleGetLoadingMode", &g_api.ModuleGetLoadingMode, 11070, false) != GSHMEM_SUCCESS)
    g_api.ModuleGetLoadingMode = nullptr;
  // Optional, all or none: the proxy's apply context.
  if (get("cuCtxCreate", &g_api.CtxCreate, 12050, false) != GSHMEM_SUCCESS ||
      get("cuCtxDestroy", &g_api.CtxDestroy, 12000, false) != GSHMEM_SUCCESS ||
      get("cuCtxSetCurrent", &g_api.CtxSetCurrent, 12000, false) != GSHMEM_SUCCESS ||
      get("cuCtxSetLimit", &g_api.CtxSetLimit, 12000, false) != GSHMEM_SUCCESS)
    g_api.CtxCreate = nullptr;
  return GSHMEM_SUCCESS;
}

}  // namespace

Status load(const Api** out) {
  std::call_once(g_once, [] { g_status = load_all(); });
  if (g_status == GSHMEM_SUCCESS && out) *out = &g_api;
  return g_status;
}

const Api& api() { return g_api; }

const char* error_string(CUresult r) {
  const char* msg = nullptr;
  if (g_api.GetErrorString && g_api.GetErrorString(r, &msg) == CUDA_SUCCESS && msg) return msg;
  return "unknown CUDA driver error";
}

}  // namespace gshmem::cu

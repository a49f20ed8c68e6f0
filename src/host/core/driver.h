// SPDX-License-Identifier: BSD-3-Clause
// CUDA driver API entry points, fetched at run time through the runtime
// (cudaGetDriverEntryPointByVersion) so that libgshmem.so does not link
// libcuda.so and loads on machines without a driver.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include "host/core/status.h"

namespace gshmem::cu {

struct Api {
  PFN_cuMemCreate_v10020 MemCreate;
  PFN_cuMemRelease_v10020 MemRelease;
  PFN_cuMemAddressReserve_v10020 MemAddressReserve;
  PFN_cuMemAddressFree_v10020 MemAddressFree;
  PFN_cuMemMap_v10020 MemMap;
  PFN_cuMemUnmap_v10020 MemUnmap;
  PFN_cuMemSetAccess_v10020 MemSetAccess;
  PFN_cuMemExportToShareableHandle_v10020 MemExportToShareableHandle;
  PFN_cuMemImportFromShareableHandle_v10020 MemImportFromShareableHandle;
  PFN_cuMemGetAllocationGranularity_v10020 MemGetAllocationGranularity;
  PFN_cuDeviceGetAttribute_v2000 DeviceGetAttribute;
  PFN_cuCtxGetCurrent_v4000 CtxGetCurrent;
  PFN_cuGetErrorString_v6000 GetErrorString;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 OccupancyMaxActiveBlocksPerMultiprocessor;
  PFN_cuLaunchCooperativeKernel_v9000 LaunchCooperativeKernel;
  PFN_cuFuncGetName_v12030 FuncGetName;
  // Registered buffers (mem/register.cpp): the user's VMM allocation behind a pointer.
  PFN_cuMemRetainAllocationHandle_v11000 MemRetainAllocationHandle;
  PFN_cuMemGetAllocationPropertiesFromHandle_v10020 MemGetAllocationPropertiesFromHandle;
  PFN_cuMemGetAddressRange_v3020 MemGetAddressRange;
  PFN_cuPointerGetAttribute_v4000 PointerGetAttribute;
  // Modules loaded through the driver API (launch/cumodule.cpp): their state copy and context.
  PFN_cuModuleGetGlobal_v3020 ModuleGetGlobal;
  PFN_cuMemcpyHtoD_v3020 MemcpyHtoD;
  // Host RMA between two symmetric buffers (rma/rma_transfer.cu).
  PFN_cuMemcpyAsync_v4000 MemcpyAsync;
  PFN_cuCtxGetDevice_v2000 CtxGetDevice;
  PFN_cuCtxPushCurrent_v4000 CtxPushCurrent;
  PFN_cuCtxPopCurrent_v4000 CtxPopCurrent;
  PFN_cuDevicePrimaryCtxRetain_v7000 DevicePrimaryCtxRetain;
  PFN_cuDevicePrimaryCtxRelease_v11000 DevicePrimaryCtxRelease;
  // Stream memory operations (optional: nullptr when the driver lacks them;
  // callers then fall back to a kernel). Support per device:
  // CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS.
  PFN_cuStreamWaitValue64_v11070 StreamWaitValue64;
  PFN_cuStreamWriteValue64_v11070 StreamWriteValue64;
  PFN_cuStreamBatchMemOp_v11070 StreamBatchMemOp;
  // Optional: whether kernels load lazily (the proxy warns: internode.md section 9).
  PFN_cuModuleGetLoadingMode_v11070 ModuleGetLoadingMode;
  // Optional: the proxy's apply context (host/proxy/cuda_stager.h); nullptr: none can be made.
  PFN_cuCtxCreate_v12050 CtxCreate;
  PFN_cuCtxDestroy_v4000 CtxDestroy;
  PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;
  PFN_cuCtxSetLimit_v3010 CtxSetLimit;
};

// Loads the entry points once (thread-safe). Fails with a message when the
// driver is missing or too old.
Status load(const Api** out);
// The loaded table; only valid after a successful load().
const Api& api();
const char* error_string(CUresult r);

}  // namespace gshmem::cu

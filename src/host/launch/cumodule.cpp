// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_cumodule_init / gshmemx_cumodule_finalize: the device-state copy of a module loaded
// through the CUDA driver API (cuModuleLoad*, as JIT compilers do). Such a module has no
// registrar, so the library finds its copy itself: `static __constant__ gshmemi_device_state
// gshmemi_tu_state` (device/impl/state.cuh), which nvcc names plainly in a module compiled
// without -rdc. The copy joins the registry of the device-state copies
// (core/device_state_registry.h), so every later publish (heap growth, finalize, a new init)
// refills it, until gshmemx_cumodule_finalize removes it.
#include <cuda.h>

#include <cstdio>
#include <string>

#include "gshmem/host.h"
#include "host/core/device_state_registry.h"
#include "host/core/driver.h"
#include "host/core/runtime.h"

namespace gshmem::cumodule {
namespace {

// The name device/impl/state.cuh gives each file's copy.
constexpr const char* kStateSymbol = "gshmemi_tu_state";

// One module's copy: where it is, and the context it lives in (current at
// gshmemx_cumodule_init, made current again for each refill).
struct Copy {
  CUmodule module;
  CUcontext ctx;
  CUdeviceptr dptr;
};

std::string module_name(CUmodule m) {
  char b[48];
  snprintf(b, sizeof(b), "module %p", static_cast<void*>(m));
  return b;
}

// Uploads `s` into the module's copy, with the module's context current for the copy.
Status fill(const cu::Api& d, const Copy& c, const gshmemi_device_state& s, const char* call) {
  CUcontext cur = nullptr;
  const bool push = d.CtxGetCurrent(&cur) != CUDA_SUCCESS || cur != c.ctx;
  CUresult e = push ? d.CtxPushCurrent(c.ctx) : CUDA_SUCCESS;
  if (e == CUDA_SUCCESS) {
    e = d.MemcpyHtoD(c.dptr, &s, sizeof(s));
    CUcontext popped = nullptr;
    if (push) d.CtxPopCurrent(&popped);
  }
  if (e == CUDA_SUCCESS) return GSHMEM_SUCCESS;
  if (call) {
    GSHMEM_LOG_ERROR("%s: cannot fill the gshmem device state of module %p: %s (CUresult %d); is its context alive?",
                     call, static_cast<void*>(c.module), cu::error_string(e), static_cast<int>(e));
  } else {
    GSHMEM_LOG_ERROR(
        "gshmem state update: cannot refill the gshmem device state of module %p: %s (CUresult %d); its kernels "
        "see an out-of-date state. Call gshmemx_cumodule_finalize before cuModuleUnload or destroying its context",
        static_cast<void*>(c.module), cu::error_string(e), static_cast<int>(e));
  }
  return GSHMEM_ERROR_CUDA;
}

// Warns when `ctx` is not the primary context of `device`: the state's device arrays were
// allocated in the primary context (the runtime API's), which another context may not reach.
void warn_if_not_primary(const cu::Api& d, const char* call, CUcontext ctx, CUdevice device) {
  CUcontext primary = nullptr;
  if (d.DevicePrimaryCtxRetain(&primary, device) != CUDA_SUCCESS) return;
  d.DevicePrimaryCtxRelease(device);
  if (primary != ctx)
    GSHMEM_LOG_WARN(
        "%s: the current CUDA context is not the primary context of GPU %d, which gshmem uses: the module's "
        "kernels may not reach gshmem's device memory. Load the module with the primary context current "
        "(cudaSetDevice, or cuDevicePrimaryCtxRetain + cuCtxSetCurrent)",
        call, static_cast<int>(device));
}

Status init(CUmodule module) {
  constexpr const char* call = "gshmemx_cumodule_init";
  GSHMEM_TRY(require_init(call));
  if (module == nullptr) {
    GSHMEM_LOG_ERROR("%s: the module is NULL; pass a module loaded with cuModuleLoad or cuModuleLoadData", call);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const cu::Api* d = nullptr;
  GSHMEM_TRY(cu::load(&d));
  Copy c{module, nullptr, 0};
  if (d->CtxGetCurrent(&c.ctx) != CUDA_SUCCESS || c.ctx == nullptr) {
    GSHMEM_LOG_ERROR(
        "%s: no CUDA context is current on this thread; make the context that loaded module %p current "
        "(this PE's GPU %d) and call again",
        call, static_cast<void*>(module), rt().device);
    return GSHMEM_ERROR_CUDA;
  }
  CUdevice device = -1;
  if (d->CtxGetDevice(&device) == CUDA_SUCCESS && static_cast<int>(device) != rt().device) {
    GSHMEM_LOG_ERROR(
        "%s: the current CUDA context is on GPU %d, this PE's GPU is %d; load module %p on this PE's GPU and "
        "call with that GPU's context current",
        call, static_cast<int>(device), rt().device, static_cast<void*>(module));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (device >= 0) warn_if_not_primary(*d, call, c.ctx, device);

  size_t bytes = 0;
  const CUresult e = d->ModuleGetGlobal(&c.dptr, &bytes, module, kStateSymbol);
  if (e == CUDA_ERROR_NOT_FOUND) {
    GSHMEM_LOG_ERROR(
        "%s: module %p has no gshmem device state (no symbol %s): the module was not compiled with gshmem's "
        "headers, was compiled with -rdc (its copy then has a per-file name), or none of its kernels calls "
        "gshmem. Build it with nvcc -cubin (or -ptx / -fatbin), without -rdc, from a file that includes "
        "<gshmem/gshmem.h> or <nvshmem.h>",
        call, static_cast<void*>(module), kStateSymbol);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (e != CUDA_SUCCESS) {
    GSHMEM_LOG_ERROR(
        "%s: cuModuleGetGlobal(%s) on module %p failed: %s (CUresult %d); is the module loaded in the current "
        "context?",
        call, kStateSymbol, static_cast<void*>(module), cu::error_string(e), static_cast<int>(e));
    return GSHMEM_ERROR_CUDA;
  }
  if (bytes != sizeof(gshmemi_device_state)) {
    GSHMEM_LOG_ERROR(
        "%s: module %p was compiled against other gshmem headers: its device state %s is %zu bytes, this "
        "libgshmem's is %zu (state version %u); rebuild the module against the installed headers",
        call, static_cast<void*>(module), kStateSymbol, bytes, sizeof(gshmemi_device_state),
        GSHMEMI_DEVICE_STATE_VERSION);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return device_state::add_copy(
      module, module_name(module), [d, c](const gshmemi_device_state& s, const char* by) { return fill(*d, c, s, by); },
      call);
}

Status finalize(CUmodule module) {
  constexpr const char* call = "gshmemx_cumodule_finalize";
  if (module == nullptr) {
    GSHMEM_LOG_ERROR("%s: the module is NULL; pass the module given to gshmemx_cumodule_init", call);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!device_state::remove_copy(module)) {
    GSHMEM_LOG_ERROR(
        "%s: module %p was not initialised with gshmemx_cumodule_init, or was finalised already; nothing to "
        "finalise",
        call, static_cast<void*>(module));
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  GSHMEM_LOG_TRACE("%s: module %p is no longer refilled", call, static_cast<void*>(module));
  return GSHMEM_SUCCESS;
}

}  // namespace
}  // namespace gshmem::cumodule

extern "C" GSHMEM_API int gshmemx_cumodule_init(CUmodule module) { return gshmem::cumodule::init(module); }

extern "C" GSHMEM_API int gshmemx_cumodule_finalize(CUmodule module) { return gshmem::cumodule::finalize(module); }

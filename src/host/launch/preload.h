// SPDX-License-Identifier: BSD-3-Clause
// The library's kernels are loaded by gshmem_init, not at their first launch.
//
// Under CUDA's lazy loading (CUDA_MODULE_LOADING=LAZY, the default) a kernel's code is loaded
// when it is first launched, and that load waits until the kernels running on the GPU have
// ended. A host call made while the application's kernels run would then wait for all of
// them, the first time it is made: a host AMO or signal that a persistent kernel polls for
// would never arrive (tests/functional/test_host_busy.cu checks that host calls return while
// the application's kernel still runs).
//
// Every file that launches kernels from the host registers, at namespace scope, a function
// that loads them (preload::load below, or its own dispatch in a load-only mode):
//   const preload::Entry kPreload(+[] { return preload::load({preload::K(k1), preload::K(k2<int>)}); });
// and gshmem_init runs them all (preload::all).
#pragma once

#include <cuda_runtime.h>

#include <initializer_list>

#include "host/core/status.h"

namespace gshmem::preload {

using LoadFn = cudaError_t (*)();

// Registers `load` at static initialisation.
struct Entry {
  explicit Entry(LoadFn load);
};

// Loads each kernel (cudaFuncGetAttributes loads a kernel's code); the first error.
cudaError_t load(std::initializer_list<const void*> kernels);

// A __global__ function as the runtime API's kernel handle.
template <class F>
const void* K(F* kernel) {
  return reinterpret_cast<const void*>(kernel);
}

// Runs every registered load function; GSHMEM_ERROR_CUDA with a message naming `call` on the
// first that fails.
Status all(const char* call);

}  // namespace gshmem::preload

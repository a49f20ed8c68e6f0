// SPDX-License-Identifier: BSD-3-Clause
// Compile test: what an NVSHMEM program gets from <nvshmem.h> and <nvshmemx.h> alone, as from
// NVSHMEM's own headers: cooperative groups in CUDA code, the driver API's CUmodule,
// NVSHMEMI_ERROR_PRINT, and nvshmemx_cumodule_init / _finalize. The kernel is never launched.
// Runs without a GPU: before nvshmem_init, nvshmemx_cumodule_init must refuse (not initialised)
// and nvshmemx_cumodule_finalize must refuse a module it never initialised.
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void uses_cooperative_groups(int* sym, int pe) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  cooperative_groups::thread_block block = cooperative_groups::this_thread_block();
  if (grid.thread_rank() == 0) nvshmem_int_p(sym, static_cast<int>(block.size()), pe);
}

int main() {
  void (*kernel)(int*, int) = uses_cooperative_groups;
  if (kernel == nullptr) return 1;
  CUmodule module = nullptr;
  if (nvshmemx_cumodule_init(module) != GSHMEM_ERROR_NOT_INITIALIZED) {
    NVSHMEMI_ERROR_PRINT("nvshmemx_cumodule_init before nvshmem_init: expected status %d\n",
                         GSHMEM_ERROR_NOT_INITIALIZED);
    return 1;
  }
  CUmodule never_initialised = reinterpret_cast<CUmodule>(static_cast<uintptr_t>(0x1000));
  if (nvshmemx_cumodule_finalize(never_initialised) == NVSHMEMX_SUCCESS) {
    NVSHMEMI_ERROR_PRINT("nvshmemx_cumodule_finalize of module %p: expected an error", (void*)never_initialised);
    return 1;
  }
  NVSHMEMI_ERROR_PRINT("NVSHMEMI_ERROR_PRINT prints %s, %d and a newline", "its arguments", 2);
  printf("compat cumodule compile test: ok\n");
  return 0;
}

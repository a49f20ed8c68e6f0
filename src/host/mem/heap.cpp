// SPDX-License-Identifier: BSD-3-Clause
#include "heap.h"

#include "host/core/config.h"
#include "host/core/driver.h"

namespace gshmem::mem {
namespace {

bool vmm_supported(int device) {
  if (cu::load(nullptr) != GSHMEM_SUCCESS) return false;
  int vmm = 0, fd = 0;
  cu::api().DeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device);
  cu::api().DeviceGetAttribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device);
  return vmm && fd;
}

}  // namespace

// The heap kinds that cannot map user memory (register.cpp asks can_register() first).
Status Heap::register_user(uint64_t handle, uint64_t, uint64_t, const void*, bootstrap::Bootstrap&, uint64_t*) {
  cu::api().MemRelease(static_cast<CUmemGenericAllocationHandle>(handle));
  return GSHMEM_ERROR_UNSUPPORTED;
}
Status Heap::unregister_user(uint64_t) { return GSHMEM_ERROR_UNSUPPORTED; }
bool Heap::registration(uint64_t, uint64_t*, const void**) const { return false; }
bool Heap::find_registration(const void*, uint64_t*) const { return false; }

Status create_heap(const HeapParams& params, bootstrap::Bootstrap& boot, std::unique_ptr<Heap>* out) {
  bool use_vmm = !config::get().disable_vmm && vmm_supported(params.device);
  // Every PE must choose the same kind.
  bool all_vmm = false;
  GSHMEM_TRY(all_agree(boot, use_vmm, &all_vmm));
  if (all_vmm) return create_vmm_heap(params, boot, out);
  GSHMEM_LOG_INFO("symmetric heap: using cudaMalloc + CUDA IPC (fixed size %llu bytes)",
                  (unsigned long long)params.initial_size);
  return create_ipc_heap(params, boot, out);
}

}  // namespace gshmem::mem

// SPDX-License-Identifier: BSD-3-Clause
// Fallback symmetric heap: one cudaMalloc per PE, shared with node-local peers
// through CUDA IPC handles (exchanged within the node: exchange_local). Cannot grow.
#include <cuda_runtime.h>

#include <cstring>

#include "heap.h"

namespace gshmem::mem {
namespace {

struct IpcEntry {
  cudaIpcMemHandle_t handle;
  uint64_t size;
};

class IpcHeap final : public Heap {
 public:
  ~IpcHeap() override {
    for (size_t pe = 0; pe < peer_base_.size(); ++pe) {
      if (!peer_base_[pe]) continue;
      if ((int)pe == my_pe_)
        cudaFree(peer_base_[pe]);
      else
        cudaIpcCloseMemHandle(peer_base_[pe]);
    }
  }
  const char* kind() const override { return "cuda-ipc"; }

  Status init(const HeapParams& p, bootstrap::Bootstrap& boot) {
    my_pe_ = p.my_pe;
    size_ = max_size_ = (p.initial_size + 0xFFFFF) & ~uint64_t{0xFFFFF};
    peer_base_.assign(p.n_pes, nullptr);
    void* mine = nullptr;
    IpcEntry entry{};
    cudaError_t e = cudaMalloc(&mine, size_);
    if (e == cudaSuccess) e = cudaIpcGetMemHandle(&entry.handle, mine);
    if (e != cudaSuccess)
      GSHMEM_LOG_ERROR(
          "symmetric heap (CUDA IPC): cannot allocate %llu bytes on device %d: %s. Lower "
          "GSHMEM_SYMMETRIC_SIZE.",
          (unsigned long long)size_, p.device, cudaGetErrorString(e));
    entry.size = e == cudaSuccess ? size_ : 0;
    if (mine) peer_base_[my_pe_] = static_cast<char*>(mine);
    bool all_ok = false;
    GSHMEM_TRY(all_agree(boot, entry.size == size_, &all_ok));
    if (!all_ok) return GSHMEM_ERROR_OUT_OF_MEMORY;  // logged by the PE that failed
    // Handles travel within the node only (Unix sockets), not through the bootstrap.
    std::vector<int> no_fds;
    std::vector<uint8_t> all;
    GSHMEM_TRY(exchange_local(p, boot, 0, -1, &entry, sizeof(entry), &no_fds, &all));
    for (size_t i = 0; i < p.local_pes.size(); ++i) {
      const int pe = p.local_pes[i];
      if (pe == my_pe_) continue;
      IpcEntry theirs;
      memcpy(&theirs, &all[i * sizeof(IpcEntry)], sizeof(IpcEntry));
      void* ptr = nullptr;
      e = cudaIpcOpenMemHandle(&ptr, theirs.handle, cudaIpcMemLazyEnablePeerAccess);
      if (e != cudaSuccess) {
        GSHMEM_LOG_ERROR(
            "symmetric heap (CUDA IPC): cannot open PE %d's heap: %s (the GPUs need peer "
            "access)",
            pe, cudaGetErrorString(e));
        return GSHMEM_ERROR_UNSUPPORTED;
      }
      peer_base_[pe] = static_cast<char*>(ptr);
    }
    return GSHMEM_SUCCESS;
  }

  Status grow(uint64_t new_size, bootstrap::Bootstrap&) override {
    if (new_size <= size_) return GSHMEM_SUCCESS;
    GSHMEM_LOG_ERROR(
        "symmetric heap: the CUDA IPC heap cannot grow past GSHMEM_SYMMETRIC_SIZE (%llu "
        "bytes); raise GSHMEM_SYMMETRIC_SIZE (the growable VMM heap is off: "
        "GSHMEM_DISABLE_VMM=1 or unsupported here)",
        (unsigned long long)size_);
    return GSHMEM_ERROR_OUT_OF_MEMORY;
  }
};

}  // namespace

Status create_ipc_heap(const HeapParams& params, bootstrap::Bootstrap& boot, std::unique_ptr<Heap>* out) {
  auto heap = std::make_unique<IpcHeap>();
  GSHMEM_TRY(heap->init(params, boot));
  *out = std::move(heap);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::mem

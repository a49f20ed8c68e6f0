// SPDX-License-Identifier: BSD-3-Clause
// Symmetric heap on CUDA VMM. One virtual reservation holds a slot of
// max_size bytes for every node-local PE (slot = local rank). Growing maps a
// new physical chunk at the end of each slot: every PE creates its chunk,
// exports it as a POSIX fd, the fds travel over Unix sockets, and each PE maps
// its peers' chunks into their slots. Virtual addresses never move, so device
// state needs no update when the heap grows beyond its size field.
#include <unistd.h>

#include <cuda_runtime.h>

#include "heap.h"
#include "host/core/driver.h"

namespace gshmem::mem {
namespace {

struct Chunk {
  CUmemGenericAllocationHandle handle;
  CUdeviceptr addr;
  size_t bytes;
};

class VmmHeap final : public Heap {
 public:
  ~VmmHeap() override { release(); }
  const char* kind() const override { return "cuda-vmm"; }

  Status init(const HeapParams& p, bootstrap::Bootstrap& boot) {
    params_ = p;
    my_pe_ = p.my_pe;
    GSHMEM_TRY(cu::load(nullptr));
    const cu::Api& api = cu::api();
    prop_ = {};
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = p.device;
    prop_.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    GSHMEM_CU_TRY("heap setup",
                  api.MemGetAllocationGranularity(&granularity_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    slot_bytes_ = round_up(p.max_size);
    max_size_ = slot_bytes_;
    const size_t n_local = p.local_pes.size();
    GSHMEM_CU_TRY("heap setup", api.MemAddressReserve(&reservation_, slot_bytes_ * n_local, granularity_, 0, 0));
    peer_base_.assign(p.n_pes, nullptr);
    for (size_t i = 0; i < n_local; ++i)
      peer_base_[p.local_pes[i]] = reinterpret_cast<char*>(reservation_ + i * slot_bytes_);
    return grow(p.initial_size, boot);
  }

  Status grow(uint64_t new_size, bootstrap::Bootstrap& boot) override {
    new_size = round_up(new_size);
    if (new_size <= size_) return GSHMEM_SUCCESS;
    bool ok = new_size <= slot_bytes_;
    if (!ok)
      GSHMEM_LOG_ERROR(
          "symmetric heap: cannot grow to %llu bytes: GSHMEM_SYMMETRIC_SIZE_MAX is %llu; "
          "raise it",
          (unsigned long long)new_size, (unsigned long long)slot_bytes_);
    const size_t delta = new_size - size_;
    Chunk mine{};
    int fd = -1;
    if (ok) ok = create_chunk(delta, &mine, &fd) == GSHMEM_SUCCESS;
    bool all_ok = false;
    GSHMEM_TRY(all_agree(boot, ok, &all_ok));
    if (!all_ok) return undo(mine, fd, {}, GSHMEM_ERROR_OUT_OF_MEMORY);

    std::vector<int> fds;
    Status st = exchange_fds(params_, boot, generation_++, fd, &fds);
    if (st != GSHMEM_SUCCESS) return undo(mine, fd, {}, st);
    std::vector<Chunk> mapped;
    ok = map_peers(fds, delta, &mapped) == GSHMEM_SUCCESS;
    for (int f : fds)
      if (f >= 0) close(f);
    GSHMEM_TRY(all_agree(boot, ok, &all_ok));
    if (!all_ok) return undo(mine, fd, mapped, GSHMEM_ERROR_CUDA);
    close(fd);
    chunks_.push_back(mine);
    chunks_.insert(chunks_.end(), mapped.begin(), mapped.end());
    size_ = new_size;
    return GSHMEM_SUCCESS;
  }

 private:
  size_t round_up(uint64_t v) const { return (v + granularity_ - 1) / granularity_ * granularity_; }

  CUmemAccessDesc access() const {
    CUmemAccessDesc a{};
    a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = params_.device;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return a;
  }

  // Physical memory for [size_, size_+bytes) of my own slot, mapped and exported.
  Status create_chunk(size_t bytes, Chunk* c, int* fd) {
    const cu::Api& api = cu::api();
    c->addr = reinterpret_cast<CUdeviceptr>(base()) + size_;
    c->bytes = bytes;
    CUresult r = api.MemCreate(&c->handle, bytes, &prop_, 0);
    if (r != CUDA_SUCCESS) {
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      GSHMEM_LOG_ERROR(
          "symmetric heap: cannot allocate %zu bytes of GPU memory on device %d (%s); "
          "%zu of %zu bytes free. Lower GSHMEM_SYMMETRIC_SIZE or free GPU memory.",
          bytes, params_.device, cu::error_string(r), free_b, total_b);
      c->bytes = 0;
      return GSHMEM_ERROR_OUT_OF_MEMORY;
    }
    CUmemAccessDesc a = access();
    GSHMEM_CU_TRY("heap grow", api.MemMap(c->addr, bytes, 0, c->handle, 0));
    GSHMEM_CU_TRY("heap grow", api.MemSetAccess(c->addr, bytes, &a, 1));
    GSHMEM_CU_TRY("heap grow",
                  api.MemExportToShareableHandle(fd, c->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    return GSHMEM_SUCCESS;
  }

  Status map_peers(const std::vector<int>& fds, size_t bytes, std::vector<Chunk>* mapped) {
    const cu::Api& api = cu::api();
    CUmemAccessDesc a = access();
    for (size_t i = 0; i < fds.size(); ++i) {
      const int pe = params_.local_pes[i];
      if (pe == my_pe_) continue;
      Chunk c{};
      c.addr = reinterpret_cast<CUdeviceptr>(peer_base_[pe]) + size_;
      c.bytes = bytes;
      GSHMEM_CU_TRY("heap: import peer memory",
                    api.MemImportFromShareableHandle(&c.handle, reinterpret_cast<void*>((intptr_t)fds[i]),
                                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
      CUresult r = api.MemMap(c.addr, bytes, 0, c.handle, 0);
      if (r == CUDA_SUCCESS) r = api.MemSetAccess(c.addr, bytes, &a, 1);
      if (r != CUDA_SUCCESS) {
        GSHMEM_LOG_ERROR(
            "heap: cannot map PE %d's memory into this GPU's address space (%s): the two "
            "GPUs need peer access (NVLink or PCIe P2P)",
            pe, cu::error_string(r));
        api.MemUnmap(c.addr, bytes);
        api.MemRelease(c.handle);
        return GSHMEM_ERROR_UNSUPPORTED;
      }
      mapped->push_back(c);
    }
    return GSHMEM_SUCCESS;
  }

  Status undo(Chunk& mine, int fd, const std::vector<Chunk>& mapped, Status st) {
    for (const Chunk& c : mapped) unmap(c);
    if (mine.bytes) unmap(mine);
    if (fd >= 0) close(fd);
    return st;
  }

  void unmap(const Chunk& c) {
    cu::api().MemUnmap(c.addr, c.bytes);
    cu::api().MemRelease(c.handle);
  }

  void release() {
    if (!reservation_) return;
    for (const Chunk& c : chunks_) unmap(c);
    chunks_.clear();
    cu::api().MemAddressFree(reservation_, slot_bytes_ * params_.local_pes.size());
    reservation_ = 0;
  }

  HeapParams params_;
  CUmemAllocationProp prop_{};
  size_t granularity_ = 2u << 20;
  size_t slot_bytes_ = 0;
  CUdeviceptr reservation_ = 0;
  std::vector<Chunk> chunks_;
  int generation_ = 0;
};

}  // namespace

Status create_vmm_heap(const HeapParams& params, bootstrap::Bootstrap& boot, std::unique_ptr<Heap>* out) {
  auto heap = std::make_unique<VmmHeap>();
  GSHMEM_TRY(heap->init(params, boot));
  *out = std::move(heap);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::mem

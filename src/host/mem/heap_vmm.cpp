// SPDX-License-Identifier: BSD-3-Clause
// Symmetric heap on CUDA VMM. One virtual reservation holds a slot of
// max_size bytes for every node-local PE (slot = local rank). Growing maps a
// new physical chunk at the end of each slot: every PE creates its chunk,
// exports it as a POSIX fd, the fds travel over Unix sockets, and each PE maps
// its peers' chunks into their slots. Virtual addresses never move, so device
// state needs no update when the heap grows beyond its size field.
//
// Registered user buffers (register_user) take ranges of the same slots: this PE's buffer is
// mapped into its own slot and, through its exported fd, into every local peer's view of it,
// at an offset RegionMap (regions.h) picks: a hole an earlier buffer left, or the top. So the
// mapped extent size_ holds chunks, live registrations and holes; growth maps its chunks from
// size_ up and never meets a registration, and unregistering the topmost range lowers size_.
#include <unistd.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <map>

#include "heap.h"
#include "host/core/driver.h"
#include "regions.h"

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
    ok = map_peers(fds, size_, delta, &mapped) == GSHMEM_SUCCESS;
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

  bool can_register() const override { return true; }

  Status register_user(uint64_t handle_value, uint64_t bytes, uint64_t align, const void* user,
                       bootstrap::Bootstrap& boot, uint64_t* offset) override {
    const char* call = "gshmemx_buffer_register_symmetric";
    const cu::Api& api = cu::api();
    const CUmemGenericAllocationHandle handle = handle_value;
    // The range is a whole number of granules, so that the top stays aligned for the chunks
    // growth maps there; the tail past `bytes` (if any) stays unmapped and belongs to no one.
    const uint64_t reserved = round_up(bytes);
    align = std::max<uint64_t>(align, granularity_);
    RegionMap::Placement at;
    // Every PE gets the same answer: the placement depends only on agreed state.
    if (!regions_.place(reserved, align, size_, slot_bytes_, &at)) {
      api.MemRelease(handle);
      GSHMEM_LOG_ERROR(
          "%s: no room for %llu more bytes in the symmetric heap's address range: the heap and "
          "the registered buffers use %llu of GSHMEM_SYMMETRIC_SIZE_MAX=%llu bytes. Returning "
          "NULL on every PE; raise GSHMEM_SYMMETRIC_SIZE_MAX (address space only: registered "
          "memory stays its owner's).",
          call, (unsigned long long)reserved, (unsigned long long)size_, (unsigned long long)slot_bytes_);
      return GSHMEM_ERROR_OUT_OF_MEMORY;
    }
    Chunk mine{handle, reinterpret_cast<CUdeviceptr>(base()) + at.offset, 0};
    int fd = -1;
    CUmemAccessDesc a = access();
    CUresult r = api.MemMap(mine.addr, bytes, 0, handle, 0);
    if (r == CUDA_SUCCESS) {
      mine.bytes = bytes;  // mapped: unmap() undoes it
      r = api.MemSetAccess(mine.addr, bytes, &a, 1);
    }
    // Only node-local peers need the fd (register.cpp checked the handle type for them).
    if (r == CUDA_SUCCESS && params_.local_pes.size() > 1)
      r = api.MemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (r != CUDA_SUCCESS)
      GSHMEM_LOG_ERROR(
          "%s: cannot map the buffer (%llu bytes) into the symmetric heap at offset %llu or "
          "export it for the node-local PEs: %s. Returning NULL on every PE; check that it is "
          "one cuMemCreate allocation of at least that size on this PE's GPU.",
          call, (unsigned long long)bytes, (unsigned long long)at.offset, cu::error_string(r));
    bool all_ok = false;
    Status st = all_agree(boot, r == CUDA_SUCCESS, &all_ok);
    if (st != GSHMEM_SUCCESS || !all_ok) {
      drop_mine(mine, fd);
      return st != GSHMEM_SUCCESS ? st : GSHMEM_ERROR_CUDA;
    }
    std::vector<int> fds;
    st = exchange_fds(params_, boot, generation_++, fd, &fds);
    if (st != GSHMEM_SUCCESS) {
      drop_mine(mine, fd);
      return st;
    }
    std::vector<Chunk> mapped;
    const bool ok = map_peers(fds, at.offset, bytes, &mapped) == GSHMEM_SUCCESS;
    for (int f : fds)
      if (f >= 0) close(f);
    st = all_agree(boot, ok, &all_ok);
    if (st != GSHMEM_SUCCESS || !all_ok) {
      for (const Chunk& c : mapped) unmap(c);
      drop_mine(mine, fd);
      return st != GSHMEM_SUCCESS ? st : GSHMEM_ERROR_UNSUPPORTED;
    }
    if (fd >= 0) close(fd);
    regions_.commit(at, reserved, size_);
    size_ = at.new_top;
    Registration reg{user, bytes, {mine}};
    reg.maps.insert(reg.maps.end(), mapped.begin(), mapped.end());
    registrations_[at.offset] = std::move(reg);
    *offset = at.offset;
    return GSHMEM_SUCCESS;
  }

  Status unregister_user(uint64_t offset) override {
    auto it = registrations_.find(offset);
    if (it == registrations_.end()) return GSHMEM_ERROR_INVALID_VALUE;
    for (const Chunk& c : it->second.maps) unmap(c);
    registrations_.erase(it);
    // A range at the top gives its address space back (and any holes below it that reach it).
    size_ = regions_.release(offset, size_);
    return GSHMEM_SUCCESS;
  }

  bool registration(uint64_t offset, uint64_t* bytes, const void** user) const override {
    auto it = registrations_.find(offset);
    if (it == registrations_.end()) return false;
    if (bytes) *bytes = it->second.bytes;
    if (user) *user = it->second.user;
    return true;
  }

  bool find_registration(const void* user, uint64_t* offset) const override {
    for (const auto& [off, reg] : registrations_)
      if (reg.user == user) {
        if (offset) *offset = off;
        return true;
      }
    return false;
  }

 private:
  // Undoes this PE's part of a registration that failed: its mapping (if made), the retained
  // handle and the exported fd.
  void drop_mine(const Chunk& mine, int fd) {
    if (mine.bytes) cu::api().MemUnmap(mine.addr, mine.bytes);
    cu::api().MemRelease(mine.handle);
    if (fd >= 0) close(fd);
  }

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

  // Maps each local peer's exported memory (fds[i] of local_pes[i]) at [offset, offset+bytes)
  // of that peer's slot.
  Status map_peers(const std::vector<int>& fds, uint64_t offset, size_t bytes, std::vector<Chunk>* mapped) {
    const cu::Api& api = cu::api();
    CUmemAccessDesc a = access();
    for (size_t i = 0; i < fds.size(); ++i) {
      const int pe = params_.local_pes[i];
      if (pe == my_pe_) continue;
      Chunk c{};
      c.addr = reinterpret_cast<CUdeviceptr>(peer_base_[pe]) + offset;
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
    // Buffers still registered at finalize: their users' memory stays theirs.
    for (const auto& [offset, reg] : registrations_)
      for (const Chunk& c : reg.maps) unmap(c);
    registrations_.clear();
    cu::api().MemAddressFree(reservation_, slot_bytes_ * params_.local_pes.size());
    reservation_ = 0;
  }

  // A registered buffer: its size as registered and its owner's address; maps[0] is this PE's
  // mapping (holding the retained handle), then the local peers' (imported handles).
  struct Registration {
    const void* user;
    uint64_t bytes;
    std::vector<Chunk> maps;
  };

  HeapParams params_;
  CUmemAllocationProp prop_{};
  size_t granularity_ = 2u << 20;
  size_t slot_bytes_ = 0;
  CUdeviceptr reservation_ = 0;
  std::vector<Chunk> chunks_;
  int generation_ = 0;  // of the fd exchanges (growth and registration): the same on every PE
  RegionMap regions_;
  std::map<uint64_t, Registration> registrations_;  // offset -> live registration
};

}  // namespace

Status create_vmm_heap(const HeapParams& params, bootstrap::Bootstrap& boot, std::unique_ptr<Heap>* out) {
  auto heap = std::make_unique<VmmHeap>();
  GSHMEM_TRY(heap->init(params, boot));
  *out = std::move(heap);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::mem

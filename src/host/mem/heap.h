// SPDX-License-Identifier: BSD-3-Clause
// The symmetric heap's memory: this PE's range plus every node-local peer's
// range mapped into this process, so that a symmetric address `a` on PE p is
// peer_base(p) + (a - base()). Two implementations:
//   heap_vmm.cpp  CUDA VMM: one reserved virtual range per node-local PE,
//                 physical chunks exported as POSIX fds over Unix sockets
//                 (heap_fd_exchange.cpp); grows collectively.
//   heap_ipc.cpp  cudaMalloc + CUDA IPC handles; fixed size.
// The heap hands out no blocks itself (that is mem::Allocator's job). The VMM heap also maps
// registered user buffers (gshmemx_buffer_register_symmetric, register.cpp) into its slots, next
// to its own chunks (regions.h: the layout); the allocator withholds their ranges.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/init_exchange.h"
#include "host/core/status.h"

namespace gshmem::mem {

struct HeapParams {
  int device = 0;  // CUDA ordinal of this PE's GPU
  int my_pe = 0;
  int n_pes = 1;
  std::vector<int> local_pes;  // world PEs on this node (including my_pe), by local rank
  uint64_t initial_size = 0;   // bytes (rounded up to the allocation granularity)
  uint64_t max_size = 0;       // bytes the heap may grow to
  uint64_t job_key = 0;        // names node-local rendezvous resources
};

class Heap {
 public:
  virtual ~Heap() = default;
  virtual const char* kind() const = 0;  // "cuda-vmm" or "cuda-ipc"
  char* base() const { return peer_base_[my_pe_]; }
  // The mapped extent [0, size) of every slot: heap chunks, registered buffers and the holes
  // unregistered ones left below the top (regions.h). The allocator's capacity equals it.
  uint64_t size() const { return size_; }
  uint64_t max_size() const { return max_size_; }
  // PE `pe`'s heap in this process's address space; nullptr if not on this node.
  char* peer_base(int pe) const { return peer_base_[pe]; }
  const std::vector<char*>& peer_bases() const { return peer_base_; }
  // Collective over all PEs: make at least new_size bytes usable on every
  // node-local PE. Every PE gets the same result; on failure nothing changes.
  virtual Status grow(uint64_t new_size, bootstrap::Bootstrap& boot) = 0;

  // ---- registered user buffers (gshmemx_buffer_register_symmetric); VMM heap only ----
  virtual bool can_register() const { return false; }
  // Collective over all PEs, with the same bytes and align on every PE (the caller agreed on
  // them): maps this PE's physical allocation `handle` (its first `bytes` bytes) at an offset
  // that is the same on every PE (aligned to align, a power of two), into this PE's slot and,
  // through an exported fd, into every node-local peer's view of this PE's slot. Takes over the
  // reference `handle` (a cuMemRetainAllocationHandle result): released on failure too. `user`
  // is the buffer's own address, remembered for find_registration. On failure nothing changes,
  // on every PE alike. size() may grow (never shrinks here).
  virtual Status register_user(uint64_t handle, uint64_t bytes, uint64_t align, const void* user,
                               bootstrap::Bootstrap& boot, uint64_t* offset);
  // Local (the caller agreed first and drained the GPU): unmaps the registration at `offset`
  // from every slot and releases this process's references to its memory, which stays its
  // owner's. size() drops when it was at the top.
  virtual Status unregister_user(uint64_t offset);
  // The live registration at `offset`: its registered size and its user address; false if none.
  virtual bool registration(uint64_t offset, uint64_t* bytes, const void** user) const;
  // The live registration of user address `user`; false if none.
  virtual bool find_registration(const void* user, uint64_t* offset) const;

 protected:
  int my_pe_ = 0;
  uint64_t size_ = 0;
  uint64_t max_size_ = 0;
  std::vector<char*> peer_base_;  // [n_pes]
};

// Picks VMM when the device supports it with POSIX fd handles and
// GSHMEM_DISABLE_VMM is not set; otherwise the IPC heap. Collective.
Status create_heap(const HeapParams& params, bootstrap::Bootstrap& boot, std::unique_ptr<Heap>* out);
Status create_vmm_heap(const HeapParams& params, bootstrap::Bootstrap& boot, std::unique_ptr<Heap>* out);
Status create_ipc_heap(const HeapParams& params, bootstrap::Bootstrap& boot, std::unique_ptr<Heap>* out);

// Node-local exchange of one file descriptor per PE over Unix-domain sockets
// (SCM_RIGHTS). Collective over all PEs (PEs with no local peer take part in
// the bootstrap barriers only). peer_fds[i] receives local_pes[i]'s fd (-1 for
// my own slot); the caller owns and closes them.
Status exchange_fds(const HeapParams& params, bootstrap::Bootstrap& boot, int generation, int my_fd,
                    std::vector<int>* peer_fds);
// The same, with `bytes` bytes of `blob` from each PE: peer_blobs (if given) receives
// local_pes[i]'s at offset i * bytes (zeros for my own slot). my_fd -1: no fds travel (every PE
// must pass -1 then; peer_fds stays -1). The IPC heap's handles go this way, so that they stay
// on their node.
Status exchange_local(const HeapParams& params, bootstrap::Bootstrap& boot, int generation, int my_fd, const void* blob,
                      size_t bytes, std::vector<int>* peer_fds, std::vector<uint8_t>* peer_blobs);

// All PEs agree: true only if `ok` is true on every PE (bootstrap/init_exchange.h).
using bootstrap::all_agree;

}  // namespace gshmem::mem

namespace gshmem {
// [p, p+bytes) lies in this PE's symmetric heap (rt().heap); with GSHMEM_DEBUG_CHECKS also
// inside a live allocation (check_live).
Status check_symmetric(const char* call, const void* p, size_t bytes);
// GSHMEM_DEBUG_CHECKS: [p, p+bytes), inside the heap, lies inside the bytes of one live allocation
// (mem::Allocator::classify): not in freed memory, not past the allocation's end. A registered
// buffer's range passes (the allocator withholds it). pe >= 0 is named in the message.
Status check_live(const char* call, int pe, const void* p, size_t bytes);

}  // namespace gshmem
